/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "sparse_checks.h"
#include <gnuradio/gpufft/device.h>
#include <cstdio>
#include <limits>
#include <random>

using namespace gr::gpufft;
using namespace gpufft_test;

namespace {

sparse_fft_options cpu_options(std::uint64_t seed = 0)
{
    sparse_fft_options o;
    o.mode = sparse_fft_mode::exact;
    o.backend = backend::cpu;
    o.seed = seed;
    return o;
}

} // namespace

GPUFFT_TEST(power_of_two_sizes)
{
    for (int trial = 0; trial < 3; ++trial) {
        const std::uint64_t seed = fresh_seed();
        sparse_fft_plan plan(1 << 20, 50, cpu_options(seed));
        GPUFFT_CHECK(!plan.dense_fallback());
        GPUFFT_CHECK(plan.backend() == backend::cpu);
        check_sparse(plan, 50, seed + 1);
    }
    sparse_fft_plan plan(1 << 22, 200, cpu_options());
    GPUFFT_CHECK(!plan.dense_fallback());
    check_sparse(plan, 200, fresh_seed());
}

GPUFFT_TEST(non_power_of_two_sizes)
{
    for (std::int64_t n : { std::int64_t(3) << 18, std::int64_t(1000000) }) {
        sparse_fft_plan plan(n, 40, cpu_options());
        GPUFFT_CHECK(!plan.dense_fallback());
        check_sparse(plan, 40, fresh_seed());
    }
}

GPUFFT_TEST(fewer_tones_than_k)
{
    // A signal sparser than k: every tone comes back, nothing else above float noise.
    sparse_fft_plan plan(1 << 20, 60, cpu_options());
    check_sparse(plan, 9, fresh_seed());
}

GPUFFT_TEST(more_tones_than_k_gives_the_largest)
{
    sparse_fft_plan plan(1 << 20, 50, cpu_options());
    check_largest_k(plan, 64, fresh_seed());
}

GPUFFT_TEST(prime_size_falls_back_to_dense)
{
    const std::int64_t n = 65537; // prime: no bucket count divides it
    sparse_fft_plan plan(n, 12, cpu_options());
    GPUFFT_CHECK(plan.dense_fallback());
    GPUFFT_CHECK(plan.describe().find("dense") != std::string::npos);
    check_sparse(plan, 12, fresh_seed());
}

GPUFFT_TEST(same_seed_same_answer)
{
    const std::uint64_t seed = fresh_seed();
    const std::int64_t n = 1 << 20;
    const auto truth = sparse_bins(n, 30, seed);
    const auto x = sparse_signal(n, truth, seed);
    sparse_fft_plan a(n, 30, cpu_options(1234)), b(n, 30, cpu_options(1234));
    GPUFFT_CHECK_EQ(a.describe(), b.describe());
    std::vector<std::int64_t> ba, bb;
    std::vector<cf> va, vb;
    a.execute(x.data(), ba, va);
    b.execute(x.data(), bb, vb);
    GPUFFT_CHECK(ba == bb);
    GPUFFT_CHECK(va == vb);
    // And execute twice on one plan: no state leaks from call to call.
    a.execute(x.data(), ba, va);
    GPUFFT_CHECK(ba == bb);
    GPUFFT_CHECK(va == vb);
}

GPUFFT_TEST(forced_dense_matches)
{
    sparse_fft_options o = cpu_options();
    o.force_dense = true;
    sparse_fft_plan plan(1 << 16, 20, o);
    GPUFFT_CHECK(plan.dense_fallback());
    check_sparse(plan, 20, fresh_seed());
}

GPUFFT_TEST(overrides_are_used)
{
    sparse_fft_options o = cpu_options();
    o.buckets = 512;
    o.loops = 5;
    sparse_fft_plan plan(1 << 20, 50, o);
    GPUFFT_CHECK(plan.describe().find("B=512 loops=5") != std::string::npos);
    check_sparse(plan, 50, fresh_seed());
}

GPUFFT_TEST(many_tones_few_frequencies_per_bucket)
{
    // n / B = 512 (what the CUDA cost model picks for n = 2^20, k = 1000): the location
    // offsets exceed n and wrap; the answer must not care.
    sparse_fft_options o = cpu_options();
    o.buckets = 2048;
    sparse_fft_plan plan(1 << 20, 1000, o);
    GPUFFT_CHECK(!plan.dense_fallback());
    check_sparse(plan, 1000, fresh_seed());
}

// Voting location against the dense reference (inside check_sparse) and against the
// phase location with the same permutations, on the same signal. The loops override
// keeps small n on the sparse path (the cost model would send them dense).
void check_voting(std::int64_t n, std::int64_t k, std::int64_t tones)
{
    const std::uint64_t seed = fresh_seed();
    sparse_fft_options o = cpu_options(seed);
    o.loops = 4;
    sparse_fft_plan phase(n, k, o);
    o.location = sparse_fft_location::voting;
    sparse_fft_plan voting(n, k, o);
    GPUFFT_CHECK(!voting.dense_fallback());
    GPUFFT_CHECK(voting.describe().find("location=voting") != std::string::npos);
    GPUFFT_CHECK(phase.describe().find("location=phase") != std::string::npos);
    std::vector<cf> x;
    check_sparse(voting, tones, seed + 1, memory::host, nullptr, &x);

    // Again on the same plan (the vote maps must come back clear), then the phase path.
    std::vector<std::int64_t> bv, bp;
    std::vector<cf> vv, vp;
    voting.execute(x.data(), bv, vv);
    phase.execute(x.data(), bp, vp);
    GPUFFT_CHECK(bv == bp);
    GPUFFT_CHECK_EQ(bv.size(), std::size_t(tones));
    double peak = 0, err = 0;
    for (const auto& v : vp)
        peak = std::max(peak, double(std::abs(v)));
    for (std::size_t i = 0; i < std::min(vv.size(), vp.size()); ++i)
        err = std::max(err, double(std::abs(vv[i] - vp[i])) / peak);
    GPUFFT_CHECK_LE(err, 1e-5);
}

GPUFFT_TEST(voting_matches_phase_and_reference)
{
    check_voting(1 << 16, 10, 10);
    check_voting(1 << 18, 30, 30);
    check_voting(1 << 20, 50, 50);
    check_voting(std::int64_t(3) << 14, 20, 20);
    check_voting(1 << 20, 60, 9); // sparser than k
}

// Frames that are not exactly sparse (docs/sparse_fft.md, "Frames that are not exactly
// sparse"): exact mode flags them and returns only coefficients that are there.

GPUFFT_TEST(off_grid_tone_is_flagged)
{
    // A tone between bins leaks into every bin; before the residual check exact mode
    // decoded its permuted images into far phantom bins.
    for (std::int64_t k : { 5, 50 }) {
        for (int trial = 0; trial < 4; ++trial) {
            const std::uint64_t seed = fresh_seed();
            std::mt19937_64 rng(seed);
            std::uniform_real_distribution<double> u(0, 1);
            const std::int64_t n = 1 << 20;
            const double f0 = std::floor(u(rng) * n) + 0.01 + 0.98 * u(rng);
            std::vector<cf> x(n, cf(0, 0));
            add_tone(x, f0, cd(1, 0)); // 0 dBFS
            sparse_fft_plan plan(n, k, cpu_options(seed));
            std::printf("  seed %llu, tone at %.4f, k %lld\n",
                        (unsigned long long)seed,
                        f0,
                        (long long)k);
            check_not_sparse(plan, x, "off-grid tone", f0, 3.0);
        }
    }
}

GPUFFT_TEST(white_noise_is_flagged)
{
    const std::uint64_t seed = fresh_seed();
    std::printf("  seed %llu\n", (unsigned long long)seed);
    const std::int64_t n = 1 << 20;
    const auto x = white_noise(n, 1.0, seed);
    sparse_fft_plan plan(n, 50, cpu_options(seed));
    check_not_sparse(plan, x, "white noise");
    sparse_fft_plan few(n, 5, cpu_options(seed + 1));
    check_not_sparse(few, x, "white noise, k 5");
}

GPUFFT_TEST(noisy_sparse_frame_is_flagged)
{
    // 50 tones in white noise 40 dB below them (the whole frame's power): the tones
    // that still come back must be genuine, with values to 2%.
    const std::uint64_t seed = fresh_seed();
    std::printf("  seed %llu\n", (unsigned long long)seed);
    const std::int64_t n = 1 << 20;
    auto x = sparse_signal(n, sparse_bins(n, 50, seed), seed);
    double power = 0;
    for (const auto& v : x)
        power += std::norm(v);
    const auto noise = white_noise(n, 1e-4 * power / double(n), seed + 7);
    for (std::int64_t t = 0; t < n; ++t)
        x[t] += noise[t];
    sparse_fft_plan plan(n, 50, cpu_options(seed));
    check_not_sparse(plan, x, "50 tones + noise at 40 dB");
}

GPUFFT_TEST(exact_tones_plus_weak_off_grid_tone)
{
    // 20 on-grid tones and one weak tone between bins, -48 dB: the frame is flagged, and
    // every on-grid tone still comes back with its value.
    const std::int64_t n = 1 << 20;
    for (int trial = 0; trial < 3; ++trial) {
        const std::uint64_t seed = fresh_seed();
        const auto w = make_weak_tone_frame(n, 20, 4e-3, seed);
        std::printf(
            "  seed %llu, weak tone at %.4f\n", (unsigned long long)seed, w.weak_bin);
        sparse_fft_plan plan(n, 32, cpu_options(seed));
        check_weak_tone(plan, w);
        // The same plan on the frame without the weak tone: not flagged, exact values.
        check_sparse(plan, 20, seed);
    }
}

GPUFFT_TEST(voting_obeys_the_residual_check)
{
    // The voting location returns the same answer as the phase location on frames that
    // are not exactly sparse too: the same rule after the same values.
    const std::int64_t n = 1 << 20;
    const std::uint64_t seed = fresh_seed();
    std::printf("  seed %llu\n", (unsigned long long)seed);
    sparse_fft_options o = cpu_options(seed);
    o.loops = 4;
    sparse_fft_plan phase(n, 32, o);
    o.location = sparse_fft_location::voting;
    sparse_fft_plan voting(n, 32, o);
    const auto w = make_weak_tone_frame(n, 20, 4e-3, seed);
    const auto a = check_weak_tone(voting, w);
    const auto b = check_weak_tone(phase, w);
    GPUFFT_CHECK(a.bins == b.bins);

    std::vector<cf> x(n, cf(0, 0));
    add_tone(x, double(n / 3) + 0.5, cd(1, 0));
    check_not_sparse(voting, x, "off-grid tone, voting", double(n / 3) + 0.5, 3.0);
    check_not_sparse(voting, white_noise(n, 1.0, seed), "white noise, voting");
    check_sparse(voting, 20, seed + 1); // and clean again
}

GPUFFT_TEST(dense_fallback_flags_what_it_cannot_explain)
{
    // The dense path returns the exact top k of a dense FFT whatever the frame holds;
    // like the sparse path it flags a frame whose energy outside those k exceeds 1e-8
    // of the total (docs/sparse_fft.md), and not an exactly sparse one, with k or fewer
    // coefficients.
    sparse_fft_options o = cpu_options();
    o.force_dense = true;
    const std::int64_t n = 1 << 16;
    sparse_fft_plan plan(n, 10, o);
    std::vector<std::int64_t> bins;
    std::vector<cf> values;
    const std::uint64_t seed = fresh_seed();
    std::printf("  seed=%llu\n", (unsigned long long)seed);
    const auto noise = white_noise(n, 1.0, seed);
    plan.execute(noise.data(), bins, values);
    GPUFFT_CHECK(plan.not_sparse());
    GPUFFT_CHECK_EQ(bins.size(), std::size_t(10));
    for (const std::int64_t tones : { 10, 4 }) {
        const auto x = sparse_signal(n, sparse_bins(n, tones, seed + tones), seed);
        plan.execute(x.data(), bins, values);
        GPUFFT_CHECK(!plan.not_sparse());
        GPUFFT_CHECK_EQ(bins.size(), std::size_t(10));
    }
}

GPUFFT_TEST(bad_input_is_rejected)
{
    const auto o = cpu_options();
    GPUFFT_CHECK_THROWS(sparse_fft_plan(1 << 20, 0, o), std::invalid_argument, "k");
    GPUFFT_CHECK_THROWS(sparse_fft_plan(1 << 20, -3, o), std::invalid_argument, "k");
    GPUFFT_CHECK_THROWS(sparse_fft_plan(1 << 20, 1 << 20, o), std::invalid_argument, "k");
    GPUFFT_CHECK_THROWS(sparse_fft_plan(8, 2, o), std::invalid_argument, "n");
    sparse_fft_options r = o;
    r.mode = static_cast<sparse_fft_mode>(5);
    GPUFFT_CHECK_THROWS(sparse_fft_plan(1 << 20, 10, r), std::invalid_argument, "mode");
    sparse_fft_options few = o;
    few.buckets = 8; // fewer buckets than k cannot isolate the coefficients
    GPUFFT_CHECK_THROWS(
        sparse_fft_plan(1 << 20, 20, few), std::invalid_argument, "buckets");
    sparse_fft_options narrow = o;
    narrow.filter_width = 1; // far below the filter's 8 sigma
    GPUFFT_CHECK_THROWS(
        sparse_fft_plan(1 << 20, 5, narrow), std::invalid_argument, "filter_width");
    sparse_fft_options b = o;
    b.buckets = 1000; // does not divide 2^20
    GPUFFT_CHECK_THROWS(
        sparse_fft_plan(1 << 20, 10, b), std::invalid_argument, "buckets");
    sparse_fft_options l = o;
    l.loops = -1;
    GPUFFT_CHECK_THROWS(sparse_fft_plan(1 << 20, 10, l), std::invalid_argument, "loops");
    sparse_fft_options v = o;
    v.location = static_cast<sparse_fft_location>(7);
    GPUFFT_CHECK_THROWS(
        sparse_fft_plan(1 << 20, 10, v), std::invalid_argument, "location");

    // Non-finite samples: poison every sample, so whichever ones the plan reads are NaN.
    const std::int64_t n = 1 << 20;
    std::vector<cf> x = sparse_signal(n, sparse_bins(n, 10, 7), 7);
    for (std::size_t i = 0; i < x.size(); i += 2)
        x[i] = cf(std::numeric_limits<float>::quiet_NaN(), 0.f);
    sparse_fft_plan plan(n, 10, o);
    std::vector<std::int64_t> bins;
    std::vector<cf> values;
    GPUFFT_CHECK_THROWS(plan.execute(x.data(), bins, values), std::invalid_argument, "x");
    for (auto& v : x)
        v = cf(std::numeric_limits<float>::infinity(), 1.f);
    GPUFFT_CHECK_THROWS(plan.execute(x.data(), bins, values), std::invalid_argument, "x");
    GPUFFT_CHECK_THROWS(plan.execute(nullptr, bins, values), std::invalid_argument, "x");
    GPUFFT_CHECK_THROWS(plan.execute(x.data(), bins, values, memory::device),
                        std::invalid_argument,
                        "where");
}

GPUFFT_TEST(unusable_device_is_reported)
{
    sparse_fft_options o;
    o.mode = sparse_fft_mode::exact;
    o.backend = backend::cuda;
    if (cuda_device_count() == 0) {
        GPUFFT_CHECK_THROWS(
            sparse_fft_plan(1 << 20, 10, o), std::runtime_error, "backend");
    } else {
        o.device_id = cuda_device_count() + 3;
        GPUFFT_CHECK_THROWS(
            sparse_fft_plan(1 << 20, 10, o), std::invalid_argument, "device");
    }
}

GPUFFT_TEST_MAIN()
