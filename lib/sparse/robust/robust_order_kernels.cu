/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The tone list of a call put in order on the device (both CUDA paths of robust mode),
// so the host only copies it: strongest first, each tone's SNR, and which tones have a
// neighbour close enough to be its window leakage (finish_tones() tests only those).

#include "cuda/cuda_check.h"
#include "sparse/robust/robust_kernels.h"
#include <cuda_runtime.h>

namespace gr {
namespace gpufft {
namespace detail {

namespace {

constexpr int order_threads = 1024;
constexpr int order_per_thread = robust_order_max / order_threads;
static_assert(robust_order_max % order_threads == 0, "whole slots per thread");
// The frequency sort's key holds the tone's position in its low bits.
constexpr int order_index_bits = 12;
static_assert((1 << order_index_bits) >= robust_order_max, "positions fit the key");

//! Sorts keys[0..size) ascending (size a power of two) with the whole block. The
//! stages that pair keys less than a warp apart run in registers through shuffles, so
//! only the wider ones go through shared memory and a barrier each.
__device__ void bitonic_sort(unsigned long long* keys, int size)
{
    const int span = size < 32 ? 32 : size; // whole warps (keys past size sort apart)
    for (int k = 2; k <= size; k <<= 1) {
        int j = k >> 1;
        for (; j >= 32; j >>= 1) {
            for (int i = threadIdx.x; i < size; i += blockDim.x) {
                const int partner = i ^ j;
                if (partner > i) {
                    const bool up = (i & k) == 0;
                    const unsigned long long a = keys[i], b = keys[partner];
                    if ((a > b) == up) {
                        keys[i] = b;
                        keys[partner] = a;
                    }
                }
            }
            __syncthreads();
        }
        for (int i = threadIdx.x; i < span; i += blockDim.x) {
            unsigned long long v = keys[i];
            const bool up = (i & k) == 0;
            for (int jj = j; jj > 0; jj >>= 1) {
                const unsigned long long o = __shfl_xor_sync(0xffffffffu, v, jj);
                v = (((i & jj) == 0) == up) ? (o < v ? o : v) : (o > v ? o : v);
            }
            keys[i] = v;
        }
        __syncthreads();
    }
}

__global__ void __launch_bounds__(order_threads)
    order_kernel(robust_device_header* header,
                 robust_device_tone* tones,
                 int cap,
                 long long n,
                 double noise_scale)
{
    __shared__ unsigned long long keys[robust_order_max];
    __shared__ int dropped;
    const int all = header->tones < cap ? header->tones : cap;
    if (all > robust_order_max)
        return; // the host orders them
    if (threadIdx.x == 0)
        dropped = 0;
    __syncthreads();
    int size = 1;
    while (size < all)
        size <<= 1;
    // Strongest first: the complemented bits of the power (a non-negative float orders
    // as its bits), then the position (ties: the order they came in). Tones a joint fit
    // dropped (dense path) sort last and are left out.
    for (int i = threadIdx.x; i < (size < 32 ? 32 : size); i += order_threads) {
        unsigned long long key = ~0ull;
        if (i < all && (tones[i].flags & robust_tone_dropped))
            atomicAdd(&dropped, 1);
        else if (i < all) {
            const double p = tones[i].re * tones[i].re + tones[i].im * tones[i].im;
            key = ((unsigned long long)(~__float_as_uint(float(p))) << 32) | unsigned(i);
        }
        keys[i] = key;
    }
    __syncthreads();
    bitonic_sort(keys, size);
    const int count = all - dropped;
    robust_device_tone mine[order_per_thread];
#pragma unroll
    for (int k = 0; k < order_per_thread; ++k) {
        const int i = threadIdx.x + k * order_threads;
        if (i < count)
            mine[k] = tones[unsigned(keys[i])];
    }
    __syncthreads(); // every tone read before any is overwritten
    const double noise = header->noise * noise_scale;
#pragma unroll
    for (int k = 0; k < order_per_thread; ++k) {
        const int i = threadIdx.x + k * order_threads;
        if (i >= count)
            continue;
        robust_device_tone t = mine[k];
        const double p = t.re * t.re + t.im * t.im;
        t.snr_db = noise > 0 ? 10.0 * log10(p / noise) : 300.0;
        t.near = 0;
        tones[i] = t;
        // By frequency (whole bins, at most 2^40 of them), then position.
        keys[i] =
            ((unsigned long long)floor(t.frequency) << order_index_bits) | unsigned(i);
    }
    for (int i = count + threadIdx.x; i < (size < 32 ? 32 : size); i += order_threads)
        keys[i] = ~0ull;
    __syncthreads();
    bitonic_sort(keys, size);
    // Neighbours in frequency order (around the circle) closer than the reach, counted
    // in whole bins with one bin to spare: a superset the host narrows.
    const unsigned long long reach = robust_tone_reach + 1;
    for (int q = threadIdx.x; q < count; q += order_threads) {
        const unsigned long long f = keys[q] >> order_index_bits;
        const unsigned long long prev =
            q > 0 ? keys[q - 1] >> order_index_bits
                  : (keys[count - 1] >> order_index_bits) - (unsigned long long)n;
        const unsigned long long next =
            q + 1 < count ? keys[q + 1] >> order_index_bits
                          : (keys[0] >> order_index_bits) + (unsigned long long)n;
        const bool near = count > 1 && (f - prev <= reach || next - f <= reach);
        tones[keys[q] & ((1u << order_index_bits) - 1u)].near = near ? 1 : 0;
    }
    if (threadIdx.x == 0) {
        header->ordered = 1;
        if (dropped)
            header->tones = count;
    }
}

} // namespace

void launch_robust_order(robust_device_header* header,
                         robust_device_tone* tones,
                         int cap,
                         std::int64_t n,
                         double noise_scale,
                         void* stream)
{
    order_kernel<<<1, order_threads, 0, static_cast<cudaStream_t>(stream)>>>(
        header, tones, cap, (long long)n, noise_scale);
    GPUFFT_CUDA_CHECK_LAUNCH();
}

} // namespace detail
} // namespace gpufft
} // namespace gr
