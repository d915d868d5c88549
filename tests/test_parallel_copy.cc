/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "core/parallel_copy.h"
#include "test_harness.h"
#include <cstdint>
#include <random>
#include <thread>
#include <vector>

using gr::gpufft::detail::parallel_copier;

namespace {
void check_copy(parallel_copier& c, std::size_t bytes, std::size_t offset)
{
    std::mt19937_64 rng(std::random_device{}());
    std::vector<unsigned char> src(bytes + offset), dst(bytes + offset + 1, 0xA5);
    for (auto& b : src)
        b = static_cast<unsigned char>(rng());
    c.copy(dst.data() + offset, src.data() + offset, bytes);
    for (std::size_t i = 0; i < bytes; ++i)
        if (dst[offset + i] != src[offset + i])
            GPUFFT_FAIL("byte " << i << " of " << bytes << " differs (" << c.threads()
                                << " threads)");
    GPUFFT_CHECK_EQ(int(dst[offset + bytes]), 0xA5); // nothing written past the end
}
} // namespace

GPUFFT_TEST(copies_every_byte_for_any_size_and_thread_count)
{
    for (int threads : { 1, 2, 3, 8 }) {
        parallel_copier c(threads);
        GPUFFT_CHECK_EQ(c.threads(), threads);
        // Below, at and above the parallel threshold; odd sizes and misaligned starts.
        for (std::size_t bytes : { std::size_t(0),
                                   std::size_t(1),
                                   std::size_t(1000),
                                   std::size_t(1) << 20,
                                   (std::size_t(3) << 20) + 13,
                                   std::size_t(17) << 20 })
            check_copy(c, bytes, bytes % 7);
    }
}

GPUFFT_TEST(concurrent_callers_do_not_mix_jobs)
{
    parallel_copier c(4);
    std::vector<std::thread> callers;
    std::vector<int> ok(4, 0);
    for (int t = 0; t < 4; ++t)
        callers.emplace_back([&, t] {
            std::vector<std::uint32_t> src((std::size_t(2) << 20) + t), dst(src.size());
            for (std::size_t i = 0; i < src.size(); ++i)
                src[i] = std::uint32_t(i * 2654435761u + t);
            for (int rep = 0; rep < 5; ++rep)
                c.copy(dst.data(), src.data(), src.size() * sizeof(src[0]));
            ok[t] = dst == src;
        });
    for (auto& th : callers)
        th.join();
    for (int t = 0; t < 4; ++t)
        GPUFFT_CHECK(ok[t]);
}

GPUFFT_TEST_MAIN()
