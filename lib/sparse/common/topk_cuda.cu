/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "cuda/cuda_resources.h"
#include "sparse/common/sparse_common.h"
#include "sparse/common/topk_cuda.h"
#include <algorithm>
#include <numeric>

namespace gr {
namespace gpufft {
namespace detail {

namespace {

constexpr int bins_per_pass = 4096; // 12 bits
constexpr int slack = 4096;         // candidates kept beyond k (ties in the last 8 bits)

struct select_state {
    unsigned int prefix; // bits 31..20 of the threshold key (pass 1 result)
    int need;            // how many of the k lie in the prefix's bin
    unsigned int threshold;
    int count;
    int bad;
};

__device__ __forceinline__ unsigned int key_of(float2 v, bool& finite)
{
    const float m = v.x * v.x + v.y * v.y;
    finite = isfinite(m);
    return __float_as_uint(finite ? m : 0.f);
}

template <int pass>
__global__ void histogram_kernel(const float2* __restrict__ X,
                                 long long n,
                                 unsigned int* hist,
                                 select_state* st)
{
    __shared__ unsigned int h[bins_per_pass];
    for (int i = threadIdx.x; i < bins_per_pass; i += blockDim.x)
        h[i] = 0;
    __syncthreads();
    const unsigned int prefix = pass == 2 ? st->prefix : 0;
    bool any_bad = false;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        bool finite;
        const unsigned int key = key_of(X[i], finite);
        any_bad |= !finite;
        if (pass == 1)
            atomicAdd(&h[key >> 20], 1u);
        else if ((key >> 20) == prefix)
            atomicAdd(&h[(key >> 8) & 0xFFF], 1u);
    }
    if (pass == 1 && any_bad)
        st->bad = 1;
    __syncthreads();
    for (int i = threadIdx.x; i < bins_per_pass; i += blockDim.x)
        if (h[i])
            atomicAdd(&hist[i], h[i]);
}

// One thread: walk the histogram from the top until k are covered.
template <int pass>
__global__ void find_kernel(const unsigned int* hist, select_state* st, int k)
{
    int need = pass == 1 ? k : st->need;
    int b = bins_per_pass - 1;
    for (; b > 0; --b) {
        if (int(hist[b]) >= need)
            break;
        need -= int(hist[b]);
    }
    if (pass == 1) {
        st->prefix = unsigned(b);
        st->need = need;
    } else {
        st->threshold = (st->prefix << 20) | (unsigned(b) << 8);
    }
}

__global__ void compact_kernel(const float2* __restrict__ X,
                               long long n,
                               select_state* st,
                               int capacity,
                               long long* out_i,
                               float2* out_x)
{
    const unsigned int thr = st->threshold;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        const float2 v = X[i];
        bool finite;
        if (key_of(v, finite) >= thr) {
            const int at = atomicAdd(&st->count, 1);
            if (at < capacity) {
                out_i[at] = i;
                out_x[at] = v;
            }
        }
    }
}

} // namespace

struct device_topk::state {
    long long n = 0, k = 0;
    int capacity = 0;
    int grid = 0;
    cuda::device_buffer<unsigned int> hist;
    cuda::device_buffer<select_state> st;
    cuda::device_buffer<long long> cand_i;
    cuda::device_buffer<float2> cand_x;
    cuda::pinned_buffer<select_state> h_st;
    cuda::pinned_buffer<long long> h_i;
    cuda::pinned_buffer<float2> h_x;
    std::vector<int> order;
};

device_topk::device_topk(std::int64_t n, std::int64_t k) : d(std::make_unique<state>())
{
    d->n = n;
    d->k = k;
    d->capacity = int(std::min<std::int64_t>(n, k + slack));
    int dev = 0, sms = 0;
    GPUFFT_CUDA_CHECK(cudaGetDevice(&dev));
    GPUFFT_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    d->grid =
        int(std::max<long long>(1, std::min<long long>(4LL * sms, (n + 255) / 256)));
    d->hist.allocate(2 * bins_per_pass);
    d->st.allocate(1);
    d->cand_i.allocate(d->capacity);
    d->cand_x.allocate(d->capacity);
    d->h_st.allocate(1);
    d->h_i.allocate(d->capacity);
    d->h_x.allocate(d->capacity);
    d->order.resize(d->capacity);
}

device_topk::~device_topk() = default;

namespace {
__global__ void power_sum_kernel(const float2* __restrict__ X, long long n, double* out)
{
    double s = 0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        const float2 v = X[i];
        s += double(v.x) * v.x + double(v.y) * v.y;
    }
    for (int off = 16; off > 0; off >>= 1)
        s += __shfl_down_sync(0xffffffffu, s, off);
    __shared__ double warp_sum[32];
    if ((threadIdx.x & 31) == 0)
        warp_sum[threadIdx.x >> 5] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        double t = 0;
        for (unsigned w = 0; w < (blockDim.x + 31) / 32; ++w)
            t += warp_sum[w];
        atomicAdd(out, t);
    }
}
} // namespace

void launch_power_sum(const std::complex<float>* X,
                      std::int64_t n,
                      double* energy,
                      void* stream)
{
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    GPUFFT_CUDA_CHECK(cudaMemsetAsync(energy, 0, sizeof(double), s));
    const long long blocks = std::min<long long>((n + 255) / 256, 1024);
    power_sum_kernel<<<unsigned(blocks), 256, 0, s>>>(
        reinterpret_cast<const float2*>(X), n, energy);
    GPUFFT_CUDA_CHECK_LAUNCH();
}

void device_topk::enqueue(const std::complex<float>* X, void* stream)
{
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    const float2* x = reinterpret_cast<const float2*>(X);
    GPUFFT_CUDA_CHECK(cudaMemsetAsync(d->hist.get(), 0, d->hist.bytes(), s));
    GPUFFT_CUDA_CHECK(cudaMemsetAsync(d->st.get(), 0, d->st.bytes(), s));
    histogram_kernel<1><<<d->grid, 256, 0, s>>>(x, d->n, d->hist.get(), d->st.get());
    GPUFFT_CUDA_CHECK_LAUNCH();
    find_kernel<1><<<1, 1, 0, s>>>(d->hist.get(), d->st.get(), int(d->k));
    GPUFFT_CUDA_CHECK_LAUNCH();
    histogram_kernel<2>
        <<<d->grid, 256, 0, s>>>(x, d->n, d->hist.get() + bins_per_pass, d->st.get());
    GPUFFT_CUDA_CHECK_LAUNCH();
    find_kernel<2><<<1, 1, 0, s>>>(d->hist.get() + bins_per_pass, d->st.get(), int(d->k));
    GPUFFT_CUDA_CHECK_LAUNCH();
    compact_kernel<<<d->grid, 256, 0, s>>>(
        x, d->n, d->st.get(), d->capacity, d->cand_i.get(), d->cand_x.get());
    GPUFFT_CUDA_CHECK_LAUNCH();
    GPUFFT_CUDA_CHECK(cudaMemcpyAsync(
        d->h_st.get(), d->st.get(), sizeof(select_state), cudaMemcpyDeviceToHost, s));
    GPUFFT_CUDA_CHECK(cudaMemcpyAsync(
        d->h_i.get(), d->cand_i.get(), d->cand_i.bytes(), cudaMemcpyDeviceToHost, s));
    GPUFFT_CUDA_CHECK(cudaMemcpyAsync(
        d->h_x.get(), d->cand_x.get(), d->cand_x.bytes(), cudaMemcpyDeviceToHost, s));
}

void device_topk::result(std::vector<std::int64_t>& bins,
                         std::vector<std::complex<float>>& values)
{
    if (d->h_st[0].bad)
        throw_non_finite();
    const int count = std::min(d->h_st[0].count, d->capacity);
    bins.resize(count);
    values.resize(count);
    for (int i = 0; i < count; ++i) {
        bins[i] = d->h_i[i];
        values[i] = std::complex<float>(d->h_x[i].x, d->h_x[i].y);
    }
    keep_top_k_sorted(d->k, bins, values);
}

} // namespace detail
} // namespace gpufft
} // namespace gr
