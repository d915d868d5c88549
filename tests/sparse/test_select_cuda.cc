/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The device order statistics robust mode's noise medians use (the grid-wide selection
// and the one-block one), against std::nth_element
// on fresh random powers: exponentially distributed (a noise floor's bucket powers),
// with ties, a few huge values, zeros, and counts that are not powers of two.

#include "reference.h"
#include "test_harness.h"
#include <gnuradio/gpufft/device.h>
#include <algorithm>
#include <cstdio>
#include <random>
#include <vector>

#ifdef GPUFFT_HAVE_CUDA
#include "cuda/cuda_resources.h"
#include "sparse/select_cuda.h"
#endif

using namespace gr::gpufft;
using namespace gpufft_test;

#ifdef GPUFFT_HAVE_CUDA

namespace {

// block: launch_block_select_nonneg (count <= block_select_max), else the grid-wide one.
float select_on_device(const std::vector<float>& v, long long rank, bool block = false)
{
    using namespace gr::gpufft::detail;
    cuda::device_buffer<float> d_v, d_out;
    cuda::device_buffer<unsigned> scratch;
    d_v.allocate(v.size());
    d_out.allocate(1);
    scratch.allocate(select_scratch_words);
    cuda::stream s;
    GPUFFT_CUDA_CHECK(cudaMemcpy(
        d_v.get(), v.data(), v.size() * sizeof(float), cudaMemcpyHostToDevice));
    const float poison = -1.0f;
    GPUFFT_CUDA_CHECK(
        cudaMemcpy(d_out.get(), &poison, sizeof(float), cudaMemcpyHostToDevice));
    if (block)
        launch_block_select_nonneg(
            d_v.get(), int(v.size()), int(rank), d_out.get(), s.get());
    else
        launch_select_nonneg(
            d_v.get(), (long long)v.size(), rank, scratch.get(), d_out.get(), s.get());
    s.synchronize();
    float out = 0;
    GPUFFT_CUDA_CHECK(
        cudaMemcpy(&out, d_out.get(), sizeof(float), cudaMemcpyDeviceToHost));
    return out;
}

} // namespace

GPUFFT_TEST(select_matches_nth_element)
{
    if (!cuda_available(0))
        GPUFFT_SKIP("no usable CUDA device");
    const std::uint64_t seed = fresh_seed();
    std::printf("  seed %llu\n", (unsigned long long)seed);
    std::mt19937_64 rng(seed);
    std::exponential_distribution<float> expo(1.0f);
    std::uniform_int_distribution<int> small(0, 9);
    for (long long count : { 1LL, 2LL, 7LL, 4097LL, 8192LL, 196608LL, 1000003LL }) {
        for (int kind = 0; kind < 3; ++kind) {
            std::vector<float> v(count);
            for (auto& x : v) {
                x = kind == 1 ? float(small(rng)) : expo(rng) * 1e-3f;
                if (kind == 2 && small(rng) == 0)
                    x = small(rng) < 5 ? 0.0f : 3e37f;
            }
            for (long long rank : { 0LL, count / 2, count - 1 }) {
                std::vector<float> ref = v;
                std::nth_element(ref.begin(), ref.begin() + rank, ref.end());
                for (bool block : { false, true }) {
                    if (block && count > detail::block_select_max)
                        continue;
                    const float got = select_on_device(v, rank, block);
                    if (got != ref[rank])
                        std::printf(
                            "  %s, count %lld kind %d rank %lld: got %g want %g\n",
                            block ? "block" : "grid",
                            count,
                            kind,
                            rank,
                            got,
                            ref[rank]);
                    GPUFFT_CHECK(got == ref[rank]);
                }
            }
        }
    }
}

#else

GPUFFT_TEST(cuda_backend) { GPUFFT_SKIP("gr-gpufft was built without CUDA"); }

#endif

GPUFFT_TEST_MAIN()
