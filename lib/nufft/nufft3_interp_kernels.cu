/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Interpolation of the type-3 NUFFT (nufft3_cuda_kernels.h): one thread per target (and
// strength vector) sums the kernel-weighted grid cells around it and applies the
// target's correction.

#include "nufft3_cuda_device.cuh"

namespace gr {
namespace gpufft {
namespace nufft {

namespace {

//! m folded into [0, M): a target's taps may run past either end of the periodic grid.
__device__ __forceinline__ int wrap(int m, int M)
{
    return m < 0 ? m + M : (m >= M ? m - M : m);
}

struct grid_shape {
    long long cells[max_axes];
    long long total; // distance between grids
};

/*!
 * One thread per target and group of NV strength vectors (blockIdx.y): kernel-weighted
 * sum of grid cells, times the correction. The weights and cell indices are worked out
 * once for the group. DIM is a template parameter so the 1D and 2D loops carry no branch
 * for the third axis. The grid index p = n + M/2 puts a factor (-1)^m on FFT output m:
 * folded into each axis's weights, with the axis's wrapped cell indices worked out once
 * per target, so a tap costs one load and two multiply-adds per vector.
 */
template <typename T, int DIM, int MAXW, int NV>
__global__ void interp_kernel(long long n,
                              int ntransf,
                              const int* __restrict__ order,
                              point_arrays<T> tgt,
                              const typename complex_of<T>::type* post,
                              const typename complex_of<T>::type* grid,
                              grid_shape gs,
                              int W,
                              kernel_spec ker,
                              typename complex_of<T>::type* out)
{
    using C = typename complex_of<T>::type;
    const long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    const int v0 = blockIdx.y * NV;
    const int nv = min(NV, ntransf - v0);
    grid += v0 * gs.total;
    out += v0 * n;
    // Axes hold at most 2^30 cells (nufft3_params.cc), so cell indices are ints.
    const int M0 = int(gs.cells[0]), M1 = int(gs.cells[1]), M2 = int(gs.cells[2]);
    T kx[MAXW];
    int col[MAXW];
    const T zx = tgt.z0[0][k];
    const int f0 = tgt.first[0][k];
#pragma unroll
    for (int q = 0; q < MAXW; ++q)
        if (q < W) {
            const T v = kernel_value<T>(ker, zx + T(q));
            kx[q] = ((f0 + q) & 1) ? -v : v;
            col[q] = wrap(f0 + q, M0);
        }
    T ax[NV], ay[NV];
#pragma unroll
    for (int v = 0; v < NV; ++v)
        ax[v] = ay[v] = 0;
    // The vectors of a group are the same for the whole block: no divergence.
    auto row_sum = [&](const C* row, T wr, T* sx, T* sy) {
#pragma unroll
        for (int v = 0; v < NV; ++v) {
            if (v >= nv)
                break;
            const C* r = row + v * gs.total;
            T rx = 0, ry = 0;
#pragma unroll
            for (int q = 0; q < MAXW; ++q)
                if (q < W) {
                    const C g = r[col[q]];
                    rx += kx[q] * g.x;
                    ry += kx[q] * g.y;
                }
            sx[v] += wr * rx;
            sy[v] += wr * ry;
        }
    };
    if (DIM == 1) {
        row_sum(grid, T(1), ax, ay);
    } else {
        const T zy = tgt.z0[1][k];
        const int f1 = tgt.first[1][k];
        const int planes = DIM == 3 ? W : 1;
        const T zz = DIM == 3 ? tgt.z0[2][k] : T(0);
        const int f2 = DIM == 3 ? tgt.first[2][k] : 0;
        for (int l = 0; l < planes; ++l) {
            const C* plane =
                DIM == 3 ? grid + (long long)wrap(f2 + l, M2) * M0 * M1 : grid;
            T kz = 1;
            if (DIM == 3) {
                const T v = kernel_value<T>(ker, zz + T(l));
                kz = ((f2 + l) & 1) ? -v : v;
            }
            for (int r = 0; r < W; ++r) {
                const int m1 = f1 + r;
                const T v = kernel_value<T>(ker, zy + T(r));
                const T ky = (m1 & 1) ? -v : v;
                row_sum(plane + (long long)wrap(m1, M1) * M0, kz * ky, ax, ay);
            }
        }
    }
    const C p = post[k];
    const long long at = order ? order[k] : k;
#pragma unroll
    for (int v = 0; v < NV; ++v)
        if (v < nv)
            out[v * n + at] = C{ ax[v] * p.x - ay[v] * p.y, ax[v] * p.y + ay[v] * p.x };
}

//! Strength vectors per thread: the weights are shared among them.
template <typename T, int DIM, int MAXW>
void interp_with(std::int64_t n,
                 int ntransf,
                 const int* order,
                 const point_arrays<T>& tgt,
                 const std::complex<T>* post,
                 const std::complex<T>* grid,
                 const grid_shape& gs,
                 const kernel_spec& ker,
                 std::complex<T>* out,
                 cudaStream_t st)
{
    const int nv = ntransf >= 4 ? 4 : ntransf >= 2 ? 2 : 1;
    auto fn = nv == 4   ? interp_kernel<T, DIM, MAXW, 4>
              : nv == 2 ? interp_kernel<T, DIM, MAXW, 2>
                        : interp_kernel<T, DIM, MAXW, 1>;
    const dim3 shape(blocks_for(n, 128), unsigned((ntransf + nv - 1) / nv));
    fn<<<shape, 128, 0, st>>>(n,
                              ntransf,
                              order,
                              tgt,
                              device_complex(post),
                              device_complex(grid),
                              gs,
                              ker.taps,
                              ker,
                              device_complex(out));
    GPUFFT_CUDA_CHECK_LAUNCH();
}

template <typename T, int DIM>
void interp_dim(std::int64_t n,
                int ntransf,
                const int* order,
                const point_arrays<T>& tgt,
                const std::complex<T>* post,
                const std::complex<T>* grid,
                const grid_shape& gs,
                const kernel_spec& ker,
                std::complex<T>* out,
                cudaStream_t st)
{
    // Tap counts are compile-time bounds so the tap loops unroll into registers.
    const int W = ker.taps;
    auto f = W <= 8    ? interp_with<T, DIM, 8>
             : W <= 16 ? interp_with<T, DIM, 16>
                       : interp_with<T, DIM, max_taps>;
    f(n, ntransf, order, tgt, post, grid, gs, ker, out, st);
}

} // namespace

template <typename T>
void launch_interp(std::int64_t n,
                   int dim,
                   int ntransf,
                   const int* order,
                   const point_arrays<T>& tgt,
                   const std::complex<T>* post,
                   const std::complex<T>* grid,
                   const std::int64_t* cells,
                   const kernel_spec& ker,
                   std::complex<T>* out,
                   void* stream)
{
    grid_shape gs{};
    gs.total = 1;
    for (int d = 0; d < max_axes; ++d) {
        gs.cells[d] = cells[d];
        gs.total *= cells[d];
    }
    const cudaStream_t st = as_stream(stream);
    if (dim == 1)
        interp_dim<T, 1>(n, ntransf, order, tgt, post, grid, gs, ker, out, st);
    else if (dim == 2)
        interp_dim<T, 2>(n, ntransf, order, tgt, post, grid, gs, ker, out, st);
    else
        interp_dim<T, 3>(n, ntransf, order, tgt, post, grid, gs, ker, out, st);
}

#define GPUFFT_NUFFT3_INTERP(T)                            \
    template void launch_interp<T>(std::int64_t,           \
                                   int,                    \
                                   int,                    \
                                   const int*,             \
                                   const point_arrays<T>&, \
                                   const std::complex<T>*, \
                                   const std::complex<T>*, \
                                   const std::int64_t*,    \
                                   const kernel_spec&,     \
                                   std::complex<T>*,       \
                                   void*);

GPUFFT_NUFFT3_INTERP(float)
GPUFFT_NUFFT3_INTERP(double)

} // namespace nufft
} // namespace gpufft
} // namespace gr
