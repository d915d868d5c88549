/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Bands' sums and edges, gaps' levels and the runs' order on the device
// (sensing_kernels.h).

#include "cuda/cuda_check.h"
#include "sensing/sensing_kernels.cuh"
#include <cub/device/device_radix_sort.cuh>

namespace gr {
namespace gpufft {
namespace detail {

namespace {

using namespace sensing_device;

// A band's core is cut into chunks of sensing_chunk_bins, one thread block each, so a
// carrier of 10^5 bins and more is summed by many multiprocessors (one block a band
// took 1.3 ms for a 268k-bin carrier at n = 2^27). The chunk of blockIdx.x: its band
// from the bands' chunk offsets (offsets[i] .. offsets[i + 1] - 1 are band i's).
__device__ int chunk_band(const int* offsets, int count, int chunk)
{
    int lo = 0, hi = count - 1;
    while (lo < hi) {
        const int mid = (lo + hi + 1) / 2;
        if (offsets[mid] <= chunk)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}


// The largest P of the block and its first bin, on every thread.
__device__ void block_peak(float& p, long long& s, float* peak_p, long long* peak_s)
{
    peak_p[threadIdx.x] = p;
    peak_s[threadIdx.x] = s;
    __syncthreads();
    for (int st = blockDim.x / 2; st > 0; st >>= 1) {
        if (threadIdx.x < st) {
            const float o = peak_p[threadIdx.x + st];
            const long long os = peak_s[threadIdx.x + st];
            if (o > peak_p[threadIdx.x] ||
                (o == peak_p[threadIdx.x] && os < peak_s[threadIdx.x])) {
                peak_p[threadIdx.x] = o;
                peak_s[threadIdx.x] = os;
            }
        }
        __syncthreads();
    }
    p = peak_p[0];
    s = peak_s[0];
    __syncthreads();
}

// The sums over core bins [first, last] of a band: excess, moment, power over the
// floor and the peak; the bins in strides of the block (coalesced), `unroll` of a
// thread's at once. On every thread.
__device__ sensing_chunk core_sums(const sensing_consts& k,
                                   const spectrum_reader& bin,
                                   const double* floors,
                                   std::int64_t first,
                                   std::int64_t last,
                                   double* red,
                                   float* peak_p,
                                   long long* peak_s)
{
    double excess = 0, moment = 0, power = 0;
    float pk = -1;
    long long pks = first;
    for (std::int64_t s0 = first + threadIdx.x; s0 <= last;
         s0 += unroll * std::int64_t(blockDim.x)) {
        std::int64_t at[unroll]; // past the core: its last bin, dropped below
#pragma unroll
        for (int u = 0; u < unroll; ++u)
            at[u] = min(s0 + u * std::int64_t(blockDim.x), last);
        float P[unroll];
        sensing_powers<unroll>(k, bin, at, P);
#pragma unroll
        for (int u = 0; u < unroll; ++u) {
            const std::int64_t s = s0 + u * std::int64_t(blockDim.x);
            if (s > last)
                break;
            const double f = sensing_floor_at(k, floors, s);
            const double d = double(P[u]) - f;
            const double e = d > 0 ? d : 0.0;
            power += d;
            excess += e;
            moment += double(s) * e;
            if (P[u] > pk) {
                pk = P[u];
                pks = s;
            }
        }
    }
    excess = block_sum(excess, red);
    moment = block_sum(moment, red);
    power = block_sum(power, red);
    block_peak(pk, pks, peak_p, peak_s);
    return sensing_chunk{ excess, moment, power, pk, pks };
}

// A chunk of a band's core: its sums (core_sums), for bands of more than one chunk.
__global__ void band_chunks_kernel(sensing_consts k,
                                   const float2* X,
                                   const double* floors_in,
                                   const sensing_band* bands,
                                   const int* offsets,
                                   int count,
                                   sensing_chunk* chunks)
{
    __shared__ double floors[sensing_max_subbands];
    __shared__ double red[33];
    __shared__ float peak_p[band_threads];
    __shared__ long long peak_s[band_threads];
    load_floors(k, floors_in, floors);
    const int c = blockIdx.x, i = chunk_band(offsets, count, c);
    const sensing_band& b = bands[i];
    const std::int64_t first =
        b.core_first + std::int64_t(c - offsets[i]) * sensing_chunk_bins;
    const std::int64_t last =
        min(b.core_last, first + std::int64_t(sensing_chunk_bins) - 1);
    const sensing_chunk sums =
        core_sums(k, spectrum_reader{ X }, floors, first, last, red, peak_p, peak_s);
    if (threadIdx.x == 0)
        chunks[c] = sums;
}

// Where the running sum of the excess over [a, b] (at most a chunk), starting at `cum`,
// first reaches target[t], for each t with bit t of `want` set (0: the lower edge's
// 0.5 %, 1: the upper's 99.5 %; both where they fall in one chunk): each thread takes a
// segment of (b - a + 1) / blockDim bins (rounded up, unroll at most) and keeps their
// excess, a scan of the segments finds the one that crosses, and its thread walks its
// own values. edge[t] is set where a bin crosses (rounding can leave none: the edge
// stays). found and value: shared, 2 each.
static_assert(sensing_chunk_bins <= unroll * band_threads, "a segment is one batch");
__device__ void walk_to(const sensing_consts& k,
                        const spectrum_reader& bin,
                        const double* floors,
                        std::int64_t a,
                        std::int64_t b,
                        double cum,
                        const double* target,
                        int want,
                        double* seg,
                        long long* found,
                        double* value,
                        double* edge)
{
    // Each thread's segment as short as the stretch allows: with 32 bins a thread
    // whatever its length, a 2100-bin carrier left 66 threads each reading their 32
    // bins one after another, and the block waiting at the barriers (its band took 75
    // us on an H200, 71 % of it barrier stalls). The segment's loads are issued
    // together: every thread reads unroll bins of the stretch (past its segment, the
    // last one again) and keeps only its own, so no load waits on a test; its values
    // stay in registers for the walk (read again for the walk, and all again for the
    // second edge, a 2100-bin carrier's bands kernel took 40 us at n = 2^20 on an
    // H200; 24 us from one read).
    const int per = int((b - a + blockDim.x) / blockDim.x);
    const std::int64_t s0 = a + std::int64_t(threadIdx.x) * per;
    std::int64_t at[unroll];
#pragma unroll
    for (int u = 0; u < unroll; ++u)
        at[u] = min(s0 + u, b);
    float P[unroll];
    sensing_powers<unroll>(k, bin, at, P);
    double e[unroll], mine = 0;
#pragma unroll
    for (int u = 0; u < unroll; ++u) {
        const double f = sensing_floor_at(k, floors, at[u]);
        const double v = double(P[u]) > f ? double(P[u]) - f : 0.0;
        e[u] = u < per && s0 + u <= b ? v : 0.0;
        mine += e[u];
    }
    if (threadIdx.x < 2)
        found[threadIdx.x] = -1;
    // The segments' running sums (thread 0 adding 512 of them one by one took 10 us
    // an edge).
    const double start = cum + block_exclusive_scan(mine, seg);
    for (int t = 0; t < 2; ++t) {
        double c = start;
        if (!((want >> t) & 1) || !(c < target[t] && c + mine >= target[t]))
            continue;
#pragma unroll
        for (int u = 0; u < unroll; ++u) {
            const double next = c + e[u];
            if (e[u] > 0 && c < target[t] && next >= target[t] && found[t] < 0) {
                found[t] = s0 + u;
                value[t] = double(s0 + u) - 0.5 + (target[t] - c) / e[u];
            }
            c = next;
        }
    }
    __syncthreads();
    for (int t = 0; t < 2; ++t)
        if (((want >> t) & 1) && found[t] >= 0)
            edge[t] = value[t];
    __syncthreads(); // found and value are free for the next call
}

// A band's results into b by the threads that made it (its warp or block; t: the
// thread's index among them): the windowed bins around the peak of a narrow core for
// the tone fit (the host fits the strongest: one thread a fit here took longer than the
// host's budget of them), then from thread 0 the sums, the peak and the edges.
__device__ void store_band(const sensing_consts& k,
                           const spectrum_reader& bin,
                           const double* floors,
                           sensing_band& b,
                           int t,
                           double total,
                           double moment,
                           double power,
                           float peak,
                           std::int64_t peak_bin,
                           double lower,
                           double upper)
{
    if (b.core_last - b.core_first + 1 <= k.narrow && t <= 2 * k.fit_half)
        sensing_windowed_bin(
            k, bin, peak_bin + t - k.fit_half, b.lobe[2 * t], b.lobe[2 * t + 1]);
    if (t == 0) {
        b.excess = total;
        b.moment = moment;
        b.power = power;
        b.peak = peak;
        b.peak_bin = peak_bin;
        b.floor_at_peak = sensing_floor_at(k, floors, peak_bin);
        b.lower = lower;
        b.upper = upper;
    }
}

// The obw99 edges of a core of 32 bins or fewer, by a warp, a bin a lane (s, its
// excess e; 0 past the core): one scan of the excess finds both. walk_to's per-thread
// segments left one thread to read such a core bin after bin, twice an edge: 16 of the
// 23 us the bands kernel took for three narrow bands (H200, clock64 marks). An edge
// no bin crosses (rounding) stays as it was, the core's.
__device__ void
warp_obw_edges(std::int64_t s, double e, double total, double& lower, double& upper)
{
    const int lane = threadIdx.x & 31;
    const double c = warp_inclusive_scan(e); // the running sum through this bin
    double before = __shfl_up_sync(0xffffffffu, c, 1);
    if (lane == 0)
        before = 0;
    for (int side = 0; side < 2; ++side) {
        const double target = (side == 0 ? 0.005 : 0.995) * total;
        const unsigned hit =
            __ballot_sync(0xffffffffu, e > 0 && before < target && c >= target);
        if (hit != 0) {
            const int from = __ffs(hit) - 1;
            const double v =
                __shfl_sync(0xffffffffu, double(s) - 0.5 + (target - before) / e, from);
            if (side == 0)
                lower = v;
            else
                upper = v;
        }
    }
}

// Whether band_of's work on b fits one warp (narrow_band_of): a core of 32 bins or
// fewer, with at most 32 lobe bins either side.
__device__ inline bool warp_band(const sensing_band& b)
{
    return b.core_last - b.core_first < 32 && b.core_first - b.first <= 32 &&
           b.last - b.core_last <= 32;
}

// band_of's work on a warp_band() by one warp, the same sums in another order: a lane
// a core bin and a lobe bin either side, warp shuffles for the sums and the peak, a
// ballot for the xdb edges. Most bands are a tone's few bins: a block of 512 took
// some 16 barriers for each (1000 tones: 60 us at n = 2^20 on an H200).
__device__ void narrow_band_of(const sensing_consts& k,
                               const spectrum_reader& bin,
                               const double* floors,
                               sensing_band& b,
                               int rule_xdb,
                               double xdb_ratio)
{
    const int lane = threadIdx.x & 31;
    const std::int64_t first = b.core_first, last = b.core_last;
    const auto over_floor = [&](std::int64_t q) {
        return double(sensing_power(k, bin, q)) - sensing_floor_at(k, floors, q);
    };
    // The lobes either side of the core add to the power only.
    double lobes = 0;
    if (b.first + lane < first)
        lobes += over_floor(b.first + lane);
    if (last + 1 + lane <= b.last)
        lobes += over_floor(last + 1 + lane);
    const std::int64_t s = first + lane;
    float P = -1;
    double e = 0, d = 0;
    if (s <= last) {
        P = sensing_power(k, bin, s);
        d = double(P) - sensing_floor_at(k, floors, s);
        e = d > 0 ? d : 0.0;
    }
    const double total = warp_sum(e);
    const double moment = warp_sum(double(s) * e);
    const double power = warp_sum(lobes) + warp_sum(d);
    // The largest P and its first bin.
    float peak = P;
    long long peak_bin = s;
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        const float op = __shfl_xor_sync(0xffffffffu, peak, o);
        const long long os = __shfl_xor_sync(0xffffffffu, peak_bin, o);
        if (op > peak || (op == peak && os < peak_bin)) {
            peak = op;
            peak_bin = os;
        }
    }
    double lower = double(first) - 0.5, upper = double(last) + 0.5;
    if (rule_xdb) {
        const unsigned at = __ballot_sync(
            0xffffffffu, s <= last && double(P) >= double(peak) * xdb_ratio);
        lower = double(first + __ffs(at) - 1) - 0.5;
        upper = double(first + 31 - __clz(at)) + 0.5;
    } else if (total > 0) {
        warp_obw_edges(s, e, total, lower, upper);
    }
    store_band(
        k, bin, floors, b, lane, total, moment, power, peak, peak_bin, lower, upper);
}

// One band by the block: its chunks' sums added in order (`summed`: band_chunks_kernel
// made them, chunks[c0 .. c1 - 1]; else the core is one chunk, summed here: most
// frames' bands are narrow, and a kernel of its own cost them a launch), the lobes'
// power, the peak, then the edges by the rule (obw99: the chunk where 0.5 % (99.5 %)
// of the excess is reached, walked; xdb: the core read again) and the windowed bins
// around a narrow core's peak. b (global memory) holds first, last, core_first and
// core_last; floors are in shared memory.
__device__ void band_of(const sensing_consts& k,
                        const spectrum_reader& bin,
                        const double* floors,
                        sensing_band& b,
                        int c0,
                        int c1,
                        const sensing_chunk* chunks,
                        int summed,
                        int rule_xdb,
                        double xdb_ratio)
{
    __shared__ double red[33];
    __shared__ double seg[33];
    __shared__ float peak_p[band_threads];
    __shared__ long long peak_s[band_threads];
    __shared__ long long edge[2];
    __shared__ long long found[2];
    __shared__ double value[2];
    const std::int64_t first = b.core_first, last = b.core_last;
    // The lobes either side of the core (a few bins) add to the power only.
    double lobes = 0;
    for (std::int64_t s = b.first + threadIdx.x; s < first; s += blockDim.x)
        lobes += double(sensing_power(k, bin, s)) - sensing_floor_at(k, floors, s);
    for (std::int64_t s = last + 1 + threadIdx.x; s <= b.last; s += blockDim.x)
        lobes += double(sensing_power(k, bin, s)) - sensing_floor_at(k, floors, s);
    lobes = block_sum(lobes, red);
    sensing_chunk one{};
    if (!summed) // one chunk: c1 == c0 + 1, and chunks[] is read nowhere else
        one = core_sums(k, bin, floors, first, last, red, peak_p, peak_s);
    double total = 0, moment = 0, power = lobes;
    float peak = -1;
    std::int64_t peak_bin = first;
    for (int c = c0; c < c1; ++c) {
        const sensing_chunk ch = summed ? chunks[c] : one;
        total += ch.excess;
        moment += ch.moment;
        power += ch.power;
        if (ch.peak > peak) { // chunks in order: the first bin of the peak kept
            peak = ch.peak;
            peak_bin = ch.peak_bin;
        }
    }
    double lower = double(first) - 0.5, upper = double(last) + 0.5;
    if (rule_xdb) {
        if (threadIdx.x == 0) {
            edge[0] = peak_bin;
            edge[1] = peak_bin;
        }
        __syncthreads();
        const double level = double(peak) * xdb_ratio;
        for (std::int64_t s = first + threadIdx.x; s <= last; s += blockDim.x)
            if (double(sensing_power(k, bin, s)) >= level) {
                atomicMin(&edge[0], (long long)s);
                atomicMax(&edge[1], (long long)s);
            }
        __syncthreads();
        lower = double(edge[0]) - 0.5;
        upper = double(edge[1]) + 0.5;
    } else if (total > 0 && last - first < 32) {
        if (threadIdx.x < 32) {
            const std::int64_t s = first + int(threadIdx.x);
            double e = 0;
            if (s <= last) {
                const float P = sensing_power(k, bin, s);
                const double f = sensing_floor_at(k, floors, s);
                e = double(P) > f ? double(P) - f : 0.0;
            }
            warp_obw_edges(s, e, total, lower, upper);
        }
    } else if (total > 0) {
        const double target[2] = { 0.005 * total, 0.995 * total };
        // Each edge's chunk, the one whose running sum reaches its target, and the sum
        // before it (every thread alike).
        int c[2];
        double cum[2];
        for (int side = 0; side < 2; ++side) {
            cum[side] = 0;
            c[side] = c0;
            for (; c[side] < c1 - 1; ++c[side]) {
                if (cum[side] + chunks[c[side]].excess >= target[side])
                    break;
                cum[side] += chunks[c[side]].excess;
            }
        }
        double walked[2] = { lower, upper };
        for (int side = 0; side < 2; ++side) {
            if (side == 1 && c[1] == c[0])
                break; // both walked at once
            const std::int64_t a =
                first + std::int64_t(c[side] - c0) * sensing_chunk_bins;
            const std::int64_t z = min(last, a + std::int64_t(sensing_chunk_bins) - 1);
            const int want = c[1] == c[0] ? 3 : 1 << side;
            walk_to(
                k, bin, floors, a, z, cum[side], target, want, seg, found, value, walked);
        }
        lower = walked[0];
        upper = walked[1];
    }
    store_band(k,
               bin,
               floors,
               b,
               int(threadIdx.x),
               total,
               moment,
               power,
               peak,
               peak_bin,
               lower,
               upper);
}

// The host's bands: first the narrow ones (warp_band), a warp each across the grid,
// then the others a block each (band_of), each band made by the one warp or block that
// takes it. A block a band took 37 us for 1000 narrow bands at n = 2^20 (H200), most
// of it the blocks' own start and floors.
__global__ void __launch_bounds__(band_threads) bands_kernel(sensing_consts k,
                                                             const float2* X,
                                                             const double* floors_in,
                                                             sensing_band* bands,
                                                             int count,
                                                             const int* offsets,
                                                             const sensing_chunk* chunks,
                                                             int summed,
                                                             int rule_xdb,
                                                             double xdb_ratio)
{
    __shared__ double floors[sensing_max_subbands];
    load_floors(k, floors_in, floors);
    const spectrum_reader bin{ X };
    const int warps = int(blockDim.x >> 5);
    for (int i = int(blockIdx.x) * warps + int(threadIdx.x >> 5); i < count;
         i += int(gridDim.x) * warps)
        if (warp_band(bands[i]))
            narrow_band_of(k, bin, floors, bands[i], rule_xdb, xdb_ratio);
    for (int i = blockIdx.x; i < count; i += gridDim.x) {
        if (warp_band(bands[i]))
            continue;
        const int c0 = summed ? offsets[i] : i, c1 = summed ? offsets[i + 1] : c0 + 1;
        band_of(k, bin, floors, bands[i], c0, c1, chunks, summed, rule_xdb, xdb_ratio);
        __syncthreads(); // band_of's shared scratch is free for the next band
    }
}

// Run r of m (ordered) as a band of its own: its core, and its span as the plan's
// widen() makes it with `lobe` bins and the runs beside it.
__device__ sensing_band run_band(const sensing_consts& k,
                                 const sensing_ordered_run* runs,
                                 int m,
                                 int r,
                                 std::int64_t lobe)
{
    const std::int64_t cf = runs[r].first, cl = runs[r].last;
    std::int64_t lo = cf - lobe > 0 ? cf - lobe : 0;
    std::int64_t hi = cl + lobe < k.n - 1 ? cl + lobe : k.n - 1;
    if (r > 0)
        lo = max(lo, (runs[r - 1].last + cf) / 2 + 1);
    if (r + 1 < m)
        hi = min(hi, (cl + runs[r + 1].first) / 2);
    sensing_band z;
    z.core_first = cf;
    z.core_last = cl;
    z.first = min(lo, cf);
    z.last = max(hi, cl);
    return z;
}

// Each ordered run as a band of its own (launch_sensing_run_bands): first the narrow
// ones (warp_band), a warp each across the grid, then the others a block each; a core
// over one chunk is marked (core_first -1) and left to the host's call. Each run is
// written by the one warp or block that makes it.
__global__ void __launch_bounds__(band_threads)
    run_bands_kernel(sensing_consts k,
                     const float2* X,
                     const double* floors_in,
                     const sensing_device_header* header,
                     const sensing_ordered_run* runs,
                     std::int64_t lobe,
                     const double* enabled,
                     int rule_xdb,
                     double xdb_ratio,
                     sensing_band* out)
{
    const int m = header->starts;
    if (!header->ordered || *enabled == 0)
        return; // the whole grid
    if (int(blockIdx.x) >= m)
        return; // no run in either phase: warp runs start at blockIdx.x * warps
    __shared__ double floors[sensing_max_subbands];
    load_floors(k, floors_in, floors);
    const spectrum_reader bin{ X };
    const int warps = int(blockDim.x >> 5), lane = threadIdx.x & 31;
    for (int r = int(blockIdx.x) * warps + int(threadIdx.x >> 5); r < m;
         r += int(gridDim.x) * warps) {
        const sensing_band z = run_band(k, runs, m, r, lobe);
        if (!warp_band(z))
            continue;
        if (lane == 0)
            out[r] = z;
        __syncwarp(); // out[r] is seen by the warp
        narrow_band_of(k, bin, floors, out[r], rule_xdb, xdb_ratio);
    }
    for (int r = blockIdx.x; r < m; r += gridDim.x) {
        sensing_band z = run_band(k, runs, m, r, lobe);
        if (warp_band(z))
            continue;
        const bool one_chunk = z.core_last - z.core_first + 1 <= sensing_chunk_bins;
        if (threadIdx.x == 0) {
            if (!one_chunk)
                z.core_first = -1;
            out[r] = z;
        }
        __syncthreads(); // out[r] is seen by the block
        if (one_chunk)
            band_of(k, bin, floors, out[r], r, r + 1, nullptr, 0, rule_xdb, xdb_ratio);
        __syncthreads(); // band_of's shared scratch is free for the next run
    }
}

// sum plus term(P, s) for the powers P of bins s, s + 32, ... under `end`, in that
// order (a lane's share of a stretch), gap_batch of them read together: a bin at a
// time, each waited for its own loads. A batch of 16 for a gap's ends made the ordered
// gaps slower (7.9 -> 11.8 us at 2^20 on an H200): it reads all 16 bins whether the
// ends hold them or not.
constexpr int gap_batch = 4;
template <class Term>
__device__ double add_powers(const sensing_consts& k,
                             const spectrum_reader& bin,
                             std::int64_t s,
                             std::int64_t end,
                             double sum,
                             Term term)
{
    for (; s < end; s += 32 * gap_batch) {
        std::int64_t at[gap_batch]; // past the stretch: its last bin, not added
#pragma unroll
        for (int u = 0; u < gap_batch; ++u)
            at[u] = min(s + 32 * u, end - 1);
        float P[gap_batch];
        sensing_powers<gap_batch>(k, bin, at, P);
#pragma unroll
        for (int u = 0; u < gap_batch; ++u)
            if (s + 32 * u < end)
                sum += term(P[u], at[u]);
    }
    return sum;
}

// A warp's level of the gap [a, b) (b exclusive): the mean of P / floor over its bins.
// Most gaps are noise, far under the level that joins (fill): their power over the
// least floor bounds the mean from above and is read from the threshold pass's block
// sums, with only the ends bin by bin; such a gap gets the bound (as on the CPU), and
// only the others are read bin by bin. On every lane.
__device__ double warp_gap_level(const sensing_consts& k,
                                 const spectrum_reader& bin,
                                 const double* floors,
                                 const float* block_power,
                                 std::int64_t a,
                                 std::int64_t b,
                                 double fill)
{
    const int lane = threadIdx.x & 31;
    const double len = double(b - a);
    if (fill > 0) { // 0: the exact level is asked for, no bound can stand for it
        constexpr std::int64_t B = sensing_block_bins;
        const std::int64_t a_b = min(b, (a + B - 1) / B * B), b_b = max(a_b, b / B * B);
        const auto power = [](float P, std::int64_t) { return double(P); };
        double sum = add_powers(k, bin, a + lane, a_b, 0.0, power);
        for (std::int64_t j = a_b / B + lane; j < b_b / B; j += 32)
            sum += double(block_power[j]);
        sum = add_powers(k, bin, b_b + lane, b, sum, power);
        sum = warp_sum(sum);
        const double bound = sum / least_floor(k, floors, a, b) / len;
        if (bound * (1 + 1e-4) < fill)
            return bound;
    }
    // A lane's bins in their order.
    const double ratio =
        add_powers(k, bin, a + lane, b, 0.0, [&](float P, std::int64_t s) {
            return double(P) / sensing_floor_at(k, floors, s);
        });
    return warp_sum(ratio) / len;
}

// One warp a gap between consecutive runs, [gap_first, gap_last], the host's list. Gaps
// are short (the bridge's reach) and a carrier's number thousands: a block of 512
// threads a gap took 100 us for one carrier at 2^27 (H200), its threads mostly idle and
// its barriers in the way.
__global__ void gaps_kernel(sensing_consts k,
                            const float2* X,
                            const double* floors_in,
                            const float* block_power,
                            const std::int64_t* gap_first,
                            const std::int64_t* gap_last,
                            const double* fill,
                            int count,
                            double* level)
{
    __shared__ double floors[sensing_max_subbands];
    load_floors(k, floors_in, floors);
    const int g = int(blockIdx.x) * int(blockDim.x >> 5) + int(threadIdx.x >> 5);
    if (g >= count)
        return;
    const double v = warp_gap_level(k,
                                    spectrum_reader{ X },
                                    floors,
                                    block_power,
                                    gap_first[g],
                                    gap_last[g] + 1,
                                    fill[g]);
    if ((threadIdx.x & 31) == 0)
        level[g] = v;
}

// The runs' firsts and lasts in order by rank: runs do not overlap, so the bins are
// distinct and the i-th first and the i-th last are run i; a first's rank is the
// count of firsts under it. Each block loads every first and last and ranks its own
// slice of runs, order_lanes threads a run (each counting every order_lanes-th first
// and last, the counts then added across them): O(m^2) comparisons from shared memory,
// which for the few runs of most frames is nothing (CUB's block radix sort of 2048
// padded keys took 16 us whatever the count, on an H200). With a thread a run, 1000
// runs were two blocks' work, 24 us of their shared-memory reads.
constexpr int order_threads = 512;
constexpr int order_lanes = 8;
constexpr int order_runs_a_block = order_threads / order_lanes;
constexpr int order_blocks = sensing_ordered_cap / order_runs_a_block;
static_assert(32 % order_lanes == 0, "a run's threads lie in one warp");

__global__ void __launch_bounds__(order_threads)
    order_runs_kernel(const std::int64_t* starts,
                      const std::int64_t* ends,
                      sensing_device_header* header,
                      sensing_ordered_run* out)
{
    __shared__ long long first[sensing_ordered_cap], last[sensing_ordered_cap];
    const int m = header->starts;
    const bool fits = m == header->ends && m <= sensing_ordered_cap;
    if (blockIdx.x == 0 && threadIdx.x == 0)
        header->ordered = fits ? 1 : 0;
    if (!fits || int(blockIdx.x) * order_runs_a_block >= m)
        return; // the whole block
    for (int j = threadIdx.x; j < m; j += order_threads) {
        first[j] = starts[j];
        last[j] = ends[j];
    }
    __syncthreads();
    const int i = int(blockIdx.x) * order_runs_a_block + int(threadIdx.x) / order_lanes;
    const int part = int(threadIdx.x) % order_lanes;
    const long long a = i < m ? first[i] : 0, b = i < m ? last[i] : 0;
    int ra = 0, rb = 0;
    if (i < m)
        for (int j = part; j < m; j += order_lanes) {
            ra += first[j] < a;
            rb += last[j] < b;
        }
#pragma unroll
    for (int o = order_lanes / 2; o > 0; o >>= 1) {
        ra += __shfl_xor_sync(0xffffffffu, ra, o);
        rb += __shfl_xor_sync(0xffffffffu, rb, o);
    }
    if (i < m && part == 0) {
        out[ra].first = a;
        out[rb].last = b;
    }
}

// The ordered runs' gaps, a warp each (gaps_kernel's level), on a grid for
// sensing_ordered_cap runs: warps past the frame's runs return at once.
__global__ void ordered_gaps_kernel(sensing_consts k,
                                    const float2* X,
                                    const double* floors_in,
                                    const float* block_power,
                                    const sensing_device_header* header,
                                    std::int64_t gap_bins,
                                    std::int64_t max_gap,
                                    sensing_ordered_run* runs)
{
    const int warps = int(blockDim.x >> 5);
    const int m = header->starts;
    if (!header->ordered || int(blockIdx.x) * warps >= m)
        return; // the whole block
    __shared__ double floors[sensing_max_subbands];
    load_floors(k, floors_in, floors);
    const int g = int(blockIdx.x) * warps + int(threadIdx.x >> 5);
    if (g >= m)
        return;
    const std::int64_t a = runs[g].last + 1, b = g + 1 < m ? runs[g + 1].first : a;
    double v = 0;
    if (b - a > gap_bins && b - a <= max_gap)
        v = warp_gap_level(k,
                           spectrum_reader{ X },
                           floors,
                           block_power,
                           a,
                           b,
                           sensing_gap_fill_level(b - a));
    if ((threadIdx.x & 31) == 0)
        runs[g].gap_level = v;
}

} // namespace

void launch_sensing_gaps(const sensing_consts& k,
                         const float* X,
                         const double* floors,
                         const float* block_power,
                         const std::int64_t* gap_first,
                         const std::int64_t* gap_last,
                         const double* fill,
                         int count,
                         double* level,
                         void* stream)
{
    if (count == 0)
        return;
    constexpr int gaps_a_block = gap_threads / 32;
    gaps_kernel<<<(count + gaps_a_block - 1) / gaps_a_block,
                  gap_threads,
                  0,
                  static_cast<cudaStream_t>(stream)>>>(k,
                                                       reinterpret_cast<const float2*>(X),
                                                       floors,
                                                       block_power,
                                                       gap_first,
                                                       gap_last,
                                                       fill,
                                                       count,
                                                       level);
    GPUFFT_CUDA_CHECK_LAUNCH();
}

void launch_sensing_order_runs(const sensing_consts& k,
                               const float* X,
                               const double* floors,
                               const float* block_power,
                               const std::int64_t* starts,
                               const std::int64_t* ends,
                               sensing_device_header* header,
                               std::int64_t gap_bins,
                               std::int64_t max_gap,
                               sensing_ordered_run* out,
                               void* stream)
{
    const auto st = static_cast<cudaStream_t>(stream);
    order_runs_kernel<<<order_blocks, order_threads, 0, st>>>(starts, ends, header, out);
    GPUFFT_CUDA_CHECK_LAUNCH();
    constexpr int gaps_a_block = gap_threads / 32;
    ordered_gaps_kernel<<<(sensing_ordered_cap + gaps_a_block - 1) / gaps_a_block,
                          gap_threads,
                          0,
                          st>>>(k,
                                reinterpret_cast<const float2*>(X),
                                floors,
                                block_power,
                                header,
                                gap_bins,
                                max_gap,
                                out);
    GPUFFT_CUDA_CHECK_LAUNCH();
}

void launch_sensing_run_bands(const sensing_consts& k,
                              const float* X,
                              const double* floors,
                              const sensing_device_header* header,
                              const sensing_ordered_run* runs,
                              std::int64_t lobe,
                              const double* enabled,
                              int rule_xdb,
                              double xdb_ratio,
                              int blocks,
                              sensing_band* out,
                              void* stream)
{
    run_bands_kernel<<<blocks, band_threads, 0, static_cast<cudaStream_t>(stream)>>>(
        k,
        reinterpret_cast<const float2*>(X),
        floors,
        header,
        runs,
        lobe,
        enabled,
        rule_xdb,
        xdb_ratio,
        out);
    GPUFFT_CUDA_CHECK_LAUNCH();
}

std::size_t sensing_sort_scratch_bytes(std::int64_t cap)
{
    std::size_t bytes = 0;
    GPUFFT_CUDA_CHECK(
        cub::DeviceRadixSort::SortKeys(nullptr,
                                       bytes,
                                       static_cast<const std::int64_t*>(nullptr),
                                       static_cast<std::int64_t*>(nullptr),
                                       cap));
    return bytes;
}

void launch_sensing_sort_runs(const std::int64_t* starts,
                              const std::int64_t* ends,
                              std::int64_t* sorted,
                              std::int64_t m,
                              std::int64_t n,
                              void* scratch,
                              std::size_t scratch_bytes,
                              void* stream)
{
    // Bins are below n: the keys' bits above its width are all zero.
    int bits = 1;
    while (bits < 63 && (std::int64_t(1) << bits) < n)
        ++bits;
    const auto st = static_cast<cudaStream_t>(stream);
    std::size_t bytes = scratch_bytes;
    GPUFFT_CUDA_CHECK(
        cub::DeviceRadixSort::SortKeys(scratch, bytes, starts, sorted, m, 0, bits, st));
    bytes = scratch_bytes;
    GPUFFT_CUDA_CHECK(
        cub::DeviceRadixSort::SortKeys(scratch, bytes, ends, sorted + m, m, 0, bits, st));
}

void launch_sensing_bands(const sensing_consts& k,
                          const float* X,
                          const double* floors,
                          sensing_band* bands,
                          int count,
                          const int* offsets,
                          int chunks,
                          sensing_chunk* chunk_sums,
                          int rule_xdb,
                          double xdb_ratio,
                          int blocks,
                          void* stream)
{
    if (count == 0)
        return;
    const auto st = static_cast<cudaStream_t>(stream);
    const auto* x = reinterpret_cast<const float2*>(X);
    const int summed = chunks > count ? 1 : 0; // some core spans chunks
    if (summed) {
        band_chunks_kernel<<<chunks, band_threads, 0, st>>>(
            k, x, floors, bands, offsets, count, chunk_sums);
        GPUFFT_CUDA_CHECK_LAUNCH();
    }
    bands_kernel<<<std::min(count, std::max(blocks, 1)), band_threads, 0, st>>>(
        k, x, floors, bands, count, offsets, chunk_sums, summed, rule_xdb, xdb_ratio);
    GPUFFT_CUDA_CHECK_LAUNCH();
}

} // namespace detail
} // namespace gpufft
} // namespace gr
