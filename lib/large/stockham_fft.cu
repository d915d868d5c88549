/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The Stockham stages of stockham.h as CUDA kernels: one thread per butterfly, every
// load and store with the evict-first hint (why: stockham.h).

#include "cuda/cuda_check.h"
#include "cuda/grid.h"
#include "large/large_fft_kernels.h"
#include "large/stockham.h"
#include <stdexcept>
#include <utility>

namespace gr {
namespace gpufft {
namespace detail {

namespace {

using i64 = std::int64_t;

template <typename T, typename V, int R>
__global__ void stockham_kernel(const V* in, V* out, i64 n, i64 total, i64 ns, int sign)
{
    const i64 m = n / R;
    for (i64 t = blockIdx.x * i64(blockDim.x) + threadIdx.x; t < total;
         t += i64(gridDim.x) * blockDim.x) {
        const i64 b = t / m, j = t - b * m;
        const V* x = in + b * n;
        V* y = out + b * n;
        stockham_butterfly<T, R>(
            j,
            n,
            ns,
            sign,
            [x](i64 i) {
                const V v = __ldcs(x + i);
                return xy<T>{ v.x, v.y };
            },
            [y](i64 i, xy<T> v) {
                V o;
                o.x = v.x;
                o.y = v.y;
                __stcs(y + i, o);
            });
    }
}

template <typename T, typename V>
void launch_stage(
    const void* in, void* out, i64 n, i64 batch, i64 ns, int radix, int sign, void* st)
{
    const i64 total = batch * (n / radix);
    const int block = 256;
    const int grid = cuda::grid_blocks(total, block);
    auto s = static_cast<cudaStream_t>(st);
    auto x = static_cast<const V*>(in);
    auto y = static_cast<V*>(out);
    with_radix(radix, [&](auto R) {
        stockham_kernel<T, V, decltype(R)::value>
            <<<grid, block, 0, s>>>(x, y, n, total, ns, sign);
    });
    GPUFFT_CUDA_CHECK_LAUNCH();
}

} // namespace

void launch_stockham_fft(
    void* data, void* scratch, bool dbl, i64 n, i64 batch, int sign, void* stream)
{
    if (!stockham_supports(n))
        throw std::invalid_argument(
            "launch_stockham_fft: n must be a power of two from 2 to 2^24");
    if (batch <= 0)
        return;
    void *src = data, *dst = scratch;
    i64 ns = 1;
    for (const int radix : stockham_radices(n)) {
        if (dbl)
            launch_stage<double, double2>(src, dst, n, batch, ns, radix, sign, stream);
        else
            launch_stage<float, float2>(src, dst, n, batch, ns, radix, sign, stream);
        ns *= radix;
        std::swap(src, dst);
    }
}

} // namespace detail
} // namespace gpufft
} // namespace gr
