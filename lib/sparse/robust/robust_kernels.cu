/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Robust mode's per-call set-up on the device (robust_kernels.h): the state cleared,
// the hash, the buckets loaded and the noise median. The outer rounds are in
// robust_round_kernels.cu, the tones in robust_tone_kernels.cu, the dense path in
// robust_dense_kernels.cu. O(B loops) work per call, no n-sized array.

#include "cuda/cuda_resources.h"
#include "sparse/common/block_select.cuh"
#include "sparse/common/select_cuda.h"
#include "sparse/common/sparse_hash.cuh"
#include "sparse/robust/robust_check.h"
#include "sparse/robust/robust_kernels.cuh"
#include <cuda_runtime.h>

namespace gr {
namespace gpufft {
namespace detail {

using namespace robust_kernels;

namespace {

//! Hash geometry and tap weight of robust mode: the filter tap times the time window at
//! the sample read.
struct hash_window_taps {
    robust_consts c;
    static constexpr bool reads_index = true;
    __device__ __forceinline__ long long samples() const { return c.n; }
    __device__ __forceinline__ long long buckets() const { return c.B; }
    __device__ __forceinline__ float weight(float tap, unsigned long long j) const
    {
        return tap * robust_window_weight(c, j);
    }
};

__global__ void load_kernel(const __grid_constant__ robust_device_state s,
                            const float2* __restrict__ Z,
                            long long count)
{
    double peak = 0;
    bool bad = false;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < count;
         i += (long long)gridDim.x * blockDim.x) {
        const float2 v = Z[i];
        const double re = v.x, im = v.y;
        const double m = re * re + im * im;
        if (!isfinite(m))
            bad = true;
        else
            peak = fmax(peak, m);
        s.res[2 * i] = re;
        s.res[2 * i + 1] = im;
        if (i < (long long)s.c.loops * s.c.B)
            s.occ[i] = 0;
    }
    if (bad)
        s.counts[0] = 1;
    // One atomic per warp: every thread's would serialise on the one address.
    for (int o = 16; o > 0; o >>= 1)
        peak = fmax(peak, __shfl_down_sync(0xffffffffu, peak, o));
    if ((threadIdx.x & 31) == 0)
        atomic_max_nonneg(&s.scalars[1], peak);
}

// The bucket noise P: the median |res|^2 over every robust_noise_stride()-th (loop,
// bucket) of the unshifted hashes, over ln 2, at least leak_floor x the peak. One block
// of noise_threads.
constexpr int noise_threads = 1024;
static_assert(robust_noise_samples % noise_threads == 0, "whole reads per thread");
static_assert(robust_noise_samples <= block_select_max,
              "the noise samples fit one block");

__global__ void __launch_bounds__(noise_threads)
    noise_kernel(const __grid_constant__ robust_device_state s)
{
    __shared__ float power[robust_noise_samples];
    __shared__ unsigned hist[block_select_bins];
    const long long LB = (long long)s.c.loops * s.c.B;
    const long long stride = robust_noise_stride(LB);
    const int m = int((LB + stride - 1) / stride);
    // Up to 8 strided reads a thread, issued together (they are latency bound).
#pragma unroll
    for (int k = 0; k < robust_noise_samples / noise_threads; ++k) {
        const int i = int(threadIdx.x) + k * noise_threads;
        if (i < m) {
            int r;
            long long b;
            loop_bucket(i * stride, s.c.B, r, b);
            const long long at = (long long)r * s.c.hashes * s.c.B + b;
            const double re = s.res[2 * at], im = s.res[2 * at + 1];
            power[i] = float(re * re + im * im);
        }
    }
    __syncthreads();
    const double median = block_select_nonneg(power, m, m / 2, hist);
    if (threadIdx.x == 0) {
        const double P = median / 0.69314718055994530942;
        const double floor = s.leak_floor * s.scalars[1];
        s.scalars[0] = P > floor ? P : floor;
        s.scalars[2] = P;
    }
}

// The self-check's residual test (robust_check.h): blockIdx.y is the loop, the x blocks
// stride over its unshifted buckets; a bucket robust_bucket_unexplained() flags marks
// the loop.
__global__ void unexplained_kernel(const __grid_constant__ robust_device_state s,
                                   const float2* __restrict__ Z)
{
    const int r = int(blockIdx.y);
    const long long base = (long long)r * s.c.hashes * s.c.B;
    const double* res = s.res + 2 * base;
    const double eta_P = s.eta * s.scalars[0];
    bool any = false;
    for (long long b = blockIdx.x * (long long)blockDim.x + threadIdx.x; b < s.c.B;
         b += (long long)gridDim.x * blockDim.x) {
        const float2 z = Z[base + b];
        const double z2 = double(z.x) * z.x + double(z.y) * z.y;
        any = any ||
              robust_bucket_unexplained(
                  res[2 * b] * res[2 * b] + res[2 * b + 1] * res[2 * b + 1], z2, eta_P);
    }
    if (__any_sync(0xffffffffu, any) && (threadIdx.x & 31) == 0)
        s.loop_flags[r] = 1;
}

__global__ void check_kernel(const __grid_constant__ robust_device_state s)
{
    int count = 0;
    for (int r = 0; r < s.c.loops; ++r)
        count += s.loop_flags[r] ? 1 : 0;
    s.header->raw_noise = s.scalars[2];
    s.header->unexplained_loops = count;
}

// Clears the per-call state in one launch (a memset node each would cost a graph node
// apiece): the frequency table's slots the last call claimed (all of them at the first
// call, or when the list overflowed), the counters and the whole result block, unused
// tone slots included (the host copies all of it).
__global__ void reset_kernel(const __grid_constant__ robust_device_state s)
{
    static_assert(sizeof(robust_device_header) % sizeof(unsigned) == 0 &&
                      sizeof(robust_device_tone) % sizeof(unsigned) == 0,
                  "the result block is cleared in words");
    const long long slots = (long long)s.table_mask + 1;
    const long long result_words = (long long)(sizeof(robust_device_header) +
                                               s.tone_cap * sizeof(robust_device_tone)) /
                                   sizeof(unsigned);
    const long long stride = (long long)gridDim.x * blockDim.x;
    const long long first = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    const long long claimed = s.used_count[0];
    const bool whole = s.used_count[2] != 0 || claimed > s.used_cap;
    const long long count = whole ? slots : claimed;
    for (long long i = first; i < count; i += stride) {
        const long long slot = whole ? i : s.used[i];
        s.keys[slot] = ~0ull;
        s.tags[slot] = 0;
        s.slot_found[slot] = -1;
    }
    auto* result = reinterpret_cast<unsigned*>(s.header);
    for (long long i = first; i < result_words; i += stride)
        result[i] = 0;
    for (long long i = first; i < robust_count_slots(s.rounds); i += stride)
        s.counts[i] = 0;
    if (first < robust_scalar_slots)
        s.scalars[first] = 0;
    if (first < s.c.loops)
        s.loop_flags[first] = 0;
    // The last block to finish starts the new call's list: every block has read it.
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        if (atomicAdd(&s.used_count[1], 1) == int(gridDim.x) - 1) {
            s.used_count[0] = 0;
            s.used_count[1] = 0;
            s.used_count[2] = 0;
        }
    }
}

} // namespace

void launch_robust_reset(const robust_device_state& s, void* stream)
{
    const long long slots = (long long)s.table_mask + 1;
    reset_kernel<<<blocks_for(slots, 256) < 1024 ? blocks_for(slots, 256) : 1024,
                   256,
                   0,
                   static_cast<cudaStream_t>(stream)>>>(s);
    check_launch();
}

void launch_robust_hash(const robust_consts& c,
                        const void* const* x_ptr,
                        const void* staged,
                        const float* taps,
                        const sparse_hash_walk* walks,
                        std::int64_t window,
                        std::int64_t half_window,
                        int total_hashes,
                        void* z,
                        void* stream)
{
    launch_hash(hash_window_taps{ c },
                c.B,
                reinterpret_cast<const float2* const*>(x_ptr),
                static_cast<const float2*>(staged),
                taps,
                walks,
                window,
                half_window,
                total_hashes,
                c.hashes,
                static_cast<float2*>(z),
                static_cast<cudaStream_t>(stream));
    check_launch();
}

void launch_robust_load(const robust_device_state& s, const void* Z, void* stream)
{
    const long long count = (long long)s.c.loops * s.c.hashes * s.c.B;
    const unsigned grid = blocks_for(count, 256) < 512 ? blocks_for(count, 256) : 512;
    load_kernel<<<grid, 256, 0, static_cast<cudaStream_t>(stream)>>>(
        s, static_cast<const float2*>(Z), count);
    check_launch();
}

void launch_robust_noise(const robust_device_state& s, void* stream)
{
    auto st = static_cast<cudaStream_t>(stream);
    noise_kernel<<<1, noise_threads, 0, st>>>(s);
    check_launch();
}

void launch_robust_check(const robust_device_state& s, const void* Z, void* stream)
{
    auto st = static_cast<cudaStream_t>(stream);
    const long long blocks = blocks_for(s.c.B, 256);
    const dim3 grid(unsigned(blocks < 256 ? blocks : 256), unsigned(s.c.loops));
    unexplained_kernel<<<grid, 256, 0, st>>>(s, static_cast<const float2*>(Z));
    check_launch();
    check_kernel<<<1, 1, 0, st>>>(s);
    check_launch();
}

} // namespace detail
} // namespace gpufft
} // namespace gr
