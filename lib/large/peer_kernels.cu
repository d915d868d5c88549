/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "cuda/cuda_check.h"
#include "cuda/grid.h"
#include "large/peer_exchange_math.h"
#include "large/peer_kernels.h"
#include <algorithm>
#include <stdexcept>

namespace gr {
namespace gpufft {
namespace detail {

namespace {

using i64 = std::int64_t;

// One thread per (row, column) of a slot: reads element (i, j) of every slot, writes
// them back. Consecutive threads take consecutive columns, so each slot is read and
// written coalesced.
template <typename T>
__global__ void segment_butterfly_kernel(xy<T>* slab, int parts, i64 s1, i64 s2, int sign)
{
    const i64 slot = s1 * s2;
    for (i64 e = blockIdx.x * i64(blockDim.x) + threadIdx.x; e < slot;
         e += i64(gridDim.x) * blockDim.x) {
        xy<T> v[peer_max_parts];
        for (int s = 0; s < parts; ++s)
            v[s] = slab[s * slot + e];
        segment_butterfly(v, parts, e % s2, s2, sign);
        for (int s = 0; s < parts; ++s)
            slab[s * slot + e] = v[s];
    }
}

// 32 x 32 tiles through shared memory (one padding column against bank conflicts),
// 32 x 8 threads, tiles dealt out grid-stride.
template <typename T>
__global__ void
pitched_transpose_kernel(const xy<T>* in, i64 pitch, xy<T>* out, i64 rows, i64 cols)
{
    __shared__ xy<T> tile[32][33];
    const i64 tiles_c = (cols + 31) / 32, tiles = tiles_c * ((rows + 31) / 32);
    for (i64 t = blockIdx.x; t < tiles; t += gridDim.x) {
        const i64 r0 = (t / tiles_c) * 32, c0 = (t % tiles_c) * 32;
        for (int y = threadIdx.y; y < 32; y += 8) {
            const i64 r = r0 + y, c = c0 + threadIdx.x;
            if (r < rows && c < cols)
                tile[y][threadIdx.x] = in[r * pitch + c];
        }
        __syncthreads();
        for (int y = threadIdx.y; y < 32; y += 8) {
            const i64 c = c0 + y, r = r0 + threadIdx.x;
            if (r < rows && c < cols)
                out[c * rows + r] = tile[threadIdx.x][y];
        }
        __syncthreads();
    }
}

} // namespace

void launch_pitched_transpose(
    const void* in, i64 pitch, void* out, bool dbl, i64 rows, i64 cols, void* stream)
{
    const auto st = static_cast<cudaStream_t>(stream);
    const i64 tiles = ((rows + 31) / 32) * ((cols + 31) / 32);
    const int blocks = int(std::min<i64>(tiles, 65535));
    const dim3 threads(32, 8);
    if (dbl)
        pitched_transpose_kernel<double>
            <<<blocks, threads, 0, st>>>(static_cast<const xy<double>*>(in),
                                         pitch,
                                         static_cast<xy<double>*>(out),
                                         rows,
                                         cols);
    else
        pitched_transpose_kernel<float>
            <<<blocks, threads, 0, st>>>(static_cast<const xy<float>*>(in),
                                         pitch,
                                         static_cast<xy<float>*>(out),
                                         rows,
                                         cols);
    GPUFFT_CUDA_CHECK_LAUNCH();
}

void launch_segment_butterfly(
    void* slab, bool dbl, int parts, i64 s1, i64 s2, int sign, void* stream)
{
    if (parts < 1 || parts > peer_max_parts)
        throw std::logic_error("launch_segment_butterfly: parts out of range");
    const auto st = static_cast<cudaStream_t>(stream);
    const int threads = 256;
    const int blocks = cuda::grid_blocks(s1 * s2, threads);
    if (dbl)
        segment_butterfly_kernel<double><<<blocks, threads, 0, st>>>(
            static_cast<xy<double>*>(slab), parts, s1, s2, sign);
    else
        segment_butterfly_kernel<float><<<blocks, threads, 0, st>>>(
            static_cast<xy<float>*>(slab), parts, s1, s2, sign);
    GPUFFT_CUDA_CHECK_LAUNCH();
}

} // namespace detail
} // namespace gpufft
} // namespace gr
