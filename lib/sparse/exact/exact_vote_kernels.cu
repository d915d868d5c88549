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

#include "cuda/cuda_check.h"
#include "sparse/exact/exact_kernels.cuh"

namespace gr {
namespace gpufft {
namespace detail {
namespace sparse_kernels {
namespace {

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

} // namespace
} // namespace sparse_kernels

namespace sk = sparse_kernels;

void launch_sparse_voting(const sparse_device_state& s, void* stream)
{
    const auto& c = s.c;
    auto st = static_cast<cudaStream_t>(stream);
    const auto* Z = reinterpret_cast<const float2*>(s.Z);
    const sk::peel_state ps = sk::peel_of(s);
    const sk::vote_state v{ s.bits,        s.vote_words,
                            s.sel,         s.nsel,
                            s.decoded,     reinterpret_cast<double2*>(s.decoded_x),
                            s.vote_cutoff, s.vote_threshold };
    GPUFFT_CUDA_CHECK(cudaMemsetAsync(s.nsel, 0, std::size_t(c.loops) * sizeof(int), st));
    const long long LB = (long long)c.loops * c.B;
    sk::vote_select_kernel<<<unsigned((LB + 255) / 256), 256, 0, st>>>(
        c, Z, s.peak, s.threshold_rel, v);
    GPUFFT_CUDA_CHECK_LAUNCH();
    const long long runs = (c.nb + sk::vote_run - 1) / sk::vote_run;
    const long long per_loop = s.vote_cutoff * runs;
    const unsigned all_grid = unsigned((c.loops * per_loop + 255) / 256);
    const unsigned loop0_grid = unsigned((per_loop + 255) / 256);
    sk::vote_mark_kernel<<<all_grid, 256, 0, st>>>(c, s.sigma_inv, v);
    GPUFFT_CUDA_CHECK_LAUNCH();
    const unsigned sel_grid = unsigned((c.loops * s.vote_cutoff + 127) / 128);
    for (int round = 0; round < s.rounds; ++round) {
        sk::vote_decode_kernel<<<sel_grid, 128, 0, st>>>(
            c, Z, s.sigma_inv, s.tau, s.peak, s.threshold_rel, ps, v, round);
        GPUFFT_CUDA_CHECK_LAUNCH();
        sk::vote_accept_kernel<<<loop0_grid, 256, 0, st>>>(
            c, s.sigma, s.sigma_inv, ps, v, round);
        GPUFFT_CUDA_CHECK_LAUNCH();
        sk::enqueue_subtract(s, round, st);
    }
    sk::vote_clear_kernel<<<all_grid, 256, 0, st>>>(c, s.sigma_inv, v);
    GPUFFT_CUDA_CHECK_LAUNCH();
}

} // namespace detail
} // namespace gpufft
} // namespace gr
