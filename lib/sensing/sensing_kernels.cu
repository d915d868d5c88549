/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../cuda/cuda_check.h"
#include "sensing_kernels.h"
#include <cuda_runtime.h>

namespace gr {
namespace gpufft {
namespace detail {

namespace {

constexpr int floor_threads = 256;
constexpr int run_threads = 256;
constexpr int band_threads = 512;

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

// One block a sub-band: its samples' log powers in shared memory, then the censoring
// passes of sensing_floor_step.
__global__ void floor_kernel(sensing_consts k,
                             const float2* X,
                             double* floors,
                             sensing_device_header* header)
{
    __shared__ float logp[sensing_floor_samples];
    __shared__ double red[floor_threads];
    const int i = blockIdx.x;
    std::int64_t first, count;
    sensing_subband(k, i, first, count);
    const int m = int(sensing_sample_count(k, i));
    const spectrum_reader bin{ X };
    bool bad = false;
    for (int j = threadIdx.x; j < m; j += blockDim.x) {
        const float P = sensing_power(k, bin, first + std::int64_t(j) * k.stride);
        bad = bad || !isfinite(P);
        logp[j] = sensing_log_power(k, P);
    }
    if (bad)
        header->bad = 1;
    __syncthreads();
    double f = 0;
    for (int pass = 0; pass <= sensing_floor_passes; ++pass) {
        const float cut = f > 0 ? float(log(k.cut * f)) : 3e38f;
        double sum = 0, cnt = 0;
        for (int j = threadIdx.x; j < m; j += blockDim.x)
            if (logp[j] < cut) {
                sum += double(logp[j]);
                cnt += 1.0;
            }
        sum = block_sum(sum, red);
        cnt = block_sum(cnt, red);
        f = sensing_floor_step(k, sum, cnt, f);
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

__device__ bool above_at(const sensing_consts& k,
                         const spectrum_reader& bin,
                         const double* floors,
                         std::int64_t s)
{
    if (s < 0 || s >= k.n)
        return false;
    return sensing_above(k, floors, s, sensing_power(k, bin, s));
}

// Warp-aggregated append of s to out[] where `flag`.
__device__ void
append(bool flag, std::int64_t s, std::int64_t* out, int* counter, std::int64_t cap)
{
    const unsigned mask = __ballot_sync(0xffffffffu, flag);
    if (mask == 0)
        return;
    const int lane = threadIdx.x & 31;
    const int leader = __ffs(mask) - 1;
    int base = 0;
    if (lane == leader)
        base = atomicAdd(counter, __popc(mask));
    base = __shfl_sync(0xffffffffu, base, leader);
    if (flag) {
        const int at = base + __popc(mask & ((1u << lane) - 1u));
        if (at < cap)
            out[at] = s;
    }
}

// A block a tile of run_threads bins: the tile's spectrum and a halo of the window's
// taps are read once into shared memory, each thread forms its bin's power and tests
// it, and the neighbours' answers come from shared memory too (the tile's outer
// neighbours computed by its edge threads).
__global__ void runs_kernel(sensing_consts k,
                            const float2* X,
                            const double* floors_in,
                            std::int64_t* starts,
                            std::int64_t* ends,
                            std::int64_t cap,
                            sensing_device_header* header)
{
    constexpr int halo = sensing_max_taps / 2 + 1; // taps, plus one bin each side
    __shared__ double floors[sensing_max_subbands];
    __shared__ float2 tile[run_threads + 2 * halo];
    __shared__ unsigned char above[run_threads + 2];
    for (int i = threadIdx.x; i < k.subbands; i += blockDim.x)
        floors[i] = floors_in[i];
    const int h = k.taps / 2;
    float c[sensing_max_taps];
    for (int m = 0; m < k.taps; ++m)
        c[m] = float(k.c[m]);
    const std::int64_t step = std::int64_t(gridDim.x) * run_threads;
    for (std::int64_t base = std::int64_t(blockIdx.x) * run_threads; base < k.n;
         base += step) {
        __syncthreads();
        // Natural bins q(base) - halo .. q(base + run_threads - 1) + halo, wrapped.
        const std::int64_t q0 = sensing_natural(k, base);
        for (int i = threadIdx.x; i < run_threads + 2 * halo; i += blockDim.x) {
            std::int64_t q = q0 - halo + i;
            q = q < 0 ? q + k.n : q; // no 64-bit modulo: a tile spans at most a few n
            while (q >= k.n)
                q -= k.n;
            tile[i] = __ldg(X + q);
        }
        __syncthreads();
        // Bins base - 1 .. base + run_threads: thread t takes bin base + t, threads 0
        // and 1 also the outer neighbours.
        for (int i = threadIdx.x; i < run_threads + 2; i += blockDim.x) {
            const std::int64_t s = base + i - 1;
            bool a = false;
            if (s >= 0 && s < k.n) {
                float re = 0, im = 0;
                for (int m = -h; m <= h; ++m) {
                    const float2 v = tile[i - 1 + halo - m];
                    re += c[m + h] * v.x;
                    im += c[m + h] * v.y;
                }
                a = sensing_above(k, floors, s, re * re + im * im);
            }
            above[i] = a ? 1 : 0;
        }
        __syncthreads();
        const int t = threadIdx.x;
        const std::int64_t s = base + t;
        const bool a = s < k.n && above[t + 1];
        append(a && !above[t], s, starts, &header->starts, cap);
        append(a && !above[t + 2], s, ends, &header->ends, cap);
    }
}

// One block a band, each thread a contiguous segment of it: the sums (power over the
// band, the rest over its core), the peak, then the edges from one scan of the
// segments' sums and a second look at the one segment that holds each edge.
__global__ void bands_kernel(sensing_consts k,
                             const float2* X,
                             const double* floors_in,
                             sensing_band* bands,
                             int rule_xdb,
                             double xdb_ratio)
{
    __shared__ double floors[sensing_max_subbands];
    __shared__ double red[band_threads];
    __shared__ double seg[band_threads];
    __shared__ float peak_p[band_threads];
    __shared__ long long peak_s[band_threads];
    __shared__ long long edge[2];
    __shared__ double edge_v[2];
    for (int i = threadIdx.x; i < k.subbands; i += blockDim.x)
        floors[i] = floors_in[i];
    __syncthreads();
    const spectrum_reader bin{ X };
    sensing_band& b = bands[blockIdx.x];
    const std::int64_t first = b.core_first, last = b.core_last;
    const auto excess_at = [&](std::int64_t s) {
        const float P = sensing_power(k, bin, s);
        const double f = sensing_floor_at(k, floors, s);
        return double(P) > f ? double(P) - f : 0.0;
    };
    // Segments of the whole band [b.first, b.last] for the power, of the core for the
    // rest.
    double power = 0;
    for (std::int64_t s = b.first + threadIdx.x; s <= b.last; s += blockDim.x)
        power += double(sensing_power(k, bin, s)) - sensing_floor_at(k, floors, s);
    const std::int64_t len = last - first + 1;
    const std::int64_t per = (len + blockDim.x - 1) / blockDim.x;
    const std::int64_t s0 = first + std::int64_t(threadIdx.x) * per;
    const std::int64_t s1 = s0 + per - 1 < last ? s0 + per - 1 : last;
    double excess = 0, moment = 0;
    float pk = -1;
    long long pks = first;
    for (std::int64_t s = s0; s <= s1; ++s) {
        const float P = sensing_power(k, bin, s);
        const double f = sensing_floor_at(k, floors, s);
        const double e = double(P) > f ? double(P) - f : 0.0;
        excess += e;
        moment += double(s) * e;
        if (P > pk) {
            pk = P;
            pks = s;
        }
    }
    seg[threadIdx.x] = excess;
    power = block_sum(power, red);
    moment = block_sum(moment, red);
    const double total = block_sum(excess, red);
    peak_p[threadIdx.x] = pk;
    peak_s[threadIdx.x] = pks;
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
    const float peak = peak_p[0];
    const std::int64_t peak_bin = peak_s[0];
    double lower = double(first) - 0.5, upper = double(last) + 0.5;
    if (threadIdx.x == 0) {
        edge[0] = peak_bin;
        edge[1] = peak_bin;
    }
    __syncthreads();
    if (rule_xdb) {
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
        // Exclusive scan of the segments' sums (thread 0, blockDim values), then the
        // thread whose segment crosses 0.5 % (99.5 %) walks it.
        if (threadIdx.x == 0) {
            double run = 0;
            for (int t = 0; t < int(blockDim.x); ++t) {
                const double v = seg[t];
                seg[t] = run;
                run += v;
            }
        }
        __syncthreads();
        const double lo_t = 0.005 * total, hi_t = 0.995 * total;
        const double before = seg[threadIdx.x];
        if (threadIdx.x == 0) {
            edge[0] = -1;
            edge[1] = -1;
        }
        __syncthreads();
        if (s0 <= s1 && before < hi_t && before + excess >= lo_t) {
            double cum = before;
            for (std::int64_t s = s0; s <= s1; ++s) {
                const double e = excess_at(s);
                const double next = cum + e;
                if (e > 0 && cum < lo_t && next >= lo_t) {
                    edge[0] = s;
                    edge_v[0] = double(s) - 0.5 + (lo_t - cum) / e;
                }
                if (e > 0 && cum < hi_t && next >= hi_t) {
                    edge[1] = s;
                    edge_v[1] = double(s) - 0.5 + (hi_t - cum) / e;
                }
                cum = next;
            }
        }
        __syncthreads();
        if (edge[0] >= 0)
            lower = edge_v[0];
        if (edge[1] >= 0)
            upper = edge_v[1];
    }
    // The tone fit's bins around the peak of a narrow core (the host fits the
    // strongest: one thread a fit here took longer than the host's budget of them).
    if (len <= k.narrow && int(threadIdx.x) <= 2 * k.fit_half)
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

// One block a gap between consecutive runs: the mean of P / floor over its bins.
__global__ void gaps_kernel(sensing_consts k,
                            const float2* X,
                            const double* floors_in,
                            const std::int64_t* gap_first,
                            const std::int64_t* gap_last,
                            double* level)
{
    __shared__ double floors[sensing_max_subbands];
    __shared__ double red[band_threads];
    for (int i = threadIdx.x; i < k.subbands; i += blockDim.x)
        floors[i] = floors_in[i];
    __syncthreads();
    const spectrum_reader bin{ X };
    const std::int64_t a = gap_first[blockIdx.x], b = gap_last[blockIdx.x];
    double sum = 0;
    for (std::int64_t s = a + threadIdx.x; s <= b; s += blockDim.x)
        sum += double(sensing_power(k, bin, s)) / sensing_floor_at(k, floors, s);
    sum = block_sum(sum, red);
    if (threadIdx.x == 0)
        level[blockIdx.x] = b >= a ? sum / double(b - a + 1) : 0.0;
}

} // namespace

void launch_sensing_gaps(const sensing_consts& k,
                         const float* X,
                         const double* floors,
                         const std::int64_t* gap_first,
                         const std::int64_t* gap_last,
                         int count,
                         double* level,
                         void* stream)
{
    if (count == 0)
        return;
    gaps_kernel<<<count, band_threads, 0, static_cast<cudaStream_t>(stream)>>>(
        k, reinterpret_cast<const float2*>(X), floors, gap_first, gap_last, level);
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
                         sensing_device_header* header,
                         void* stream)
{
    const std::int64_t blocks_needed = (k.n + run_threads - 1) / run_threads;
    const int blocks = int(blocks_needed < 65536 ? blocks_needed : 65536);
    runs_kernel<<<blocks, run_threads, 0, static_cast<cudaStream_t>(stream)>>>(
        k, reinterpret_cast<const float2*>(X), floors, starts, ends, cap, header);
    GPUFFT_CUDA_CHECK_LAUNCH();
}

void launch_sensing_bands(const sensing_consts& k,
                          const float* X,
                          const double* floors,
                          sensing_band* bands,
                          int count,
                          int rule_xdb,
                          double xdb_ratio,
                          void* stream)
{
    if (count == 0)
        return;
    bands_kernel<<<count, band_threads, 0, static_cast<cudaStream_t>(stream)>>>(
        k, reinterpret_cast<const float2*>(X), floors, bands, rule_xdb, xdb_ratio);
    GPUFFT_CUDA_CHECK_LAUNCH();
}

} // namespace detail
} // namespace gpufft
} // namespace gr
