/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Checked CUDA runtime and cuFFT calls. Safe to include from .cu files (no GNU Radio).

#ifndef INCLUDED_GPUFFT_CUDA_CHECK_H
#define INCLUDED_GPUFFT_CUDA_CHECK_H

#include <cuda_runtime.h>
#include <cufft.h>
#include <cstddef>
#include <string>

namespace gr {
namespace gpufft {
namespace cuda {

//! Throws std::runtime_error naming the call, its location and CUDA's message.
[[noreturn]] void
throw_cuda_error(cudaError_t err, const char* call, const char* file, int line);
[[noreturn]] void
throw_cufft_error(cufftResult err, const char* call, const char* file, int line);
const char* cufft_error_name(cufftResult err);

/*!
 * A failed cudaMalloc (pinned: cudaMallocHost) of `bytes` for `what` (may be null):
 * out of memory becomes a detail::memory_error naming the size, `what` and the
 * device's free and total memory (the host's available memory for pinned); any other
 * error is throw_cuda_error's.
 */
[[noreturn]] void throw_allocation_error(cudaError_t err,
                                         std::size_t bytes,
                                         std::size_t count,
                                         std::size_t element_bytes,
                                         const char* what,
                                         bool pinned,
                                         const char* file,
                                         int line);

//! "device 0 has 1.2 GiB free of 79.6 GiB" for the current device ("" if unknown).
std::string device_memory_state();

} // namespace cuda
} // namespace gpufft
} // namespace gr

#define GPUFFT_CUDA_CHECK(call)                          \
    do {                                                 \
        cudaError_t gpufft_err_ = (call);                \
        if (gpufft_err_ != cudaSuccess)                  \
            ::gr::gpufft::cuda::throw_cuda_error(        \
                gpufft_err_, #call, __FILE__, __LINE__); \
    } while (0)

#define GPUFFT_CUFFT_CHECK(call)                         \
    do {                                                 \
        cufftResult gpufft_err_ = (call);                \
        if (gpufft_err_ != CUFFT_SUCCESS)                \
            ::gr::gpufft::cuda::throw_cufft_error(       \
                gpufft_err_, #call, __FILE__, __LINE__); \
    } while (0)

//! After a kernel launch: the launch configuration error, if any, becomes an exception.
#define GPUFFT_CUDA_CHECK_LAUNCH() GPUFFT_CUDA_CHECK(cudaGetLastError())

#endif /* INCLUDED_GPUFFT_CUDA_CHECK_H */
