/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Device stages of the voting location (sparse_fft_location::voting), mirroring
// sparse_cpu.cc's locate_by_voting(): select each loop's largest level-0 buckets, vote
// in n-bit maps, then per peeling round decode the selected buckets and accept the
// voted frequencies a bucket decodes to. The peeling subtraction and everything after
// are the phase path's kernels.

#ifndef INCLUDED_GPUFFT_SPARSE_VOTE_KERNELS_CUH
#define INCLUDED_GPUFFT_SPARSE_VOTE_KERNELS_CUH

#include "sparse_cuda_kernels.cuh"

namespace gr {
namespace gpufft {
namespace detail {
namespace sparse_kernels {

//! Candidates one thread walks (f steps by sigma^-1: one mulmod per run, not per f).
constexpr int vote_run = 64;

struct vote_state {
    unsigned long long* bits; // loops x words: n bits per loop
    unsigned long long words; // per loop
    long long* sel;           // loops x cutoff: selected buckets
    int* nsel;                // per loop: buckets above the threshold (may pass cutoff)
    long long* decoded;       // loops x B: the bucket's decoded f, or -1
    double2* decoded_x;       // loops x B: its value
    long long cutoff;
    int threshold; // votes needed
};

__device__ __forceinline__ long long selected_count(const vote_state& v, int r)
{
    return min((long long)v.nsel[r], v.cutoff);
}

/*!
 * Cutoff: the non-empty level-0 buckets of each loop, at most `cutoff` of them. When
 * more are non-empty (never in exact mode: a tone lights at most two) the first
 * `cutoff` to arrive are kept, not the largest (the CPU keeps the largest).
 */
__global__ void vote_select_kernel(sparse_consts c,
                                   const float2* __restrict__ Z,
                                   const unsigned int* peak_bits,
                                   double threshold_rel,
                                   vote_state v)
{
    const long long id = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (id >= (long long)c.loops * c.B)
        return;
    const int r = int(id / c.B);
    const long long b = id % c.B;
    const float2 z = Z[(long long)(r * c.levels) * c.B + b];
    const double m = double(z.x) * z.x + double(z.y) * z.y;
    const double thr2 =
        double(__uint_as_float(*peak_bits)) * threshold_rel * threshold_rel;
    if (!(m > thr2))
        return;
    const int at = atomicAdd(&v.nsel[r], 1);
    if (at < v.cutoff)
        v.sel[r * v.cutoff + at] = b;
}

/*!
 * Walks the candidates of thread `id` of the grid (loop < loops, selected bucket, run of
 * vote_run): fn(r, f) for each f = sigma_r^-1 g, g in the bucket's span
 * [b nb - nb/2, b nb - nb/2 + nb) mod n. Threads past the selected buckets do nothing.
 */
template <typename Fn>
__device__ __forceinline__ void for_candidates(sparse_consts c,
                                               const unsigned long long* sigma_inv,
                                               const vote_state& v,
                                               int loops,
                                               long long id,
                                               Fn&& fn)
{
    const long long runs = (c.nb + vote_run - 1) / vote_run;
    const long long per_loop = v.cutoff * runs;
    if (id >= (long long)loops * per_loop)
        return;
    const int r = int(id / per_loop);
    const long long s = (id % per_loop) / runs;
    const long long i0 = (id % runs) * vote_run;
    if (s >= selected_count(v, r))
        return;
    const long long b = v.sel[r * v.cutoff + s];
    const unsigned long long n = (unsigned long long)c.n;
    long long g = ((b * c.nb - c.nb / 2 + i0) % c.n + c.n) % c.n;
    const unsigned long long step = sigma_inv[r];
    unsigned long long f = mulmod(step, (unsigned long long)g, n);
    const long long end = min((long long)c.nb, i0 + vote_run);
    for (long long i = i0; i < end; ++i) {
        fn(r, f);
        f += step;
        if (f >= n)
            f -= n;
    }
}

//! Votes: bit f of loop r's map for every candidate of every selected bucket.
__global__ void vote_mark_kernel(sparse_consts c,
                                 const unsigned long long* __restrict__ sigma_inv,
                                 vote_state v)
{
    const long long id = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    for_candidates(c, sigma_inv, v, c.loops, id, [&](int r, unsigned long long f) {
        atomicOr(&v.bits[r * v.words + (f >> 6)], 1ull << (f & 63));
    });
}

//! Peeling round, part 1a: the single-tone test of every selected bucket.
__global__ void vote_decode_kernel(sparse_consts c,
                                   const float2* __restrict__ Z,
                                   const unsigned long long* __restrict__ sigma_inv,
                                   const unsigned long long* __restrict__ tau,
                                   const unsigned int* peak_bits,
                                   double threshold_rel,
                                   peel_state s,
                                   vote_state v,
                                   int round)
{
    if (round > 0 && s.count_at[round] == s.count_at[round - 1])
        return; // nothing was subtracted last round: the buckets have not changed
    const long long id = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (id >= (long long)c.loops * v.cutoff)
        return;
    const int r = int(id / v.cutoff);
    const long long sl = id % v.cutoff;
    if (sl >= selected_count(v, r))
        return;
    const long long b = v.sel[r * v.cutoff + sl];
    std::int64_t f;
    double xr, xi;
    const bool one = decode_hashed_bucket(
        c, Z, sigma_inv, tau, peak_bits, threshold_rel, r, b, f, xr, xi);
    v.decoded[r * c.B + b] = one ? f : -1;
    v.decoded_x[r * c.B + b] = make_double2(one ? xr : 0.0, one ? xi : 0.0);
}

/*!
 * Peeling round, part 1b: loop 0's candidates with enough votes (loop 0's own counts
 * one) that some loop's bucket decodes to exactly them are appended to the tone table
 * (deduplicated through its hash table, as decode_kernel does).
 */
__global__ void vote_accept_kernel(sparse_consts c,
                                   const unsigned long long* __restrict__ sigma,
                                   const unsigned long long* __restrict__ sigma_inv,
                                   peel_state s,
                                   vote_state v,
                                   int round)
{
    if (round > 0 && s.count_at[round] == s.count_at[round - 1])
        return;
    const long long id = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    const unsigned long long n = (unsigned long long)c.n;
    for_candidates(c, sigma_inv, v, 1, id, [&](int, unsigned long long f) {
        int votes = 1;
        for (int r = 1; r < c.loops; ++r)
            votes += int((v.bits[r * v.words + (f >> 6)] >> (f & 63)) & 1ull);
        if (votes < v.threshold)
            return;
        for (int r = 0; r < c.loops; ++r) {
            const long long b = own_bucket(c, (long long)mulmod(sigma[r], f, n));
            if (v.decoded[r * c.B + b] != (long long)f)
                continue;
            insert_tone(s, f, v.decoded_x[r * c.B + b]);
            return;
        }
    });
}

//! After the rounds: clears exactly the words vote_mark_kernel set, and the decode
//! table's selected entries, from the same candidate lists.
__global__ void vote_clear_kernel(sparse_consts c,
                                  const unsigned long long* __restrict__ sigma_inv,
                                  vote_state v)
{
    const long long id = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    const long long runs = (c.nb + vote_run - 1) / vote_run;
    for_candidates(c, sigma_inv, v, c.loops, id, [&](int r, unsigned long long f) {
        v.bits[r * v.words + (f >> 6)] = 0;
    });
    if (id < (long long)c.loops * v.cutoff * runs && id % runs == 0) {
        const long long per_loop = v.cutoff * runs;
        const int r = int(id / per_loop);
        const long long sl = (id % per_loop) / runs;
        if (sl < selected_count(v, r))
            v.decoded[r * c.B + v.sel[r * v.cutoff + sl]] = -1;
    }
}

} // namespace sparse_kernels
} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_SPARSE_VOTE_KERNELS_CUH */
