/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The type-3 sum term by term on the GPU (nufft3_cuda_kernels.h, launch_direct_sum), the
// method a plan takes where it is cheaper than the grid or the grid does not fit; and
// the conversions of a single-precision plan whose grid is in double.
//
// One thread per target and group of up to direct_sum_vectors strength vectors; a block
// stages threads_per_block sources at a time in shared memory (coordinates, strengths in
// double) and every thread sums them for its target. Phases, their sines and the sums
// are in double whatever the plan's precision: a float sum of n terms of random phase
// rounds to about 6e-8 sqrt(n / 2) of its value (2e-6 at n = 3000), more than the eps a
// single-precision plan may ask.

#include "nufft/nufft3_cuda_device.cuh"
#include <algorithm>

namespace gr {
namespace gpufft {
namespace nufft {

namespace {

template <typename T>
__device__ inline double2 load_wide(const typename complex_of<T>::type& v)
{
    return make_double2(double(v.x), double(v.y));
}

template <typename T, int DIM, int NV>
__global__ void __launch_bounds__(threads_per_block)
    direct_sum_kernel(direct_sum_args a,
                      int ntransf,
                      const typename complex_of<T>::type* __restrict__ c,
                      typename complex_of<T>::type* __restrict__ F)
{
    using C = typename complex_of<T>::type;
    __shared__ double sx[DIM][threads_per_block];
    __shared__ double2 sc[NV][threads_per_block];

    const long long k = (long long)blockIdx.x * threads_per_block + threadIdx.x;
    const int v0 = blockIdx.y * NV;
    const int nv = min(NV, ntransf - v0);
    const bool active = k < a.n_tgt;
    double s[DIM];
    for (int d = 0; d < DIM; ++d)
        s[d] = active ? a.tgt[d][k] : 0.0;
    double2 acc[NV];
    for (int v = 0; v < NV; ++v)
        acc[v] = make_double2(0, 0);

    for (long long j0 = 0; j0 < a.n_src; j0 += threads_per_block) {
        const long long j = j0 + threadIdx.x;
        const int here = int(min((long long)threads_per_block, a.n_src - j0));
        __syncthreads(); // the last tile is read by every thread
        if (j < a.n_src) {
            for (int d = 0; d < DIM; ++d)
                sx[d][threadIdx.x] = a.src[d][j];
            for (int v = 0; v < NV; ++v)
                sc[v][threadIdx.x] =
                    v < nv ? load_wide<T>(c[(long long)(v0 + v) * a.n_src + j])
                           : make_double2(0, 0);
        }
        __syncthreads();
        if (active) {
            for (int i = 0; i < here; ++i) {
                double r = s[0] * sx[0][i];
                for (int d = 1; d < DIM; ++d)
                    r = fma(s[d], sx[d][i], r);
                double sn, cs;
                sincos(r, &sn, &cs);
                sn *= a.sign;
                for (int v = 0; v < NV; ++v) {
                    const double2 cv = sc[v][i];
                    acc[v].x = fma(cv.x, cs, fma(-cv.y, sn, acc[v].x));
                    acc[v].y = fma(cv.x, sn, fma(cv.y, cs, acc[v].y));
                }
            }
        }
    }
    if (!active)
        return;
    for (int v = 0; v < nv; ++v) {
        C out;
        out.x = (decltype(out.x))acc[v].x;
        out.y = (decltype(out.y))acc[v].y;
        F[(long long)(v0 + v) * a.n_tgt + k] = out;
    }
}

template <typename T, int DIM>
void launch_dim(const direct_sum_args& a,
                int ntransf,
                const typename complex_of<T>::type* c,
                typename complex_of<T>::type* F,
                cudaStream_t st)
{
    constexpr int NV = direct_sum_vectors;
    const dim3 grid(blocks_for(a.n_tgt), unsigned((ntransf + NV - 1) / NV));
    if (ntransf == 1)
        direct_sum_kernel<T, DIM, 1><<<grid.x, threads_per_block, 0, st>>>(a, 1, c, F);
    else
        direct_sum_kernel<T, DIM, NV>
            <<<grid, threads_per_block, 0, st>>>(a, ntransf, c, F);
    GPUFFT_CUDA_CHECK(cudaGetLastError());
}

__global__ void widen_kernel(const float2* in, double2* out, long long n)
{
    const long long i = (long long)blockIdx.x * threads_per_block + threadIdx.x;
    if (i < n)
        out[i] = make_double2(in[i].x, in[i].y);
}

__global__ void narrow_kernel(const double2* in, float2* out, long long n)
{
    const long long i = (long long)blockIdx.x * threads_per_block + threadIdx.x;
    if (i < n)
        out[i] = make_float2(float(in[i].x), float(in[i].y));
}

} // namespace

template <typename T>
void launch_direct_sum(const direct_sum_args& a,
                       int ntransf,
                       const std::complex<T>* c,
                       std::complex<T>* F,
                       void* stream)
{
    // One launch per at most 65535 groups of vectors (the grid's second axis).
    constexpr int per_launch = 65535 * direct_sum_vectors;
    for (int v0 = 0; v0 < ntransf; v0 += per_launch) {
        const int nv = std::min(per_launch, ntransf - v0);
        const auto* cv = device_complex(c + (long long)v0 * a.n_src);
        auto* Fv = device_complex(F + (long long)v0 * a.n_tgt);
        switch (a.dim) {
        case 1:
            launch_dim<T, 1>(a, nv, cv, Fv, as_stream(stream));
            break;
        case 2:
            launch_dim<T, 2>(a, nv, cv, Fv, as_stream(stream));
            break;
        default:
            launch_dim<T, 3>(a, nv, cv, Fv, as_stream(stream));
        }
    }
}

template void launch_direct_sum<float>(
    const direct_sum_args&, int, const std::complex<float>*, std::complex<float>*, void*);
template void launch_direct_sum<double>(const direct_sum_args&,
                                        int,
                                        const std::complex<double>*,
                                        std::complex<double>*,
                                        void*);

void launch_widen(const std::complex<float>* in,
                  std::complex<double>* out,
                  std::int64_t n,
                  void* stream)
{
    if (n <= 0)
        return;
    widen_kernel<<<blocks_for(n), threads_per_block, 0, as_stream(stream)>>>(
        device_complex(in), device_complex(out), n);
    GPUFFT_CUDA_CHECK(cudaGetLastError());
}

void launch_narrow(const std::complex<double>* in,
                   std::complex<float>* out,
                   std::int64_t n,
                   void* stream)
{
    if (n <= 0)
        return;
    narrow_kernel<<<blocks_for(n), threads_per_block, 0, as_stream(stream)>>>(
        device_complex(in), device_complex(out), n);
    GPUFFT_CUDA_CHECK(cudaGetLastError());
}

} // namespace nufft
} // namespace gpufft
} // namespace gr
