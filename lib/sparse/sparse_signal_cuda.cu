/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../cuda/cuda_resources.h"
#include "sparse_signal_cuda.h"
#include <gnuradio/gpufft/dense_fft_plan.h>

namespace gr {
namespace gpufft {
namespace detail {

namespace {
__global__ void scatter_kernel(const long long* bins, const float2* v, int k, float2* X)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < k)
        X[bins[i]] = v[i];
}
} // namespace

void make_sparse_signal_device(std::int64_t n,
                               const std::vector<std::int64_t>& bins,
                               const std::vector<std::complex<float>>& values,
                               std::complex<float>* x)
{
    const int k = int(bins.size());
    std::vector<float2> scaled(k);
    for (int i = 0; i < k; ++i)
        scaled[i] = make_float2(values[i].real() / float(n), values[i].imag() / float(n));
    cuda::device_buffer<long long> d_bins(k);
    cuda::device_buffer<float2> d_v(k);
    GPUFFT_CUDA_CHECK(cudaMemcpy(
        d_bins.get(), bins.data(), k * sizeof(long long), cudaMemcpyHostToDevice));
    GPUFFT_CUDA_CHECK(
        cudaMemcpy(d_v.get(), scaled.data(), k * sizeof(float2), cudaMemcpyHostToDevice));
    GPUFFT_CUDA_CHECK(cudaMemset(x, 0, std::size_t(n) * sizeof(float2)));
    scatter_kernel<<<(k + 255) / 256, 256>>>(
        d_bins.get(), d_v.get(), k, reinterpret_cast<float2*>(x));
    GPUFFT_CUDA_CHECK_LAUNCH();
    int dev = 0;
    GPUFFT_CUDA_CHECK(cudaGetDevice(&dev));
    dense_fft_options o;
    o.backend = backend::cuda;
    o.device_id = dev;
    dense_fft_plan inv(n, 1, direction::backward, o);
    GPUFFT_CUDA_CHECK(cudaDeviceSynchronize());
    inv.execute(x, x, memory::device);
}

} // namespace detail
} // namespace gpufft
} // namespace gr
