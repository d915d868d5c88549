/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The sparse_fft block's frame helpers: the finite check every frame goes through, the
// signed/shifted bin maps and the dB display reduction, against direct computations.

#include "reference.h"
#include "sparse_block/sparse_spectrum.h"
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
        GPUFFT_CHECK(sparse_block::all_finite(x.data(), n));
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
                    GPUFFT_CHECK(!sparse_block::all_finite(y.data(), n));
                }
            }
        }
        // The largest finite float is finite.
        auto y = x;
        y[n / 2] =
            cf(std::numeric_limits<float>::max(), -std::numeric_limits<float>::max());
        GPUFFT_CHECK(sparse_block::all_finite(y.data(), n));
    }
}

GPUFFT_TEST(signed_and_shifted_bins_follow_numpy)
{
    for (std::int64_t n : { 16, 17, 1024, 1025 }) {
        for (std::int64_t b = 0; b < n; b++) {
            // numpy.fft.fftfreq(n) * n
            const std::int64_t expect = b <= (n - 1) / 2 ? b : b - n;
            GPUFFT_CHECK_EQ(sparse_block::signed_bin(b, n), expect);
            // numpy.fft.fftshift puts frequency f at index f + n // 2
            GPUFFT_CHECK_EQ(sparse_block::shifted_bin(b, n), expect + n / 2);
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
            sparse_block::display_spectrum(n,
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
    GPUFFT_CHECK_LE(std::abs(sparse_block::power_db(cf(0.0f, static_cast<float>(n)), n)),
                    1e-6);
    GPUFFT_CHECK_LE(std::abs(sparse_block::power_db(cf(n * 0.1f, 0.0f), n) + 20.0f),
                    1e-4);
    GPUFFT_CHECK(std::isfinite(sparse_block::power_db(cf(0.0f, 0.0f), n)));
}

GPUFFT_TEST_MAIN()
