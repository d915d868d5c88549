/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "cuda/cuda_check.h"
#include "cuda/grid.h"
#include "large/four_step.h"
#include "large/large_fft_kernels.h"
#include <cuComplex.h>
#include <algorithm>
#include <stdexcept>

namespace gr {
namespace gpufft {
namespace detail {

namespace {

using i64 = std::int64_t;

template <typename C>
struct real_of;
template <>
struct real_of<float2> {
    using type = float;
};
template <>
struct real_of<double2> {
    using type = double;
};

__device__ inline double2 twiddle_at(i64 k, i64 j, const twiddle_params& tw)
{
    const xy<double> w = pass_twiddle(k, j, tw);
    return make_double2(w.x, w.y);
}

template <typename C>
__device__ inline C cmul(C a, double2 w)
{
    using R = typename real_of<C>::type;
    const double re = double(a.x) * w.x - double(a.y) * w.y;
    const double im = double(a.x) * w.y + double(a.y) * w.x;
    C r;
    r.x = R(re);
    r.y = R(im);
    return r;
}

// Every load and store of these kernels carries the evict-first hint (ld/st.global.cs):
// they run beside the PCIe copies of other passes, and L2 lines they allocate with the
// default policy evict whatever the copy engines keep there, which slows the copies of a
// 2^32 round by a fifth (docs/large_fft.md, "What limits 1-D out of card").
template <typename C>
__global__ void twiddle_kernel(C* buf, i64 total, i64 rows, i64 cols, twiddle_params tw)
{
    for (i64 i = blockIdx.x * i64(blockDim.x) + threadIdx.x; i < total;
         i += i64(gridDim.x) * blockDim.x) {
        const i64 c = i % cols;
        const i64 r = (i / cols) % rows;
        __stcs(
            buf + i,
            cmul(__ldcs(buf + i), tw.swap ? twiddle_at(c, r, tw) : twiddle_at(r, c, tw)));
    }
}

constexpr int tile = 32, tile_rows = 8;

// The input's rows are `pitch` elements apart (cols for a whole matrix, more for a
// column block of a wider one); the output is dense.
template <typename C>
__global__ void
transpose_kernel(const C* in, i64 pitch, C* out, i64 rows, i64 cols, twiddle_params tw)
{
    __shared__ C t[tile][tile + 1];
    // tiles numbered along the rows of tiles in a 1-D grid (no 65535 limit on either
    // side of the matrix); the matrix of the batch in grid.y
    const i64 tiles_c = (cols + tile - 1) / tile;
    const i64 mat_in = i64(blockIdx.y) * rows * pitch,
              mat = i64(blockIdx.y) * rows * cols;
    const i64 c0 = (i64(blockIdx.x) % tiles_c) * tile,
              r0 = (i64(blockIdx.x) / tiles_c) * tile;
    for (int dy = threadIdx.y; dy < tile; dy += tile_rows) {
        const i64 r = r0 + dy, c = c0 + threadIdx.x;
        if (r < rows && c < cols) {
            C v = __ldcs(in + mat_in + r * pitch + c);
            if (tw.on)
                v = cmul(v, twiddle_at(r, c, tw));
            t[dy][threadIdx.x] = v;
        }
    }
    __syncthreads();
    for (int dy = threadIdx.y; dy < tile; dy += tile_rows) {
        const i64 c = c0 + dy, r = r0 + threadIdx.x;
        if (r < rows && c < cols)
            __stcs(out + mat + c * rows + r, t[threadIdx.x][dy]);
    }
}

template <typename C>
__global__ void unit_transpose_kernel(const C* in, C* out, i64 rows, i64 cols, i64 unit)
{
    // i runs over the output: consecutive threads read and write consecutive elements of
    // a run
    const i64 total = rows * cols;
    for (i64 i = blockIdx.x * i64(blockDim.x) + threadIdx.x; i < total;
         i += i64(gridDim.x) * blockDim.x) {
        const i64 u = i % unit, r = (i / unit) % rows, q = i / (unit * rows);
        __stcs(out + i, __ldcs(in + r * cols + q * unit + u));
    }
}

template <typename R>
__global__ void finite_kernel(const R* x, i64 n, int* flag)
{
    bool bad = false;
    for (i64 i = blockIdx.x * i64(blockDim.x) + threadIdx.x; i < n;
         i += i64(gridDim.x) * blockDim.x)
        bad |= !isfinite(__ldcs(x + i));
    if (__syncthreads_or(bad) && threadIdx.x == 0)
        atomicOr(flag, 1);
}

using cuda::grid_blocks;

} // namespace

void launch_twiddle(void* buf,
                    bool dbl,
                    i64 batch,
                    i64 rows,
                    i64 cols,
                    const twiddle_params& tw,
                    void* stream)
{
    const i64 total = batch * rows * cols;
    if (total == 0)
        return;
    auto s = static_cast<cudaStream_t>(stream);
    if (dbl)
        twiddle_kernel<<<grid_blocks(total, 256), 256, 0, s>>>(
            static_cast<double2*>(buf), total, rows, cols, tw);
    else
        twiddle_kernel<<<grid_blocks(total, 256), 256, 0, s>>>(
            static_cast<float2*>(buf), total, rows, cols, tw);
    GPUFFT_CUDA_CHECK_LAUNCH();
}

namespace {

void transpose(const void* in,
               i64 pitch,
               void* out,
               bool dbl,
               i64 batch,
               i64 rows,
               i64 cols,
               const twiddle_params& tw,
               void* stream)
{
    if (batch * rows * cols == 0)
        return;
    const i64 tiles = ((cols + tile - 1) / tile) * ((rows + tile - 1) / tile);
    if (tiles > 0x7fffffff || batch > 65535)
        throw std::invalid_argument("launch_transpose: matrix too large for one launch");
    const dim3 grid{ unsigned(tiles), unsigned(batch), 1u };
    const dim3 block(tile, tile_rows);
    auto s = static_cast<cudaStream_t>(stream);
    if (dbl)
        transpose_kernel<<<grid, block, 0, s>>>(static_cast<const double2*>(in),
                                                pitch,
                                                static_cast<double2*>(out),
                                                rows,
                                                cols,
                                                tw);
    else
        transpose_kernel<<<grid, block, 0, s>>>(static_cast<const float2*>(in),
                                                pitch,
                                                static_cast<float2*>(out),
                                                rows,
                                                cols,
                                                tw);
    GPUFFT_CUDA_CHECK_LAUNCH();
}

} // namespace

void launch_transpose(const void* in,
                      void* out,
                      bool dbl,
                      i64 batch,
                      i64 rows,
                      i64 cols,
                      const twiddle_params& tw,
                      void* stream)
{
    transpose(in, cols, out, dbl, batch, rows, cols, tw, stream);
}

void launch_pitched_transpose(
    const void* in, i64 pitch, void* out, bool dbl, i64 rows, i64 cols, void* stream)
{
    transpose(in, pitch, out, dbl, 1, rows, cols, twiddle_params{}, stream);
}

void launch_unit_transpose(
    const void* in, void* out, bool dbl, i64 rows, i64 cols, i64 unit, void* stream)
{
    const i64 total = rows * cols;
    if (total == 0)
        return;
    if (unit <= 0 || cols % unit)
        throw std::invalid_argument(
            "launch_unit_transpose: cols must be a multiple of unit");
    auto s = static_cast<cudaStream_t>(stream);
    if (dbl)
        unit_transpose_kernel<<<grid_blocks(total, 256), 256, 0, s>>>(
            static_cast<const double2*>(in),
            static_cast<double2*>(out),
            rows,
            cols,
            unit);
    else
        unit_transpose_kernel<<<grid_blocks(total, 256), 256, 0, s>>>(
            static_cast<const float2*>(in), static_cast<float2*>(out), rows, cols, unit);
    GPUFFT_CUDA_CHECK_LAUNCH();
}

void launch_finite_check(const void* buf, bool dbl, i64 n, int* flag, void* stream)
{
    if (n == 0)
        return;
    auto s = static_cast<cudaStream_t>(stream);
    if (dbl)
        finite_kernel<<<grid_blocks(2 * n, 256), 256, 0, s>>>(
            static_cast<const double*>(buf), 2 * n, flag);
    else
        finite_kernel<<<grid_blocks(2 * n, 256), 256, 0, s>>>(
            static_cast<const float*>(buf), 2 * n, flag);
    GPUFFT_CUDA_CHECK_LAUNCH();
}

} // namespace detail
} // namespace gpufft
} // namespace gr
