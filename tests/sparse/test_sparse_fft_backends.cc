/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Exact mode's cases that every backend must pass, written once and run on the CPU, on
// CUDA with host frames and on CUDA with device frames (sparse_variants.h): exactly
// sparse frames of every size kind against the FFTW double reference, frames that are
// not exactly sparse, the dense fallback, plan reuse and bad input. The CPU backend's
// own cases are in test_sparse_fft_cpu.cc, the GPU's (transfers, device-built frames,
// the GPU against the CPU) in test_sparse_fft_cuda.cc. Built twice:
// test_sparse_fft_backends_cpu and, with GPUFFT_TEST_ON_CUDA, the GPU-labelled
// test_sparse_fft_backends_cuda.

#include "sparse/sparse_variants.h"
#include <cstdio>
#include <limits>
#include <random>

using namespace gr::gpufft;
using namespace gpufft_test;

namespace {

sparse_fft_options exact_options(std::uint64_t seed = 0)
{
    sparse_fft_options o;
    o.mode = sparse_fft_mode::exact;
    o.seed = seed;
    return o;
}

//! The largest |a - b| over the largest |b|.
double max_rel_diff(const std::vector<cf>& a, const std::vector<cf>& b)
{
    double peak = 0, diff = 0;
    for (const auto& v : b)
        peak = std::max(peak, double(std::abs(v)));
    for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i)
        diff = std::max(diff, double(std::abs(a[i] - b[i])));
    return peak > 0 ? diff / peak : diff;
}

} // namespace

GPUFFT_SPARSE_TEST(power_of_two_sizes)
{
    for (int trial = 0; trial < 3; ++trial) {
        const std::uint64_t seed = fresh_seed();
        auto plan = v.plan(1 << 20, 50, exact_options(seed));
        GPUFFT_CHECK(!plan.dense_fallback());
        GPUFFT_CHECK(plan.backend() == (v.on_gpu() ? backend::cuda : backend::cpu));
        check_sparse(plan, 50, seed + 1, v.exec());
        check_sparse(plan, 50, seed + 2, v.exec()); // the same plan again (graph replay)
    }
    auto plan = v.plan(1 << 22, 300, exact_options());
    GPUFFT_CHECK(!plan.dense_fallback());
    std::printf("  %s: %s\n", v.name(), plan.describe().c_str());
    check_sparse(plan, 300, fresh_seed(), v.exec());
    check_sparse(plan, 200, fresh_seed(), v.exec());
}

GPUFFT_SPARSE_TEST(non_power_of_two_sizes)
{
    for (std::int64_t n : { std::int64_t(3) << 18, std::int64_t(1000000) }) {
        auto plan = v.plan(n, 50, exact_options());
        GPUFFT_CHECK(!plan.dense_fallback());
        std::printf("  %s: %s\n", v.name(), plan.describe().c_str());
        for (int trial = 0; trial < 3; ++trial)
            check_sparse(plan, trial == 2 ? 40 : 50, fresh_seed(), v.exec());
    }
}

GPUFFT_SPARSE_TEST(fewer_tones_than_k)
{
    // A signal sparser than k: every tone comes back, nothing else above float noise.
    auto plan = v.plan(1 << 20, 60, exact_options());
    check_sparse(plan, 9, fresh_seed(), v.exec());
}

GPUFFT_SPARSE_TEST(more_tones_than_k_gives_the_largest)
{
    // On the GPU the radix select must return the k largest.
    auto plan = v.plan(1 << 20, 50, exact_options());
    check_largest_k(plan, 64, fresh_seed(), v.exec());
}

GPUFFT_SPARSE_TEST(prime_size_falls_back_to_dense)
{
    // Prime: no bucket count divides it.
    for (const auto& [n, k] : { std::pair<std::int64_t, std::int64_t>{ 65537, 12 },
                                std::pair<std::int64_t, std::int64_t>{ 1000003, 20 } }) {
        auto plan = v.plan(n, k, exact_options());
        GPUFFT_CHECK(plan.dense_fallback());
        GPUFFT_CHECK(plan.describe().find("dense") != std::string::npos);
        check_sparse(plan, k, fresh_seed(), v.exec());
        check_sparse(plan, k, fresh_seed(), v.exec());
    }
}

GPUFFT_SPARSE_TEST(same_seed_same_answer)
{
    const std::uint64_t seed = fresh_seed();
    std::printf("  seed %llu\n", (unsigned long long)seed);
    const std::int64_t n = 1 << 20;
    const auto truth = sparse_bins(n, 30, seed);
    const auto x = sparse_signal(n, truth, seed);
    auto a = v.plan(n, 30, exact_options(1234));
    auto b = v.plan(n, 30, exact_options(1234));
    GPUFFT_CHECK_EQ(a.describe(), b.describe());
    std::vector<std::int64_t> ba, bb;
    std::vector<cf> va, vb;
    v.execute(a, x, ba, va);
    v.execute(b, x, bb, vb);
    GPUFFT_CHECK(ba == bb);
    GPUFFT_CHECK_EQ(va.size(), vb.size());
    GPUFFT_CHECK_LE(max_rel_diff(va, vb), v.repeat_tolerance());
    // And execute twice on one plan: no state leaks from call to call.
    v.execute(a, x, ba, va);
    GPUFFT_CHECK(ba == bb);
    GPUFFT_CHECK_LE(max_rel_diff(va, vb), v.repeat_tolerance());
}

GPUFFT_SPARSE_TEST(forced_dense_matches)
{
    sparse_fft_options o = exact_options();
    o.force_dense = true;
    auto plan = v.plan(1 << 16, 20, o);
    GPUFFT_CHECK(plan.dense_fallback());
    check_sparse(plan, 20, fresh_seed(), v.exec());
}

GPUFFT_SPARSE_TEST(overrides_are_used)
{
    sparse_fft_options o = exact_options();
    o.buckets = 512;
    o.loops = 5;
    auto plan = v.plan(1 << 20, 50, o);
    GPUFFT_CHECK(plan.describe().find("B=512 loops=5") != std::string::npos);
    check_sparse(plan, 50, fresh_seed(), v.exec());
}

GPUFFT_SPARSE_TEST(many_tones_few_frequencies_per_bucket)
{
    // n / B = 512 (what the CUDA cost model picks for n = 2^20, k = 1000): the location
    // offsets exceed n and wrap; the answer must not care.
    sparse_fft_options o = exact_options();
    o.buckets = 2048;
    auto plan = v.plan(1 << 20, 1000, o);
    GPUFFT_CHECK(!plan.dense_fallback());
    check_sparse(plan, 1000, fresh_seed(), v.exec());
}

namespace {

// Voting location against the dense reference (inside check_sparse) and against the
// phase location with the same permutations, on the same signal. The loops override
// keeps small n on the sparse path (the cost model would send them dense).
void check_voting(const sparse_variant& v,
                  std::int64_t n,
                  std::int64_t k,
                  std::int64_t tones)
{
    const std::uint64_t seed = fresh_seed();
    sparse_fft_options o = exact_options(seed);
    o.loops = 4;
    auto phase = v.plan(n, k, o);
    o.location = sparse_fft_location::voting;
    auto voting = v.plan(n, k, o);
    GPUFFT_CHECK(!voting.dense_fallback());
    GPUFFT_CHECK(voting.describe().find("location=voting") != std::string::npos);
    GPUFFT_CHECK(phase.describe().find("location=phase") != std::string::npos);
    std::vector<cf> x;
    check_sparse(voting, tones, seed + 1, v.exec(), &x);

    // Again on the same plan (the vote maps must come back clear), then the phase path.
    std::vector<std::int64_t> bv, bp;
    std::vector<cf> vv, vp;
    v.execute(voting, x, bv, vv);
    v.execute(phase, x, bp, vp);
    GPUFFT_CHECK(bv == bp);
    GPUFFT_CHECK_EQ(bv.size(), std::size_t(tones));
    GPUFFT_CHECK_LE(max_rel_diff(vv, vp), 1e-5);
}

} // namespace

GPUFFT_SPARSE_TEST(voting_matches_phase_and_reference)
{
    check_voting(v, 1 << 16, 10, 10);
    check_voting(v, 1 << 18, 30, 30);
    check_voting(v, 1 << 20, 50, 50);
    check_voting(v, std::int64_t(3) << 14, 20, 20);
    check_voting(v, 1 << 20, 60, 9); // sparser than k
}

// Frames that are not exactly sparse (docs/sparse_fft.md, "Frames that are not exactly
// sparse"): exact mode flags them and returns only coefficients that are there.

GPUFFT_SPARSE_TEST(off_grid_tone_is_flagged)
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
            auto plan = v.plan(n, k, exact_options(seed));
            std::printf("  seed %llu, tone at %.4f, k %lld\n",
                        (unsigned long long)seed,
                        f0,
                        (long long)k);
            check_not_sparse(plan, x, "off-grid tone", f0, 3.0, 2e-2, v.exec());
        }
    }
}

GPUFFT_SPARSE_TEST(white_noise_is_flagged)
{
    const std::uint64_t seed = fresh_seed();
    std::printf("  seed %llu\n", (unsigned long long)seed);
    const std::int64_t n = 1 << 20;
    const auto x = white_noise(n, 1.0, seed);
    auto plan = v.plan(n, 50, exact_options(seed));
    check_not_sparse(plan, x, "white noise", -1, 0, 2e-2, v.exec());
    check_not_sparse(plan, x, "white noise, again", -1, 0, 2e-2, v.exec());
    auto few = v.plan(n, 5, exact_options(seed + 1));
    check_not_sparse(few, x, "white noise, k 5", -1, 0, 2e-2, v.exec());
}

GPUFFT_SPARSE_TEST(noisy_sparse_frame_is_flagged)
{
    // 50 tones in white noise 40 dB below them (the whole frame's power): the tones
    // that still come back must be genuine, with values to 2%.
    const std::uint64_t seed = fresh_seed();
    std::printf("  seed %llu\n", (unsigned long long)seed);
    const std::int64_t n = 1 << 20;
    auto x = sparse_signal(n, sparse_bins(n, 50, seed), seed);
    double power = 0;
    for (const auto& s : x)
        power += std::norm(s);
    const auto noise = white_noise(n, 1e-4 * power / double(n), seed + 7);
    for (std::int64_t t = 0; t < n; ++t)
        x[t] += noise[t];
    auto plan = v.plan(n, 50, exact_options(seed));
    check_not_sparse(plan, x, "50 tones + noise at 40 dB", -1, 0, 2e-2, v.exec());
}

GPUFFT_SPARSE_TEST(exact_tones_plus_weak_off_grid_tone)
{
    // 20 on-grid tones and one weak tone between bins, -48 dB: the frame is flagged, and
    // every on-grid tone still comes back with its value.
    const std::int64_t n = 1 << 20;
    for (int trial = 0; trial < 3; ++trial) {
        const std::uint64_t seed = fresh_seed();
        const auto w = make_weak_tone_frame(n, 20, 4e-3, seed);
        std::printf(
            "  seed %llu, weak tone at %.4f\n", (unsigned long long)seed, w.weak_bin);
        auto plan = v.plan(n, 32, exact_options(seed));
        check_weak_tone(plan, w, v.exec());
        // The same plan on the frame without the weak tone: not flagged, exact values.
        check_sparse(plan, 20, seed, v.exec());
    }
}

GPUFFT_SPARSE_TEST(voting_obeys_the_residual_check)
{
    // The voting location returns the same answer as the phase location on frames that
    // are not exactly sparse too: the same rule after the same values.
    const std::int64_t n = 1 << 20;
    const std::uint64_t seed = fresh_seed();
    std::printf("  seed %llu\n", (unsigned long long)seed);
    sparse_fft_options o = exact_options(seed);
    o.loops = 4;
    auto phase = v.plan(n, 32, o);
    o.location = sparse_fft_location::voting;
    auto voting = v.plan(n, 32, o);
    const auto w = make_weak_tone_frame(n, 20, 4e-3, seed);
    const auto a = check_weak_tone(voting, w, v.exec());
    const auto b = check_weak_tone(phase, w, v.exec());
    GPUFFT_CHECK(a.bins == b.bins);

    std::vector<cf> x(n, cf(0, 0));
    add_tone(x, double(n / 3) + 0.5, cd(1, 0));
    check_not_sparse(
        voting, x, "off-grid tone, voting", double(n / 3) + 0.5, 3.0, 2e-2, v.exec());
    check_not_sparse(
        voting, white_noise(n, 1.0, seed), "white noise, voting", -1, 0, 2e-2, v.exec());
    check_sparse(voting, 20, seed + 1, v.exec()); // and clean again
}

GPUFFT_SPARSE_TEST(dense_fallback_flags_what_it_cannot_explain)
{
    // The dense path returns the exact top k of a dense FFT whatever the frame holds;
    // like the sparse path it flags a frame whose energy outside those k exceeds 1e-8
    // of the total (docs/sparse_fft.md), and not an exactly sparse one, with k or fewer
    // coefficients. Forced at 2^16, and at a prime n (on the GPU the energy outside the
    // top k is summed on the device).
    const std::uint64_t seed = fresh_seed();
    std::printf("  seed=%llu\n", (unsigned long long)seed);
    struct size_case {
        std::int64_t n, k;
        bool force;
        std::vector<std::int64_t> tones;
    };
    for (const auto& c : { size_case{ 1 << 16, 10, true, { 10, 4 } },
                           size_case{ 1000003, 20, false, { 12 } } }) {
        sparse_fft_options o = exact_options();
        o.force_dense = c.force;
        auto plan = v.plan(c.n, c.k, o);
        GPUFFT_CHECK(plan.dense_fallback());
        std::vector<std::int64_t> bins;
        std::vector<cf> values;
        v.execute(plan, white_noise(c.n, 1.0, seed), bins, values);
        GPUFFT_CHECK(plan.not_sparse());
        GPUFFT_CHECK_EQ(bins.size(), std::size_t(c.k));
        for (const std::int64_t tones : c.tones) {
            const auto x =
                sparse_signal(c.n, sparse_bins(c.n, tones, seed + tones), seed);
            v.execute(plan, x, bins, values);
            GPUFFT_CHECK(!plan.not_sparse());
            GPUFFT_CHECK_EQ(bins.size(), std::size_t(c.k));
        }
    }
}

GPUFFT_SPARSE_TEST(bad_input_is_rejected)
{
    const auto o = exact_options();
    GPUFFT_CHECK_THROWS(v.plan(1 << 20, 0, o), std::invalid_argument, "k");
    GPUFFT_CHECK_THROWS(v.plan(1 << 20, -3, o), std::invalid_argument, "k");
    GPUFFT_CHECK_THROWS(v.plan(1 << 20, 1 << 20, o), std::invalid_argument, "k");
    GPUFFT_CHECK_THROWS(v.plan(8, 2, o), std::invalid_argument, "n");
    sparse_fft_options r = o;
    r.mode = static_cast<sparse_fft_mode>(5);
    GPUFFT_CHECK_THROWS(v.plan(1 << 20, 10, r), std::invalid_argument, "mode");
    sparse_fft_options few = o;
    few.buckets = 8; // fewer buckets than k cannot isolate the coefficients
    GPUFFT_CHECK_THROWS(v.plan(1 << 20, 20, few), std::invalid_argument, "buckets");
    sparse_fft_options narrow = o;
    narrow.filter_width = 1; // far below the filter's 8 sigma
    GPUFFT_CHECK_THROWS(
        v.plan(1 << 20, 5, narrow), std::invalid_argument, "filter_width");
    sparse_fft_options b = o;
    b.buckets = 1000; // does not divide 2^20
    GPUFFT_CHECK_THROWS(v.plan(1 << 20, 10, b), std::invalid_argument, "buckets");
    sparse_fft_options l = o;
    l.loops = -1;
    GPUFFT_CHECK_THROWS(v.plan(1 << 20, 10, l), std::invalid_argument, "loops");
    sparse_fft_options loc = o;
    loc.location = static_cast<sparse_fft_location>(7);
    GPUFFT_CHECK_THROWS(v.plan(1 << 20, 10, loc), std::invalid_argument, "location");

    // Non-finite samples: poison every other sample, so whichever ones the plan reads
    // hold NaN; then every sample Inf (on the GPU: through the gather or the copy).
    const std::int64_t n = 1 << 20;
    const std::uint64_t seed = fresh_seed();
    std::printf("  seed %llu\n", (unsigned long long)seed);
    std::vector<cf> x = sparse_signal(n, sparse_bins(n, 10, seed), seed);
    for (std::size_t i = 0; i < x.size(); i += 2)
        x[i] = cf(std::numeric_limits<float>::quiet_NaN(), 0.f);
    auto plan = v.plan(n, 10, o);
    std::vector<std::int64_t> bins;
    std::vector<cf> values;
    GPUFFT_CHECK_THROWS(v.execute(plan, x, bins, values), std::invalid_argument, "x");
    for (auto& s : x)
        s = cf(std::numeric_limits<float>::infinity(), 1.f);
    GPUFFT_CHECK_THROWS(v.execute(plan, x, bins, values), std::invalid_argument, "x");
    GPUFFT_CHECK_THROWS(
        plan.execute(nullptr, bins, values, v.where()), std::invalid_argument, "x");
    // The plan still works after a rejected frame.
    check_sparse(plan, 10, seed + 1, v.exec());
}

// Exact mode counts frames and redoes none (the self-check is robust mode's).
GPUFFT_SPARSE_TEST(stats_count_frames)
{
    const std::int64_t n = 4096;
    std::vector<cf> x(n, cf(0, 0));
    x[7] = 1;
    auto plan = v.plan(n, 4, exact_options());
    std::vector<std::int64_t> bins;
    std::vector<cf> values;
    v.execute(plan, x, bins, values);
    v.execute(plan, x, bins, values);
    GPUFFT_CHECK(plan.stats().frames == 2 && plan.stats().redone_dense == 0);
}

#ifndef GPUFFT_TEST_ON_CUDA
// The harness itself, where no GPU is needed: the CUDA variants' options lead the CUDA
// planner to the CPU planner's path and bucket count, in both modes, at sizes where the
// two cost models part (robust mode at 2^16 and 2^20, exact mode at 2^16).
GPUFFT_TEST(cuda_variants_take_the_cpu_planners_path)
{
    using gr::gpufft::detail::choose_sparse_params;
    const sparse_variant gpu{ sparse_way::cuda_host };
    struct size_case {
        std::int64_t n, k;
        sparse_fft_mode mode;
        double min_snr_db;
    };
    int parted = 0;
    for (const auto& c : { size_case{ 1 << 16, 20, sparse_fft_mode::robust, 20 },
                           size_case{ 1 << 16, 4, sparse_fft_mode::robust, 55 },
                           size_case{ 1 << 20, 20, sparse_fft_mode::robust, 55 },
                           size_case{ 3 << 18, 10, sparse_fft_mode::robust, 56 },
                           size_case{ 1 << 16, 10, sparse_fft_mode::exact, 0 },
                           size_case{ 1 << 20, 50, sparse_fft_mode::exact, 0 },
                           size_case{ 1000003, 20, sparse_fft_mode::exact, 0 } }) {
        sparse_fft_options o;
        o.mode = c.mode;
        o.min_snr_db = c.min_snr_db;
        o.seed = 99;
        const auto cpu = choose_sparse_params(c.n, c.k, o, backend::cpu);
        const auto cuda = choose_sparse_params(c.n, c.k, o, backend::cuda);
        const auto o2 = gpu.options(c.n, c.k, o);
        GPUFFT_CHECK(o2.backend == backend::cuda);
        const auto pinned = choose_sparse_params(c.n, c.k, o2, backend::cuda);
        std::printf("  n %lld k %lld: cpu %s, cuda %s, cuda variant %s\n",
                    (long long)c.n,
                    (long long)c.k,
                    cpu.dense ? "dense" : "sparse",
                    cuda.dense ? "dense" : "sparse",
                    pinned.dense ? "dense" : "sparse");
        parted += cpu.dense != cuda.dense ? 1 : 0;
        GPUFFT_CHECK_EQ(pinned.dense, cpu.dense);
        if (!cpu.dense) {
            GPUFFT_CHECK_EQ(pinned.c.B, cpu.c.B);
            GPUFFT_CHECK_EQ(pinned.c.loops, cpu.c.loops);
            GPUFFT_CHECK_EQ(pinned.window, cpu.window);
            GPUFFT_CHECK(pinned.sigma == cpu.sigma && pinned.tau == cpu.tau);
        }
    }
    GPUFFT_CHECK(parted > 0); // else this checks nothing
}
#endif

GPUFFT_TEST_MAIN()
