/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Integer I/Q to complex float on the GPU, behind a CUDA-free launch function: the
// blocks copy a radio's 2 or 4 bytes a sample across PCIe, not 8, and convert there.

#ifndef INCLUDED_GPUFFT_CUDA_SAMPLE_CONVERT_KERNELS_H
#define INCLUDED_GPUFFT_CUDA_SAMPLE_CONVERT_KERNELS_H

#include <complex>
#include <cstdint>

namespace gr {
namespace gpufft {
namespace cuda {

//! The stored number of an interleaved integer I/Q sample.
enum class iq_integer { int16, int8, uint8 };

/*!
 * Enqueues on `stream` (a cudaStream_t): out[i] = ((in[2i] - offset) * scale,
 * (in[2i+1] - offset) * scale) for n samples; `in` and `out` device arrays of the
 * current device. The scale and offset are the caller's (stream/sample_format.h owns
 * them).
 */
void launch_convert_iq(iq_integer type,
                       const void* in,
                       std::complex<float>* out,
                       std::int64_t n,
                       float scale,
                       float offset,
                       void* stream);

} // namespace cuda
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_CUDA_SAMPLE_CONVERT_KERNELS_H */
