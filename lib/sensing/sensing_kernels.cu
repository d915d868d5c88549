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
constexpr int band_threads = 256;

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

// A thread a bin: its power against its threshold; the neighbours' answers come from
// the next lanes, the warp's edges compute their outer neighbour themselves.
__global__ void runs_kernel(sensing_consts k,
                            const float2* X,
                            const double* floors_in,
                            std::int64_t* starts,
                            std::int64_t* ends,
                            std::int64_t cap,
                            sensing_device_header* header)
{
    __shared__ double floors[sensing_max_subbands];
    for (int i = threadIdx.x; i < k.subbands; i += blockDim.x)
        floors[i] = floors_in[i];
    __syncthreads();
    const spectrum_reader bin{ X };
    const int lane = threadIdx.x & 31;
    const std::int64_t step = std::int64_t(gridDim.x) * blockDim.x;
    for (std::int64_t base = std::int64_t(blockIdx.x) * blockDim.x; base < k.n;
         base += step) {
        const std::int64_t s = base + threadIdx.x;
        const bool a = above_at(k, bin, floors, s);
        bool prev = __shfl_up_sync(0xffffffffu, a, 1);
        bool next = __shfl_down_sync(0xffffffffu, a, 1);
        if (lane == 0)
            prev = a && above_at(k, bin, floors, s - 1);
        if (lane == 31)
            next = a && above_at(k, bin, floors, s + 1);
        append(a && !prev, s, starts, &header->starts, cap);
        append(a && !next, s, ends, &header->ends, cap);
    }
}

// One block a band: the sums, then the edges (sensing_band_sums on the host).
__global__ void bands_kernel(sensing_consts k,
                             const float2* X,
                             const double* floors_in,
                             sensing_band* bands,
                             int rule_xdb,
                             double xdb_ratio)
{
    __shared__ double floors[sensing_max_subbands];
    __shared__ double red[band_threads];
    __shared__ float peak_p[band_threads];
    __shared__ long long peak_s[band_threads];
    __shared__ double scan[band_threads];
    __shared__ long long edge[2];
    __shared__ double edge_v[2];
    for (int i = threadIdx.x; i < k.subbands; i += blockDim.x)
        floors[i] = floors_in[i];
    __syncthreads();
    const spectrum_reader bin{ X };
    sensing_band& b = bands[blockIdx.x];
    const std::int64_t first = b.core_first, last = b.core_last;
    double excess = 0, moment = 0, power = 0;
    float pk = -1;
    long long pks = first;
    for (std::int64_t s = b.first + threadIdx.x; s <= b.last; s += blockDim.x) {
        const float P = sensing_power(k, bin, s);
        const double f = sensing_floor_at(k, floors, s);
        power += double(P) - f;
        if (s < first || s > last)
            continue;
        const double e = double(P) > f ? double(P) - f : 0.0;
        excess += e;
        moment += double(s) * e;
        if (P > pk) {
            pk = P;
            pks = s;
        }
    }
    excess = block_sum(excess, red);
    moment = block_sum(moment, red);
    power = block_sum(power, red);
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
    if (threadIdx.x == 0) {
        edge[0] = peak_bin;
        edge[1] = peak_bin;
    }
    __syncthreads();
    double lower = double(first) - 0.5, upper = double(last) + 0.5;
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
    } else if (excess > 0) {
        // Chunks of blockDim bins in order, each scanned in shared memory; the first
        // bin whose running sum reaches 0.5 % (99.5 %) holds the lower (upper) edge.
        const double lo_t = 0.005 * excess, hi_t = 0.995 * excess;
        if (threadIdx.x == 0) {
            edge[0] = -1;
            edge[1] = -1;
        }
        __syncthreads();
        double carry = 0;
        for (std::int64_t base = first; base <= last; base += blockDim.x) {
            const std::int64_t s = base + threadIdx.x;
            double e = 0;
            if (s <= last) {
                const float P = sensing_power(k, bin, s);
                const double f = sensing_floor_at(k, floors, s);
                e = double(P) > f ? double(P) - f : 0.0;
            }
            scan[threadIdx.x] = e;
            __syncthreads();
            for (int off = 1; off < blockDim.x; off <<= 1) {
                const double add = threadIdx.x >= off ? scan[threadIdx.x - off] : 0.0;
                __syncthreads();
                scan[threadIdx.x] += add;
                __syncthreads();
            }
            const double next = carry + scan[threadIdx.x];
            const double before = next - e;
            // The first such bin: the running sum is monotone, so only one thread sees
            // its crossing (before < t <= next).
            if (e > 0 && before < lo_t && next >= lo_t && edge[0] < 0) {
                edge[0] = s;
                edge_v[0] = double(s) - 0.5 + (lo_t - before) / e;
            }
            if (e > 0 && before < hi_t && next >= hi_t && edge[1] < 0) {
                edge[1] = s;
                edge_v[1] = double(s) - 0.5 + (hi_t - before) / e;
            }
            carry += scan[blockDim.x - 1];
            __syncthreads();
            if (edge[1] >= 0)
                break;
        }
        if (edge[0] >= 0)
            lower = edge_v[0];
        if (edge[1] >= 0)
            upper = edge_v[1];
    }
    if (threadIdx.x == 0) {
        b.excess = excess;
        b.moment = moment;
        b.power = power;
        b.peak = peak;
        b.peak_bin = peak_bin;
        b.floor_at_peak = sensing_floor_at(k, floors, peak_bin);
        b.lower = lower;
        b.upper = upper;
    }
}

__global__ void windowed_kernel(sensing_consts k,
                                const float2* X,
                                const std::int64_t* centres,
                                int count,
                                int h,
                                double* out)
{
    const int w = 2 * h + 1;
    const int id = blockIdx.x * blockDim.x + threadIdx.x;
    if (id >= count * w)
        return;
    const int i = id / w, j = id % w - h;
    std::int64_t s = centres[i] + j;
    s = s < 0 ? s + k.n : (s >= k.n ? s - k.n : s);
    const std::int64_t q = sensing_natural(k, s);
    const int t = k.taps / 2;
    double re = 0, im = 0;
    for (int m = -t; m <= t; ++m) {
        std::int64_t p = q - m;
        p = p < 0 ? p + k.n : (p >= k.n ? p - k.n : p);
        const float2 v = X[p];
        re += k.c[m + t] * double(v.x);
        im += k.c[m + t] * double(v.y);
    }
    out[2 * std::int64_t(id)] = re;
    out[2 * std::int64_t(id) + 1] = im;
}

} // namespace

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

void launch_sensing_windowed(const sensing_consts& k,
                             const float* X,
                             const std::int64_t* centres,
                             int count,
                             int h,
                             double* out,
                             void* stream)
{
    const int total = count * (2 * h + 1);
    if (total == 0)
        return;
    windowed_kernel<<<(total + 127) / 128, 128, 0, static_cast<cudaStream_t>(stream)>>>(
        k, reinterpret_cast<const float2*>(X), centres, count, h, out);
    GPUFFT_CUDA_CHECK_LAUNCH();
}

} // namespace detail
} // namespace gpufft
} // namespace gr
