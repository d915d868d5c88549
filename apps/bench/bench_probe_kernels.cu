/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "bench_probe_kernels.h"
#include "cuda/cuda_check.h"
#include "cuda/grid.h"

namespace gpufft_bench {

namespace {

template <bool streaming>
__global__ void sweep_kernel(const float* x, std::int64_t n, int reps, int* flag)
{
    bool bad = false;
    for (int r = 0; r < reps; ++r)
        for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
             i += std::int64_t(gridDim.x) * blockDim.x)
            bad |= !isfinite(streaming ? __ldcs(x + i) : x[i]);
    if (__syncthreads_or(bad) && threadIdx.x == 0)
        atomicOr(flag, 1);
}

} // namespace

void launch_sweep(
    const float* x, std::int64_t n, int reps, bool streaming, int* flag, void* stream)
{
    const int block = 256;
    const int grid = gr::gpufft::cuda::grid_blocks(n, block);
    auto s = static_cast<cudaStream_t>(stream);
    if (streaming)
        sweep_kernel<true><<<grid, block, 0, s>>>(x, n, reps, flag);
    else
        sweep_kernel<false><<<grid, block, 0, s>>>(x, n, reps, flag);
    GPUFFT_CUDA_CHECK_LAUNCH();
}

} // namespace gpufft_bench
