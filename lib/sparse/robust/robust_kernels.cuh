/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Pieces robust mode's kernel files share (robust_kernels.cu, robust_dense_kernels.cu):
// grid sizes, a launch check, a float maximum by atomics, warp lanes, and the tone a
// peak gives.
// Included only by .cu files.

#ifndef INCLUDED_GPUFFT_ROBUST_KERNELS_CUH
#define INCLUDED_GPUFFT_ROBUST_KERNELS_CUH

#include "cuda/cuda_check.h"
#include "sparse/robust/robust_kernels.h"
#include <cuda_runtime.h>

namespace gr {
namespace gpufft {
namespace detail {
namespace robust_kernels {

inline unsigned blocks_for(long long items, int threads)
{
    const long long b = (items + threads - 1) / threads;
    return unsigned(b < 1 ? 1 : b);
}

inline void check_launch() { GPUFFT_CUDA_CHECK_LAUNCH(); }

// Kernels that give each item a warp stride over the items with a grid of at most
// 2048 blocks: the items' count is known only on the device, and a warp per possible
// item would launch mostly idle blocks.
inline unsigned warp_blocks(long long items, int threads)
{
    const unsigned b = blocks_for(items * 32, threads);
    return b < 2048 ? b : 2048;
}
// The same for a thread per item: at most 2048 blocks, the threads striding.
inline unsigned stride_blocks(long long items, int threads)
{
    const unsigned b = blocks_for(items, threads);
    return b < 2048 ? b : 2048;
}
__device__ inline long long thread_index()
{
    return blockIdx.x * (long long)blockDim.x + threadIdx.x;
}
__device__ inline long long thread_count() { return (long long)gridDim.x * blockDim.x; }
__device__ inline long long warp_index()
{
    return (blockIdx.x * (long long)blockDim.x + threadIdx.x) / 32;
}
__device__ inline long long warp_count()
{
    return (long long)gridDim.x * blockDim.x / 32;
}

// Non-negative floats order as their bit patterns.
__device__ inline void atomic_max_nonneg(double* at, double v)
{
    atomicMax(reinterpret_cast<unsigned long long*>(at), __double_as_longlong(v));
}

//! The lanes of a full warp sharing robust_loop_estimate()'s sums (robust_math.h's
//! serial_lanes). A sum reaches lane 0 by a tree and is broadcast from there, so every
//! lane sees the same bits.
struct warp_lanes {
    static constexpr int width = 32;
    int lane_index;
    __device__ int lane() const { return lane_index; }
    __device__ double sum(double v) const
    {
        for (int o = 16; o > 0; o >>= 1)
            v += __shfl_down_sync(0xffffffffu, v, o);
        return __shfl_sync(0xffffffffu, v, 0);
    }
    //! v[0..count) summed over the lanes in place: a reduce-scatter by halving (at each
    //! step a lane keeps half of its range and adds its partner's copy of that half), so
    //! each sum ends in one lane, then every sum is broadcast from its lane. Every lane
    //! ends with the same bits (robust_pairs.h's fit takes the same branches in every
    //! lane), for about 2 count shuffles where a butterfly over all of v takes 5 count.
    __device__ void sum_n(double* v, int count) const
    {
        int lo = 0, hi = count;
        for (int o = 16; o > 0; o >>= 1) {
            const int mid = (lo + hi) / 2;
            const bool upper = (lane_index & o) != 0;
            const int keep = upper ? mid : lo, send = upper ? lo : mid;
            const int keep_n = upper ? hi - mid : mid - lo,
                      send_n = upper ? mid - lo : hi - mid;
            // The same in every lane (each shuffle needs the whole warp): no half at this
            // step is longer than count / (32 / o), rounded up.
            const int parts = 32 / o, steps = (count + parts - 1) / parts;
            for (int t = 0; t < steps; ++t) {
                const double in =
                    __shfl_xor_sync(0xffffffffu, t < send_n ? v[send + t] : 0.0, o);
                if (t < keep_n)
                    v[keep + t] += in;
            }
            lo = keep;
            hi = keep + keep_n;
        }
        for (int i = 0; i < count; ++i) {
            // The lane whose halvings kept index i.
            int a = 0, b = count, owner = 0;
            for (int o = 16; o > 0; o >>= 1) {
                const int mid = (a + b) / 2;
                if (i >= mid) {
                    owner |= o;
                    a = mid;
                } else {
                    b = mid;
                }
            }
            v[i] = __shfl_sync(0xffffffffu, v[i], owner);
        }
    }
    __device__ void sync() const { __syncwarp(); }
    //! The largest v over the lanes and its index (ties: the lowest index), in every
    //! lane.
    __device__ void best(double& v, int& at) const
    {
        for (int o = 16; o > 0; o >>= 1) {
            const double ov = __shfl_xor_sync(0xffffffffu, v, o);
            const int oa = __shfl_xor_sync(0xffffffffu, at, o);
            if (ov > v || (ov == v && oa >= 0 && (at < 0 || oa < at))) {
                v = ov;
                at = oa;
            }
        }
    }
};

//! Appends the tone at fractional offset delta from peak `bin` to the result block;
//! returns its slot (>= cap: not stored).
__device__ inline int append_tone(robust_device_header* header,
                                  robust_device_tone* tones,
                                  int cap,
                                  const robust_consts& c,
                                  long long bin,
                                  double delta,
                                  double ar,
                                  double ai)
{
    const double f = robust_wrap_frequency(c, double(bin) + delta);
    const int at = atomicAdd(&header->tones, 1);
    if (at < cap)
        tones[at] = robust_device_tone{ f, ar, ai };
    return at;
}

/*!
 * robust_fit_tone()'s maximum (and its explained energy) found by a warp: 32 offsets
 * spread over [lo, hi] (by default [-0.5, 0.5]), then twice 32 over +-1 step around the
 * best (steps 1/31, 2e-3, 1.4e-4 bin for a range of 1): three evaluations per lane
 * instead of some thirty on one thread.
 */
__device__ inline double warp_fit_tone(const robust_consts& c,
                                       const double* yr,
                                       const double* yi,
                                       const unsigned char* present,
                                       double& delta,
                                       double& ar,
                                       double& ai,
                                       double lo_end = -0.5,
                                       double hi_end = 0.5)
{
    const int lane = threadIdx.x & 31;
    const robust_tone_lobe lobe(c, yr, yi, present);
    double best = 0.5 * (lo_end + hi_end);
    if (lobe.count > 1) {
        double lo = lo_end, hi = hi_end, tr, ti;
        // To 1.4e-4 bin: far below what the noise of a bucket or bin leaves.
        for (int pass = 0; pass < 3; ++pass) {
            const double step = (hi - lo) / 31.0;
            double v = lobe.explained(lo + double(lane) * step, tr, ti);
            int at = lane;
            for (int o = 16; o > 0; o >>= 1) { // highest value, lowest lane on ties
                const double ov = __shfl_xor_sync(0xffffffffu, v, o);
                const int oa = __shfl_xor_sync(0xffffffffu, at, o);
                if (ov > v || (ov == v && oa < at)) {
                    v = ov;
                    at = oa;
                }
            }
            best = lo + double(at) * step;
            lo = best - step < lo_end ? lo_end : best - step;
            hi = best + step > hi_end ? hi_end : best + step;
        }
    }
    delta = best;
    return lobe.explained(best, ar, ai);
}

//! The frequency table of a call (open addressing, linear probing).
constexpr unsigned long long empty_key = ~0ull;

__device__ inline unsigned long long table_slot(unsigned long long key,
                                                unsigned long long mask)
{
    unsigned long long h = key * 0x9E3779B97F4A7C15ull;
    return (h ^ (h >> 29)) & mask;
}

//! The slot holding key (inserting it when absent), or ~0 when the table is full;
//! claimed: whether this call inserted it.
__device__ inline unsigned long long table_insert(unsigned long long* keys,
                                                  unsigned long long mask,
                                                  unsigned long long key,
                                                  bool* claimed = nullptr)
{
    unsigned long long s = table_slot(key, mask);
    for (unsigned long long probe = 0; probe <= mask; ++probe) {
        const unsigned long long prev = atomicCAS(&keys[s], empty_key, key);
        if (claimed)
            *claimed = prev == empty_key;
        if (prev == empty_key || prev == key)
            return s;
        s = (s + 1) & mask;
    }
    return ~0ull;
}

__device__ inline long long table_find(const unsigned long long* keys,
                                       unsigned long long mask,
                                       unsigned long long key)
{
    unsigned long long s = table_slot(key, mask);
    for (unsigned long long probe = 0; probe <= mask; ++probe) {
        const unsigned long long k = keys[s];
        if (k == key)
            return (long long)s;
        if (k == empty_key)
            return -1;
        s = (s + 1) & mask;
    }
    return -1;
}

//! Item i of loops x B as (loop r, bucket b); 32-bit division where it fits (64-bit
//! division is a long software routine on the GPU).
__device__ __forceinline__ void
loop_bucket(long long i, long long B, int& r, long long& b)
{
    if (i < (1ll << 32) && B < (1ll << 32)) {
        const unsigned q = unsigned(i) / unsigned(B);
        r = int(q);
        b = (long long)(unsigned(i) - q * unsigned(B));
    } else {
        r = int(i / B);
        b = i % B;
    }
}

} // namespace robust_kernels
} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_ROBUST_KERNELS_CUH */
