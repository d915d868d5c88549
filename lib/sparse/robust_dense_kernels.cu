/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Robust mode's dense path on the device (robust_kernels.h): window the frame for the
// FFT, then the power of every bin, the noise from a sample of them and a tone per peak
// above the threshold. Grid-stride over n.

#include "robust_kernels.cuh"
#include "select_cuda.h"

namespace gr {
namespace gpufft {
namespace detail {

using namespace robust_kernels;

namespace {

__global__ void window_kernel(const __grid_constant__ robust_consts c,
                              const float2* const* x_ptr,
                              float2* xw)
{
    const float2* x = *x_ptr;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < c.n;
         i += (long long)gridDim.x * blockDim.x) {
        const float w = robust_window_weight(c, (unsigned long long)i);
        const float2 v = x[i];
        xw[i] = make_float2(v.x * w, v.y * w);
    }
}

__global__ void dense_power_kernel(const __grid_constant__ robust_dense_state s,
                                   long long stride)
{
    const float2* X = static_cast<const float2*>(s.X);
    double peak = 0;
    int bad = 0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < s.c.n;
         i += (long long)gridDim.x * blockDim.x) {
        const float2 v = X[i];
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

__global__ void dense_peak_kernel(const __grid_constant__ robust_dense_state s)
{
    const float2* X = static_cast<const float2*>(s.X);
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
            const float2 v = X[i];
            const double p = double(v.x) * v.x + double(v.y) * v.y;
            peak = p > threshold;
            for (int j = -h; j <= h && peak; ++j) {
                long long b = (i + j) % s.c.n;
                if (b < 0)
                    b += s.c.n;
                const float2 u = X[b];
                const double q = double(u.x) * u.x + double(u.y) * u.y;
                present[j + h] = (j == 0 || q > threshold) ? 1 : 0;
                if (j != 0 && present[j + h] && (q > p || (q == p && j < 0)))
                    peak = false;
                yr[j + h] = u.x;
                yi[j + h] = u.y;
            }
        }
        fit_peaks(__ballot_sync(0xffffffffu, peak),
                  yr,
                  yi,
                  present,
                  i,
                  s.header,
                  s.tones,
                  s.tone_cap,
                  s.c);
    }
}

} // namespace

void launch_window_frame(const robust_consts& c,
                         const void* const* x_ptr,
                         void* xw,
                         void* stream)
{
    const unsigned grid = blocks_for(c.n, 256) < 2048 ? blocks_for(c.n, 256) : 2048;
    window_kernel<<<grid, 256, 0, static_cast<cudaStream_t>(stream)>>>(
        c, reinterpret_cast<const float2* const*>(x_ptr), static_cast<float2*>(xw));
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
}

} // namespace detail
} // namespace gpufft
} // namespace gr
