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

#include "sparse/common/sparse_math.h"
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

constexpr int hash_chunk = 4; // hashes of one loop a thread folds together

/*!
 * Window, permute and fold: z[h][q] = sum over taps i = q0 + m B of
 * t.weight(G[i], j) x[j], j = start_h + sigma i (mod n), with n = t.samples() and
 * B = t.buckets(); the hashes of a loop share sigma (their starts differ by the loop's
 * time offsets). Each bucket is owned by hash_rows threads that split its taps and add
 * in shared memory: no atomics, no loop-carried index beyond one add. Each thread folds
 * up to hash_chunk hashes of one loop at once: the index arithmetic of a tap is done
 * once for them all, and their reads are in flight together. x_ptr: a device pointer to
 * the input pointer (so one CUDA graph serves any input); staged: staged_x holds the
 * gathered samples of each hash one after the other (w per hash) instead. q0: the
 * bucket of tap 0. Launch through launch_hash().
 */
template <bool staged, typename Taps>
__global__ void hash_kernel(Taps t,
                            const float2* const* x_ptr,
                            const float2* staged_x,
                            const float* __restrict__ taps,
                            const sparse_hash_walk* __restrict__ walks,
                            long long w,
                            long long q0,
                            int per_loop,
                            float2* __restrict__ z)
{
    // The sample index is walked when the samples come from x or the weight reads it.
    constexpr bool walk = !staged || Taps::reads_index;
    __shared__ float2 part[hash_chunk][hash_rows][hash_buckets];
    const int chunks = (per_loop + hash_chunk - 1) / hash_chunk;
    const int loop = int(blockIdx.y) / chunks;
    const int first = (int(blockIdx.y) % chunks) * hash_chunk; // within the loop
    const int count = per_loop - first < hash_chunk ? per_loop - first : hash_chunk;
    const int h0 = loop * per_loop + first;
    const long long B = t.buckets();
    const long long q = (long long)blockIdx.x * hash_buckets + threadIdx.x;
    float2 acc[hash_chunk];
#pragma unroll
    for (int j = 0; j < hash_chunk; ++j)
        acc[j] = make_float2(0.f, 0.f);
    if (q < B) {
        long long i = q - q0;
        if (i < 0)
            i += B;
        i += (long long)threadIdx.y * B;
        const unsigned long long un = (unsigned long long)t.samples();
        unsigned long long idx = 0, jump = 0, delta[hash_chunk] = {};
        if (walk) {
            const unsigned long long start = walks[h0].start, step = walks[h0].step;
            const unsigned long long iu = (unsigned long long)i;
            idx = start + mulmod(step, iu < un ? iu : iu % un, un);
            if (idx >= un)
                idx -= un;
            const unsigned long long stride = (unsigned long long)(hash_rows * B);
            jump = mulmod(step, stride < un ? stride : stride % un, un);
#pragma unroll
            for (int j = 1; j < hash_chunk; ++j)
                if (j < count)
                    delta[j] = walks[h0 + j].start >= start
                                   ? walks[h0 + j].start - start
                                   : walks[h0 + j].start + un - start;
        }
        const float2* xs = staged ? staged_x : *x_ptr;
        for (; i < w; i += hash_rows * B) {
            const float tap = taps[i];
#pragma unroll
            for (int j = 0; j < hash_chunk; ++j) {
                if (j >= count)
                    break;
                unsigned long long at = 0;
                if (walk) {
                    at = idx + delta[j];
                    if (at >= un)
                        at -= un;
                }
                const float g = t.weight(tap, at);
                const float2 v = staged ? xs[(long long)(h0 + j) * w + i] : xs[at];
                acc[j].x += g * v.x;
                acc[j].y += g * v.y;
            }
            if (walk) {
                idx += jump;
                if (idx >= un)
                    idx -= un;
            }
        }
    }
#pragma unroll
    for (int j = 0; j < hash_chunk; ++j)
        part[j][threadIdx.y][threadIdx.x] = acc[j];
    __syncthreads();
    if (q >= B)
        return;
    for (int j = threadIdx.y; j < count; j += hash_rows) {
        float2 sum = part[j][0][threadIdx.x];
        for (int r = 1; r < hash_rows; ++r) {
            sum.x += part[j][r][threadIdx.x].x;
            sum.y += part[j][r][threadIdx.x].y;
        }
        z[(long long)(h0 + j) * B + q] = sum;
    }
}

//! Every hash of a plan: `hashes` of them, per_loop a loop, w taps with the filter
//! centred at tap half_window; z: hashes x B (B = t.buckets()).
template <typename Taps>
void launch_hash(const Taps& t,
                 long long B,
                 const float2* const* x_ptr,
                 const float2* staged_x,
                 const float* taps,
                 const sparse_hash_walk* walks,
                 long long w,
                 long long half_window,
                 int hashes,
                 int per_loop,
                 float2* z,
                 cudaStream_t stream)
{
    const long long q0 = ((-half_window) % B + B) % B;
    const int loops = hashes / per_loop;
    const int chunks = (per_loop + hash_chunk - 1) / hash_chunk;
    const dim3 block(hash_buckets, hash_rows);
    const dim3 grid(unsigned((B + hash_buckets - 1) / hash_buckets),
                    unsigned(loops * chunks));
    if (staged_x)
        hash_kernel<true><<<grid, block, 0, stream>>>(
            t, nullptr, staged_x, taps, walks, w, q0, per_loop, z);
    else
        hash_kernel<false><<<grid, block, 0, stream>>>(
            t, x_ptr, nullptr, taps, walks, w, q0, per_loop, z);
}

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_SPARSE_HASH_CUH */
