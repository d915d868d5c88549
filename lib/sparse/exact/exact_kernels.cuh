/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Device-side pieces the exact mode's kernel files share (sparse_kernels.cu,
// sparse_value_kernels.cu, sparse_vote_kernels.cu): the peeling state, the single-tone
// test on the hashed buckets, the tone table and a block sum. Included only by .cu
// files.

#ifndef INCLUDED_GPUFFT_SPARSE_KERNELS_CUH
#define INCLUDED_GPUFFT_SPARSE_KERNELS_CUH

#include "sparse/exact/exact_kernels.h"
#include <cuda_runtime.h>
#include <cstdint>

namespace gr {
namespace gpufft {
namespace detail {
namespace sparse_kernels {

constexpr unsigned long long empty_key = ~0ull;

using out_header = sparse_device_header;

//! Sum of v over the block (blockDim.x a multiple of 32, at most 1024); the total is
//! valid in thread 0. Every thread of the block must call it.
__device__ inline double block_sum(double v)
{
    __shared__ double warp_sums[32];
    for (int o = 16; o; o >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    __syncthreads(); // warp_sums may still be read by a previous call
    if (lane == 0)
        warp_sums[warp] = v;
    __syncthreads();
    v = 0;
    if (warp == 0) {
        v = lane < int(blockDim.x >> 5) ? warp_sums[lane] : 0.0;
        for (int o = 16; o; o >>= 1)
            v += __shfl_xor_sync(0xffffffffu, v, o);
    }
    return v;
}

struct peel_state {
    unsigned long long* table; // open addressing on f, `mask + 1` slots
    unsigned long long mask;
    long long* found_f;
    double2* found_x;
    int* count;    // tones located (may run past max_found; clamp on read)
    int* count_at; // count_at[r]: tones located before round r
    int max_found;
};

//! The single-tone test of bucket b of loop r on its hashes at every level (Z as laid
//! out by the batched FFT): true, with the tone's frequency and value, if one tone holds
//! it.
__device__ inline bool
decode_hashed_bucket(const sparse_consts& c,
                     const float2* __restrict__ Z,
                     const unsigned long long* __restrict__ sigma_inv,
                     const unsigned long long* __restrict__ tau,
                     const unsigned int* peak_bits,
                     double threshold_rel,
                     int r,
                     long long b,
                     std::int64_t& f,
                     double& xr,
                     double& xi)
{
    double zr[sparse_max_levels], zi[sparse_max_levels];
    for (int j = 0; j < c.levels; ++j) {
        const float2 v = Z[(long long)(r * c.levels + j) * c.B + b];
        zr[j] = v.x;
        zi[j] = v.y;
    }
    const double thr2 =
        double(__uint_as_float(*peak_bits)) * threshold_rel * threshold_rel;
    return decode_bucket(c, zr, zi, b, sigma_inv[r], tau[r], thr2, f, xr, xi);
}

//! Appends tone f to the located set unless it is there already (open addressing on f).
__device__ inline void insert_tone(const peel_state& s, unsigned long long f, double2 x)
{
    if (*(volatile int*)s.count >= s.max_found)
        return; // full: bounds the table's load to max_found + loops * B keys
    unsigned long long slot = f * 0x9E3779B97F4A7C15ull;
    slot = (slot >> 20) & s.mask;
    for (;;) {
        const unsigned long long prev = atomicCAS(&s.table[slot], empty_key, f);
        if (prev == empty_key) {
            const int at = atomicAdd(s.count, 1);
            if (at < s.max_found) {
                s.found_f[at] = (long long)f;
                s.found_x[at] = x;
            }
            return;
        }
        if (prev == f)
            return; // already located (this round by another loop, or earlier)
        slot = (slot + 1) & s.mask;
    }
}

//! The peeling state of a plan's device state.
inline peel_state peel_of(const sparse_device_state& s)
{
    return peel_state{ s.table,    s.table_size - 1,
                       s.found_f,  reinterpret_cast<double2*>(s.found_x),
                       s.count,    s.count_at,
                       s.max_found };
}

//! Peeling round, part 2 (sparse_kernels.cu): subtracts the tones located in `round`.
//! The phase and the voting location both end their rounds with it.
void enqueue_subtract(const sparse_device_state& s, int round, cudaStream_t stream);

} // namespace sparse_kernels
} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_SPARSE_KERNELS_CUH */
