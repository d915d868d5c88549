/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Robust mode on the CPU backend: tones at random fractional bins in white noise at
// stated SNRs, fewer tones than k, pure noise, zeros, n not a power of two, both the
// sparse path and the dense FFT + threshold path, and bad parameters.

#include "sparse/robust_checks.h"
#include <limits>

using namespace gr::gpufft;
using namespace gpufft_test;

namespace {

// A check that allows no false tone runs at no_false_tone: over the frames of this
// test a noise peak is then a ~1e-5 event (the default 0.01 made one a few % a run).
constexpr double no_false_tone = 1e-6;

sparse_fft_options
robust_options(double min_snr_db, std::uint64_t seed = 0, double false_alarm = 0.01)
{
    sparse_fft_options o;
    o.backend = backend::cpu;
    o.mode = sparse_fft_mode::robust;
    o.min_snr_db = min_snr_db;
    o.false_alarm = false_alarm;
    o.seed = seed;
    return o;
}

// Every tone back once, SNR within 1.5 dB, no false tone, frequency and amplitude as
// close as the path's noise allows.
void check_tones(std::int64_t n,
                 std::int64_t k,
                 int tones,
                 bool off_grid,
                 double per_bin_snr_db,
                 double min_snr_db,
                 bool want_sparse)
{
    const std::uint64_t seed = fresh_seed();
    tone_truth t;
    const auto x = noisy_tones(n, tones, off_grid, per_bin_snr_db, 0.0, seed, t);
    sparse_fft_plan plan(n, k, robust_options(min_snr_db, seed, no_false_tone));
    std::printf("  %s\n", plan.describe().c_str());
    GPUFFT_CHECK_EQ(plan.dense_fallback(), !want_sparse);
    std::vector<sparse_tone> got;
    plan.detect(x.data(), got);
    const tone_score s = score_tones(n, t, got);
    print_score(off_grid ? "off-grid" : "on-grid", seed, s);
    GPUFFT_CHECK_EQ(s.missed, 0);
    GPUFFT_CHECK_EQ(s.false_tones, 0);
    // The sparse path's estimates carry the noise of n / B bins: 5 dB above min_snr_db
    // its frequencies are good to ~0.1 bin, the dense path's to 0.05.
    GPUFFT_CHECK_LE(s.max_freq_error, want_sparse ? 0.1 : 0.05);
    GPUFFT_CHECK_LE(s.max_amp_error_db, want_sparse ? 1.0 : 0.5);
    GPUFFT_CHECK_LE(s.max_snr_error_db, want_sparse ? 2.0 : 1.5);
    for (std::size_t i = 1; i < got.size(); ++i) // strongest first
        GPUFFT_CHECK(std::abs(got[i].amplitude) <= std::abs(got[i - 1].amplitude));
}

} // namespace

GPUFFT_TEST(dense_path_finds_off_grid_tones_in_noise)
{
    check_tones(1 << 16, 20, 20, true, 40, 20, false);
    check_tones(1 << 16, 20, 20, false, 40, 20, false);
}

GPUFFT_TEST(sparse_path_finds_off_grid_tones_in_noise)
{
    // 60 dB per bin, asked for 55: the planner reads ~3% of the samples.
    check_tones(1 << 20, 20, 20, true, 60, 55, true);
    check_tones(1 << 20, 20, 20, false, 60, 55, true);
}

GPUFFT_TEST(non_power_of_two_size)
{
    check_tones(3 << 16, 10, 10, true, 45, 20, false);
    check_tones(3 << 18, 10, 10, true, 62, 56, true);
}

GPUFFT_TEST(fewer_tones_than_k)
{
    check_tones(1 << 16, 64, 3, true, 40, 20, false);
    check_tones(1 << 20, 16, 3, true, 60, 55, true);
}

GPUFFT_TEST(pure_noise_gives_nothing)
{
    for (double min_snr : { 20.0, 55.0 }) {
        const std::int64_t n = min_snr > 50 ? 1 << 20 : 1 << 18; // sparse, then dense
        sparse_fft_plan plan(n, 20, robust_options(min_snr));
        std::printf("  %s\n", plan.describe().c_str());
        GPUFFT_CHECK_EQ(plan.dense_fallback(), min_snr < 50);
        int frames_with_tones = 0;
        std::vector<sparse_tone> got;
        for (int f = 0; f < 20; ++f) {
            const std::uint64_t seed = fresh_seed();
            tone_truth t;
            auto x = noisy_tones(n, 0, true, 0, 0, seed, t);
            std::normal_distribution<float> g(0, 1);
            std::mt19937_64 rng(seed);
            for (auto& v : x)
                v = std::complex<float>(g(rng), g(rng));
            plan.detect(x.data(), got);
            frames_with_tones += got.empty() ? 0 : 1;
            // Unit-variance real and imaginary parts: 2 n per bin.
            GPUFFT_CHECK_LE(std::fabs(10 * std::log10(plan.noise_floor() / (2.0 * n))),
                            1.0);
        }
        std::printf("  min_snr_db %.0f: %d of 20 noise frames gave tones\n",
                    min_snr,
                    frames_with_tones);
        // false_alarm 0.01 per frame: 4 or more of 20 has probability 4e-5; a
        // threshold 10 times too low would give 4 or more half the time.
        GPUFFT_CHECK_LE(frames_with_tones, 3);
    }
}

GPUFFT_TEST(dense_fallback_answers_like_the_sparse_path)
{
    // The same frames through both paths: each returns the tones it located above the
    // threshold, never k coefficients padded with noise (the dense path thresholds the
    // full spectrum, then fits tones the way the sparse path does: robust_tones.cc).
    const std::int64_t n = 1 << 20, k = 16;
    const std::uint64_t seed = fresh_seed();
    sparse_fft_plan sparse(n, k, robust_options(55, seed));
    sparse_fft_plan dense(n, k, robust_options(20, seed));
    GPUFFT_CHECK(!sparse.dense_fallback());
    GPUFFT_CHECK(dense.dense_fallback());
    std::vector<sparse_tone> a, b;
    for (int tones : { 0, 3 }) {
        int total_a = 0, total_b = 0, false_a = 0, false_b = 0;
        for (int f = 0; f < 4; ++f) {
            const std::uint64_t s = fresh_seed();
            tone_truth t;
            auto x = noisy_tones(n, tones, true, 60, 0.0, s, t);
            if (tones == 0) {
                std::normal_distribution<float> g(0, 1);
                std::mt19937_64 rng(s);
                for (auto& v : x)
                    v = std::complex<float>(g(rng), g(rng));
            }
            sparse.detect(x.data(), a);
            dense.detect(x.data(), b);
            total_a += int(a.size());
            total_b += int(b.size());
            if (tones > 0) {
                // Every tone on both paths; a false alarm (1% per frame) is counted
                // below.
                const tone_score sa = score_tones(n, t, a), sb = score_tones(n, t, b);
                GPUFFT_CHECK_EQ(sa.missed, 0);
                GPUFFT_CHECK_EQ(sb.missed, 0);
                false_a += int(sa.false_tones);
                false_b += int(sb.false_tones);
            }
        }
        std::printf("  %d tones, k %lld: %d (sparse) and %d (dense) tones in 4 frames\n",
                    tones,
                    (long long)k,
                    total_a,
                    total_b);
        // A false alarm is 1% per frame: 3 or more in 4 frames has probability 4e-6;
        // k coefficients per frame padded with noise would give 64 (pure noise) or 52.
        if (tones == 0) {
            GPUFFT_CHECK_LE(total_a, 2);
            GPUFFT_CHECK_LE(total_b, 2);
        } else {
            GPUFFT_CHECK_LE(false_a, 2);
            GPUFFT_CHECK_LE(false_b, 2);
        }
    }
}

GPUFFT_TEST(noise_floor_holds_for_every_seed)
{
    // This seed's third loop once drew sigma = n - 37: its hashes read a short run of the
    // frame near its edge, where the time window is ~0, and the noise floor came out
    // 3 dB low. The noise is fresh; only the plan's seed is fixed.
    const std::int64_t n = 1 << 20;
    sparse_fft_plan plan(n, 20, robust_options(55, 4987113924000932058ull));
    GPUFFT_CHECK(!plan.dense_fallback());
    const std::uint64_t seed = fresh_seed();
    std::printf("  noise seed=%llu\n", (unsigned long long)seed);
    std::vector<std::complex<float>> x(n);
    std::normal_distribution<float> g(0, 1);
    std::mt19937_64 rng(seed);
    for (auto& v : x)
        v = std::complex<float>(g(rng), g(rng));
    std::vector<sparse_tone> got;
    plan.detect(x.data(), got);
    const double err_db = 10 * std::log10(plan.noise_floor() / (2.0 * n));
    std::printf("  noise floor %+.2f dB from the truth\n", err_db);
    GPUFFT_CHECK_LE(std::fabs(err_db), 1.0);
}

GPUFFT_TEST(zeros_give_nothing)
{
    for (double min_snr : { 20.0, 55.0 }) {
        sparse_fft_plan plan(1 << 20, 10, robust_options(min_snr));
        const std::vector<std::complex<float>> x(1 << 20, 0.0f);
        std::vector<sparse_tone> got(3);
        plan.detect(x.data(), got);
        GPUFFT_CHECK(got.empty());
        std::vector<std::int64_t> bins(2, 7);
        std::vector<std::complex<float>> values(2);
        plan.execute(x.data(), bins, values);
        GPUFFT_CHECK(bins.empty() && values.empty());
    }
}

GPUFFT_TEST(execute_gives_the_tones_coefficients)
{
    // On-grid tones: their bins and X[f] = n a, against the truth.
    const std::int64_t n = 1 << 16;
    const std::uint64_t seed = fresh_seed();
    tone_truth t;
    const auto x = noisy_tones(n, 8, false, 60, 20, seed, t);
    sparse_fft_plan plan(n, 8, robust_options(20, seed));
    std::vector<std::int64_t> bins;
    std::vector<std::complex<float>> values;
    plan.execute(x.data(), bins, values);
    std::printf("  seed=%llu: %zu bins\n", (unsigned long long)seed, bins.size());
    GPUFFT_CHECK_EQ(bins.size(), std::size_t(8));
    for (std::size_t j = 0; j < t.freq.size(); ++j) {
        const auto at = std::find(bins.begin(), bins.end(), std::int64_t(t.freq[j]));
        GPUFFT_CHECK(at != bins.end());
        const auto v = std::complex<double>(values[at - bins.begin()]);
        // 40 dB per bin for the weakest: its value is good to ~1.5% (noise), 3 sigma
        GPUFFT_CHECK_LE(std::abs(v - t.amp[j]) / std::abs(t.amp[j]), 0.05);
    }
    GPUFFT_CHECK(std::is_sorted(bins.begin(), bins.end()));
}

GPUFFT_TEST(bad_input_is_rejected)
{
    auto o = robust_options(20);
    auto bad_snr = o;
    bad_snr.min_snr_db = -1;
    GPUFFT_CHECK_THROWS(
        sparse_fft_plan(1 << 20, 10, bad_snr), std::invalid_argument, "min_snr_db");
    bad_snr.min_snr_db = 201;
    GPUFFT_CHECK_THROWS(
        sparse_fft_plan(1 << 20, 10, bad_snr), std::invalid_argument, "min_snr_db");
    bad_snr.min_snr_db = std::numeric_limits<double>::quiet_NaN();
    GPUFFT_CHECK_THROWS(
        sparse_fft_plan(1 << 20, 10, bad_snr), std::invalid_argument, "min_snr_db");
    auto bad_pfa = o;
    bad_pfa.false_alarm = 0;
    GPUFFT_CHECK_THROWS(
        sparse_fft_plan(1 << 20, 10, bad_pfa), std::invalid_argument, "false_alarm");
    bad_pfa.false_alarm = 0.6;
    GPUFFT_CHECK_THROWS(
        sparse_fft_plan(1 << 20, 10, bad_pfa), std::invalid_argument, "false_alarm");
    GPUFFT_CHECK_THROWS(sparse_fft_plan(1 << 10, 257, o), std::invalid_argument, "k");
    auto exact_window = o;
    exact_window.mode = sparse_fft_mode::exact;
    exact_window.window = sparse_fft_window::hann;
    GPUFFT_CHECK_THROWS(
        sparse_fft_plan(1 << 20, 10, exact_window), std::invalid_argument, "window");
    auto narrow = robust_options(55);
    narrow.filter_width = 101;
    GPUFFT_CHECK_THROWS(
        sparse_fft_plan(1 << 20, 10, narrow), std::invalid_argument, "filter_width");

    for (double min_snr : { 20.0, 55.0 }) {
        const std::int64_t n = 1 << 20;
        sparse_fft_plan plan(n, 10, robust_options(min_snr));
        std::vector<std::complex<float>> x(n, std::complex<float>(1, 0));
        for (std::size_t i = 0; i < x.size(); i += 3)
            x[i] = std::complex<float>(std::numeric_limits<float>::quiet_NaN(), 0);
        std::vector<sparse_tone> got;
        GPUFFT_CHECK_THROWS(plan.detect(x.data(), got), std::invalid_argument, "x");
        GPUFFT_CHECK_THROWS(plan.detect(nullptr, got), std::invalid_argument, "x");
    }
}

GPUFFT_TEST_MAIN()
