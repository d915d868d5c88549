/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "cuda/cuda_resources.h"
#include "sparse/common/sparse_signal_cuda.h"
#include <gnuradio/gpufft/dense_fft_plan.h>
#include <algorithm>
#include <cmath>
#include <map>

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
__device__ unsigned long long mix64(unsigned long long z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// x[t] = noise (Box-Muller on a counter hash), then tones are added group by group.
__global__ void
noise_kernel(long long n, double sigma, unsigned long long seed, float2* x)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        const unsigned long long a = mix64(seed + 2 * (unsigned long long)i + 1);
        const unsigned long long b = mix64(seed ^ (0x9E3779B97F4A7C15ull * (i + 7)));
        const double u1 = (double(a >> 11) + 0.5) * 0x1p-53;
        const double u2 = double(b >> 11) * 0x1p-53;
        const double r = sigma * sqrt(-2.0 * ::log(u1));
        double s, c;
        sincospi(2.0 * u2, &s, &c);
        x[i] = make_float2(float(r * c), float(r * s));
    }
}

// x[t] += y[t] exp(2 pi i d t / n)
__global__ void shift_add_kernel(long long n, double d, const float2* y, float2* x)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        double s, c;
        sincospi(2.0 * d * (double(i) / double(n)), &s, &c);
        const float2 v = y[i];
        x[i].x += float(v.x * c - v.y * s);
        x[i].y += float(v.x * s + v.y * c);
    }
}

} // namespace

void make_noisy_tones_device(std::int64_t n,
                             const std::vector<double>& freqs,
                             const std::vector<std::complex<double>>& amps,
                             double noise_var,
                             std::uint64_t seed,
                             std::complex<float>* x)
{
    float2* out = reinterpret_cast<float2*>(x);
    const unsigned grid = unsigned(std::min<long long>(4096, (n + 255) / 256));
    noise_kernel<<<grid, 256>>>(n, std::sqrt(noise_var / 2), seed, out);
    GPUFFT_CUDA_CHECK_LAUNCH();
    // Group the tones by fractional offset.
    std::vector<std::pair<double, std::size_t>> order;
    for (std::size_t j = 0; j < freqs.size(); ++j)
        order.emplace_back(freqs[j] - std::floor(freqs[j]), j);
    std::sort(order.begin(), order.end());
    cuda::device_buffer<float2> y(n);
    for (std::size_t a = 0; a < order.size();) {
        std::size_t b = a;
        std::vector<std::int64_t> bins;
        std::vector<std::complex<float>> values;
        // Tones of a group that share a bin add up there: the scatter writes each bin
        // once (two writes to one element left either tone, the other lost, and which
        // one changed from run to run).
        std::map<std::int64_t, std::complex<double>> group;
        for (; b < order.size() && order[b].first == order[a].first; ++b) {
            const std::size_t j = order[b].second;
            group[std::int64_t(std::floor(freqs[j])) % n] += amps[j];
        }
        for (const auto& [bin, value] : group) {
            bins.push_back(bin);
            values.push_back(std::complex<float>(value));
        }
        make_sparse_signal_device(
            n, bins, values, reinterpret_cast<std::complex<float>*>(y.get()));
        shift_add_kernel<<<grid, 256>>>(n, order[a].first, y.get(), out);
        GPUFFT_CUDA_CHECK_LAUNCH();
        a = b;
    }
    GPUFFT_CUDA_CHECK(cudaDeviceSynchronize());
}

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
