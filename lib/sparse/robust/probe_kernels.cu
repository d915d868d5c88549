/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "cuda/cuda_check.h"
#include "sparse/robust/probe_kernels.h"
#include <cuda_runtime.h>

namespace gr {
namespace gpufft {
namespace detail {

namespace {

constexpr int probe_threads = 256;

__global__ void probe_gather_kernel(const void* const* xptr,
                                    robust_probe_starts starts,
                                    std::int64_t length,
                                    const float* window,
                                    float2* out,
                                    int* bad)
{
    const int s = blockIdx.y;
    const auto* x = static_cast<const float2*>(*xptr);
    const std::int64_t begin = starts.at[s];
    bool nonfinite = false;
    for (std::int64_t t = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; t < length;
         t += std::int64_t(gridDim.x) * blockDim.x) {
        const float2 v = x[begin + t];
        nonfinite = nonfinite || !isfinite(v.x) || !isfinite(v.y);
        const float w = window[t];
        out[std::int64_t(s) * length + t] = make_float2(v.x * w, v.y * w);
    }
    if (nonfinite)
        *bad = 1;
}

__global__ void
probe_power_kernel(const float2* X, int segments, std::int64_t length, float* power)
{
    for (std::int64_t t = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; t < length;
         t += std::int64_t(gridDim.x) * blockDim.x) {
        float sum = 0;
        for (int s = 0; s < segments; ++s) {
            const float2 v = X[std::int64_t(s) * length + t];
            sum += v.x * v.x + v.y * v.y;
        }
        power[t] = sum;
    }
}

int blocks_for(std::int64_t length)
{
    const std::int64_t b = (length + probe_threads - 1) / probe_threads;
    return int(b < 1024 ? b : 1024);
}

} // namespace

void launch_probe_gather(const void* const* xptr,
                         const robust_probe_starts& starts,
                         int segments,
                         std::int64_t length,
                         const float* window,
                         void* out,
                         int* bad,
                         void* stream)
{
    const dim3 grid(unsigned(blocks_for(length)), unsigned(segments));
    probe_gather_kernel<<<grid, probe_threads, 0, static_cast<cudaStream_t>(stream)>>>(
        xptr, starts, length, window, static_cast<float2*>(out), bad);
    GPUFFT_CUDA_CHECK_LAUNCH();
}

void launch_probe_power(
    const void* X, int segments, std::int64_t length, float* power, void* stream)
{
    probe_power_kernel<<<blocks_for(length),
                         probe_threads,
                         0,
                         static_cast<cudaStream_t>(stream)>>>(
        static_cast<const float2*>(X), segments, length, power);
    GPUFFT_CUDA_CHECK_LAUNCH();
}

} // namespace detail
} // namespace gpufft
} // namespace gr
