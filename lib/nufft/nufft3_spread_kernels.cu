/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Spreading of the type-3 NUFFT (nufft3_cuda_kernels.h): one block per subproblem
// spreads its sources into a shared-memory tile (shared atomics only), then adds the
// tile, pre-corrected, into the grid (one global atomic per non-zero tile cell).

#include "nufft3_cuda_device.cuh"

namespace gr {
namespace gpufft {
namespace nufft {

namespace {

template <typename T>
__device__ __forceinline__ void atomic_add(typename complex_of<T>::type* p,
                                           typename complex_of<T>::type v)
{
    atomicAdd(&p->x, v.x);
    atomicAdd(&p->y, v.y);
}

//! One block per subproblem: spread into a shared tile, then add it to the grid.
template <typename T, int DIM, int MAXW>
__global__ void spread_kernel(spread_args a,
                              const T* z0x,
                              const T* z0y,
                              const typename complex_of<T>::type* c,
                              const typename complex_of<T>::type* prephase,
                              const T* precorr0,
                              const T* precorr1,
                              kernel_spec ker,
                              typename complex_of<T>::type* grid)
{
    using C = typename complex_of<T>::type;
    extern __shared__ unsigned char smem_raw[];
    C* tile = reinterpret_cast<C*>(smem_raw);
    const int sub = blockIdx.x;
    if (sub >= *a.sub_total)
        return;
    const int b = a.sub_bin[sub];
    const int begin = a.bin_start[b] + a.sub_offset[sub];
    const int count = min(max_subproblem, a.bin_count[b] - a.sub_offset[sub]);
    const int W = a.taps;
    const int bx = DIM == 2 ? b % a.nbins0 : b;
    const int by = DIM == 2 ? b / a.nbins0 : 0;
    const int ox = bx * a.bin[0], oy = by * a.bin[1];
    const int tx = a.bin[0] + W - 1, ty = DIM == 2 ? a.bin[1] + W - 1 : 1;
    for (int i = threadIdx.x; i < tx * ty; i += blockDim.x)
        tile[i] = C{ 0, 0 };
    __syncthreads();

    for (int i = threadIdx.x; i < count; i += blockDim.x) {
        const int pos = begin + i;
        C v = c[a.perm[pos]];
        if (prephase) {
            const C p = prephase[pos];
            v = C{ v.x * p.x - v.y * p.y, v.x * p.y + v.y * p.x };
        }
        T kx[MAXW];
        const T zx = z0x[pos];
#pragma unroll
        for (int q = 0; q < MAXW; ++q)
            if (q < W)
                kx[q] = kernel_value<T>(ker, zx + T(q));
        const int lx = a.first[0][pos] - ox;
        if (DIM == 1) {
#pragma unroll
            for (int q = 0; q < MAXW; ++q)
                if (q < W)
                    atomic_add<T>(tile + lx + q, C{ v.x * kx[q], v.y * kx[q] });
        } else {
            const T zy = z0y[pos];
            const int ly = a.first[1][pos] - oy;
            for (int r = 0; r < W; ++r) {
                const T ky = kernel_value<T>(ker, zy + T(r));
                const C vr{ v.x * ky, v.y * ky };
                C* row = tile + (ly + r) * tx + lx;
#pragma unroll
                for (int q = 0; q < MAXW; ++q)
                    if (q < W)
                        atomic_add<T>(row + q, C{ vr.x * kx[q], vr.y * kx[q] });
            }
        }
    }
    __syncthreads();

    for (int i = threadIdx.x; i < tx * ty; i += blockDim.x) {
        const C v = tile[i];
        if (v.x == T(0) && v.y == T(0))
            continue;
        const long long gx = ox + i % tx, gy = oy + i / tx;
        if (gx >= a.cells[0] || gy >= a.cells[1])
            continue; // only zeros live past the grid's edge
        T corr = precorr0[gx];
        if (DIM == 2)
            corr *= precorr1[gy];
        atomic_add<T>(grid + gy * a.cells[0] + gx, C{ v.x * corr, v.y * corr });
    }
}

template <typename T, int DIM, int MAXW>
void spread_with(const spread_args& a,
                 unsigned blocks,
                 std::size_t tile_bytes,
                 const T* z0x,
                 const T* z0y,
                 const std::complex<T>* c,
                 const std::complex<T>* prephase,
                 const T* precorr0,
                 const T* precorr1,
                 const kernel_spec& ker,
                 std::complex<T>* grid,
                 cudaStream_t st)
{
    auto fn = spread_kernel<T, DIM, MAXW>;
    if (tile_bytes > 48 * 1024)
        GPUFFT_CUDA_CHECK(cudaFuncSetAttribute(
            fn, cudaFuncAttributeMaxDynamicSharedMemorySize, int(tile_bytes)));
    fn<<<blocks, threads_per_block, tile_bytes, st>>>(a,
                                                      z0x,
                                                      z0y,
                                                      device_complex(c),
                                                      device_complex(prephase),
                                                      precorr0,
                                                      precorr1,
                                                      ker,
                                                      device_complex(grid));
    GPUFFT_CUDA_CHECK_LAUNCH();
}

} // namespace

template <typename T>
void launch_spread(const spread_args& a,
                   int dim,
                   unsigned blocks,
                   std::size_t tile_bytes,
                   const T* z0x,
                   const T* z0y,
                   const std::complex<T>* c,
                   const std::complex<T>* prephase,
                   const T* precorr0,
                   const T* precorr1,
                   const kernel_spec& ker,
                   std::complex<T>* grid,
                   void* stream)
{
    // Tap counts are compile-time bounds so the tap loops unroll into registers.
    const int W = ker.taps;
    const cudaStream_t st = as_stream(stream);
    if (dim == 1) {
        auto f = W <= 8    ? spread_with<T, 1, 8>
                 : W <= 16 ? spread_with<T, 1, 16>
                           : spread_with<T, 1, max_taps>;
        f(a,
          blocks,
          tile_bytes,
          z0x,
          nullptr,
          c,
          prephase,
          precorr0,
          nullptr,
          ker,
          grid,
          st);
    } else {
        auto f = W <= 8    ? spread_with<T, 2, 8>
                 : W <= 16 ? spread_with<T, 2, 16>
                           : spread_with<T, 2, max_taps>;
        f(a,
          blocks,
          tile_bytes,
          z0x,
          z0y,
          c,
          prephase,
          precorr0,
          precorr1,
          ker,
          grid,
          st);
    }
}

template void launch_spread<float>(const spread_args&,
                                   int,
                                   unsigned,
                                   std::size_t,
                                   const float*,
                                   const float*,
                                   const std::complex<float>*,
                                   const std::complex<float>*,
                                   const float*,
                                   const float*,
                                   const kernel_spec&,
                                   std::complex<float>*,
                                   void*);
template void launch_spread<double>(const spread_args&,
                                    int,
                                    unsigned,
                                    std::size_t,
                                    const double*,
                                    const double*,
                                    const std::complex<double>*,
                                    const std::complex<double>*,
                                    const double*,
                                    const double*,
                                    const kernel_spec&,
                                    std::complex<double>*,
                                    void*);

} // namespace nufft
} // namespace gpufft
} // namespace gr
