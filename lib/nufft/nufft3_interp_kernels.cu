/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Interpolation of the type-3 NUFFT (nufft3_cuda_kernels.h): one thread per target sums
// the kernel-weighted grid cells around it and applies the target's correction.

#include "nufft3_cuda_device.cuh"

namespace gr {
namespace gpufft {
namespace nufft {

namespace {

__device__ __forceinline__ long long wrap(long long m, long long M)
{
    return m < 0 ? m + M : (m >= M ? m - M : m);
}

//! One thread per target: kernel-weighted sum of grid cells, times the correction.
template <typename T, int DIM, int MAXW>
__global__ void interp_kernel(long long n,
                              const int* first0,
                              const int* first1,
                              const T* z00,
                              const T* z01,
                              const typename complex_of<T>::type* post,
                              const typename complex_of<T>::type* grid,
                              long long M0,
                              long long M1,
                              int W,
                              kernel_spec ker,
                              typename complex_of<T>::type* out)
{
    using C = typename complex_of<T>::type;
    const long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    T kx[MAXW];
    const T zx = z00[k];
#pragma unroll
    for (int q = 0; q < MAXW; ++q)
        if (q < W)
            kx[q] = kernel_value<T>(ker, zx + T(q));
    const long long f0 = first0[k];
    // Grid index p = n + M/2 puts a factor (-1)^m on FFT output m: folded in the weights.
    T ax = 0, ay = 0;
    if (DIM == 1) {
#pragma unroll
        for (int q = 0; q < MAXW; ++q)
            if (q < W) {
                const long long m = f0 + q;
                const C g = grid[wrap(m, M0)];
                const T w = (m & 1) ? -kx[q] : kx[q];
                ax += w * g.x;
                ay += w * g.y;
            }
    } else {
        const T zy = z01[k];
        const long long f1 = first1[k];
        for (int r = 0; r < W; ++r) {
            const long long m1 = f1 + r;
            const T ky = kernel_value<T>(ker, zy + T(r));
            const C* row = grid + wrap(m1, M1) * M0;
            T rx = 0, ry = 0;
#pragma unroll
            for (int q = 0; q < MAXW; ++q)
                if (q < W) {
                    const long long m0 = f0 + q;
                    const C g = row[wrap(m0, M0)];
                    const T w = ((m0 + m1) & 1) ? -kx[q] : kx[q];
                    rx += w * g.x;
                    ry += w * g.y;
                }
            ax += ky * rx;
            ay += ky * ry;
        }
    }
    const C p = post[k];
    out[k] = C{ ax * p.x - ay * p.y, ax * p.y + ay * p.x };
}

template <typename T, int DIM, int MAXW>
void interp_with(std::int64_t n,
                 const int* first0,
                 const int* first1,
                 const T* z00,
                 const T* z01,
                 const std::complex<T>* post,
                 const std::complex<T>* grid,
                 std::int64_t M0,
                 std::int64_t M1,
                 const kernel_spec& ker,
                 std::complex<T>* out,
                 cudaStream_t st)
{
    interp_kernel<T, DIM, MAXW><<<blocks_for(n, 128), 128, 0, st>>>(n,
                                                                    first0,
                                                                    first1,
                                                                    z00,
                                                                    z01,
                                                                    device_complex(post),
                                                                    device_complex(grid),
                                                                    M0,
                                                                    M1,
                                                                    ker.taps,
                                                                    ker,
                                                                    device_complex(out));
    GPUFFT_CUDA_CHECK_LAUNCH();
}

} // namespace

template <typename T>
void launch_interp(std::int64_t n,
                   int dim,
                   const int* first0,
                   const int* first1,
                   const T* z00,
                   const T* z01,
                   const std::complex<T>* post,
                   const std::complex<T>* grid,
                   std::int64_t M0,
                   std::int64_t M1,
                   const kernel_spec& ker,
                   std::complex<T>* out,
                   void* stream)
{
    // Tap counts are compile-time bounds so the tap loops unroll into registers.
    const int W = ker.taps;
    const cudaStream_t st = as_stream(stream);
    if (dim == 1) {
        auto f = W <= 8    ? interp_with<T, 1, 8>
                 : W <= 16 ? interp_with<T, 1, 16>
                           : interp_with<T, 1, max_taps>;
        f(n, first0, nullptr, z00, nullptr, post, grid, M0, 1, ker, out, st);
    } else {
        auto f = W <= 8    ? interp_with<T, 2, 8>
                 : W <= 16 ? interp_with<T, 2, 16>
                           : interp_with<T, 2, max_taps>;
        f(n, first0, first1, z00, z01, post, grid, M0, M1, ker, out, st);
    }
}

template void launch_interp<float>(std::int64_t,
                                   int,
                                   const int*,
                                   const int*,
                                   const float*,
                                   const float*,
                                   const std::complex<float>*,
                                   const std::complex<float>*,
                                   std::int64_t,
                                   std::int64_t,
                                   const kernel_spec&,
                                   std::complex<float>*,
                                   void*);
template void launch_interp<double>(std::int64_t,
                                    int,
                                    const int*,
                                    const int*,
                                    const double*,
                                    const double*,
                                    const std::complex<double>*,
                                    const std::complex<double>*,
                                    std::int64_t,
                                    std::int64_t,
                                    const kernel_spec&,
                                    std::complex<double>*,
                                    void*);

} // namespace nufft
} // namespace gpufft
} // namespace gr
