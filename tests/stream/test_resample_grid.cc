/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The resampler's output grid over overlapping frames of jittered times.

#include "stream/resample_grid.h"
#include "test_harness.h"
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

using namespace gr::gpufft::stream;

GPUFFT_TEST(frames_join_without_gap_or_repeat)
{
    const std::uint64_t seed = std::random_device{}();
    std::printf("seed %llu\n", (unsigned long long)seed);
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> jitter(-0.3, 0.3);
    const int len = 64 + int(rng() % 200), overlap = 8 + int(rng() % (len / 4 - 7));
    const double in_rate = 1000.0, out_rate = 300.0 + double(rng() % 2000);
    std::vector<double> t(20 * std::size_t(len));
    for (std::size_t j = 0; j < t.size(); ++j)
        t[j] = 3600.0 + (double(j) + jitter(rng)) / in_rate;
    resample_grid grid(out_rate, overlap);
    std::vector<double> tau, all;
    const int hop = len - 2 * overlap;
    for (std::size_t first = 0; first + std::size_t(len) <= t.size();
         first += std::size_t(hop)) {
        const double* f = t.data() + first;
        GPUFFT_CHECK(resample_grid::bad_times(f, len) == nullptr);
        const double centre = 0.5 * (f[0] + f[len - 1]);
        const bool starts = grid.points(f, len, centre, tau);
        GPUFFT_CHECK_EQ(starts, first == 0);
        for (double v : tau) {
            GPUFFT_CHECK(v + centre >= f[overlap] - 1e-9);
            GPUFFT_CHECK(v + centre < f[len - overlap]);
            all.push_back(v + centre);
        }
        grid.commit(tau.size());
    }
    // One uniform grid from the first frame's t[overlap] on.
    GPUFFT_CHECK(all.size() > 10);
    for (std::size_t n = 0; n < all.size(); ++n)
        GPUFFT_CHECK_LE(
            std::abs(all[n] - (t[std::size_t(overlap)] + double(n) / out_rate)), 1e-9);
}

GPUFFT_TEST(a_broken_grid_restarts_and_bad_times_are_named)
{
    std::vector<double> t(100);
    for (int j = 0; j < 100; ++j)
        t[std::size_t(j)] = j * 0.01;
    resample_grid grid(50.0, 10);
    std::vector<double> tau;
    GPUFFT_CHECK(grid.points(t.data(), 100, 0.0, tau));
    grid.commit(tau.size());
    grid.break_grid();
    GPUFFT_CHECK(grid.points(t.data(), 100, 0.0, tau));
    GPUFFT_CHECK_EQ(tau.front(), t[10]);
    t[50] = std::numeric_limits<double>::quiet_NaN();
    GPUFFT_CHECK(resample_grid::bad_times(t.data(), 100) != nullptr);
    t[50] = 0.0;
    GPUFFT_CHECK(std::string(resample_grid::bad_times(t.data(), 100)) ==
                 "times decrease");
}

GPUFFT_TEST_MAIN()
