/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Robust mode's outer rounds and refine passes on the device (robust_kernels.h): thread
// per bright (loop, bucket) for the location, warp per candidate or coefficient for the
// estimates, thread per (coefficient, loop) for the subtraction.

#include "cuda/cuda_resources.h"
#include "sparse/robust/robust_kernels.cuh"
#include <cuda_runtime.h>

namespace gr {
namespace gpufft {
namespace detail {

using namespace robust_kernels;

namespace {

// The value at f as the median over loops of (cur + the loop's least-squares estimate),
// and the median of the loops' sum |Ghat|^2 (the estimate's noise is n^2 P / that).
// Refine: without the loops set in `shared` where that moves the value past the noise
// (robust_value_median()); a template argument so that the rounds' estimates, which
// have no such loops, carry none of it. Every lane of a warp calls it for the same f and
// gets the same result.
template <bool Refine>
__device__ void estimate(const robust_device_state& s,
                         long long f,
                         double cur_r,
                         double cur_i,
                         unsigned shared,
                         double& xr,
                         double& xi,
                         double& g2)
{
    const warp_lanes lanes{ int(threadIdx.x & 31) };
    double er[16], ei[16], eg[16];
    const int L = s.c.loops < 16 ? s.c.loops : 16;
    for (int r = 0; r < L; ++r) {
        const long long base = (long long)r * s.c.hashes * s.c.B;
        double a, b;
        eg[r] = robust_loop_estimate(
            s.c, s.res + 2 * base, f, s.sigma[r], s.tau[r], a, b, lanes);
        er[r] = cur_r + a;
        ei[r] = cur_i + b;
    }
    g2 = robust_median(eg, L);
    if constexpr (Refine) {
        const double noise = robust_estimate_noise(s.c, s.scalars[0], g2);
        robust_value_median(er, ei, L, shared, noise, eg, xr, xi);
    } else {
        xr = robust_median(er, L);
        xi = robust_median(ei, L);
    }
}

//! Bucket b of loop r in each hash of the loop, for robust_locate().
struct device_loop_hashes {
    const double* res;
    long long first; //!< (r hashes) B + b: the bucket in the loop's unshifted hash
    long long B;
    __device__ void operator()(int h, double& re, double& im) const
    {
        const long long at = first + h * B;
        re = res[2 * at];
        im = res[2 * at + 1];
    }
};

//! Round `round`'s candidate list: two lists by the round's parity, so the estimate of
//! one round can enter candidates of the next (robust_lobe_neighbour()).
__device__ long long* round_candidates(const robust_device_state& s, int round)
{
    return s.cand_slot + (long long)(round & 1) * s.max_cand;
}

// Enters frequency f as a candidate of `round`. Accepted before, or already a candidate
// of this round: nothing to do; rejected in an earlier round: a candidate again
// (peeling may have uncovered it).
__device__ void
enter_candidate(const robust_device_state& s, int round, unsigned long long f)
{
    int* cand_count = s.counts + 2 + s.rounds + 1;
    bool claimed = false;
    const unsigned long long slot = table_insert(s.keys, s.table_mask, f, &claimed);
    if (slot == ~0ull)
        return;
    if (claimed) { // for the next call's reset; past used_cap it clears the whole table
        const int at = atomicAdd(&s.used_count[0], 1);
        if (at < s.used_cap)
            s.used[at] = (long long)slot;
    }
    const unsigned int want = unsigned(round + 1) << 1;
    unsigned int tag = s.tags[slot];
    while (!(tag & 1u) && tag < want) {
        const unsigned int prev = atomicCAS(&s.tags[slot], tag, want);
        if (prev == tag) {
            const int at = atomicAdd(&cand_count[round], 1);
            if (at < s.max_cand)
                round_candidates(s, round)[at] = (long long)slot;
            break;
        }
        tag = prev;
    }
}

// Locates bright item i (loop, bucket) and enters a new frequency as a candidate of
// this round.
__device__ void
locate_bright(const robust_device_state& s, int round, long long i, double min_power)
{
    int* cand_count = s.counts + 2 + s.rounds + 1;
    int r;
    long long b;
    loop_bucket(i, s.c.B, r, b);
    const device_loop_hashes hash{ s.res, (long long)r * s.c.hashes * s.c.B + b, s.c.B };
    std::int64_t g;
    if (!robust_locate(s.c, hash, b, min_power, g))
        return;
    atomicAdd(&cand_count[s.rounds], 1);
    enter_candidate(
        s,
        round,
        mulmod(s.sigma_inv[r], (unsigned long long)g, (unsigned long long)s.c.n));
}

// robust_locate(), the same function as the CPU, on a thread per bright (loop, bucket):
// the block first lists the bright ones of its locate_per_thread x locate_threads
// buckets in shared memory, so the location's chain of double-precision operations runs
// on full warps (a quarter of the buckets or fewer are bright), and the blocks of a call
// fit the GPU at once (the call is as long as one block's chain).
constexpr int locate_threads = 256;
constexpr int locate_per_thread = 2;

__global__ void __launch_bounds__(locate_threads)
    locate_kernel(const __grid_constant__ robust_device_state s, int round)
{
    constexpr int span = locate_threads * locate_per_thread;
    __shared__ int bright_items[span]; // offsets in the block's span
    __shared__ int bright_count;
    int* found_at = s.counts + 2;
    if (blockIdx.x == 0 && threadIdx.x == 0)
        found_at[round] = s.counts[1];
    if (round > 0 && s.counts[1] == found_at[round - 1])
        return; // the last round found nothing new: nothing changed (the whole grid)
    if (threadIdx.x == 0)
        bright_count = 0;
    __syncthreads();
    const long long LB = (long long)s.c.loops * s.c.B;
    const long long block_first = (long long)blockIdx.x * span;
    const double min_power = s.locate_eta * s.scalars[0];
    const int lane = int(threadIdx.x & 31);
    int bright_total = 0;
#pragma unroll
    for (int k = 0; k < locate_per_thread; ++k) {
        const int offset = k * locate_threads + int(threadIdx.x);
        const long long i = block_first + offset;
        bool is_bright = false;
        if (i < LB) {
            int r;
            long long b;
            loop_bucket(i, s.c.B, r, b);
            const long long at = (long long)r * s.c.hashes * s.c.B + b;
            const double re = s.res[2 * at], im = s.res[2 * at + 1];
            is_bright = re * re + im * im > min_power;
        }
        const unsigned bright = __ballot_sync(0xffffffffu, is_bright);
        int first = 0;
        if (lane == 0 && bright)
            first = atomicAdd(&bright_count, __popc(bright));
        first = __shfl_sync(0xffffffffu, first, 0);
        if (is_bright)
            bright_items[first + __popc(bright & ((1u << lane) - 1u))] = offset;
        bright_total += __popc(bright);
    }
    // Statistics for describe(): buckets bright enough to locate.
    if (lane == 0 && bright_total)
        atomicAdd(&found_at[s.rounds], bright_total);
    __syncthreads();
    for (int j = int(threadIdx.x); j < bright_count; j += locate_threads)
        locate_bright(s, round, block_first + bright_items[j], min_power);
}

// A warp per candidate (estimate() splits its sums over the lanes), the warps striding
// over the candidates.
__global__ void estimate_kernel(const __grid_constant__ robust_device_state s, int round)
{
    const int* cand_count = s.counts + 2 + s.rounds + 1;
    const int count = cand_count[round] < s.max_cand ? cand_count[round] : s.max_cand;
    const bool leader = (threadIdx.x & 31) == 0;
    const long long* cands = round_candidates(s, round);
    for (long long i = warp_index(); i < count; i += warp_count()) {
        const long long slot = cands[i];
        // A lobe neighbour entered while the last round accepted it too.
        if (s.tags[slot] & 1u)
            continue;
        const long long f = (long long)s.keys[slot];
        double xr, xi, g2;
        estimate<false>(s, f, 0, 0, 0u, xr, xi, g2);
        const double noise = robust_estimate_noise(s.c, s.scalars[0], g2);
        const double power = xr * xr + xi * xi, threshold = s.eta * noise;
        if (!leader || !(power > threshold))
            continue;
        const int at = atomicAdd(&s.counts[1], 1);
        if (at >= s.max_found) {
            atomicSub(&s.counts[1], 1);
            continue;
        }
        atomicOr(&s.tags[slot], 1u); // enter_candidate() may be changing the tag
        s.slot_found[slot] = at;
        s.found_f[at] = f;
        s.found_x[2 * at] = xr;
        s.found_x[2 * at + 1] = xi;
        if (round + 1 < s.rounds && robust_spawns_neighbours(s.c, power, threshold))
            for (int side = 0; side < 2; ++side)
                enter_candidate(s, round + 1, robust_lobe_neighbour(s.c, f, side));
    }
}

//! Adds (dr, di) at bucket b of hash h of loop r, for robust_add_coefficient().
struct device_loop_add {
    double* res;
    long long first; //!< r hashes B: the loop's first hash
    long long B;
    __device__ void operator()(int h, long long b, double dr, double di) const
    {
        const long long at = first + h * B + b;
        atomicAdd(&res[2 * at], dr);
        atomicAdd(&res[2 * at + 1], di);
    }
};

// Adds (dr, di) of coefficient f to every hash of loop r (its floor and ceil buckets
// and one more on each side).
__device__ void
add_coefficient(const robust_device_state& s, long long f, int r, double dr, double di)
{
    robust_add_coefficient(
        s.c,
        f,
        s.sigma[r],
        s.tau[r],
        dr,
        di,
        device_loop_add{ s.res, (long long)r * s.c.hashes * s.c.B, s.c.B });
}

__global__ void subtract_kernel(const __grid_constant__ robust_device_state s, int round)
{
    const int* found_at = s.counts + 2;
    const int first = found_at[round], last = s.counts[1];
    const long long items = (long long)(last - first) * s.c.loops;
    for (long long i = thread_index(); i < items; i += thread_count()) {
        const long long t = first + i / s.c.loops;
        const int r = int(i % s.c.loops);
        add_coefficient(s, s.found_f[t], r, -s.found_x[2 * t], -s.found_x[2 * t + 1]);
        // Every found coefficient passes here once per loop: the refine passes' count
        // of who shares a bucket (zeroed by launch_robust_load()).
        int* loop_occ = s.occ + (long long)r * s.c.B;
        robust_count_buckets(s.c, s.found_f[t], s.sigma[r], [loop_occ](long long b) {
            atomicAdd(&loop_occ[b], 1);
        });
    }
}

__global__ void refine_estimate_kernel(const __grid_constant__ robust_device_state s)
{
    const long long count = s.counts[1];
    const int L = s.c.loops < 16 ? s.c.loops : 16;
    const int lane = int(threadIdx.x & 31);
    for (long long i = warp_index(); i < count; i += warp_count()) {
        const long long f = s.found_f[i];
        // Lane r asks loop r: the warp's one latency, not L of them in a row.
        const bool mine =
            lane < L &&
            robust_bucket_shared(s.c, f, s.sigma[lane], s.occ + (long long)lane * s.c.B);
        const unsigned shared = __ballot_sync(0xffffffffu, mine);
        double xr, xi, g2;
        estimate<true>(s, f, s.found_x[2 * i], s.found_x[2 * i + 1], shared, xr, xi, g2);
        if ((threadIdx.x & 31) == 0) {
            s.next_x[2 * i] = xr;
            s.next_x[2 * i + 1] = xi;
        }
    }
}

__global__ void refine_apply_kernel(const __grid_constant__ robust_device_state s)
{
    const long long items = (long long)s.counts[1] * s.c.loops;
    for (long long i = thread_index(); i < items; i += thread_count()) {
        const long long t = i / s.c.loops;
        const int r = int(i % s.c.loops);
        add_coefficient(s,
                        s.found_f[t],
                        r,
                        s.found_x[2 * t] - s.next_x[2 * t],
                        s.found_x[2 * t + 1] - s.next_x[2 * t + 1]);
    }
}

__global__ void refine_store_kernel(const __grid_constant__ robust_device_state s)
{
    const long long count = s.counts[1];
    for (long long i = thread_index(); i < count; i += thread_count()) {
        s.found_x[2 * i] = s.next_x[2 * i];
        s.found_x[2 * i + 1] = s.next_x[2 * i + 1];
    }
}

} // namespace

void launch_robust_round(const robust_device_state& s, int round, void* stream)
{
    auto st = static_cast<cudaStream_t>(stream);
    const long long LB = (long long)s.c.loops * s.c.B;
    locate_kernel<<<blocks_for(LB, locate_threads * locate_per_thread),
                    locate_threads,
                    0,
                    st>>>(s, round);
    check_launch();
    estimate_kernel<<<warp_blocks(s.max_cand, 128), 128, 0, st>>>(s, round);
    check_launch();
    subtract_kernel<<<stride_blocks((long long)s.max_found * s.c.loops, 128),
                      128,
                      0,
                      st>>>(s, round);
    check_launch();
}

void launch_robust_refine(const robust_device_state& s, void* stream)
{
    auto st = static_cast<cudaStream_t>(stream);
    refine_estimate_kernel<<<warp_blocks(s.max_found, 128), 128, 0, st>>>(s);
    check_launch();
    refine_apply_kernel<<<stride_blocks((long long)s.max_found * s.c.loops, 128),
                          128,
                          0,
                          st>>>(s);
    check_launch();
    refine_store_kernel<<<stride_blocks(s.max_found, 256), 256, 0, st>>>(s);
    check_launch();
}

} // namespace detail
} // namespace gpufft
} // namespace gr
