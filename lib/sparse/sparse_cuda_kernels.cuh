/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Device stages of the sparse FFT. Each mirrors a step of the CPU backend
// (sparse_cpu.cc) and uses the same arithmetic (sparse_math.h).

#ifndef INCLUDED_GPUFFT_SPARSE_CUDA_KERNELS_CUH
#define INCLUDED_GPUFFT_SPARSE_CUDA_KERNELS_CUH

#include "sparse_math.h"
#include <cuda_runtime.h>
#include <cstdint>

namespace gr {
namespace gpufft {
namespace detail {
namespace sparse_kernels {

constexpr int hash_rows = 8;      // threads sharing one bucket's taps
constexpr int hash_buckets = 32;  // buckets per block
constexpr unsigned long long empty_key = ~0ull;

//! Per-hash sample walk: the index of tap 0 and the index step per tap (sigma), mod n.
struct hash_walk {
    unsigned long long start;
    unsigned long long step;
};

/*!
 * Window, permute and fold: z[h][q] = sum over taps i = q0 + m B of
 * G[i] x[start_h + sigma i]. Each bucket is owned by hash_rows threads that split its
 * taps and add in shared memory: no atomics, no loop-carried index beyond one add.
 * staged: x holds the gathered samples of each hash one after the other (w per hash).
 */
template <bool staged>
__global__ void hash_kernel(const float2* const* x_ptr,
                            const float2* staged_x,
                            const float* __restrict__ taps,
                            const hash_walk* __restrict__ walks,
                            long long n,
                            long long B,
                            long long w,
                            long long half_window,
                            float2* __restrict__ z)
{
    __shared__ float2 part[hash_rows][hash_buckets];
    const int h = blockIdx.y;
    const long long q = (long long)blockIdx.x * hash_buckets + threadIdx.x;
    float2 acc = make_float2(0.f, 0.f);
    if (q < B) {
        const long long q0 = ((-half_window) % B + B) % B; // bucket of tap 0
        long long i = (q - q0 + B) % B + (long long)threadIdx.y * B;
        const hash_walk hw = walks[h];
        const unsigned long long un = (unsigned long long)n;
        unsigned long long idx = 0, jump = 0;
        const float2* xs = nullptr;
        if (staged) {
            xs = staged_x + (long long)h * w;
        } else {
            xs = *x_ptr;
            idx = hw.start + mulmod(hw.step, (unsigned long long)i % un, un);
            if (idx >= un)
                idx -= un;
            jump = mulmod(hw.step, (unsigned long long)(hash_rows * B) % un, un);
        }
        for (; i < w; i += hash_rows * B) {
            const float g = taps[i];
            const float2 v = staged ? xs[i] : xs[idx];
            acc.x += g * v.x;
            acc.y += g * v.y;
            if (!staged) {
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

//! Largest |Z|^2 over every bucket (the empty-bucket threshold is relative to it), and
//! a flag when any bucket is not finite (a NaN/Inf sample was read).
__global__ void peak_kernel(const float2* __restrict__ Z,
                            long long count,
                            unsigned int* peak_bits,
                            int* bad)
{
    float m = 0.f;
    bool nonfinite = false;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < count;
         i += (long long)gridDim.x * blockDim.x) {
        const float2 v = Z[i];
        const float a = v.x * v.x + v.y * v.y;
        if (!isfinite(a))
            nonfinite = true;
        else
            m = fmaxf(m, a);
    }
    for (int o = 16; o; o >>= 1)
        m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
    if ((threadIdx.x & 31) == 0)
        atomicMax(peak_bits, __float_as_uint(m)); // non-negative floats order as uints
    if (nonfinite)
        atomicOr(bad, 1);
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

/*!
 * One peeling round, part 1: every bucket of every loop that holds a single tone names
 * it; tones not seen before are appended (deduplicated through the hash table).
 */
__global__ void decode_kernel(sparse_consts c,
                              const float2* __restrict__ Z,
                              const unsigned long long* __restrict__ sigma_inv,
                              const unsigned long long* __restrict__ tau,
                              const unsigned int* peak_bits,
                              double threshold_rel,
                              peel_state s,
                              int round)
{
    if (round > 0 && s.count_at[round] == s.count_at[round - 1])
        return; // nothing was subtracted last round: the buckets have not changed
    const long long id = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (id >= (long long)c.loops * c.B)
        return;
    const int r = int(id / c.B);
    const long long b = id % c.B;
    double zr[sparse_max_levels], zi[sparse_max_levels];
    for (int j = 0; j < c.levels; ++j) {
        const float2 v = Z[(long long)(r * c.levels + j) * c.B + b];
        zr[j] = v.x;
        zi[j] = v.y;
    }
    const double thr2 = double(__uint_as_float(*peak_bits)) * threshold_rel * threshold_rel;
    std::int64_t f;
    double xr, xi;
    if (!decode_bucket(c, zr, zi, b, sigma_inv[r], tau[r], thr2, f, xr, xi))
        return;
    if (*(volatile int*)s.count >= s.max_found)
        return; // full: bounds the table's load to max_found + loops * B keys
    unsigned long long slot = (unsigned long long)f * 0x9E3779B97F4A7C15ull;
    slot = (slot >> 20) & s.mask;
    for (;;) {
        const unsigned long long prev =
            atomicCAS(&s.table[slot], empty_key, (unsigned long long)f);
        if (prev == empty_key) {
            const int at = atomicAdd(s.count, 1);
            if (at < s.max_found) {
                s.found_f[at] = f;
                s.found_x[at] = make_double2(xr, xi);
            }
            return;
        }
        if (prev == (unsigned long long)f)
            return; // already located (this round by another loop, or earlier)
        slot = (slot + 1) & s.mask;
    }
}

/*!
 * Peeling round, part 2: subtract each tone located this round from every hash, in its
 * own bucket and both neighbours (the window's response is negligible further out).
 */
__global__ void subtract_kernel(sparse_consts c,
                                float2* Z,
                                const unsigned long long* __restrict__ sigma,
                                const unsigned long long* __restrict__ tau,
                                peel_state s,
                                int round)
{
    const int first = s.count_at[round];
    const int end = min(*s.count, s.max_found);
    const long long id = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (id == 0)
        s.count_at[round + 1] = end;
    const long long i = first + id / c.loops;
    if (i >= end)
        return;
    const int r = int(id % c.loops);
    const long long f = s.found_f[i];
    const double2 x = s.found_x[i];
    const long long g = (long long)mulmod(sigma[r], (unsigned long long)f, c.n);
    const long long b0 = own_bucket(c, g);
    for (int db = -1; db <= 1; ++db) {
        const long long b = (b0 + db + c.B) % c.B;
        for (int j = 0; j < c.levels; ++j) {
            double zr, zi;
            tone_in_bucket(c, f, g, x.x, x.y, b, (unsigned long long)c.offset[j], tau[r], zr, zi);
            float2* p = &Z[(long long)(r * c.levels + j) * c.B + b];
            atomicAdd(&p->x, float(-zr));
            atomicAdd(&p->y, float(-zi));
        }
    }
}

__device__ inline double median_in_place(double* v, int count)
{
    for (int i = 1; i < count; ++i) { // insertion sort: count <= 96
        const double t = v[i];
        int j = i - 1;
        while (j >= 0 && v[j] > t) {
            v[j + 1] = v[j];
            --j;
        }
        v[j + 1] = t;
    }
    return count % 2 ? v[count / 2] : 0.5 * (v[count / 2 - 1] + v[count / 2]);
}

/*!
 * Values: per hash, X + residual / (unit tone's response); the median over hashes of the
 * real and imaginary parts. Also the selection key |X|^2 (-1 for unused slots).
 */
__global__ void estimate_kernel(sparse_consts c,
                                const float2* __restrict__ Z,
                                const unsigned long long* __restrict__ sigma,
                                const unsigned long long* __restrict__ tau,
                                peel_state s,
                                float2* __restrict__ x_out,
                                float* __restrict__ key)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= s.max_found)
        return;
    const int found = min(*s.count, s.max_found);
    if (i >= found) {
        key[i] = -1.f;
        return;
    }
    double er[16 * sparse_max_levels], ei[16 * sparse_max_levels];
    const long long f = s.found_f[i];
    const double2 x = s.found_x[i];
    int m = 0;
    for (int r = 0; r < c.loops; ++r) {
        const long long g = (long long)mulmod(sigma[r], (unsigned long long)f, c.n);
        const long long b = own_bucket(c, g);
        for (int j = 0; j < c.levels; ++j, ++m) {
            double ur, ui;
            tone_in_bucket(c, f, g, 1.0, 0.0, b, (unsigned long long)c.offset[j], tau[r], ur, ui);
            const float2 v = Z[(long long)(r * c.levels + j) * c.B + b];
            const double den = ur * ur + ui * ui;
            er[m] = x.x + (double(v.x) * ur + double(v.y) * ui) / den;
            ei[m] = x.y + (double(v.y) * ur - double(v.x) * ui) / den;
        }
    }
    const double xr = median_in_place(er, m), xi = median_in_place(ei, m);
    x_out[i] = make_float2(float(xr), float(xi));
    key[i] = float(xr * xr + xi * xi);
}

//! The k largest (already sorted by key, descending) into the output slots.
__global__ void gather_top_kernel(const int* __restrict__ order,
                                  const float* __restrict__ sorted_key,
                                  const long long* __restrict__ found_f,
                                  const float2* __restrict__ x,
                                  int k,
                                  long long* out_f,
                                  float2* out_x,
                                  int* out_count)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= k)
        return;
    if (sorted_key[i] >= 0.f) {
        out_f[i] = found_f[order[i]];
        out_x[i] = x[order[i]];
        atomicAdd(out_count, 1);
    } else {
        out_f[i] = -1;
    }
}

} // namespace sparse_kernels
} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_SPARSE_CUDA_KERNELS_CUH */
