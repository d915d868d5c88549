/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "cuda/cuda_check.h"
#include "cuda/grid.h"
#include "large/peer_exchange_math.h"
#include "large/peer_kernels.h"
#include <stdexcept>

namespace gr {
namespace gpufft {
namespace detail {

namespace {

using i64 = std::int64_t;

// One thread per (row, column) of a slot: reads element (i, j) of every slot, writes
// them back. Consecutive threads take consecutive columns, so each slot is read and
// written coalesced.
template <typename T>
__global__ void segment_butterfly_kernel(xy<T>* slab, int parts, i64 s1, i64 s2, int sign)
{
    const i64 slot = s1 * s2;
    for (i64 e = blockIdx.x * i64(blockDim.x) + threadIdx.x; e < slot;
         e += i64(gridDim.x) * blockDim.x) {
        xy<T> v[peer_max_parts];
        for (int s = 0; s < parts; ++s)
            v[s] = slab[s * slot + e];
        segment_butterfly(v, parts, e % s2, s2, sign);
        for (int s = 0; s < parts; ++s)
            slab[s * slot + e] = v[s];
    }
}

} // namespace

void launch_segment_butterfly(
    void* slab, bool dbl, int parts, i64 s1, i64 s2, int sign, void* stream)
{
    if (parts < 1 || parts > peer_max_parts)
        throw std::logic_error("launch_segment_butterfly: parts out of range");
    const auto st = static_cast<cudaStream_t>(stream);
    const int threads = 256;
    const int blocks = cuda::grid_blocks(s1 * s2, threads);
    if (dbl)
        segment_butterfly_kernel<double><<<blocks, threads, 0, st>>>(
            static_cast<xy<double>*>(slab), parts, s1, s2, sign);
    else
        segment_butterfly_kernel<float><<<blocks, threads, 0, st>>>(
            static_cast<xy<float>*>(slab), parts, s1, s2, sign);
    GPUFFT_CUDA_CHECK_LAUNCH();
}

} // namespace detail
} // namespace gpufft
} // namespace gr
