/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The host-input gather of the sparse FFT's CUDA backend (plain C++, tested here so CI
// without a GPU covers it).

#include "reference.h"
#include "sparse/common/host_gather.h"
#include "test_harness.h"
#include <random>

using namespace gr::gpufft::detail;
using namespace gpufft_test;

GPUFFT_TEST(gathers_every_index_with_any_thread_count)
{
    const std::uint64_t seed = fresh_seed();
    const auto x = random_complex<float>(1 << 16, seed);
    std::mt19937_64 rng(seed);
    for (int threads : { 1, 2, 3, 8 }) {
        host_gather g(threads);
        GPUFFT_CHECK_EQ(g.threads(), threads);
        for (std::size_t count :
             { std::size_t(0), std::size_t(1), std::size_t(7), std::size_t(100003) }) {
            std::vector<std::uint64_t> index(count);
            for (auto& i : index)
                i = rng() % x.size();
            std::vector<std::complex<float>> out(count, poison<float>());
            g.run(x.data(), index.data(), count, out.data());
            for (std::size_t i = 0; i < count; ++i)
                GPUFFT_CHECK(out[i] == x[index[i]]);
        }
    }
}

GPUFFT_TEST(many_calls_reuse_the_workers)
{
    const auto x = random_complex<float>(4096, fresh_seed());
    std::vector<std::uint64_t> index(5000);
    for (std::size_t i = 0; i < index.size(); ++i)
        index[i] = (i * 2654435761u) % x.size();
    host_gather g(4);
    std::vector<std::complex<float>> out(index.size());
    for (int call = 0; call < 2000; ++call) {
        out.assign(out.size(), poison<float>());
        g.run(x.data(), index.data(), index.size(), out.data());
        GPUFFT_CHECK(out.front() == x[index.front()] && out.back() == x[index.back()]);
    }
}

GPUFFT_TEST_MAIN()
