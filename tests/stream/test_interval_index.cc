/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// interval_index against a test of every interval, on random intervals (nested, equal
// ends, empty sets, one interval) and random queries.

#include "reference.h"
#include "stream/interval_index.h"
#include "test_harness.h"
#include <cmath>
#include <cstdio>
#include <random>
#include <set>

using namespace gr::gpufft::stream;

GPUFFT_TEST(holding_finds_every_interval_that_holds_the_query_and_no_other)
{
    const std::uint64_t seed = gpufft_test::fresh_seed();
    std::printf("seed %llu\n", (unsigned long long)seed);
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    interval_index index;
    for (int round = 0; round < 300; ++round) {
        const std::size_t n = round % 7 == 0 ? round % 3 : 1 + rng() % 300;
        std::vector<interval_index::interval> v;
        for (std::size_t k = 0; k < n; ++k) {
            // Coarse ends so that equal ends, and queries on them, are common.
            const double lo = std::floor(u(rng) * 50),
                         w = std::floor(u(rng) * u(rng) * 60);
            v.push_back({ lo, lo + w, k });
        }
        index.assign(v);
        for (int q = 0; q < 40; ++q) {
            const double a = std::floor(u(rng) * 60) - 5, b = a + std::floor(u(rng) * 20);
            std::set<std::size_t> want, got;
            for (const auto& r : v)
                if (r.lo <= a && r.hi >= b)
                    want.insert(r.id);
            index.holding(a, b, [&](std::size_t id) {
                GPUFFT_CHECK(got.insert(id).second); // each at most once
            });
            GPUFFT_CHECK(got == want);
        }
    }
}

GPUFFT_TEST_MAIN()
