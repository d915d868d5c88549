/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../cuda/cuda_check.h"
#include "sensing_kernels.h"
#include <cub/device/device_radix_sort.cuh>
#include <cuda_runtime.h>
#include <stdexcept>
#include <string>

namespace gr {
namespace gpufft {
namespace detail {

namespace {

constexpr int floor_threads = 1024;
constexpr int run_threads = 256;
constexpr int band_threads = 512;
constexpr int unroll = 8;      // bins whose loads a band thread issues together
constexpr int run_tile = 2048; // bins a block takes at a time in the threshold pass

struct spectrum_reader {
    const float2* X;
    __device__ void operator()(std::int64_t q, float& re, float& im) const
    {
        const float2 v = __ldg(X + q);
        re = v.x;
        im = v.y;
    }
};

__device__ double block_sum(double v, double* shared)
{
    shared[threadIdx.x] = v;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s)
            shared[threadIdx.x] += shared[threadIdx.x + s];
        __syncthreads();
    }
    const double r = shared[0];
    __syncthreads();
    return r;
}

// The sum of (a, b) over the block, on every thread: warp shuffles, then one warp over
// the warps' sums (one barrier pair where a shared-memory tree takes ten).
__device__ double2 block_sum2(double2 v, double2* shared)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        v.x += __shfl_down_sync(0xffffffffu, v.x, o);
        v.y += __shfl_down_sync(0xffffffffu, v.y, o);
    }
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    __syncthreads(); // the previous call's readers are done with shared[]
    if (lane == 0)
        shared[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < int(blockDim.x >> 5) ? shared[lane] : make_double2(0, 0);
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) {
            v.x += __shfl_down_sync(0xffffffffu, v.x, o);
            v.y += __shfl_down_sync(0xffffffffu, v.y, o);
        }
        if (lane == 0)
            shared[32] = v;
    }
    __syncthreads();
    return shared[32];
}

// One block a sub-band, its floor samples' log powers in registers (at most
// floor_per_thread a thread), then the censoring passes of sensing_floor_step, each one
// block reduction.
constexpr int floor_per_thread = sensing_floor_samples / floor_threads;

__global__ void __launch_bounds__(floor_threads) floor_kernel(
    sensing_consts k, const float2* X, double* floors, sensing_device_header* header)
{
    __shared__ double2 red[33];
    const int i = blockIdx.x;
    std::int64_t first, count;
    sensing_subband(k, i, first, count);
    const int m = int(sensing_sample_count(k, i));
    const spectrum_reader bin{ X };
    float logp[floor_per_thread];
    bool bad = false;
#pragma unroll
    for (int r = 0; r < floor_per_thread; ++r) {
        const int j = threadIdx.x + r * floor_threads;
        logp[r] = 3e38f; // never below a cut, never summed
        if (j < m) {
            const float P = sensing_power(k, bin, first + std::int64_t(j) * k.stride);
            bad = bad || !isfinite(P);
            logp[r] = sensing_log_power(k, P);
        }
    }
    if (bad)
        header->bad = 1;
    double f = 0;
    for (int pass = 0; pass <= sensing_floor_passes; ++pass) {
        const float cut = f > 0 ? float(log(k.cut * f)) : 3e38f;
        double2 v = make_double2(0, 0);
#pragma unroll
        for (int r = 0; r < floor_per_thread; ++r)
            if (threadIdx.x + r * floor_threads < m && logp[r] < cut) {
                v.x += double(logp[r]);
                v.y += 1.0;
            }
        v = block_sum2(v, red);
        f = sensing_floor_step(k, v.x, v.y, f);
    }
    if (threadIdx.x == 0)
        floors[i] = f;
}

// The opening of sensing_open_floor, a thread a sub-band.
__global__ void open_kernel(sensing_consts k, double* floors)
{
    __shared__ double f[sensing_max_subbands], e[sensing_max_subbands];
    const int S = k.subbands, r = k.opening;
    for (int i = threadIdx.x; i < S; i += blockDim.x)
        f[i] = floors[i];
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
        floors[i] = f[i] < top ? f[i] : top;
    }
}


// The least floor over shifted bins [a, b): the floor is linear between sub-band
// centres, so it is at an end or at a centre inside (as the CPU backend's).
__device__ double
least_floor(const sensing_consts& k, const double* floors, std::int64_t a, std::int64_t b)
{
    double f = fmin(sensing_floor_at(k, floors, a), sensing_floor_at(k, floors, b - 1));
    const std::int64_t i_end = min(std::int64_t(k.subbands), b / k.sub_bins + 1);
    for (std::int64_t i = a / k.sub_bins; i < i_end; ++i) {
        const std::int64_t centre = i * k.sub_bins + k.sub_bins / 2;
        if (centre >= a && centre < b)
            f = fmin(f, floors[i]);
    }
    return f;
}

// The threshold pass, a tile of run_tile bins a block at a time. The tile's spectrum,
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
        return P > bound && s >= 0 && s < k.n && sensing_above(k, floors, s, P);
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
            least = float(k.eta * least_floor(k, floors, lo, hi)) * (1.0f - 1e-6f);
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
            unsigned first = val & ~((val << 1) | below);
            unsigned last = val & ~((val >> 1) | over);
            const std::int64_t sw = base + 32 * std::int64_t(w);
            while (first) {
                const int bit = __ffs(first) - 1;
                first &= first - 1;
                const int at = atomicAdd(&header->starts, 1);
                if (at < cap)
                    starts[at] = sw + bit;
            }
            while (last) {
                const int bit = __ffs(last) - 1;
                last &= last - 1;
                const int at = atomicAdd(&header->ends, 1);
                if (at < cap)
                    ends[at] = sw + bit;
            }
        }
    }
}

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

__device__ void load_floors(const sensing_consts& k, const double* in, double* out)
{
    for (int i = threadIdx.x; i < k.subbands; i += blockDim.x)
        out[i] = in[i];
    __syncthreads();
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

// A chunk's sums over its bins of the core: excess, moment, power over the floor and the
// peak; the bins in strides of the block (coalesced), `unroll` of a thread's at once.
__global__ void band_chunks_kernel(sensing_consts k,
                                   const float2* X,
                                   const double* floors_in,
                                   const sensing_band* bands,
                                   const int* offsets,
                                   int count,
                                   sensing_chunk* chunks)
{
    __shared__ double floors[sensing_max_subbands];
    __shared__ double red[band_threads];
    __shared__ float peak_p[band_threads];
    __shared__ long long peak_s[band_threads];
    load_floors(k, floors_in, floors);
    const spectrum_reader bin{ X };
    const int c = blockIdx.x, i = chunk_band(offsets, count, c);
    const sensing_band& b = bands[i];
    const std::int64_t first =
        b.core_first + std::int64_t(c - offsets[i]) * sensing_chunk_bins;
    const std::int64_t last =
        min(b.core_last, first + std::int64_t(sensing_chunk_bins) - 1);
    double excess = 0, moment = 0, power = 0;
    float pk = -1;
    long long pks = first;
    for (std::int64_t s0 = first + threadIdx.x; s0 <= last;
         s0 += unroll * std::int64_t(blockDim.x)) {
        float P[unroll];
#pragma unroll
        for (int u = 0; u < unroll; ++u) {
            const std::int64_t s = s0 + u * std::int64_t(blockDim.x);
            P[u] = s <= last ? sensing_power(k, bin, s) : -1.0f;
        }
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
    if (threadIdx.x == 0)
        chunks[c] = sensing_chunk{ excess, moment, power, pk, pks };
}

// Where the running sum of the excess over [a, b], starting at `cum`, first reaches
// `target`: each thread sums a segment of 32 bins, a scan of the segments (thread 0)
// finds the one that crosses, and its thread walks it. Returns false (edge untouched)
// where rounding lets no bin cross.
__device__ bool walk_to(const sensing_consts& k,
                        const spectrum_reader& bin,
                        const double* floors,
                        std::int64_t a,
                        std::int64_t b,
                        double cum,
                        double target,
                        double* seg,
                        long long* found,
                        double* value)
{
    constexpr int per = sensing_chunk_bins / band_threads;
    const auto excess_at = [&](std::int64_t s) {
        const float P = sensing_power(k, bin, s);
        const double f = sensing_floor_at(k, floors, s);
        return double(P) > f ? double(P) - f : 0.0;
    };
    const std::int64_t s0 = a + std::int64_t(threadIdx.x) * per;
    double mine = 0;
    for (int u0 = 0; u0 < per; u0 += unroll) {
        double e[unroll];
#pragma unroll
        for (int u = 0; u < unroll; ++u)
            e[u] = s0 + u0 + u <= b ? excess_at(s0 + u0 + u) : 0.0;
#pragma unroll
        for (int u = 0; u < unroll; ++u)
            mine += e[u];
    }
    seg[threadIdx.x] = mine;
    if (threadIdx.x == 0)
        *found = -1;
    __syncthreads();
    if (threadIdx.x == 0) {
        double run = cum;
        for (int t = 0; t < int(blockDim.x); ++t) {
            const double v = seg[t];
            seg[t] = run;
            run += v;
        }
    }
    __syncthreads();
    double c = seg[threadIdx.x];
    if (c < target && c + mine >= target) {
        for (int u0 = 0; u0 < per; u0 += unroll) {
            double e[unroll];
#pragma unroll
            for (int u = 0; u < unroll; ++u)
                e[u] = s0 + u0 + u <= b ? excess_at(s0 + u0 + u) : 0.0;
#pragma unroll
            for (int u = 0; u < unroll; ++u) {
                const double next = c + e[u];
                if (e[u] > 0 && c < target && next >= target && *found < 0) {
                    *found = s0 + u0 + u;
                    *value = double(s0 + u0 + u) - 0.5 + (target - c) / e[u];
                }
                c = next;
            }
        }
    }
    __syncthreads();
    const bool ok = *found >= 0;
    __syncthreads();
    return ok;
}

// One block a band: its chunks' sums added in order, the lobes' power, the peak, then
// the edges by the rule (obw99: the chunk where 0.5 % (99.5 %) of the excess is reached,
// walked; xdb: the core read again) and the windowed bins around a narrow core's peak.
__global__ void bands_kernel(sensing_consts k,
                             const float2* X,
                             const double* floors_in,
                             sensing_band* bands,
                             const int* offsets,
                             const sensing_chunk* chunks,
                             int rule_xdb,
                             double xdb_ratio)
{
    __shared__ double floors[sensing_max_subbands];
    __shared__ double red[band_threads];
    __shared__ double seg[band_threads];
    __shared__ long long edge[2];
    __shared__ long long found;
    __shared__ double value;
    load_floors(k, floors_in, floors);
    const spectrum_reader bin{ X };
    sensing_band& b = bands[blockIdx.x];
    const std::int64_t first = b.core_first, last = b.core_last;
    const int c0 = offsets[blockIdx.x], c1 = offsets[blockIdx.x + 1];
    // The lobes either side of the core (a few bins) add to the power only.
    double lobes = 0;
    for (std::int64_t s = b.first + threadIdx.x; s < first; s += blockDim.x)
        lobes += double(sensing_power(k, bin, s)) - sensing_floor_at(k, floors, s);
    for (std::int64_t s = last + 1 + threadIdx.x; s <= b.last; s += blockDim.x)
        lobes += double(sensing_power(k, bin, s)) - sensing_floor_at(k, floors, s);
    lobes = block_sum(lobes, red);
    double total = 0, moment = 0, power = lobes;
    float peak = -1;
    std::int64_t peak_bin = first;
    for (int c = c0; c < c1; ++c) {
        const sensing_chunk& ch = chunks[c];
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
    } else if (total > 0) {
        const double target[2] = { 0.005 * total, 0.995 * total };
        for (int side = 0; side < 2; ++side) {
            // The chunk whose running sum reaches the target (every thread alike).
            double cum = 0;
            int c = c0;
            for (; c < c1 - 1; ++c) {
                if (cum + chunks[c].excess >= target[side])
                    break;
                cum += chunks[c].excess;
            }
            const std::int64_t a = first + std::int64_t(c - c0) * sensing_chunk_bins;
            const std::int64_t z = min(last, a + std::int64_t(sensing_chunk_bins) - 1);
            if (walk_to(k, bin, floors, a, z, cum, target[side], seg, &found, &value)) {
                if (side == 0)
                    lower = value;
                else
                    upper = value;
            }
        }
    }
    // The tone fit's bins around the peak of a narrow core (the host fits the
    // strongest: one thread a fit here took longer than the host's budget of them).
    if (last - first + 1 <= k.narrow && int(threadIdx.x) <= 2 * k.fit_half)
        sensing_windowed_bin(k,
                             bin,
                             peak_bin + int(threadIdx.x) - k.fit_half,
                             b.lobe[2 * threadIdx.x],
                             b.lobe[2 * threadIdx.x + 1]);
    if (threadIdx.x == 0) {
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

// One block a gap between consecutive runs, [gap_first, gap_last]: the mean of
// P / floor over its bins. Most gaps are noise, far under the level that joins (fill):
// their power over the least floor bounds the mean from above and is read from the
// threshold pass's block sums, with only the ends bin by bin; such a gap gets the bound
// (as on the CPU), and only the others are read bin by bin.
__global__ void gaps_kernel(sensing_consts k,
                            const float2* X,
                            const double* floors_in,
                            const float* block_power,
                            const std::int64_t* gap_first,
                            const std::int64_t* gap_last,
                            const double* fill,
                            double* level)
{
    __shared__ double floors[sensing_max_subbands];
    __shared__ double red[band_threads];
    for (int i = threadIdx.x; i < k.subbands; i += blockDim.x)
        floors[i] = floors_in[i];
    __syncthreads();
    const spectrum_reader bin{ X };
    const std::int64_t a = gap_first[blockIdx.x], b = gap_last[blockIdx.x] + 1;
    constexpr std::int64_t B = sensing_block_bins;
    const std::int64_t a_b = min(b, (a + B - 1) / B * B), b_b = max(a_b, b / B * B);
    double sum = 0;
    for (std::int64_t s = a + threadIdx.x; s < a_b; s += blockDim.x)
        sum += double(sensing_power(k, bin, s));
    for (std::int64_t j = a_b / B + threadIdx.x; j < b_b / B; j += blockDim.x)
        sum += double(block_power[j]);
    for (std::int64_t s = b_b + threadIdx.x; s < b; s += blockDim.x)
        sum += double(sensing_power(k, bin, s));
    sum = block_sum(sum, red);
    const double len = double(b - a);
    const double bound = sum / least_floor(k, floors, a, b) / len;
    if (bound * (1 + 1e-4) < fill[blockIdx.x]) {
        if (threadIdx.x == 0)
            level[blockIdx.x] = bound;
        return;
    }
    double ratio = 0;
    for (std::int64_t s = a + threadIdx.x; s < b; s += blockDim.x)
        ratio += double(sensing_power(k, bin, s)) / sensing_floor_at(k, floors, s);
    ratio = block_sum(ratio, red);
    if (threadIdx.x == 0)
        level[blockIdx.x] = ratio / len;
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
    gaps_kernel<<<count, band_threads, 0, static_cast<cudaStream_t>(stream)>>>(
        k,
        reinterpret_cast<const float2*>(X),
        floors,
        block_power,
        gap_first,
        gap_last,
        fill,
        level);
    GPUFFT_CUDA_CHECK_LAUNCH();
}

void launch_sensing_floor(const sensing_consts& k,
                          const float* X,
                          double* floors,
                          sensing_device_header* header,
                          void* stream)
{
    const auto st = static_cast<cudaStream_t>(stream);
    floor_kernel<<<k.subbands, floor_threads, 0, st>>>(
        k, reinterpret_cast<const float2*>(X), floors, header);
    GPUFFT_CUDA_CHECK_LAUNCH();
    open_kernel<<<1, 256, 0, st>>>(k, floors);
    GPUFFT_CUDA_CHECK_LAUNCH();
}

void launch_sensing_runs(const sensing_consts& k,
                         const float* X,
                         const double* floors,
                         std::int64_t* starts,
                         std::int64_t* ends,
                         std::int64_t cap,
                         float* block_power,
                         sensing_device_header* header,
                         void* stream)
{
    const std::int64_t tiles = (k.n + run_tile - 1) / run_tile;
    // Enough blocks to fill the GPU several times over; each loops over its tiles.
    const int blocks = int(tiles < 8192 ? tiles : 8192);
    const auto st = static_cast<cudaStream_t>(stream);
    const auto* x = reinterpret_cast<const float2*>(X);
    switch (k.taps) {
    case 1:
        runs_kernel<1><<<blocks, run_threads, 0, st>>>(
            k, x, floors, starts, ends, cap, block_power, header);
        break;
    case 3:
        runs_kernel<3><<<blocks, run_threads, 0, st>>>(
            k, x, floors, starts, ends, cap, block_power, header);
        break;
    case 5:
        runs_kernel<5><<<blocks, run_threads, 0, st>>>(
            k, x, floors, starts, ends, cap, block_power, header);
        break;
    case 7:
        runs_kernel<7><<<blocks, run_threads, 0, st>>>(
            k, x, floors, starts, ends, cap, block_power, header);
        break;
    default:
        throw std::invalid_argument("sensing: a window of " + std::to_string(k.taps) +
                                    " spectral taps (1, 3, 5 or 7 are built)");
    }
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
                          void* stream)
{
    if (count == 0)
        return;
    const auto st = static_cast<cudaStream_t>(stream);
    const auto* x = reinterpret_cast<const float2*>(X);
    band_chunks_kernel<<<chunks, band_threads, 0, st>>>(
        k, x, floors, bands, offsets, count, chunk_sums);
    GPUFFT_CUDA_CHECK_LAUNCH();
    bands_kernel<<<count, band_threads, 0, st>>>(
        k, x, floors, bands, offsets, chunk_sums, rule_xdb, xdb_ratio);
    GPUFFT_CUDA_CHECK_LAUNCH();
}

} // namespace detail
} // namespace gpufft
} // namespace gr
