/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "core/parallel_for.h"
#include "core/worker_pool.h"
#include "test_harness.h"
#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

using gr::gpufft::detail::parallel_for;
using gr::gpufft::detail::worker_pool;

GPUFFT_TEST(worker_pool_runs_every_part_once_per_job)
{
    for (int threads : { 0, 1, 2, 5 }) {
        worker_pool pool(threads);
        const int parts = threads < 1 ? 1 : threads;
        GPUFFT_CHECK_EQ(pool.threads(), parts);
        for (int job = 0; job < 50; ++job) {
            std::vector<int> hits(std::size_t(parts), -1000);
            std::atomic<int> bad_parts{ 0 };
            pool.run([&](int part, int n) {
                if (n != parts)
                    ++bad_parts;
                hits[std::size_t(part)] = hits[std::size_t(part)] == -1000 ? job : -1;
            });
            GPUFFT_CHECK_EQ(bad_parts.load(), 0);
            for (int h : hits)
                GPUFFT_CHECK_EQ(h, job);
        }
    }
}

GPUFFT_TEST(worker_pool_rethrows_on_the_caller_and_keeps_working)
{
    worker_pool pool(3);
    for (int thrower : { 0, 2 }) {
        GPUFFT_CHECK_THROWS(pool.run([&](int part, int) {
            if (part == thrower)
                throw std::runtime_error("part failed");
        }),
                            std::runtime_error,
                            "part failed");
        std::atomic<int> done{ 0 };
        pool.run([&](int, int) { ++done; });
        GPUFFT_CHECK_EQ(done.load(), 3);
    }
}

GPUFFT_TEST(worker_pool_runs_concurrent_callers_one_job_at_a_time)
{
    worker_pool pool(4);
    std::atomic<int> inside{ 0 }, overlap{ 0 };
    std::vector<std::thread> callers;
    for (int t = 0; t < 3; ++t)
        callers.emplace_back([&] {
            for (int rep = 0; rep < 200; ++rep)
                pool.run([&](int part, int) {
                    if (part == 0 && inside.exchange(1) != 0)
                        ++overlap;
                    std::this_thread::yield();
                    if (part == 0)
                        inside = 0;
                });
        });
    for (auto& c : callers)
        c.join();
    GPUFFT_CHECK_EQ(overlap.load(), 0);
}

GPUFFT_TEST(parallel_for_covers_the_range_and_rethrows)
{
    for (std::int64_t n : { 0, 1, 7, 1000, 100003 }) {
        std::vector<int> hits(std::size_t(n), 0);
        parallel_for(
            n,
            4,
            [&](int, std::int64_t b, std::int64_t e) {
                for (std::int64_t i = b; i < e; ++i)
                    ++hits[std::size_t(i)];
            },
            10);
        for (int h : hits)
            GPUFFT_CHECK_EQ(h, 1);
    }
    GPUFFT_CHECK_THROWS(parallel_for(
                            1000,
                            4,
                            [](int part, std::int64_t, std::int64_t) {
                                if (part == 3)
                                    throw std::invalid_argument("bad part");
                            },
                            1),
                        std::invalid_argument,
                        "bad part");
}

GPUFFT_TEST_MAIN()
