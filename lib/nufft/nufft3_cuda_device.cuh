/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// What the type-3 NUFFT's kernel files share (nvcc only): the complex type per
// precision, the launch shape and the cast from the launchers' std::complex arrays.

#ifndef INCLUDED_GPUFFT_NUFFT3_CUDA_DEVICE_CUH
#define INCLUDED_GPUFFT_NUFFT3_CUDA_DEVICE_CUH

#include "cuda/cuda_check.h"
#include "nufft/nufft3_cuda_kernels.h"
#include <cuda_runtime.h>
#include <complex>

namespace gr {
namespace gpufft {
namespace nufft {

template <typename T>
struct complex_of;
template <>
struct complex_of<float> {
    using type = float2;
};
template <>
struct complex_of<double> {
    using type = double2;
};

static_assert(sizeof(std::complex<float>) == sizeof(float2) &&
                  sizeof(std::complex<double>) == sizeof(double2),
              "complex arrays are passed to the kernels as float2 / double2");

//! The kernels' view of a complex array: two T per element, real first, like float2.
template <typename T>
typename complex_of<T>::type* device_complex(std::complex<T>* p)
{
    return reinterpret_cast<typename complex_of<T>::type*>(p);
}
template <typename T>
const typename complex_of<T>::type* device_complex(const std::complex<T>* p)
{
    return reinterpret_cast<const typename complex_of<T>::type*>(p);
}

inline unsigned blocks_for(long long n, int per = threads_per_block)
{
    return unsigned((n + per - 1) / per);
}

inline cudaStream_t as_stream(void* s) { return static_cast<cudaStream_t>(s); }

} // namespace nufft
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_NUFFT3_CUDA_DEVICE_CUH */
