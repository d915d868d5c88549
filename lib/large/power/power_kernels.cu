/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "cuda/cuda_check.h"
#include "cuda/grid.h"
#include "large/power/power_kernels.h"
#include <algorithm>
#include <stdexcept>

namespace gr {
namespace gpufft {
namespace detail {

namespace {

using i64 = std::int64_t;

constexpr int block_threads = 256;
constexpr int warps_per_block = block_threads / 32;
using cuda::grid_blocks;

// The window at sample i from cos(theta) alone, by the Chebyshev recurrence cos(k
// theta) = T_k(cos theta), as spectral_window::apply does on the host. The sample index
// is below n, so theta / pi = 2 i / n needs no reduction, and cospi keeps it accurate
// for any n < 2^53. Only for windows of more than one term.
__device__ float window_gain(const cosine_window& w, i64 i, double two_over_n)
{
    const double c = cospi(double(i) * two_over_n);
    const double t2 = 2 * c * c - 1;
    double f = w.a[0] + w.a[1] * c + w.a[2] * t2;
    if (w.terms > 3) {
        const double t3 = 2 * c * t2 - c;
        f += w.a[3] * t3 + w.a[4] * (2 * c * t3 - t2);
    }
    return float(f);
}

__global__ void window_kernel(
    float2* x, i64 begin, i64 count, cosine_window w, double two_over_n, int* flag)
{
    bool bad = false;
    for (i64 i = blockIdx.x * i64(blockDim.x) + threadIdx.x; i < count;
         i += i64(gridDim.x) * blockDim.x) {
        float2 v = x[i];
        bad |= !isfinite(v.x) || !isfinite(v.y);
        if (w.terms > 1) {
            const float g = window_gain(w, begin + i, two_over_n);
            v.x *= g;
            v.y *= g;
            x[i] = v;
        }
    }
    if (__syncthreads_or(bad) && threadIdx.x == 0)
        atomicOr(flag, 1);
}

// One sample per thread and step: its two numbers are read as one 2- or 4-byte word
// (Pair of T), converted exactly as cuda::launch_convert_iq() does, then windowed as
// window_kernel() does, so the frame is written once.
template <typename T, typename Pair>
__global__ void window_iq_kernel(const Pair* __restrict__ in,
                                 float2* __restrict__ x,
                                 i64 begin,
                                 i64 count,
                                 cosine_window w,
                                 double two_over_n,
                                 float scale,
                                 float offset)
{
    for (i64 i = blockIdx.x * i64(blockDim.x) + threadIdx.x; i < count;
         i += i64(gridDim.x) * blockDim.x) {
        const Pair p = in[i];
        const T* v = reinterpret_cast<const T*>(&p);
        float2 y =
            make_float2((float(v[0]) - offset) * scale, (float(v[1]) - offset) * scale);
        if (w.terms > 1) {
            const float g = window_gain(w, begin + i, two_over_n);
            y.x *= g;
            y.y *= g;
        }
        x[i] = y;
    }
}

template <typename T, typename Pair>
void launch_iq(const void* in,
               void* x,
               i64 begin,
               i64 count,
               const cosine_window& w,
               float scale,
               float offset,
               cudaStream_t s)
{
    window_iq_kernel<T, Pair><<<grid_blocks(count, block_threads), block_threads, 0, s>>>(
        static_cast<const Pair*>(in),
        static_cast<float2*>(x),
        begin,
        count,
        w,
        2.0 / double(w.n),
        scale,
        offset);
    GPUFFT_CUDA_CHECK_LAUNCH();
}

// One warp per (channel, piece): lanes read consecutive bins (coalesced), sum |X|^2
// in double, and lane 0 adds the piece to its channel. Every lane of a warp runs the
// same items, so the shuffles see the whole warp.
__global__ void band_power_kernel(const float2* X,
                                  i64 n,
                                  i64 band_start,
                                  i64 decim,
                                  i64 bins,
                                  i64 pieces,
                                  double* power,
                                  int* flag)
{
    const i64 half = n / 2;
    const int lane = threadIdx.x & 31;
    const i64 warp = (blockIdx.x * i64(blockDim.x) + threadIdx.x) / 32;
    const i64 warps = i64(gridDim.x) * (blockDim.x / 32);
    const i64 seg = decim / pieces, rem = decim % pieces;
    for (i64 item = warp; item < bins * pieces; item += warps) {
        const i64 c = item / pieces, p = item % pieces;
        // Piece p of the channel: seg bins, one more for the first `rem` pieces.
        const i64 b = band_start + c * decim + p * seg + min(p, rem);
        const i64 e = b + seg + (p < rem ? 1 : 0);
        double s = 0;
        for (i64 j = b + lane; j < e; j += 32) {
            // DC-centred bin j is FFT bin j - n/2 (j >= n/2) or j + n - n/2.
            const i64 k = j >= half ? j - half : j + (n - half);
            const float2 v = X[k];
            s += double(v.x) * v.x + double(v.y) * v.y;
        }
        for (int off = 16; off > 0; off >>= 1)
            s += __shfl_down_sync(0xffffffffu, s, off);
        if (lane == 0) {
            if (!isfinite(s))
                atomicOr(flag, 1);
            atomicAdd(&power[c], s);
        }
    }
}

__global__ void accumulate_kernel(
    const double* power, double* acc, i64 bins, double scale, int op, const int* flag)
{
    if (*flag)
        return; // a skipped frame leaves the integration as it was
    for (i64 c = blockIdx.x * i64(blockDim.x) + threadIdx.x; c < bins;
         c += i64(gridDim.x) * blockDim.x) {
        const double v = scale * power[c];
        acc[c] = op == 0 ? v : op == 1 ? acc[c] + v : fmax(acc[c], v);
    }
}

} // namespace

void launch_window(
    void* x, i64 begin, i64 count, const cosine_window& w, int* flag, void* stream)
{
    if (count <= 0)
        return;
    if (begin < 0 || begin + count > w.n)
        throw std::invalid_argument("launch_window: samples outside the window");
    window_kernel<<<grid_blocks(count, block_threads),
                    block_threads,
                    0,
                    static_cast<cudaStream_t>(stream)>>>(
        static_cast<float2*>(x), begin, count, w, 2.0 / double(w.n), flag);
    GPUFFT_CUDA_CHECK_LAUNCH();
}

void launch_window_iq(cuda::iq_integer type,
                      const void* in,
                      void* x,
                      i64 begin,
                      i64 count,
                      const cosine_window& w,
                      float scale,
                      float offset,
                      void* stream)
{
    if (count <= 0)
        return;
    if (begin < 0 || begin + count > w.n)
        throw std::invalid_argument("launch_window_iq: samples outside the window");
    const auto s = static_cast<cudaStream_t>(stream);
    switch (type) {
    case cuda::iq_integer::int16:
        launch_iq<short, short2>(in, x, begin, count, w, scale, offset, s);
        return;
    case cuda::iq_integer::int8:
        launch_iq<signed char, char2>(in, x, begin, count, w, scale, offset, s);
        return;
    case cuda::iq_integer::uint8:
        launch_iq<unsigned char, uchar2>(in, x, begin, count, w, scale, offset, s);
        return;
    }
    throw std::invalid_argument("launch_window_iq: unknown integer type");
}

void launch_band_power(const void* spectrum,
                       i64 n,
                       i64 band_start,
                       i64 decim,
                       i64 bins,
                       double* power,
                       int* flag,
                       void* stream)
{
    if (bins <= 0)
        return;
    // Split long channels so at least ~16k warps share the band, each piece still
    // several thousand bins long (the atomics then cost nothing).
    constexpr i64 min_piece = 4096, target_items = 16384;
    const i64 pieces = std::max<i64>(
        1, std::min<i64>(decim / min_piece, (target_items + bins - 1) / bins));
    band_power_kernel<<<grid_blocks(bins * pieces, warps_per_block),
                        block_threads,
                        0,
                        static_cast<cudaStream_t>(stream)>>>(
        static_cast<const float2*>(spectrum),
        n,
        band_start,
        decim,
        bins,
        pieces,
        power,
        flag);
    GPUFFT_CUDA_CHECK_LAUNCH();
}

void launch_accumulate(const double* power,
                       double* acc,
                       i64 bins,
                       double scale,
                       int op,
                       const int* flag,
                       void* stream)
{
    if (bins <= 0)
        return;
    accumulate_kernel<<<grid_blocks(bins, block_threads),
                        block_threads,
                        0,
                        static_cast<cudaStream_t>(stream)>>>(
        power, acc, bins, scale, op, flag);
    GPUFFT_CUDA_CHECK_LAUNCH();
}

} // namespace detail
} // namespace gpufft
} // namespace gr
