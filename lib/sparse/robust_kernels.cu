/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Robust mode's device stages of the sparse path (robust_kernels.h); the dense path's
// are in robust_dense_kernels.cu. Thread per (loop, bucket) for the location, per
// candidate or coefficient for estimation and fitting, per (coefficient, loop) for the
// subtraction: O(B loops) work per call, no n-sized array.

#include "../cuda/cuda_resources.h"
#include "block_select.cuh"
#include "robust_kernels.cuh"
#include "select_cuda.h"
#include "sparse_hash.cuh"
#include <cuda_runtime.h>

namespace gr {
namespace gpufft {
namespace detail {

using namespace robust_kernels;

namespace {

constexpr unsigned long long empty_key = ~0ull;

__device__ unsigned long long table_slot(unsigned long long key, unsigned long long mask)
{
    unsigned long long h = key * 0x9E3779B97F4A7C15ull;
    return (h ^ (h >> 29)) & mask;
}

//! The slot holding key (inserting it when absent), or ~0 when the table is full.
__device__ unsigned long long
table_insert(unsigned long long* keys, unsigned long long mask, unsigned long long key)
{
    unsigned long long s = table_slot(key, mask);
    for (unsigned long long probe = 0; probe <= mask; ++probe) {
        const unsigned long long prev = atomicCAS(&keys[s], empty_key, key);
        if (prev == empty_key || prev == key)
            return s;
        s = (s + 1) & mask;
    }
    return ~0ull;
}

__device__ long long table_find(const unsigned long long* keys,
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

//! Hash geometry and tap weight of robust mode: the filter tap times the time window at
//! the sample read.
struct hash_window_taps {
    robust_consts c;
    static constexpr bool reads_index = true;
    __device__ __forceinline__ long long samples() const { return c.n; }
    __device__ __forceinline__ long long buckets() const { return c.B; }
    __device__ __forceinline__ float weight(float tap, unsigned long long j) const
    {
        return tap * robust_window_weight(c, j);
    }
};

__global__ void load_kernel(const __grid_constant__ robust_device_state s,
                            const float2* __restrict__ Z,
                            long long count)
{
    double peak = 0;
    bool bad = false;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < count;
         i += (long long)gridDim.x * blockDim.x) {
        const float2 v = Z[i];
        const double re = v.x, im = v.y;
        const double m = re * re + im * im;
        if (!isfinite(m))
            bad = true;
        else
            peak = fmax(peak, m);
        s.res[2 * i] = re;
        s.res[2 * i + 1] = im;
    }
    if (bad)
        s.counts[0] = 1;
    // One atomic per warp: every thread's would serialise on the one address.
    for (int o = 16; o > 0; o >>= 1)
        peak = fmax(peak, __shfl_down_sync(0xffffffffu, peak, o));
    if ((threadIdx.x & 31) == 0)
        atomic_max_nonneg(&s.scalars[1], peak);
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

// The bucket noise P: the median |res|^2 over every robust_noise_stride()-th (loop,
// bucket) of the unshifted hashes, over ln 2, at least leak_floor x the peak. One block
// of noise_threads.
constexpr int noise_threads = 1024;
static_assert(robust_noise_samples % noise_threads == 0, "whole reads per thread");
static_assert(robust_noise_samples <= block_select_max,
              "the noise samples fit one block");

__global__ void __launch_bounds__(noise_threads)
    noise_kernel(const __grid_constant__ robust_device_state s)
{
    __shared__ float power[robust_noise_samples];
    __shared__ unsigned hist[block_select_bins];
    const long long LB = (long long)s.c.loops * s.c.B;
    const long long stride = robust_noise_stride(LB);
    const int m = int((LB + stride - 1) / stride);
    // Up to 8 strided reads a thread, issued together (they are latency bound).
#pragma unroll
    for (int k = 0; k < robust_noise_samples / noise_threads; ++k) {
        const int i = int(threadIdx.x) + k * noise_threads;
        if (i < m) {
            int r;
            long long b;
            loop_bucket(i * stride, s.c.B, r, b);
            const long long at = (long long)r * s.c.hashes * s.c.B + b;
            const double re = s.res[2 * at], im = s.res[2 * at + 1];
            power[i] = float(re * re + im * im);
        }
    }
    __syncthreads();
    const double median = block_select_nonneg(power, m, m / 2, hist);
    if (threadIdx.x == 0) {
        const double P = median / 0.69314718055994530942;
        const double floor = s.leak_floor * s.scalars[1];
        s.scalars[0] = P > floor ? P : floor;
    }
}

// The value at f as the median over loops of (cur + the loop's least-squares estimate),
// and the median of the loops' sum |Ghat|^2 (the estimate's noise is n^2 P / that).
// Every lane of a warp calls it for the same f and gets the same result.
__device__ void estimate(const robust_device_state& s,
                         long long f,
                         double cur_r,
                         double cur_i,
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
    xr = robust_median(er, L);
    xi = robust_median(ei, L);
    g2 = robust_median(eg, L);
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
    const unsigned long long slot = table_insert(s.keys, s.table_mask, f);
    if (slot == ~0ull)
        return;
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
        estimate(s, f, 0, 0, xr, xi, g2);
        const double n = double(s.c.n);
        const double noise = n * n * s.scalars[0] / (g2 > 1e-3 ? g2 : 1e-3);
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
    const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    const long long t = first + i / s.c.loops;
    if (t >= last)
        return;
    const int r = int(i % s.c.loops);
    add_coefficient(s, s.found_f[t], r, -s.found_x[2 * t], -s.found_x[2 * t + 1]);
}

__global__ void refine_estimate_kernel(const __grid_constant__ robust_device_state s)
{
    const long long count = s.counts[1];
    for (long long i = warp_index(); i < count; i += warp_count()) {
        double xr, xi, g2;
        estimate(s, s.found_f[i], s.found_x[2 * i], s.found_x[2 * i + 1], xr, xi, g2);
        if ((threadIdx.x & 31) == 0) {
            s.next_x[2 * i] = xr;
            s.next_x[2 * i + 1] = xi;
        }
    }
}

__global__ void refine_apply_kernel(const __grid_constant__ robust_device_state s)
{
    const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    const long long t = i / s.c.loops;
    if (t >= s.counts[1])
        return;
    const int r = int(i % s.c.loops);
    add_coefficient(s,
                    s.found_f[t],
                    r,
                    s.found_x[2 * t] - s.next_x[2 * t],
                    s.found_x[2 * t + 1] - s.next_x[2 * t + 1]);
}

__global__ void refine_store_kernel(const __grid_constant__ robust_device_state s)
{
    const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= s.counts[1])
        return;
    s.found_x[2 * i] = s.next_x[2 * i];
    s.found_x[2 * i + 1] = s.next_x[2 * i + 1];
}

__global__ void threshold_kernel(const __grid_constant__ robust_device_state s)
{
    const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= s.counts[1])
        return;
    const double noise = robust_value_noise(s.c, s.found_f[i], s.sigma, s.scalars[0]);
    const double vr = s.found_x[2 * i], vi = s.found_x[2 * i + 1];
    s.above[i] = (vr * vr + vi * vi > s.eta * noise) ? 1 : 0;
}

/*!
 * Coefficient j - lobe of the main lobe around found coefficient i: the accepted
 * coefficient at bin found_f[i] + j - lobe standing above the threshold, if any. False
 * when it is larger than i's (ties: the lower bin), so that i is not the lobe's peak.
 */
__device__ bool lobe_entry(const robust_device_state& s,
                           long long i,
                           int j,
                           double& yr,
                           double& yi,
                           bool& present)
{
    const int h = s.c.lobe;
    yr = yi = 0;
    present = false;
    if (j == h) {
        present = true;
        yr = s.found_x[2 * i];
        yi = s.found_x[2 * i + 1];
        return true;
    }
    long long b = (s.found_f[i] + j - h) % s.c.n;
    if (b < 0)
        b += s.c.n;
    const long long slot = table_find(s.keys, s.table_mask, (unsigned long long)b);
    if (slot < 0 || !(s.tags[slot] & 1u))
        return true;
    const int k = s.slot_found[slot];
    if (k < 0 || !s.above[k])
        return true;
    const double p =
        s.found_x[2 * i] * s.found_x[2 * i] + s.found_x[2 * i + 1] * s.found_x[2 * i + 1];
    yr = s.found_x[2 * k];
    yi = s.found_x[2 * k + 1];
    const double q = yr * yr + yi * yi;
    if (q > p || (q == p && j < h))
        return false;
    present = true;
    return true;
}

// Thread per found coefficient: is it above the threshold and the largest of its lobe?
// The peaks go to a list for fit_kernel.
__global__ void peak_kernel(const __grid_constant__ robust_device_state s)
{
    const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= s.counts[1] || !s.above[i])
        return;
    for (int j = 0; j <= 2 * s.c.lobe; ++j) {
        double yr, yi;
        bool present;
        if (!lobe_entry(s, i, j, yr, yi, present))
            return;
    }
    int* count = s.counts + robust_count_slots(s.rounds) - 1;
    s.peaks[atomicAdd(count, 1)] = int(i);
}

// A warp per peak: lanes gather the lobe, the warp fits it (warp_fit_tone), lane 0
// appends the tone.
__global__ void fit_kernel(const __grid_constant__ robust_device_state s)
{
    const int lane = threadIdx.x & 31;
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        s.header->bad = s.counts[0];
        s.header->found = s.counts[1];
        s.header->bright = s.counts[2 + s.rounds];
        s.header->located = s.counts[2 + 2 * s.rounds + 1];
        s.header->noise = s.scalars[0];
    }
    const int peaks = s.counts[robust_count_slots(s.rounds) - 1];
    constexpr int L = 2 * robust_window_terms + 1;
    for (long long w = warp_index(); w < peaks; w += warp_count()) {
        const long long i = s.peaks[w];
        double yr = 0, yi = 0;
        bool present = false;
        if (lane <= 2 * s.c.lobe)
            lobe_entry(s, i, lane, yr, yi, present);
        double lr[L], li[L];
        unsigned char lp[L];
#pragma unroll
        for (int j = 0; j < L; ++j) {
            lr[j] = __shfl_sync(0xffffffffu, yr, j);
            li[j] = __shfl_sync(0xffffffffu, yi, j);
            lp[j] = (unsigned char)__shfl_sync(0xffffffffu, int(present), j);
        }
        double delta, ar, ai;
        warp_fit_tone(s.c, lr, li, lp, delta, ar, ai);
        if (lane == 0)
            append_tone(s.header, s.tones, s.tone_cap, s.c, s.found_f[i], delta, ar, ai);
    }
}

// Clears the per-call state in one launch (a memset node each would cost a graph node
// apiece): the frequency table, the counters and the whole result block, unused tone
// slots included (the host copies all of it).
__global__ void reset_kernel(const __grid_constant__ robust_device_state s)
{
    static_assert(sizeof(robust_device_header) % sizeof(unsigned) == 0 &&
                      sizeof(robust_device_tone) % sizeof(unsigned) == 0,
                  "the result block is cleared in words");
    const long long slots = (long long)s.table_mask + 1;
    const long long result_words = (long long)(sizeof(robust_device_header) +
                                               s.tone_cap * sizeof(robust_device_tone)) /
                                   sizeof(unsigned);
    const long long stride = (long long)gridDim.x * blockDim.x;
    const long long first = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    for (long long i = first; i < slots; i += stride) {
        s.keys[i] = ~0ull;
        s.tags[i] = 0;
        s.slot_found[i] = -1;
    }
    auto* result = reinterpret_cast<unsigned*>(s.header);
    for (long long i = first; i < result_words; i += stride)
        result[i] = 0;
    for (long long i = first; i < robust_count_slots(s.rounds); i += stride)
        s.counts[i] = 0;
    if (first < 2)
        s.scalars[first] = 0;
}

} // namespace

void launch_robust_reset(const robust_device_state& s, void* stream)
{
    const long long slots = (long long)s.table_mask + 1;
    reset_kernel<<<blocks_for(slots, 256) < 1024 ? blocks_for(slots, 256) : 1024,
                   256,
                   0,
                   static_cast<cudaStream_t>(stream)>>>(s);
    check_launch();
}

void launch_robust_hash(const robust_consts& c,
                        const void* const* x_ptr,
                        const void* staged,
                        const float* taps,
                        const sparse_hash_walk* walks,
                        std::int64_t window,
                        std::int64_t half_window,
                        int total_hashes,
                        void* z,
                        void* stream)
{
    launch_hash(hash_window_taps{ c },
                c.B,
                reinterpret_cast<const float2* const*>(x_ptr),
                static_cast<const float2*>(staged),
                taps,
                walks,
                window,
                half_window,
                total_hashes,
                c.hashes,
                static_cast<float2*>(z),
                static_cast<cudaStream_t>(stream));
    check_launch();
}

void launch_robust_load(const robust_device_state& s, const void* Z, void* stream)
{
    const long long count = (long long)s.c.loops * s.c.hashes * s.c.B;
    const unsigned grid = blocks_for(count, 256) < 512 ? blocks_for(count, 256) : 512;
    load_kernel<<<grid, 256, 0, static_cast<cudaStream_t>(stream)>>>(
        s, static_cast<const float2*>(Z), count);
    check_launch();
}

void launch_robust_noise(const robust_device_state& s, void* stream)
{
    auto st = static_cast<cudaStream_t>(stream);
    noise_kernel<<<1, noise_threads, 0, st>>>(s);
    check_launch();
}

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
    subtract_kernel<<<blocks_for((long long)s.max_found * s.c.loops, 128), 128, 0, st>>>(
        s, round);
    check_launch();
}

void launch_robust_refine(const robust_device_state& s, void* stream)
{
    auto st = static_cast<cudaStream_t>(stream);
    refine_estimate_kernel<<<warp_blocks(s.max_found, 128), 128, 0, st>>>(s);
    check_launch();
    refine_apply_kernel<<<blocks_for((long long)s.max_found * s.c.loops, 128),
                          128,
                          0,
                          st>>>(s);
    check_launch();
    refine_store_kernel<<<blocks_for(s.max_found, 256), 256, 0, st>>>(s);
    check_launch();
}

void launch_robust_tones(const robust_device_state& s, void* stream)
{
    auto st = static_cast<cudaStream_t>(stream);
    threshold_kernel<<<blocks_for(s.max_found, 128), 128, 0, st>>>(s);
    check_launch();
    peak_kernel<<<blocks_for(s.max_found, 128), 128, 0, st>>>(s);
    check_launch();
    fit_kernel<<<warp_blocks(s.max_found, 128), 128, 0, st>>>(s);
    check_launch();
}

} // namespace detail
} // namespace gpufft
} // namespace gr
