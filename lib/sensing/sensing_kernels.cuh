/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Device pieces the sensing kernels share (sensing_threshold_kernels.cu: the floor and
// the threshold pass; sensing_band_kernels.cu: bands, gaps and the runs' order). Only
// for .cu files.

#ifndef INCLUDED_GPUFFT_SENSING_KERNELS_CUH
#define INCLUDED_GPUFFT_SENSING_KERNELS_CUH

#include "sensing/sensing_kernels.h"
#include <cuda_runtime.h>

namespace gr {
namespace gpufft {
namespace detail {
namespace sensing_device {

constexpr int floor_threads = 1024;
constexpr int run_threads = 256;
constexpr int band_threads = 512;
constexpr int gap_threads = 256; // a warp a gap
constexpr int unroll = 8;        // bins whose loads a band thread issues together
constexpr int run_tile = 2048;   // bins a block takes at a time in the threshold pass

struct spectrum_reader {
    const float2* X;
    __device__ void operator()(std::int64_t q, float& re, float& im) const
    {
        const float2 v = __ldg(X + q);
        re = v.x;
        im = v.y;
    }
};

// The sum over the block, on every thread: warp shuffles, then one warp over the
// warps' sums (a shared-memory tree took nine barriers of 512 threads).
inline __device__ double block_sum(double v, double* shared)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, o);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    __syncthreads(); // the previous call's readers are done with shared[]
    if (lane == 0)
        shared[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < int(blockDim.x >> 5) ? shared[lane] : 0.0;
#pragma unroll
        for (int o = 16; o > 0; o >>= 1)
            v += __shfl_down_sync(0xffffffffu, v, o);
        if (lane == 0)
            shared[32] = v;
    }
    __syncthreads();
    return shared[32];
}

// The sum of v over the warp, on every lane.
inline __device__ double warp_sum(double v)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

// The sum of v over the lanes up to this one (inclusive), on every lane.
inline __device__ double warp_inclusive_scan(double v)
{
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        const double y = __shfl_up_sync(0xffffffffu, v, o);
        if (lane >= o)
            v += y;
    }
    return v;
}

// The sum of v over the threads before this one (0 on thread 0), a multiple of 32
// threads: a scan within each warp by shuffles, then one of the warps' totals. shared
// holds 32 doubles; the caller's earlier reads of it must be behind a barrier.
inline __device__ double block_exclusive_scan(double v, double* shared)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const double x = warp_inclusive_scan(v);
    double before = __shfl_up_sync(0xffffffffu, x, 1);
    if (lane == 0)
        before = 0;
    if (lane == 31)
        shared[warp] = x;
    __syncthreads();
    if (warp == 0) {
        const double t =
            warp_inclusive_scan(lane < int(blockDim.x >> 5) ? shared[lane] : 0.0);
        double e = __shfl_up_sync(0xffffffffu, t, 1); // the warps before, exclusive
        if (lane == 0)
            e = 0;
        shared[lane] = e;
    }
    __syncthreads();
    return shared[warp] + before;
}

// The least floor over shifted bins [a, b) (sensing_floor_range's, as on the CPU).
inline __device__ double
least_floor(const sensing_consts& k, const double* floors, std::int64_t a, std::int64_t b)
{
    double least, most;
    sensing_floor_range(k, floors, a, b, least, most);
    return least;
}

inline __device__ void load_floors(const sensing_consts& k, const double* in, double* out)
{
    for (int i = threadIdx.x; i < k.subbands; i += blockDim.x)
        out[i] = in[i];
    __syncthreads();
}

} // namespace sensing_device
} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_SENSING_KERNELS_CUH */
