/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "cuda/cuda_check.h"
#include "cuda/grid.h"
#include "cuda/sample_convert_kernels.h"
#include <cuda_runtime.h>

namespace gr {
namespace gpufft {
namespace cuda {

namespace {

// One sample per thread and step: its two numbers are read as one 2-, 4- or 8-byte
// word (pair), so a warp reads contiguous memory.
template <typename T, typename Pair>
__global__ void convert_iq_kernel(const Pair* __restrict__ in,
                                  float2* __restrict__ out,
                                  long long n,
                                  float scale,
                                  float offset)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        const Pair p = in[i];
        const T* v = reinterpret_cast<const T*>(&p);
        out[i] =
            make_float2((float(v[0]) - offset) * scale, (float(v[1]) - offset) * scale);
    }
}

template <typename T, typename Pair>
void launch(const void* in,
            std::complex<float>* out,
            std::int64_t n,
            float scale,
            float offset,
            cudaStream_t s)
{
    constexpr int threads = 256;
    convert_iq_kernel<T, Pair><<<grid_blocks(n, threads), threads, 0, s>>>(
        static_cast<const Pair*>(in), reinterpret_cast<float2*>(out), n, scale, offset);
    GPUFFT_CUDA_CHECK(cudaGetLastError());
}

} // namespace

void launch_convert_iq(iq_integer type,
                       const void* in,
                       std::complex<float>* out,
                       std::int64_t n,
                       float scale,
                       float offset,
                       void* stream)
{
    if (n <= 0)
        return;
    const auto s = static_cast<cudaStream_t>(stream);
    switch (type) {
    case iq_integer::int16:
        launch<short, short2>(in, out, n, scale, offset, s);
        return;
    case iq_integer::int8:
        launch<signed char, char2>(in, out, n, scale, offset, s);
        return;
    case iq_integer::uint8:
        launch<unsigned char, uchar2>(in, out, n, scale, offset, s);
        return;
    }
}

} // namespace cuda
} // namespace gpufft
} // namespace gr
