/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The two kernels of four_step.h. Each block takes `CW` neighbouring columns of one
// factor into shared memory (128 bytes of each row: whole L2 lines), runs the two
// register stages of the sub-transform with CW x 16 threads, and writes the result
// straight from registers. Every global load and store carries the evict-first hint
// (why: four_step.h).

#include "cuda/cuda_check.h"
#include "cuda/grid.h"
#include "large/four_step.h"
#include "large/large_fft_kernels.h"
#include <stdexcept>

namespace gr {
namespace gpufft {
namespace detail {

namespace {

using i64 = std::int64_t;

template <typename V, typename T>
__device__ inline V to_vec(xy<T> v)
{
    V o;
    o.x = v.x;
    o.y = v.y;
    return o;
}

// Both stages of the M-point sub-transform of column cc of `s` (the block's tile), the
// CW x 16 threads split as (cc, part); output k goes to out(k, value). Every thread of
// the block calls it (it synchronises between the stages).
template <typename T, typename V, int M, int CW, typename Out>
__device__ inline void
sub_transform(V (&s)[M][CW + 1], int cc, int part, bool active, int sign, Out out)
{
    constexpr int R1 = sub_radix1(M), R2 = M / R1;
    auto get = [&](int i) { return xy<T>{ s[i][cc].x, s[i][cc].y }; };
    auto set = [&](int i, xy<T> v) { s[i][cc] = to_vec<V>(v); };
    if (active && part < R2)
        sub_stage1<T, M>(part, sign, get, set);
    __syncthreads();
    if (active && part < R1)
        sub_stage2<T, M>(part, sign, get, out);
}

// Kernel A, in place: for each column (b, j) of [batch][M][L2 W], the M-point DFT over
// n1, output k1 turned by exp(sign 2 pi i n2 k1 / L) with n2 = j / W. Non-finite input
// sets *flag when flag is given (the round that reads the caller's data).
template <typename T, typename V, int M, int CW>
__global__ void four_step_a(V* data, four_step_geometry g, int sign, int* flag)
{
    __shared__ V s[M][CW + 1];
    const i64 J = g.L2 * g.W, per_b = (J + CW - 1) / CW, tiles = g.batch * per_b;
    const i64 L = g.L();
    const int cc = threadIdx.x % CW, part = threadIdx.x / CW;
    bool bad = false;
    for (i64 tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const i64 b = tile / per_b, j0 = (tile % per_b) * CW;
        V* base = data + g.in_index(b, 0, 0) + j0; // element n1 of column cc: n1 J + cc
        const int cw = int(J - j0 < CW ? J - j0 : CW);
        for (int i = threadIdx.x; i < M * CW; i += blockDim.x) {
            const int n1 = i / CW, c = i % CW;
            if (c < cw) {
                const V v = __ldcs(base + n1 * J + c);
                bad |= !(isfinite(v.x) && isfinite(v.y));
                s[n1][c] = v;
            }
        }
        __syncthreads();
        const i64 n2 = (j0 + cc) / g.W;
        sub_transform<T, V, M, CW>(s, cc, part, cc < cw, sign, [&](int k1, xy<T> v) {
            __stcs(base + k1 * J + cc, to_vec<V>(turn(v, (n2 * k1) % L, L, sign)));
        });
        __syncthreads(); // the next tile's loads overwrite s
    }
    if (flag && __syncthreads_or(bad) && threadIdx.x == 0)
        atomicOr(flag, 1);
}

// Kernel B: for each column q = (b, w) and row group k1, the M-point DFT over n2 of
// elements (b, k1 M + n2, w); output k = k1 + L1 k2 times the pass twiddle (k, w) to
// out at g.out_index(b, k, w).
template <typename T, typename V, int M, int CW>
__global__ void
four_step_b(const V* data, V* out, four_step_geometry g, int sign, twiddle_params tw)
{
    __shared__ V s[M][CW + 1];
    const i64 Q = g.batch * g.W, per_k1 = (Q + CW - 1) / CW, tiles = g.L1 * per_k1;
    const int cc = threadIdx.x % CW, part = threadIdx.x / CW;
    for (i64 tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const i64 k1 = tile / per_k1, q0 = (tile % per_k1) * CW;
        const int cw = int(Q - q0 < CW ? Q - q0 : CW);
        for (int i = threadIdx.x; i < M * CW; i += blockDim.x) {
            // W == 1: a column's M elements are contiguous, so neighbouring threads take
            // neighbouring elements of one column; else neighbouring columns
            const int n2 = g.W == 1 ? i % M : i / CW, c = g.W == 1 ? i / M : i % CW;
            if (c < cw) {
                const i64 q = q0 + c;
                s[n2][c] = __ldcs(data + g.in_index(q / g.W, k1 * M + n2, q % g.W));
            }
        }
        __syncthreads();
        const i64 q = q0 + cc, b = q / g.W, w = q % g.W;
        sub_transform<T, V, M, CW>(s, cc, part, cc < cw, sign, [&](int k2, xy<T> v) {
            const i64 k = k1 + g.L1 * k2;
            if (tw.on)
                v = times(v, pass_twiddle(k, w, tw));
            __stcs(out + g.out_index(b, k, w), to_vec<V>(v));
        });
        __syncthreads();
    }
}

template <typename T, typename V>
void launch(void* data,
            void* out,
            const four_step_geometry& g,
            int sign,
            const twiddle_params& tw,
            int* flag,
            cudaStream_t s)
{
    constexpr int CW = int(128 / sizeof(V)); // one 128-byte line of each row
    constexpr int threads = CW * 16;
    auto x = static_cast<V*>(data);
    auto y = static_cast<V*>(out);
    const i64 tiles_a = g.batch * ((g.L2 * g.W + CW - 1) / CW);
    const i64 tiles_b = g.L1 * ((g.batch * g.W + CW - 1) / CW);
    with_sub_length(g.L1, [&](auto m) {
        four_step_a<T, V, decltype(m)::value, CW>
            <<<cuda::grid_blocks(tiles_a, 1), threads, 0, s>>>(x, g, sign, flag);
    });
    GPUFFT_CUDA_CHECK_LAUNCH();
    with_sub_length(g.L2, [&](auto m) {
        four_step_b<T, V, decltype(m)::value, CW>
            <<<cuda::grid_blocks(tiles_b, 1), threads, 0, s>>>(x, y, g, sign, tw);
    });
    GPUFFT_CUDA_CHECK_LAUNCH();
}

} // namespace

void launch_four_step_fft(void* data,
                          void* out,
                          bool dbl,
                          const four_step_geometry& g,
                          int sign,
                          const twiddle_params& tw,
                          int* flag,
                          void* stream)
{
    if (!four_step_supports(g.L()) || g.L1 < g.L2 || g.L1 > 256)
        throw std::invalid_argument(
            "launch_four_step_fft: L = L1 L2 must be a power of two from 4 to 2^16, "
            "L1 >= L2");
    if (g.batch <= 0 || g.W <= 0)
        return;
    auto s = static_cast<cudaStream_t>(stream);
    if (dbl)
        launch<double, double2>(data, out, g, sign, tw, flag, s);
    else
        launch<float, float2>(data, out, g, sign, tw, flag, s);
}

} // namespace detail
} // namespace gpufft
} // namespace gr
