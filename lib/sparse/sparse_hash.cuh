/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The hash (HashToBins) both CUDA backends of the sparse FFT run: exact mode
// (sparse_kernels.cu) with the filter taps alone, robust mode (robust_kernels.cu) with
// the taps times its time window at each sample read. Included only by .cu files.

#ifndef INCLUDED_GPUFFT_SPARSE_HASH_CUH
#define INCLUDED_GPUFFT_SPARSE_HASH_CUH

#include "sparse_math.h"
#include <cuda_runtime.h>

namespace gr {
namespace gpufft {
namespace detail {

constexpr int hash_rows = 8;     // threads sharing one bucket's taps
constexpr int hash_buckets = 32; // buckets per block

//! Hash geometry and tap weight of exact mode: the filter tap alone, so the staged path
//! never needs the sample index.
struct hash_plain_taps {
    long long n, B;
    static constexpr bool reads_index = false;
    __device__ __forceinline__ long long samples() const { return n; }
    __device__ __forceinline__ long long buckets() const { return B; }
    __device__ __forceinline__ float weight(float tap, unsigned long long) const
    {
        return tap;
    }
};

/*!
 * Window, permute and fold: z[h][q] = sum over taps i = q0 + m B of
 * t.weight(G[i], j) x[j], j = start_h + sigma_h i (mod n), with n = t.samples() and
 * B = t.buckets(). Each bucket is owned by hash_rows threads that split its taps and
 * add in shared memory: no atomics, no loop-carried index beyond one add. x_ptr: a
 * device pointer to the input pointer (so one CUDA graph serves any input); staged:
 * staged_x holds the gathered samples of each hash one after the other (w per hash)
 * instead. Launch: block (hash_buckets, hash_rows), grid (ceil(B / hash_buckets),
 * hashes).
 */
template <bool staged, typename Taps>
__global__ void hash_kernel(Taps t,
                            const float2* const* x_ptr,
                            const float2* staged_x,
                            const float* __restrict__ taps,
                            const sparse_hash_walk* __restrict__ walks,
                            long long w,
                            long long half_window,
                            float2* __restrict__ z)
{
    // The sample index is walked when the samples come from x or the weight reads it.
    constexpr bool walk = !staged || Taps::reads_index;
    __shared__ float2 part[hash_rows][hash_buckets];
    const int h = blockIdx.y;
    const long long B = t.buckets();
    const long long q = (long long)blockIdx.x * hash_buckets + threadIdx.x;
    float2 acc = make_float2(0.f, 0.f);
    if (q < B) {
        const long long q0 = ((-half_window) % B + B) % B; // bucket of tap 0
        long long i = (q - q0 + B) % B + (long long)threadIdx.y * B;
        const unsigned long long un = (unsigned long long)t.samples();
        const sparse_hash_walk hw = walks[h];
        const float2* xs = staged ? staged_x + (long long)h * w : *x_ptr;
        unsigned long long idx = 0, jump = 0;
        if (walk) {
            idx = hw.start + mulmod(hw.step, (unsigned long long)i % un, un);
            if (idx >= un)
                idx -= un;
            jump = mulmod(hw.step, (unsigned long long)(hash_rows * B) % un, un);
        }
        for (; i < w; i += hash_rows * B) {
            const float g = t.weight(taps[i], idx);
            const float2 v = staged ? xs[i] : xs[idx];
            acc.x += g * v.x;
            acc.y += g * v.y;
            if (walk) {
                idx += jump;
                if (idx >= un)
                    idx -= un;
            }
        }
    }
    part[threadIdx.y][threadIdx.x] = acc;
    __syncthreads();
    if (threadIdx.y == 0 && q < B) {
        for (int r = 1; r < hash_rows; ++r) {
            acc.x += part[r][threadIdx.x].x;
            acc.y += part[r][threadIdx.x].y;
        }
        z[(long long)h * B + q] = acc;
    }
}

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_SPARSE_HASH_CUH */
