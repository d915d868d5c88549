/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The NUFFT blocks' stream parts without GNU Radio: the rate limit of their repeated
// warnings and the resampler's gap finder (issue 32 items 11 and 13).

#include "reference.h"
#include "stream/log_limiter.h"
#include "stream/resample_grid.h"
#include "test_harness.h"
#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

using namespace gr::gpufft;
using namespace gpufft_test;

GPUFFT_TEST(log_limiter_logs_the_first_then_one_per_interval)
{
    stream::log_limiter l(10.0);
    GPUFFT_CHECK(l.allow(100.0));
    GPUFFT_CHECK_EQ(l.held(), 0u);
    int logged = 0;
    for (int i = 1; i <= 1000; ++i) // 1000 events in the next 9.99 s
        logged += l.allow(100.0 + i * 0.00999);
    GPUFFT_CHECK_EQ(logged, 0);
    GPUFFT_CHECK(l.allow(110.5));
    GPUFFT_CHECK_EQ(l.held(), 1000u); // held back since the last one logged
    GPUFFT_CHECK(!l.allow(115.0));
    GPUFFT_CHECK(l.allow(121.0));
    GPUFFT_CHECK_EQ(l.held(), 1u);
    GPUFFT_CHECK_EQ(l.events(), 1004u);
}

GPUFFT_TEST(gaps_are_found_once_across_frames)
{
    // A jittered 1 kHz stream with gaps of 20 ms (past 2 / 250 Hz = 8 ms) and of 6 ms
    // (within it), cut into frames of 256 samples overlapping by 2 x 32: each long gap
    // is found by exactly one frame, the short ones by none.
    const std::uint64_t seed = fresh_seed();
    std::printf("    seed %llu\n", (unsigned long long)seed);
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1, 1);
    const int n = 4000, L = 256, ov = 32, hop = L - 2 * ov;
    std::vector<double> t(n);
    double extra = 0;
    std::vector<double> long_gaps;
    for (int j = 0; j < n; ++j) {
        if (j % 300 == 150) {
            extra += 0.020;
            long_gaps.push_back(j);
        } else if (j % 300 == 0 && j > 0)
            extra += 0.006;
        t[j] = (j + 0.3 * u(rng)) / 1000.0 + extra;
    }
    stream::resample_grid grid(400.0, ov);
    const double limit = 2.0 / 250.0;
    std::vector<double> found;
    for (int a = 0; a + L <= n; a += hop)
        for (const auto& g : grid.gaps(t.data() + a, L, limit)) {
            GPUFFT_CHECK(g.end - g.start > limit);
            found.push_back(g.start);
        }
    // Gaps in the stream's first `overlap` samples and its unframed tail are no frame's.
    std::vector<double> expect;
    const int covered = ((n - L) / hop) * hop + L - ov;
    for (double j : long_gaps)
        if (j > ov && j < covered)
            expect.push_back(t[int(j) - 1]);
    GPUFFT_CHECK_EQ(found.size(), expect.size());
    for (std::size_t i = 0; i < std::min(found.size(), expect.size()); ++i)
        GPUFFT_CHECK_EQ(found[i], expect[i]);
}

GPUFFT_TEST(a_new_rate_starts_a_new_grid)
{
    stream::resample_grid grid(400.0, 8);
    std::vector<double> t(64), tau;
    for (int j = 0; j < 64; ++j)
        t[j] = j / 1000.0;
    GPUFFT_CHECK(grid.points(t.data(), 64, 0.0, tau));
    grid.commit(tau.size());
    GPUFFT_CHECK(!grid.points(t.data(), 64, 0.0, tau));
    grid.set_rate(250.0);
    GPUFFT_CHECK_EQ(grid.rate(), 250.0);
    GPUFFT_CHECK(grid.points(t.data(), 64, 0.0, tau));
    GPUFFT_CHECK(tau.size() > 1);
    GPUFFT_CHECK(std::abs((tau[1] - tau[0]) - 1 / 250.0) < 1e-12);
}

GPUFFT_TEST_MAIN()
