/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Exact mode's device stages up to the location (sparse_kernels.h): hash (window,
// permute, fold), peak, and the phase location's peeling rounds (decode, subtract).
// Thread per bucket slice for the hash, per (loop, bucket) for the decode, per (tone,
// loop) for the subtraction: O(B loops levels) work per call, nothing n-sized.

#include "cuda/cuda_check.h"
#include "sparse/common/sparse_hash.cuh"
#include "sparse/exact/exact_kernels.cuh"
#include <algorithm>

namespace gr {
namespace gpufft {
namespace detail {
namespace sparse_kernels {
namespace {

//! Largest |Z|^2 over every bucket (the empty-bucket threshold is relative to it), the
//! sum of |Z|^2 (the hashed energy the residual check compares with), and a flag when
//! any bucket is not finite (a NaN/Inf sample was read).
__global__ void peak_kernel(const float2* __restrict__ Z,
                            long long count,
                            unsigned int* peak_bits,
                            int* bad,
                            double* hashed_energy)
{
    float m = 0.f;
    double e = 0;
    bool nonfinite = false;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < count;
         i += (long long)gridDim.x * blockDim.x) {
        const float2 v = Z[i];
        const float a = v.x * v.x + v.y * v.y;
        if (!isfinite(a)) {
            nonfinite = true;
        } else {
            m = fmaxf(m, a);
            e += double(v.x) * v.x + double(v.y) * v.y;
        }
    }
    for (int o = 16; o; o >>= 1)
        m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
    if ((threadIdx.x & 31) == 0)
        atomicMax(peak_bits, __float_as_uint(m)); // non-negative floats order as uints
    if (nonfinite)
        atomicOr(bad, 1);
    e = block_sum(e);
    if (threadIdx.x == 0 && e != 0)
        atomicAdd(hashed_energy, e);
}

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
    std::int64_t f;
    double xr, xi;
    if (decode_hashed_bucket(
            c, Z, sigma_inv, tau, peak_bits, threshold_rel, r, b, f, xr, xi))
        insert_tone(s, (unsigned long long)f, make_double2(xr, xi));
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
            tone_in_bucket(
                c, f, g, x.x, x.y, b, (unsigned long long)c.offset[j], tau[r], zr, zi);
            float2* p = &Z[(long long)(r * c.levels + j) * c.B + b];
            atomicAdd(&p->x, float(-zr));
            atomicAdd(&p->y, float(-zi));
        }
    }
}

//! Per-call reset of the small state (one launch instead of a memset each).
__global__ void reset_kernel(unsigned long long* table,
                             unsigned long long table_size,
                             unsigned int* peak,
                             int* bad,
                             int* count,
                             int* count_at,
                             int rounds,
                             double* gamma,
                             double* qq,
                             int passes,
                             double* energy)
{
    const long long id = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    for (long long i = id; i < (long long)table_size;
         i += (long long)gridDim.x * blockDim.x)
        table[i] = empty_key;
    if (id == 0) {
        *peak = 0;
        *bad = 0;
        *count = 0;
        energy[0] = 0;
        energy[1] = 0;
    }
    if (id <= rounds)
        count_at[id] = 0;
    if (id <= passes) {
        gamma[id] = 0;
        if (id < passes)
            qq[id] = 0;
    }
}

} // namespace

void enqueue_subtract(const sparse_device_state& s, int round, cudaStream_t stream)
{
    const auto& c = s.c;
    const unsigned sgrid = unsigned(((long long)s.max_found * c.loops + 127) / 128);
    subtract_kernel<<<sgrid, 128, 0, stream>>>(
        c, reinterpret_cast<float2*>(s.Z), s.sigma, s.tau, peel_of(s), round);
    GPUFFT_CUDA_CHECK_LAUNCH();
}

} // namespace sparse_kernels

namespace sk = sparse_kernels;

void launch_sparse_reset(const sparse_device_state& s, void* stream)
{
    const unsigned grid =
        unsigned(std::min<unsigned long long>(512, (s.table_size + 255) / 256));
    sk::reset_kernel<<<grid, 256, 0, static_cast<cudaStream_t>(stream)>>>(s.table,
                                                                          s.table_size,
                                                                          s.peak,
                                                                          s.bad,
                                                                          s.count,
                                                                          s.count_at,
                                                                          s.rounds,
                                                                          s.gamma,
                                                                          s.qq,
                                                                          s.value_passes,
                                                                          s.energy);
    GPUFFT_CUDA_CHECK_LAUNCH();
}

void launch_sparse_hash(const sparse_device_state& s, bool staged, void* stream)
{
    const auto& c = s.c;
    auto st = static_cast<cudaStream_t>(stream);
    const int H = c.loops * c.levels;
    launch_hash(hash_plain_taps{ c.n, c.B },
                c.B,
                reinterpret_cast<const float2* const*>(s.x_ptr),
                staged ? reinterpret_cast<const float2*>(s.staged) : nullptr,
                s.taps,
                s.walks,
                s.window,
                s.half_window,
                H,
                c.levels,
                reinterpret_cast<float2*>(s.z),
                st);
    GPUFFT_CUDA_CHECK_LAUNCH();
}

void launch_sparse_peak(const sparse_device_state& s, void* stream)
{
    const long long HB = (long long)s.c.loops * s.c.levels * s.c.B;
    sk::peak_kernel<<<unsigned(std::min<long long>(256, (HB + 255) / 256)),
                      256,
                      0,
                      static_cast<cudaStream_t>(stream)>>>(
        reinterpret_cast<const float2*>(s.Z), HB, s.peak, s.bad, s.energy);
    GPUFFT_CUDA_CHECK_LAUNCH();
}

void launch_sparse_round(const sparse_device_state& s, int round, void* stream)
{
    const auto& c = s.c;
    auto st = static_cast<cudaStream_t>(stream);
    const long long LB = (long long)c.loops * c.B;
    const unsigned dgrid = unsigned((LB + 127) / 128);
    sk::decode_kernel<<<dgrid, 128, 0, st>>>(c,
                                             reinterpret_cast<const float2*>(s.Z),
                                             s.sigma_inv,
                                             s.tau,
                                             s.peak,
                                             s.threshold_rel,
                                             sk::peel_of(s),
                                             round);
    GPUFFT_CUDA_CHECK_LAUNCH();
    sk::enqueue_subtract(s, round, st);
}

} // namespace detail
} // namespace gpufft
} // namespace gr
