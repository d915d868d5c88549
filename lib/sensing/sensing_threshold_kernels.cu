/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The floor of each sub-band and the threshold pass over every bin (sensing_kernels.h).

#include "cuda/cuda_check.h"
#include "sensing/sensing_kernels.cuh"
#include <algorithm>
#include <stdexcept>
#include <string>

namespace gr {
namespace gpufft {
namespace detail {

namespace {

using namespace sensing_device;

// Appends the bins of the set bits of `bits` (bit 0 at bin at) to a list of cap; its
// count goes on past cap, which the host reads as too many runs.
__device__ inline void push_bins(
    unsigned bits, std::int64_t at, int* count, std::int64_t* list, std::int64_t cap)
{
    while (bits) {
        const int bit = __ffs(bits) - 1;
        bits &= bits - 1;
        const int i = atomicAdd(count, 1);
        if (i < cap)
            list[i] = at + bit;
    }
}

// The runs' first and last bins (the set bits of first and last) to the frame's lists.
// Both threshold kernels end a word with this.
__device__ inline void push_run_edges(unsigned first,
                                      unsigned last,
                                      std::int64_t at,
                                      std::int64_t* starts,
                                      std::int64_t* ends,
                                      std::int64_t cap,
                                      sensing_device_header* header)
{
    push_bins(first, at, &header->starts, starts, cap);
    push_bins(last, at, &header->ends, ends, cap);
}

// The opening of sensing_open_floor by one block, a thread a sub-band; with a track,
// the opened floor goes to raw and the floor used (sensing_track_floor, moved by the
// frame's level: sensing_rank_pair and sensing_cluster_middle, as sensing_track_level,
// then sensing_burst_level's test with the frame's time power and the track's
// prior_quiet) to floors.
// f, e and o: shared arrays of sensing_max_subbands, mid of 2.
__device__ void open_floors(const sensing_consts& k,
                            double* floors,
                            const double* track,
                            const sensing_time_power& time,
                            double prior_quiet,
                            double* raw,
                            double* f,
                            double* e,
                            double* o,
                            double* mid)
{
    const int S = k.subbands, r = k.opening;
    // The other blocks' floors: past L1, which this block never filled with them.
    for (int i = threadIdx.x; i < S; i += blockDim.x)
        f[i] = __ldcg(floors + i);
    __syncthreads();
    for (int i = threadIdx.x; i < S; i += blockDim.x) {
        double v = f[i];
        for (int j = max(0, i - r); j <= min(S - 1, i + r); ++j)
            v = fmin(v, f[j]);
        e[i] = v;
    }
    __syncthreads();
    for (int i = threadIdx.x; i < S; i += blockDim.x) {
        double v = e[i];
        for (int j = max(0, i - r); j <= min(S - 1, i + r); ++j)
            v = fmax(v, e[j]);
        const double top = v * k.ceiling;
        o[i] = f[i] < top ? f[i] : top;
    }
    if (track == nullptr) {
        for (int i = threadIdx.x; i < S; i += blockDim.x)
            floors[i] = o[i];
        return;
    }
    __syncthreads();
    for (int i = threadIdx.x; i < S; i += blockDim.x)
        f[i] = log(o[i]) - track[i]; // f is free: the frame's level over the track
    __syncthreads();
    int low = 0, high = 0;
    sensing_level_ranks(S, low, high);
    sensing_rank_pair(f, S, int(threadIdx.x), int(blockDim.x), low, high, mid);
    __syncthreads();
    double lo = 0, hi = 0;
    const bool moved = sensing_level_cluster(k, mid[0], mid[1], lo, hi);
    __syncthreads(); // mid is read by all before it is written again
    if (moved)
        sensing_cluster_middle(f, S, lo, hi, int(threadIdx.x), int(blockDim.x), mid);
    __syncthreads();
    double level = moved ? 0.5 * (mid[0] + mid[1]) : 0.0;
    // A rise as a burst's (the same in every thread): the track's mean floor by one
    // thread in the CPU's order, then whether the quiet samples are the floor's.
    if (sensing_burst_rise(k, level, time, prior_quiet)) {
        __syncthreads(); // mid is read by all before it is written again
        if (threadIdx.x == 0)
            mid[0] = sensing_track_mean_floor(k, track);
        __syncthreads();
        if (sensing_quiet_is_floor(k, time, mid[0]))
            level = 0.0;
    }
    for (int i = threadIdx.x; i < S; i += blockDim.x) {
        raw[i] = o[i];
        double l, w, h;
        floors[i] = sensing_track_floor(
            k, o[i], track[i] + level, track[S + i], track[2 * S + i], l, w, h);
    }
}

// The sum of v over the warp, on every lane: one instruction from sm_80 on.
__device__ inline int warp_add(int v)
{
#if __CUDA_ARCH__ >= 800
    return __reduce_add_sync(0xffffffffu, v);
#else
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
#endif
}

// The frame's sub-frame powers in parts (sensing_time_parts a sub-frame, sub-frame b's
// part g at part[b * sensing_time_parts + g]): each 256-thread group of the block sums
// one part, every k.time_stride-th sample, a load or two a thread, in flight with the
// floor's samples (a kernel of its own beside the FFT, forked onto a second stream,
// cost 25 us a frame). Called by every thread of the block.
constexpr int time_group = 256;
__device__ void time_parts(const sensing_consts& k, const float2* x, double* part)
{
    __shared__ double warp_sum[32];
    const int groups = int(blockDim.x) / time_group,
              group = int(threadIdx.x) / time_group;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int parts = sensing_time_blocks * sensing_time_parts;
    for (int p0 = int(blockIdx.x) * groups; p0 < parts; p0 += int(gridDim.x) * groups) {
        const int p = p0 + group;
        double sum = 0;
        if (p < parts) {
            const int b = p / sensing_time_parts, g = p % sensing_time_parts;
            const std::int64_t first = b * k.n / sensing_time_blocks,
                               end = (b + 1) * k.n / sensing_time_blocks;
            const std::int64_t count = (end - first + k.time_stride - 1) / k.time_stride;
            for (std::int64_t j = std::int64_t(g) * time_group + threadIdx.x % time_group;
                 j < count;
                 j += std::int64_t(sensing_time_parts) * time_group) {
                const float2 v = x[first + j * k.time_stride];
                sum += double(v.x) * v.x + double(v.y) * v.y;
            }
        }
#pragma unroll
        for (int d = 16; d > 0; d >>= 1)
            sum += __shfl_xor_sync(0xffffffffu, sum, d);
        if (lane == 0)
            warp_sum[warp] = sum;
        __syncthreads();
        if (threadIdx.x % time_group == 0 && p < parts) {
            double total = 0;
            for (int w = 0; w < time_group / 32; ++w)
                total += warp_sum[group * (time_group / 32) + w];
            part[p] = total;
            __threadfence(); // seen by the last block, as the floors are
        }
        __syncthreads();
    }
}

// One block a sub-band, its floor samples' fixed-point log powers in registers (at most
// floor_per_thread a thread), then the censoring passes as on the CPU: each pass a sum
// and count below the cut over the block (32-bit within a warp, 64-bit across warps:
// exact, so the CPU's floors to the bit), and one thread making the next cut from the
// floor's exponent (sensing_floor_cut); the exp is taken once, at the end. A cut the
// same as the pass before gives the same sums: the passes stop there. The last block
// to finish opens the floors (open_floors): a kernel of its own cost the frame a
// launch. `done` counts the finished blocks; that block sets it back to 0 for the next
// frame.
constexpr int floor_per_thread = sensing_floor_samples / floor_threads;
static_assert(floor_per_thread * 32 <= 256, "a warp's fixed-point sum fits 32 bits");

__global__ void __launch_bounds__(floor_threads)
    floor_kernel(sensing_consts k,
                 const float2* X,
                 const float2* x,
                 double* time_power,
                 double* floors,
                 sensing_device_header* header,
                 unsigned* done,
                 const double* track,
                 const double* prior_quiet,
                 double* raw)
{
    __shared__ int warp_total[32], warp_count[32];
    __shared__ int next_cut;
    __shared__ bool stop;
    __shared__ double f[sensing_max_subbands], e[sensing_max_subbands],
        o[sensing_max_subbands];
    __shared__ double mid[2];
    __shared__ bool last;
    const int i = blockIdx.x;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    std::int64_t first, count;
    sensing_subband(k, i, first, count);
    const int m = int(sensing_sample_count(k, i));
    const spectrum_reader bin{ X };
    std::int32_t iv[floor_per_thread];
    bool bad = false;
#pragma unroll
    for (int r = 0; r < floor_per_thread; ++r) {
        const int j = threadIdx.x + r * floor_threads;
        iv[r] = INT32_MAX; // never below a cut
        if (j < m) {
            const float P = sensing_power(k, bin, first + std::int64_t(j) * k.stride);
            bad = bad || !isfinite(P);
            iv[r] = sensing_log_fixed_value(k, P);
        }
    }
    if (bad)
        header->bad = 1;
    time_parts(k, x, time_power);
    // Thread 0's: the floor's exponent and whether it has one (a pass with no samples
    // below its cut keeps the one before).
    double ex = 0;
    bool have = false;
    std::int32_t cut = INT32_MAX; // the first pass takes every sample
    for (int pass = 0; pass <= sensing_floor_passes; ++pass) {
        int t = 0, c = 0;
#pragma unroll
        for (int r = 0; r < floor_per_thread; ++r)
            if (iv[r] < cut) {
                t += iv[r];
                ++c;
            }
        t = warp_add(t);
        c = warp_add(c);
        if (lane == 0) {
            warp_total[warp] = t;
            warp_count[warp] = c;
        }
        __syncthreads();
        if (warp == 0) {
            long long total = lane < int(blockDim.x >> 5) ? warp_total[lane] : 0;
#pragma unroll
            for (int d = 16; d > 0; d >>= 1)
                total += __shfl_xor_sync(0xffffffffu, total, d);
            const int below =
                warp_add(lane < int(blockDim.x >> 5) ? warp_count[lane] : 0);
            if (lane == 0) {
                if (below > 0) {
                    ex = sensing_floor_exponent(k, total, below, pass == 0);
                    have = true;
                }
                const std::int32_t next = have ? sensing_floor_cut(k, ex) : INT32_MAX;
                stop = pass > 0 && next == cut;
                next_cut = next;
            }
        }
        __syncthreads();
        if (stop)
            break;
        cut = next_cut;
    }
    if (threadIdx.x == 0) {
        floors[i] = have ? sensing_floor_of(k, ex) : 0.0;
        __threadfence(); // the floor is seen before the count that says it is there
        last = atomicAdd(done, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last)
        return;
    __threadfence();
    // The sub-frames' powers from their parts: each part read by a thread of its own
    // (one thread reading all 256 in turn, L2 latency after latency, cost 25 us), each
    // sub-frame's summed in order by a thread, then made into the time power.
    __shared__ double part[sensing_time_blocks * sensing_time_parts];
    __shared__ double power[sensing_time_blocks];
    __shared__ sensing_time_power time;
    for (int p = threadIdx.x; p < sensing_time_blocks * sensing_time_parts;
         p += blockDim.x)
        part[p] = __ldcg(time_power + p);
    __syncthreads();
    if (threadIdx.x < sensing_time_blocks) {
        double sum = 0;
        for (int g = 0; g < sensing_time_parts; ++g)
            sum += part[threadIdx.x * sensing_time_parts + g];
        power[threadIdx.x] = sum;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        time.quiet = sensing_quiet_power(power);
        time.last = power[sensing_time_blocks - 1];
    }
    __syncthreads();
    open_floors(k, floors, track, time, track ? *prior_quiet : 0.0, raw, f, e, o, mid);
    if (threadIdx.x == 0) {
        header->time = time;
        *done = 0;
    }
}

// The threshold pass where n is not a multiple of 512, a tile of run_tile bins a block
// at a time. The tile's spectrum,
// with the window's taps and one bin either side, is read once (coalesced) into shared
// memory, its loads issued a tile ahead so they are in flight while the block tests the
// tile before. Each thread then takes 8 consecutive bins: their 8 + 2h spectrum values
// in vector loads, |X_w|^2 of each with the taps in registers (TAPS, fixed at compile
// time), and a test against the least threshold over the tile (one compare: almost
// every bin is noise under it); only a bin over that bound takes the exact test
// (sensing_above, in double as on the CPU). Four lanes' flags make a word, so runs'
// ends are bit operations on words, and each warp's sum of its 256 powers goes to the
// sums that the gap levels read instead of the bins.
template <int TAPS>
__global__ void __launch_bounds__(run_threads, 4)
    runs_kernel(sensing_consts k,
                const double* frame_eta,
                const float2* X,
                const double* floors_in,
                std::int64_t* starts,
                std::int64_t* ends,
                std::int64_t cap,
                float* block_power,
                sensing_device_header* header)
{
    constexpr int h = TAPS / 2;
    constexpr int per = run_tile / run_threads; // bins a thread: 8
    constexpr int words = run_tile / 32;
    constexpr int span = run_tile + 2 + 2 * h; // bins base - 1 - h .. base + tile + h
    constexpr int reads = (per + 2 * h) / 2;   // float4 loads a thread: 2 bins each
    static_assert(per == 8, "four lanes' flags make a word");
    __shared__ double floors[sensing_max_subbands];
    // tile[1 + i] holds spectrum bin i of the span, so each thread's first value sits
    // at an even index (16-byte aligned) for the vector loads.
    __shared__ __align__(16) float2 tile[span + 1 + 1];
    __shared__ unsigned above[words];
    __shared__ float least;
    __shared__ unsigned outer[2]; // flags of bins base - 1 and base + run_tile
    const double eta = *frame_eta;
    for (int i = threadIdx.x; i < k.subbands; i += blockDim.x)
        floors[i] = floors_in[i];
    float c[TAPS];
#pragma unroll
    for (int m = 0; m < TAPS; ++m)
        c[m] = float(k.c[m]);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const std::int64_t tiles = (k.n + run_tile - 1) / run_tile;
    constexpr int loads = (span + run_threads - 1) / run_threads;
    float2 v[loads];
    const auto load = [&](std::int64_t t) {
        // Natural bins of shifted t * run_tile - 1 - h on, wrapped (more than once only
        // where n is smaller than a tile).
        std::int64_t q0 = sensing_natural(k, t * run_tile) - 1 - h;
        while (q0 < 0)
            q0 += k.n;
#pragma unroll
        for (int r = 0; r < loads; ++r) {
            const int i = threadIdx.x + r * run_threads;
            std::int64_t q = q0 + i;
            if (q >= k.n)
                q = k.n >= span ? q - k.n : q % k.n;
            if (i < span)
                v[r] = __ldg(X + q);
        }
    };
    // |X_w|^2 at the span's bin j + 1 + h (shifted bin base + j).
    const auto power_at = [&](int j) {
        float re = 0, im = 0;
#pragma unroll
        for (int m = 0; m < TAPS; ++m) {
            const float2 x = tile[1 + j + 2 * h - m + 1];
            re += c[m] * x.x;
            im += c[m] * x.y;
        }
        return re * re + im * im;
    };
    const auto test = [&](std::int64_t s, float P, float bound) {
        return P > bound && s >= 0 && s < k.n && sensing_above(k, eta, floors, s, P);
    };
    if (blockIdx.x < tiles)
        load(blockIdx.x);
    for (std::int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
        const std::int64_t base = t * run_tile;
        __syncthreads();
        if (threadIdx.x == 0) {
            // The least threshold over bins base - 1 .. base + run_tile inside [0, n),
            // rounded down.
            const std::int64_t lo = base > 0 ? base - 1 : 0;
            const std::int64_t hi = base + run_tile + 1 < k.n ? base + run_tile + 1 : k.n;
            least = float(eta * least_floor(k, floors, lo, hi)) * (1.0f - 1e-6f);
        }
#pragma unroll
        for (int r = 0; r < loads; ++r) {
            const int i = threadIdx.x + r * run_threads;
            if (i < span)
                tile[1 + i] = v[r];
        }
        __syncthreads();
        if (t + gridDim.x < tiles)
            load(t + gridDim.x);
        const float bound = least;
        if (threadIdx.x < 2) {
            const int j = threadIdx.x == 0 ? -1 : run_tile;
            outer[threadIdx.x] = test(base + j, power_at(j), bound) ? 1u : 0u;
        }
        // This thread's bins base + 8 t' .. + 7 need span bins 8 t' .. 8 t' + 7 + 2 h,
        // at tile[1 + 8 t' + 1] on: even, so float4 loads of two bins each.
        float2 x[2 * reads];
        const float4* t4 = reinterpret_cast<const float4*>(tile + 2 + per * threadIdx.x);
#pragma unroll
        for (int r = 0; r < reads; ++r) {
            const float4 w = t4[r];
            x[2 * r] = make_float2(w.x, w.y);
            x[2 * r + 1] = make_float2(w.z, w.w);
        }
        unsigned mask = 0;
        float sum = 0;
        const std::int64_t s0 = base + per * std::int64_t(threadIdx.x);
#pragma unroll
        for (int u = 0; u < per; ++u) {
            float re = 0, im = 0;
#pragma unroll
            for (int m = 0; m < TAPS; ++m) {
                re += c[m] * x[u + 2 * h - m].x;
                im += c[m] * x[u + 2 * h - m].y;
            }
            const float P = re * re + im * im;
            if (s0 + u < k.n)
                sum += P;
            if (test(s0 + u, P, bound))
                mask |= 1u << u;
        }
        // Lanes 4j .. 4j + 3 hold word j of the warp's 8.
        mask <<= 8 * (lane & 3);
        mask |= __shfl_xor_sync(0xffffffffu, mask, 1);
        mask |= __shfl_xor_sync(0xffffffffu, mask, 2);
        if ((lane & 3) == 0)
            above[warp * 8 + (lane >> 2)] = mask;
#pragma unroll
        for (int o = 16; o > 0; o >>= 1)
            sum += __shfl_xor_sync(0xffffffffu, sum, o);
        const std::int64_t b = base / sensing_block_bins + warp;
        if (lane == 0 && b * sensing_block_bins < k.n)
            block_power[b] = sum;
        __syncthreads();
        // A word a thread: a run starts at a set bit whose lower neighbour is clear,
        // ends at one whose upper neighbour is clear.
        if (threadIdx.x < words) {
            const int w = threadIdx.x;
            const unsigned val = above[w];
            const unsigned below = w > 0 ? above[w - 1] >> 31 : outer[0];
            const unsigned over = w < words - 1 ? above[w + 1] << 31 : outer[1] << 31;
            push_run_edges(val & ~((val << 1) | below),
                           val & ~((val >> 1) | over),
                           base + 32 * std::int64_t(w),
                           starts,
                           ends,
                           cap,
                           header);
        }
    }
}

// The threshold pass where n is a multiple of 512 (every power of two): a warp takes
// 256 bins at a time straight from global memory, with no shared tile and no barrier.
// A warp's bins are then one natural run starting at a multiple of 256 (half is a
// multiple of 256, so the wrap at natural bin 0 falls between warps): each lane reads
// its 8 bins as 4 aligned float4 loads and takes the window's h bins either side from
// its neighbours by shuffles (lanes 0 and 31 read theirs). The bins' powers, the exact
// test and the warp's power sum are the tiled kernel's arithmetic in the same order, so
// both give the same runs and sums; the bound that screens bins is looser (the least
// floor of the sub-bands around the chunk) and only bins over it take the exact test.
// The pass issues about as many instructions as the memory system allows (an H200
// issued in 70 % of its cycles at 57 % of DRAM's peak): instructions taken out of the
// chunk's loop are time. H200, 2^27 bins: 317 us against the tiled kernel's 540 (a
// plain read 244 us); 2^24: 44 against 80 us.
template <int TAPS>
__global__ void __launch_bounds__(run_threads)
    runs_warp_kernel(sensing_consts k,
                     const double* frame_eta,
                     const float2* X,
                     const double* floors_in,
                     std::int64_t* starts,
                     std::int64_t* ends,
                     std::int64_t cap,
                     float* block_power,
                     sensing_device_header* header)
{
    constexpr int h = TAPS / 2;
    constexpr int per = 8;
    static_assert(per * 32 == sensing_block_bins, "a warp's bins are one power sum");
    __shared__ double floors[sensing_max_subbands];
    // low[i]: the threshold's bound over sub-bands i - 1 .. i + 2 (below).
    __shared__ float low[sensing_max_subbands];
    const double eta = *frame_eta;
    const int S = k.subbands;
    for (int i = threadIdx.x; i < S; i += blockDim.x)
        floors[i] = floors_in[i];
    __syncthreads();
    for (int i = threadIdx.x; i < S; i += blockDim.x) {
        double least = floors[max(i - 1, 0)];
        for (int j = max(i - 1, 0) + 1; j <= min(i + 2, S - 1); ++j)
            least = fmin(least, floors[j]);
        low[i] = float(eta * least) * (1.0f - 1e-6f);
    }
    __syncthreads();
    float c[TAPS];
#pragma unroll
    for (int m = 0; m < TAPS; ++m)
        c[m] = float(k.c[m]);
    const int lane = threadIdx.x & 31;
    const std::int64_t chunks = k.n / sensing_block_bins;
    const std::int64_t warps = std::int64_t(gridDim.x) * (blockDim.x >> 5);
    const spectrum_reader bin{ X };
    const auto wrap = [&](std::int64_t q) {
        return q < 0 ? q + k.n : (q >= k.n ? q - k.n : q);
    };
    // The tiled kernel's exact test of one bin (inside [0, n) or not).
    const auto test = [&](std::int64_t s, float P, float bound) {
        return P > bound && s >= 0 && s < k.n && sensing_above(k, eta, floors, s, P);
    };
    for (std::int64_t w =
             std::int64_t(blockIdx.x) * (blockDim.x >> 5) + (threadIdx.x >> 5);
         w < chunks;
         w += warps) {
        const std::int64_t base = w * sensing_block_bins;
        const std::int64_t q0 = sensing_natural(k, base) + per * lane;
        // x[j]: shifted bin base + 8 lane - h + j.
        float2 x[per + 2 * h];
        const float4* x4 = reinterpret_cast<const float4*>(X + q0);
#pragma unroll
        for (int r = 0; r < per / 2; ++r) {
            const float4 v = __ldg(x4 + r);
            x[h + 2 * r] = make_float2(v.x, v.y);
            x[h + 2 * r + 1] = make_float2(v.z, v.w);
        }
        // The warp's outer bins: lane 0's h below, lane 31's h above, read in one branch
        // (a branch a bin and lane was a tenth of the pass's instructions).
        float2 outer[h > 0 ? h : 1];
        if (lane == 0 || lane == 31) {
            const std::int64_t o = lane == 0 ? q0 - h : q0 + per;
#pragma unroll
            for (int j = 0; j < h; ++j)
                outer[j] = __ldg(X + wrap(o + j));
        }
#pragma unroll
        for (int j = 0; j < h; ++j) {
            // Left: the lane below's last h bins; right: the lane above's first h.
            float2 l, r;
            l.x = __shfl_up_sync(0xffffffffu, x[per + j].x, 1);
            l.y = __shfl_up_sync(0xffffffffu, x[per + j].y, 1);
            r.x = __shfl_down_sync(0xffffffffu, x[h + j].x, 1);
            r.y = __shfl_down_sync(0xffffffffu, x[h + j].y, 1);
            x[j] = lane == 0 ? outer[j] : l;
            x[h + per + j] = lane == 31 ? outer[j] : r;
        }
        // A bound of the threshold over the chunk and its two outer bins: the floor at
        // a bin lies between the sub-band centres either side of it, so the least of
        // the sub-bands from the one before the first bin's to the one after the last
        // bin's bounds it (sensing_floor_range's exact least took a tenth of the pass).
        // The sub-bands by a product, not two 64-bit divisions: int(s * inv_sub_bins)
        // is s / sub_bins or, where that is a whole number, one less; so the range
        // from one below the first's to two above the last's holds the exact one:
        // low[a] and low[b] cover it where a and b are at most 3 apart (the chunk's
        // 258 bins touch at most three sub-bands of the automatic 256 bins or more),
        // low[a + 1 .. b - 3] the rest. A wider range only lowers the bound, which
        // decides nothing but which bins take the exact test (the range's least a
        // chunk, in double, was a tenth of the pass's instructions).
        const double lo = double(base > 0 ? base - 1 : 0);
        const double hi = double(
            base + sensing_block_bins < k.n - 1 ? base + sensing_block_bins : k.n - 1);
        const int a = min(int(lo * k.inv_sub_bins), S - 1);
        const int b = min(int(hi * k.inv_sub_bins), S - 1);
        float bound = fminf(low[a], low[b]);
        for (int i = a + 1; i < b - 2; ++i) // floor_subbands set: under 256 bins
            bound = fminf(bound, low[i]);
        float P[per];
        unsigned near = 0; // bins over the bound: the exact test decides
        float sum = 0;
#pragma unroll
        for (int u = 0; u < per; ++u) {
            float re = 0, im = 0;
#pragma unroll
            for (int m = 0; m < TAPS; ++m) {
                re += c[m] * x[u + 2 * h - m].x;
                im += c[m] * x[u + 2 * h - m].y;
            }
            P[u] = re * re + im * im;
            sum += P[u];
            near |= P[u] > bound ? 1u << u : 0u;
        }
        const std::int64_t s0 = base + per * std::int64_t(lane);
        unsigned mask = 0;
        if (near) {
#pragma unroll
            for (int u = 0; u < per; ++u)
                if (((near >> u) & 1u) && sensing_above(k, eta, floors, s0 + u, P[u]))
                    mask |= 1u << u;
        }
        // The bins beside this lane's: its neighbours' flags, or beyond the warp's
        // bins the exact test, only where this lane's end bin is above (rare).
        unsigned below = (__shfl_up_sync(0xffffffffu, mask, 1) >> (per - 1)) & 1u;
        unsigned over = __shfl_down_sync(0xffffffffu, mask, 1) & 1u;
        if (lane == 0)
            below = (mask & 1u) && test(base - 1,
                                        base > 0 ? sensing_power(k, bin, base - 1) : 0.0f,
                                        bound)
                        ? 1u
                        : 0u;
        if (lane == 31) {
            const std::int64_t s = base + sensing_block_bins;
            over = ((mask >> (per - 1)) & 1u) &&
                           test(s, s < k.n ? sensing_power(k, bin, s) : 0.0f, bound)
                       ? 1u
                       : 0u;
        }
        push_run_edges(mask & ~((mask << 1) | below),
                       mask & ~((mask >> 1) | (over << (per - 1))),
                       s0,
                       starts,
                       ends,
                       cap,
                       header);
#pragma unroll
        for (int o = 16; o > 0; o >>= 1)
            sum += __shfl_xor_sync(0xffffffffu, sum, o);
        if (lane == 0)
            block_power[w] = sum;
    }
}

} // namespace

void launch_sensing_floor(const sensing_consts& k,
                          const float* X,
                          const float* x,
                          double* time_power,
                          double* floors,
                          sensing_device_header* header,
                          unsigned* done,
                          void* stream,
                          const double* track,
                          const double* prior_quiet,
                          double* raw)
{
    const auto st = static_cast<cudaStream_t>(stream);
    floor_kernel<<<k.subbands, floor_threads, 0, st>>>(k,
                                                       reinterpret_cast<const float2*>(X),
                                                       reinterpret_cast<const float2*>(x),
                                                       time_power,
                                                       floors,
                                                       header,
                                                       done,
                                                       track,
                                                       prior_quiet,
                                                       raw);
    GPUFFT_CUDA_CHECK_LAUNCH();
}


namespace {

// The runs kernel for the window's taps (1, 3, 5 or 7 are built).
using runs_fn = void (*)(sensing_consts,
                         const double*,
                         const float2*,
                         const double*,
                         std::int64_t*,
                         std::int64_t*,
                         std::int64_t,
                         float*,
                         sensing_device_header*);

// The warp kernel where n is a multiple of 512 (runs_warp_kernel), else the tiled one.
runs_fn runs_kernel_for(const sensing_consts& k)
{
    const bool warp = k.n % (2 * sensing_block_bins) == 0;
    switch (k.taps) {
    case 1:
        return warp ? runs_warp_kernel<1> : runs_kernel<1>;
    case 3:
        return warp ? runs_warp_kernel<3> : runs_kernel<3>;
    case 5:
        return warp ? runs_warp_kernel<5> : runs_kernel<5>;
    case 7:
        return warp ? runs_warp_kernel<7> : runs_kernel<7>;
    default:
        throw std::invalid_argument("sensing: a window of " + std::to_string(k.taps) +
                                    " spectral taps (1, 3, 5 or 7 are built)");
    }
}

} // namespace

int sensing_runs_blocks(const sensing_consts& k)
{
    if (k.n % (2 * sensing_block_bins) != 0) {
        // Enough blocks to fill the GPU several times over; each loops over its tiles.
        const std::int64_t tiles = (k.n + run_tile - 1) / run_tile;
        return int(std::min<std::int64_t>(tiles, 8192));
    }
    int dev = 0, sms = 0, per_sm = 0;
    GPUFFT_CUDA_CHECK(cudaGetDevice(&dev));
    GPUFFT_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    GPUFFT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, runs_kernel_for(k), run_threads, 0));
    constexpr std::int64_t block_bins = sensing_block_bins * (run_threads / 32);
    const std::int64_t needed = (k.n + block_bins - 1) / block_bins;
    return int(std::max<std::int64_t>(
        1, std::min<std::int64_t>(needed, std::int64_t(std::max(per_sm, 1)) * sms)));
}

void launch_sensing_runs(const sensing_consts& k,
                         const double* eta,
                         const float* X,
                         const double* floors,
                         std::int64_t* starts,
                         std::int64_t* ends,
                         std::int64_t cap,
                         float* block_power,
                         sensing_device_header* header,
                         int blocks,
                         void* stream)
{
    const auto st = static_cast<cudaStream_t>(stream);
    runs_kernel_for(k)<<<blocks, run_threads, 0, st>>>(k,
                                                       eta,
                                                       reinterpret_cast<const float2*>(X),
                                                       floors,
                                                       starts,
                                                       ends,
                                                       cap,
                                                       block_power,
                                                       header);
    GPUFFT_CUDA_CHECK_LAUNCH();
}

} // namespace detail
} // namespace gpufft
} // namespace gr
