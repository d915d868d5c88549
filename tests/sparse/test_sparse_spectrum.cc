/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The sparse_fft block's frame helpers: the finite check every frame goes through, the
// signed/shifted bin maps, the dB display reduction and the message entries of both
// modes, against direct computations.

#include "reference.h"
#include "stream/sparse_spectrum.h"
#include "test_harness.h"
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

using namespace gr::gpufft;
using namespace gpufft_test;
using cf = std::complex<float>;

GPUFFT_TEST(all_finite_finds_every_position)
{
    const std::uint64_t seed = fresh_seed();
    std::mt19937_64 rng(seed);
    for (std::size_t n : { 1ul, 7ul, 1000ul, 4099ul }) {
        auto x = random_complex<float>(n, seed + n);
        GPUFFT_CHECK(sparse_output::all_finite(x.data(), n));
        const float bad[] = { std::numeric_limits<float>::quiet_NaN(),
                              std::numeric_limits<float>::infinity(),
                              -std::numeric_limits<float>::infinity() };
        // Every value kind, in the real and the imaginary part, at the first, the last
        // and a random position (the vectorized loop's tail included).
        for (float v : bad) {
            for (std::size_t pos : { std::size_t(0), n - 1, std::size_t(rng() % n) }) {
                for (int part = 0; part < 2; part++) {
                    auto y = x;
                    y[pos] = part ? cf(y[pos].real(), v) : cf(v, y[pos].imag());
                    GPUFFT_CHECK(!sparse_output::all_finite(y.data(), n));
                }
            }
        }
        // The largest finite float is finite.
        auto y = x;
        y[n / 2] =
            cf(std::numeric_limits<float>::max(), -std::numeric_limits<float>::max());
        GPUFFT_CHECK(sparse_output::all_finite(y.data(), n));
    }
}

GPUFFT_TEST(signed_and_shifted_bins_follow_numpy)
{
    for (std::int64_t n : { 16, 17, 1024, 1025 }) {
        for (std::int64_t b = 0; b < n; b++) {
            // numpy.fft.fftfreq(n) * n
            const std::int64_t expect = b <= (n - 1) / 2 ? b : b - n;
            GPUFFT_CHECK_EQ(sparse_output::signed_bin(b, n), expect);
            // numpy.fft.fftshift puts frequency f at index f + n // 2
            GPUFFT_CHECK_EQ(sparse_output::shifted_bin(b, n), expect + n / 2);
        }
    }
}

GPUFFT_TEST(display_is_max_per_group_in_db)
{
    const std::uint64_t seed = fresh_seed();
    std::mt19937_64 rng(seed);
    for (std::int64_t n : { 4096, 3000, 65537 }) {
        for (int display_bins : { 1, 7, 256, 1000 }) {
            const int count = 50;
            std::vector<std::int64_t> bins;
            while (static_cast<int>(bins.size()) < count) {
                const std::int64_t b = static_cast<std::int64_t>(rng() % n);
                if (std::find(bins.begin(), bins.end(), b) == bins.end())
                    bins.push_back(b);
            }
            bins[0] = 0;
            bins[1] = n - 1;
            std::sort(bins.begin(), bins.end());
            const auto values = random_complex<float>(count, seed + n + display_bins);
            std::vector<float> display(display_bins, 123.0f); // poison
            sparse_output::display_spectrum(n,
                                            bins.data(),
                                            values.data(),
                                            bins.size(),
                                            display.data(),
                                            display_bins,
                                            -200.0f);

            // Direct: dB of each coefficient, maximum per group of the shifted spectrum.
            std::vector<double> expect(display_bins, -200.0);
            for (int i = 0; i < count; i++) {
                const std::int64_t j = (bins[i] + n / 2) % n;
                const auto d = static_cast<std::size_t>(std::floor(
                    static_cast<double>(j) * display_bins / static_cast<double>(n)));
                const double db =
                    20.0 * std::log10(std::abs(std::complex<double>(values[i])) / n);
                expect[d] = std::max(expect[d], db);
            }
            for (int d = 0; d < display_bins; d++)
                GPUFFT_CHECK_LE(std::abs(display[d] - expect[d]), 1e-3);
        }
    }
}

GPUFFT_TEST(power_db_of_a_full_scale_tone_is_zero)
{
    const std::int64_t n = 1 << 20;
    GPUFFT_CHECK_LE(std::abs(sparse_output::power_db(cf(0.0f, static_cast<float>(n)), n)),
                    1e-6);
    GPUFFT_CHECK_LE(std::abs(sparse_output::power_db(cf(n * 0.1f, 0.0f), n) + 20.0f),
                    1e-4);
    GPUFFT_CHECK(std::isfinite(sparse_output::power_db(cf(0.0f, 0.0f), n)));
}

GPUFFT_TEST(fractional_frequencies_map_like_numpy)
{
    for (std::int64_t n : { 16, 17, 1024, 1025 }) {
        const double N = static_cast<double>(n);
        // nearest_bin: round(f) mod n; the top half bin wraps to 0.
        GPUFFT_CHECK_EQ(sparse_output::nearest_bin(0.0, n), 0);
        GPUFFT_CHECK_EQ(sparse_output::nearest_bin(0.49, n), 0);
        GPUFFT_CHECK_EQ(sparse_output::nearest_bin(0.5, n), 1);
        GPUFFT_CHECK_EQ(sparse_output::nearest_bin(N - 0.5, n), 0);
        GPUFFT_CHECK_EQ(sparse_output::nearest_bin(N - 0.51, n), n - 1);
        GPUFFT_CHECK_EQ(sparse_output::nearest_bin(std::nextafter(N, 0.0), n), 0);
        for (std::int64_t b = 0; b < n; b++) {
            GPUFFT_CHECK_EQ(sparse_output::nearest_bin(static_cast<double>(b) + 0.3, n),
                            b);
            // On a bin, signed_frequency is signed_bin (numpy.fft.fftfreq).
            GPUFFT_CHECK_EQ(sparse_output::signed_frequency(static_cast<double>(b), n),
                            static_cast<double>(sparse_output::signed_bin(b, n)));
        }
        // Negative at or above n/2, continuous elsewhere.
        GPUFFT_CHECK_EQ(sparse_output::signed_frequency(N / 2, n), -N / 2);
        GPUFFT_CHECK_EQ(sparse_output::signed_frequency(N / 2 - 0.25, n), N / 2 - 0.25);
        GPUFFT_CHECK_EQ(sparse_output::signed_frequency(N - 0.25, n), -0.25);
    }
}

GPUFFT_TEST(noise_floor_in_dbfs_per_bin)
{
    const std::int64_t n = 1 << 16;
    // White noise of variance s2 per sample: n s2 per bin, 10 log10(s2 / n) dBFS.
    const double s2 = 1e-4;
    GPUFFT_CHECK_LE(
        std::abs(sparse_output::noise_floor_db(n * s2, n) - 10.0 * std::log10(s2 / n)),
        1e-9);
    GPUFFT_CHECK_EQ(sparse_output::noise_floor_db(0.0, n), -300.0);
}

GPUFFT_TEST(robust_entries_from_tones)
{
    const std::int64_t n = 1000;
    const double center = 2.4e9, rate = 1e6;
    // Unordered, one in the negative half, one rounding up to bin 0 (n - 0.2), two
    // rounding to the same bin.
    std::vector<sparse_tone> tones = {
        { 700.4, { 0.0, 500.0 }, 30.0 },  { 12.3, { 1000.0, 0.0 }, 50.0 },
        { 999.8, { 0.0, -100.0 }, 20.5 }, { 12.6, { 10.0, 10.0 }, 12.0 },
        { 499.5, { 3.0, 4.0 }, 1.0 },
    };
    sparse_output::frame_entries e;
    e.reserve(tones.size());
    sparse_output::entries_from_tones(n, center, rate, tones, e);
    const std::vector<std::int64_t> bins = { 0, 12, 13, 500, 700 };
    // (499.5: below n/2, so positive, although its nearest bin 500 is a negative one)
    const std::vector<double> frac = { -0.2, 12.3, 12.6, 499.5, -299.6 };
    const std::vector<double> snr = { 20.5, 50.0, 12.0, 1.0, 30.0 };
    GPUFFT_CHECK_EQ(e.bins.size(), bins.size());
    for (std::size_t i = 0; i < bins.size(); i++) {
        GPUFFT_CHECK_EQ(e.bins[i], bins[i]);
        GPUFFT_CHECK_EQ(e.bins32[i], static_cast<std::int32_t>(bins[i]));
        GPUFFT_CHECK_LE(std::abs(e.freqs[i] - (center + frac[i] * rate / n)), 1e-6);
        GPUFFT_CHECK_EQ(e.snr_db[i], static_cast<float>(snr[i]));
        const auto a = tones[i].amplitude; // tones were reordered like the entries
        GPUFFT_CHECK_EQ(e.values[i],
                        cf(static_cast<float>(a.real()), static_cast<float>(a.imag())));
        GPUFFT_CHECK_LE(std::abs(e.power_db[i] - 20.0 * std::log10(std::abs(a) / n)),
                        1e-4);
    }
    // A frame without tones empties every entry.
    tones.clear();
    sparse_output::entries_from_tones(n, center, rate, tones, e);
    GPUFFT_CHECK(e.bins.empty() && e.bins32.empty() && e.values.empty() &&
                 e.freqs.empty() && e.power_db.empty() && e.snr_db.empty());
}

GPUFFT_TEST(exact_entries_from_coefficients)
{
    const std::int64_t n = 1025;
    sparse_output::frame_entries e;
    e.bins = { 0, 1, 512, 513, 1024 };
    e.values = { cf(1025, 0), cf(0, 10), cf(3, 4), cf(-1, 0), cf(0, 0) };
    sparse_output::entries_from_coefficients(n, 100.0, 2050.0, e);
    const std::vector<double> hz = { 100, 102, 100 + 1024, 100 - 1024, 98 };
    for (std::size_t i = 0; i < e.bins.size(); i++) {
        GPUFFT_CHECK_EQ(e.bins32[i], static_cast<std::int32_t>(e.bins[i]));
        GPUFFT_CHECK_LE(std::abs(e.freqs[i] - hz[i]), 1e-9);
        GPUFFT_CHECK(std::isnan(e.snr_db[i]));
        GPUFFT_CHECK_EQ(e.power_db[i], sparse_output::power_db(e.values[i], n));
    }
    GPUFFT_CHECK_EQ(e.power_db[0], 0.0f);
}

GPUFFT_TEST_MAIN()
