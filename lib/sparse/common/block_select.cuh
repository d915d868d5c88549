/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_BLOCK_SELECT_CUH
#define INCLUDED_GPUFFT_BLOCK_SELECT_CUH

#include "sparse/common/select_cuda.h"
#include <cuda_runtime.h>

namespace gr {
namespace gpufft {
namespace detail {

//! Histogram bins of one radix pass of block_select_nonneg().
constexpr int block_select_bins = 256;

/*!
 * The value of rank `rank` (0-based, ascending) among v[0..m) in shared memory, m >
 * rank, by one thread block: four radix passes of eight bits over the values' radix keys
 * (select_key(), which order every float but NaN, -0 and negatives included).
 * hist: block_select_bins words of shared memory. Every thread of the block must call it
 * and gets the same result. One launch replaces the seven of the grid-wide selection
 * (select_cuda.h) where the values fit in shared memory.
 */
__device__ inline float
block_select_nonneg(const float* v, int m, int rank, unsigned* hist)
{
    __shared__ unsigned s_prefix, s_rank;
    if (threadIdx.x == 0) {
        s_prefix = 0;
        s_rank = unsigned(rank);
    }
    for (int shift = 24; shift >= 0; shift -= 8) {
        for (int i = threadIdx.x; i < block_select_bins; i += blockDim.x)
            hist[i] = 0;
        __syncthreads();
        const unsigned want = s_prefix;
        const unsigned high = shift == 24 ? 0u : ~0u << (shift + 8);
        for (int i = threadIdx.x; i < m; i += blockDim.x) {
            const unsigned u = select_key(__float_as_uint(v[i]));
            if ((u & high) == want)
                atomicAdd(&hist[(u >> shift) & 255u], 1u);
        }
        __syncthreads();
        if (threadIdx.x < 32) {
            // Lane l holds bins 8l .. 8l+7; a scan over the lanes finds the one whose
            // range of ranks holds s_rank, and that lane the bin.
            const int lane = int(threadIdx.x);
            const unsigned r = s_rank; // read by every lane before the shuffles
            unsigned c[8], sum = 0;
#pragma unroll
            for (int j = 0; j < 8; ++j) {
                c[j] = hist[8 * lane + j];
                sum += c[j];
            }
            unsigned incl = sum;
#pragma unroll
            for (int o = 1; o < 32; o <<= 1) {
                const unsigned t = __shfl_up_sync(0xffffffffu, incl, o);
                if (lane >= o)
                    incl += t;
            }
            const unsigned excl = incl - sum;
            __syncwarp(); // every lane has read s_rank before one lane rewrites it
            if (r >= excl && r < incl) {
                unsigned below = excl;
                int j = 0;
                while (below + c[j] <= r)
                    below += c[j++];
                s_prefix = want | (unsigned(8 * lane + j) << shift);
                s_rank = r - below;
            }
        }
        __syncthreads();
    }
    return __uint_as_float(select_unkey(s_prefix));
}

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif // INCLUDED_GPUFFT_BLOCK_SELECT_CUH
