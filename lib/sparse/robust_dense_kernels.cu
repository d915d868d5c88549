/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Robust mode's dense path on the device (robust_kernels.h): after the FFT of the frame,
// the windowed spectrum's power of every bin, the noise from a sample of them, a tone per
// peak above the threshold, and its fit to the unwindowed bins. Grid-stride over n.

#include "robust_kernels.cuh"
#include "select_cuda.h"

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
        if ((threadIdx.x & 31) == 0)
            append_tone(s.header, s.tones, s.tone_cap, s.c, at, delta, ar, ai);
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
        if (lane != 0 ||
            !robust_plain_fit_ok(delta, lo, hi, total, explained, plain_noise))
            continue;
        s.tones[w].frequency = robust_wrap_frequency(s.c, double(b0) + delta);
        s.tones[w].re = ar;
        s.tones[w].im = ai;
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

void launch_dense_tones(const robust_dense_state& s, void* stream)
{
    auto st = static_cast<cudaStream_t>(stream);
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
}

} // namespace detail
} // namespace gpufft
} // namespace gr
