/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_DENSE_FFT_BACKEND_H
#define INCLUDED_GPUFFT_DENSE_FFT_BACKEND_H

#include <gnuradio/gpufft/backend.h>
#include <cstdint>
#include <memory>

namespace gr {
namespace gpufft {
namespace detail {

//! A validated dense FFT request (see dense_fft_plan for the meaning of each field).
struct dense_fft_config {
    std::int64_t n = 0;
    std::int64_t batch = 1;
    std::int64_t stride = 1;
    std::int64_t distance = 0; // never 0 here: resolved by the plan
    direction dir = direction::forward;
    precision prec = precision::single;
    int device_id = 0; // resolved
    int threads = 1;   // resolved
    std::int64_t extent() const { return (batch - 1) * distance + (n - 1) * stride + 1; }
};

//! One backend's dense FFT; arrays are complex<float> or complex<double> per `prec`.
class dense_fft_backend
{
public:
    virtual ~dense_fft_backend() = default;
    virtual void execute(const void* in, void* out, memory where) = 0;
    virtual void execute_async(const void* in, void* out, void* cuda_stream) = 0;
};

std::unique_ptr<dense_fft_backend> make_dense_fft_cpu(const dense_fft_config& cfg);
#ifdef GPUFFT_HAVE_CUDA
std::unique_ptr<dense_fft_backend> make_dense_fft_cuda(const dense_fft_config& cfg);
#endif

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_DENSE_FFT_BACKEND_H */
