/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Robust mode's dense path on the device (robust_kernels.h): after the FFT of the frame,
// the windowed spectrum's power of every bin, the noise from a sample of them, a tone per
// peak above the threshold, its fit to the unwindowed bins, and the joint fit of tones
// that share a lobe. Grid-stride over n.

#include "sparse/common/select_cuda.h"
#include "sparse/robust/robust_kernels.cuh"
#include "sparse/robust/robust_pairs.h"

namespace gr {
namespace gpufft {
namespace detail {

using namespace robust_kernels;

namespace {

__global__ void copy_kernel(long long n, const float2* const* x_ptr, float2* frame)
{
    const float2* x = *x_ptr;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        frame[i] = x[i];
}

//! Reads bin q of the unwindowed spectrum, for robust_windowed_bin().
struct spectrum_bins {
    const float2* X;
    __device__ void operator()(long long q, double& re, double& im) const
    {
        const float2 v = X[q];
        re = v.x;
        im = v.y;
    }
};

//! Bin i of the windowed spectrum, rounded to float as the CPU stores it.
__device__ float2 windowed(const robust_dense_state& s, long long i)
{
    double re, im;
    robust_windowed_bin(s.c, spectrum_bins{ static_cast<const float2*>(s.X) }, i, re, im);
    return make_float2(float(re), float(im));
}

__global__ void dense_power_kernel(const __grid_constant__ robust_dense_state s,
                                   long long stride)
{
    double peak = 0;
    int bad = 0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < s.c.n;
         i += (long long)gridDim.x * blockDim.x) {
        const float2 v = windowed(s, i);
        static_cast<float2*>(s.Xw)[i] = v;
        const float m = v.x * v.x + v.y * v.y;
        if (!isfinite(m))
            bad = 1;
        else
            peak = fmax(peak, double(m));
        if (i % stride == 0 && i / stride < s.samples)
            s.power[i / stride] = isfinite(m) ? m : 0.f;
    }
    if (bad)
        s.header->bad = 1;
    for (int o = 16; o > 0; o >>= 1)
        peak = fmax(peak, __shfl_down_sync(0xffffffffu, peak, o));
    if ((threadIdx.x & 31) == 0)
        atomic_max_nonneg(&s.scalars[1], peak);
}

__global__ void dense_noise_kernel(const __grid_constant__ robust_dense_state s)
{
    const double P = double(*s.median) / 0.69314718055994530942;
    const double floor = 1e-12 * s.scalars[1];
    s.scalars[0] = P > floor ? P : floor;
    s.header->noise = s.scalars[0];
}

//! Fits and appends the tones of the lanes in `todo` (a ballot of the whole warp), one
//! lane's lobe after the other: broadcast, fitted by the warp, appended by lane 0.
__device__ void fit_peaks(const robust_dense_state& s,
                          unsigned todo,
                          const double* yr,
                          const double* yi,
                          const unsigned char* present,
                          long long bin)
{
    constexpr int L = 2 * robust_window_terms + 1;
    while (todo) {
        const int src = __ffs(todo) - 1;
        todo &= todo - 1;
        double lr[L], li[L];
        unsigned char lp[L];
#pragma unroll
        for (int j = 0; j < L; ++j) {
            lr[j] = __shfl_sync(0xffffffffu, yr[j], src);
            li[j] = __shfl_sync(0xffffffffu, yi[j], src);
            lp[j] = (unsigned char)__shfl_sync(0xffffffffu, int(present[j]), src);
        }
        const long long at = __shfl_sync(0xffffffffu, bin, src);
        double delta, ar, ai;
        warp_fit_tone(s.c, lr, li, lp, delta, ar, ai);
        if ((threadIdx.x & 31) != 0)
            continue;
        const int slot =
            append_tone(s.header, s.tones, s.tone_cap, s.c, at, delta, ar, ai);
        if (slot >= s.tone_cap || !robust_pair_enabled(s.c))
            continue;
        // The peak bin, for the joint fits' clusters (dense_pairs_kernel).
        s.seeds[slot].bin = at;
        const unsigned long long key =
            table_insert(s.peak_keys, s.peak_mask, (unsigned long long)at);
        if (key != ~0ull)
            s.peak_slots[key] = slot;
    }
}

__global__ void dense_peak_kernel(const __grid_constant__ robust_dense_state s)
{
    const float2* Xw = static_cast<const float2*>(s.Xw);
    const double threshold = s.eta * s.scalars[0];
    const int h = s.c.lobe;
    // Whole warps walk the bins, so a warp can fit its peaks together (fit_peaks).
    const int lane = threadIdx.x & 31;
    const long long first = blockIdx.x * (long long)blockDim.x + threadIdx.x - lane;
    for (long long i0 = first; i0 < s.c.n; i0 += (long long)gridDim.x * blockDim.x) {
        const long long i = i0 + lane;
        double yr[2 * robust_window_terms + 1], yi[2 * robust_window_terms + 1];
        unsigned char present[2 * robust_window_terms + 1];
        bool peak = false;
        if (i < s.c.n) {
            const float2 v = Xw[i];
            const double p = double(v.x) * v.x + double(v.y) * v.y;
            peak = p > threshold;
            for (int j = -h; j <= h && peak; ++j) {
                long long b = (i + j) % s.c.n;
                if (b < 0)
                    b += s.c.n;
                const float2 u = Xw[b];
                const double q = double(u.x) * u.x + double(u.y) * u.y;
                present[j + h] = (j == 0 || q > threshold) ? 1 : 0;
                if (j != 0 && present[j + h] && (q > p || (q == p && j < 0)))
                    peak = false;
                yr[j + h] = u.x;
                yi[j + h] = u.y;
            }
        }
        fit_peaks(s, __ballot_sync(0xffffffffu, peak), yr, yi, present, i);
    }
}

// A warp per tone: refine_tones_plain(), the CPU's, with the warp's fit. Lanes gather
// the unwindowed bins around the tone, the warp fits them.
__global__ void dense_refine_kernel(const __grid_constant__ robust_dense_state s)
{
    constexpr int L = 2 * robust_window_terms + 1;
    const int lane = threadIdx.x & 31, h = s.c.lobe;
    const int count = s.header->tones < s.tone_cap ? s.header->tones : s.tone_cap;
    const double plain_noise = s.scalars[0] * s.plain_scale;
    if (blockIdx.x == 0 && threadIdx.x == 0)
        *s.seed_count = count; // the joint fits append tones: they read this many
    for (long long w = warp_index(); w < count; w += warp_count()) {
        std::int64_t b0;
        double lo, hi;
        robust_plain_range(s.c, s.tones[w].frequency, b0, lo, hi);
        double yr = 0, yi = 0;
        if (lane <= 2 * h) {
            long long q = (b0 + lane - h) % s.c.n;
            q = q < 0 ? q + s.c.n : q;
            const float2 v = static_cast<const float2*>(s.X)[q];
            yr = v.x;
            yi = v.y;
        }
        double lr[L], li[L], total = 0;
        unsigned char lp[L];
#pragma unroll
        for (int j = 0; j < L; ++j) {
            lr[j] = __shfl_sync(0xffffffffu, yr, j);
            li[j] = __shfl_sync(0xffffffffu, yi, j);
            lp[j] = j <= 2 * h ? 1 : 0;
            if (lp[j]) // in the CPU's order
                total += lr[j] * lr[j] + li[j] * li[j];
        }
        double delta, ar, ai;
        const double explained =
            warp_fit_tone(s.plain, lr, li, lp, delta, ar, ai, lo, hi);
        // Every lane has the same fit: the same decision.
        const bool ok = robust_plain_fit_ok(delta, lo, hi, total, explained, plain_noise);
        const double f = robust_wrap_frequency(s.c, double(b0) + delta);
        bool quiet = false;
        if (ok && robust_pair_enabled(s.c)) { // the residual over robust_pair_hint bins
            double e = 0;
            if (lane <= 2 * robust_pair_hint) {
                long long q = (b0 + lane - robust_pair_hint) % s.c.n;
                q = q < 0 ? q + s.c.n : q;
                double mr, mi;
                robust_pair_model(s.c, q, f, ar, ai, mr, mi);
                const float2 v = static_cast<const float2*>(s.X)[q];
                const double er = v.x - mr, ei = v.y - mi;
                e = er * er + ei * ei;
            }
            quiet = robust_pair_quiet(warp_lanes{ lane }.sum(e), plain_noise);
        }
        if (lane != 0)
            continue;
        if (ok) {
            s.tones[w].frequency = f;
            s.tones[w].re = ar;
            s.tones[w].im = ai;
        }
        if (!robust_pair_enabled(s.c))
            continue;
        robust_pair_seed& seed = s.seeds[w];
        seed.frequency = s.tones[w].frequency;
        seed.re = s.tones[w].re;
        seed.im = s.tones[w].im;
        seed.plain_ok = quiet ? 1 : 0;
    }
}

constexpr int pair_threads = 128;

/*!
 * A warp per tone: resolve_close_tones(), the CPU's, with the warp's lanes. A tone that
 * is its cluster's lowest peak gathers the cluster (lanes look up a bin each), reads
 * the window's unwindowed bins (a lane per bin), takes the tones outside the cluster
 * out of them in the CPU's order, and the warp runs robust_pair_fit(); lane 0 writes
 * the cluster's tones. Every warp reads the seeds, never the tones others write.
 */
__global__ void __launch_bounds__(pair_threads)
    dense_pairs_kernel(const __grid_constant__ robust_dense_state s)
{
    __shared__ robust_pair_work work[pair_threads / 32];
    robust_pair_work& w = work[threadIdx.x / 32];
    const int lane = threadIdx.x & 31;
    const warp_lanes lanes{ lane };
    const unsigned all = 0xffffffffu;
    const long long n = s.c.n;
    const int count = *s.seed_count;
    const double noise = s.scalars[0] * s.plain_scale;
    if (!robust_pair_enabled(s.c) || !(noise > 0))
        return;
    const double min_power = robust_pair_min_power(s.c, s.eta, noise);
    const auto find = [&](long long b) -> long long {
        b %= n;
        b = b < 0 ? b + n : b;
        const long long slot =
            table_find(s.peak_keys, s.peak_mask, (unsigned long long)b);
        return slot < 0 ? -1 : (long long)s.peak_slots[slot];
    };
    for (long long t = warp_index(); t < count; t += warp_count()) {
        const long long b = s.seeds[t].bin;
        // robust_pair_members(): no peak up to robust_pair_gap below, then upwards.
        if (__any_sync(all, lane < robust_pair_gap && find(b - 1 - lane) >= 0))
            continue;
        long long members[robust_pair_max_tones];
        std::int64_t offset[robust_pair_max_tones];
        members[0] = t;
        offset[0] = 0;
        int m = 1;
        bool too_many = false;
        for (;;) {
            const long long at =
                lane < robust_pair_gap ? find(b + offset[m - 1] + 1 + lane) : -1;
            const unsigned hit = __ballot_sync(all, at >= 0);
            if (!hit)
                break;
            if (m == robust_pair_max_tones) {
                too_many = true;
                break;
            }
            const int first = __ffs(hit) - 1;
            members[m] = __shfl_sync(all, at, first);
            offset[m] = offset[m - 1] + 1 + first;
            ++m;
        }
        if (too_many || (m == 1 && s.seeds[t].plain_ok))
            continue;
        const std::int64_t span = offset[m - 1];
        const int W = robust_pair_window(span);
        const long long b0 = b - robust_pair_margin - 1;
        for (int j = lane; j < W; j += 32) {
            long long q = (b0 + j) % n;
            q = q < 0 ? q + n : q;
            double pr, pi;
            robust_pair_phase(n, double(j), pr, pi);
            const float2 v = static_cast<const float2*>(s.X)[q];
            const double xr = v.x, xi = v.y;
            w.yr[j] = xr * pr - xi * pi;
            w.yi[j] = xr * pi + xi * pr;
            w.rr[j] = w.ri[j] = 0; // the leakage taken out, until the fit
        }
        // The tones outside the cluster within robust_tone_reach, in the CPU's order.
        const long long R = span + 2 * robust_tone_reach + 1;
        for (long long o0 = 0; o0 < R; o0 += 32) {
            long long u = -1;
            if (o0 + lane < R) {
                u = find(b + o0 + lane - robust_tone_reach);
                for (int i = 0; i < m; ++i)
                    u = members[i] == u ? -1 : u;
            }
            unsigned mask = __ballot_sync(all, u >= 0);
            while (mask) {
                const int src = __ffs(mask) - 1;
                mask &= mask - 1;
                const robust_pair_seed& o = s.seeds[__shfl_sync(all, u, src)];
                robust_pair_subtract(
                    s.c, w, W, b0, o.frequency, o.re, o.im, w.rr, w.ri, lane, 32);
            }
        }
        double most = 0;
        for (int j = lane; j < W; j += 32)
            most = fmax(most, w.rr[j] * w.rr[j] + w.ri[j] * w.ri[j]);
        for (int o = 16; o > 0; o >>= 1)
            most = fmax(most, __shfl_xor_sync(all, most, o));
        if (!(most <= robust_pair_guard * noise))
            continue;
        double d[robust_pair_max_tones], br[robust_pair_max_basis],
            bi[robust_pair_max_basis];
        for (int i = 0; i < m; ++i)
            d[i] = robust_pair_offset(s.c, s.seeds[members[i]].frequency, b0);
        const int p =
            robust_pair_fit(s.c, w, W, m, d, br, bi, noise, s.eta, min_power, lanes);
        if (p == 0 || lane != 0)
            continue;
        for (int i = 0; i < p; ++i) {
            double f, ar, ai;
            robust_pair_tone(s.c, b0, d[i], br[i], bi[i], f, ar, ai);
            const robust_device_tone tone{ f, ar, ai, 0.0, 0, robust_tone_joint };
            if (i < m) {
                s.tones[members[i]] = tone;
            } else {
                const int at = atomicAdd(&s.header->tones, 1);
                if (at < s.tone_cap)
                    s.tones[at] = tone;
            }
        }
        for (int i = p; i < m; ++i)
            s.tones[members[i]].flags = robust_tone_dropped;
    }
}

} // namespace

void launch_copy_frame(std::int64_t n,
                       const void* const* x_ptr,
                       void* frame,
                       void* stream)
{
    const unsigned grid = blocks_for(n, 256) < 2048 ? blocks_for(n, 256) : 2048;
    copy_kernel<<<grid, 256, 0, static_cast<cudaStream_t>(stream)>>>(
        (long long)n,
        reinterpret_cast<const float2* const*>(x_ptr),
        static_cast<float2*>(frame));
    check_launch();
}

std::size_t robust_peak_table_size(int cap)
{
    std::size_t size = 64;
    while (size < 2 * std::size_t(cap > 0 ? cap : 1))
        size *= 2;
    return size;
}

void launch_dense_tones(const robust_dense_state& s, void* stream)
{
    auto st = static_cast<cudaStream_t>(stream);
    // The joint fits' table and kernel only where they run (resolve_close_tones).
    const bool pairs = robust_pair_enabled(s.c);
    if (pairs)
        GPUFFT_CUDA_CHECK(cudaMemsetAsync(
            s.peak_keys, 0xff, (s.peak_mask + 1) * sizeof(unsigned long long), st));
    // The whole result block, unused tone slots included: the host copies all of it.
    GPUFFT_CUDA_CHECK(cudaMemsetAsync(s.header,
                                      0,
                                      sizeof(robust_device_header) +
                                          s.tone_cap * sizeof(robust_device_tone),
                                      st));
    GPUFFT_CUDA_CHECK(cudaMemsetAsync(s.scalars, 0, 2 * sizeof(double), st));
    const long long stride = (s.c.n + s.samples - 1) / s.samples;
    const unsigned grid = blocks_for(s.c.n, 256) < 2048 ? blocks_for(s.c.n, 256) : 2048;
    dense_power_kernel<<<grid, 256, 0, st>>>(s, stride);
    check_launch();
    launch_select_nonneg(
        s.power, s.samples, s.samples / 2, s.select_scratch, s.median, st);
    dense_noise_kernel<<<1, 1, 0, st>>>(s);
    check_launch();
    dense_peak_kernel<<<grid, 256, 0, st>>>(s);
    check_launch();
    dense_refine_kernel<<<warp_blocks(s.tone_cap, 128), 128, 0, st>>>(s);
    check_launch();
    if (!pairs)
        return;
    dense_pairs_kernel<<<warp_blocks(s.tone_cap, pair_threads), pair_threads, 0, st>>>(s);
    check_launch();
}

} // namespace detail
} // namespace gpufft
} // namespace gr
