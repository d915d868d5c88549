/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_DENSE_FFT_PLAN_H
#define INCLUDED_GPUFFT_DENSE_FFT_PLAN_H

#include <gnuradio/gpufft/api.h>
#include <gnuradio/gpufft/backend.h>
#include <gnuradio/gpufft/log.h>
#include <complex>
#include <cstdint>
#include <memory>

namespace gr {
namespace gpufft {

struct dense_fft_options {
    gpufft::backend backend = backend::automatic;
    int device_id = 0;
    gpufft::precision precision = precision::single;
    //! CPU threads for FFTW; 0 uses every hardware thread.
    int threads = 0;
    //! Distance in elements between consecutive samples of one transform.
    std::int64_t stride = 1;
    //! Distance in elements between the first samples of consecutive transforms;
    //! 0 means n * stride (transforms one after the other).
    std::int64_t distance = 0;
    //! Where the plan's messages go (gnuradio/gpufft/log.h); empty: stderr.
    gpufft::log_handler log;
};

/*!
 * Batched 1-D complex FFT: `batch` transforms of length `n`, unnormalized in both
 * directions (FFTW's convention: forward X[f] = sum_t x[t] exp(-2 pi i f t / n)).
 *
 * The component every engine uses for its inner FFTs. CPU: FFTW with threads. CUDA:
 * cuFFT with 64-bit plans; cuFFT handles are pooled per process, so making the same
 * plan twice does not pay cuFFT's planning cost again.
 *
 * execute() takes host or device arrays (device arrays need the CUDA backend) and may
 * run in place (in == out). It allocates nothing after the first call.
 */
class GPUFFT_API dense_fft_plan
{
public:
    dense_fft_plan(std::int64_t n,
                   std::int64_t batch = 1,
                   gpufft::direction dir = direction::forward,
                   const dense_fft_options& options = dense_fft_options());
    ~dense_fft_plan();
    dense_fft_plan(dense_fft_plan&&) noexcept;
    dense_fft_plan& operator=(dense_fft_plan&&) noexcept;
    dense_fft_plan(const dense_fft_plan&) = delete;
    dense_fft_plan& operator=(const dense_fft_plan&) = delete;

    //! Blocking transform; the plan's precision must be single.
    void execute(const std::complex<float>* in,
                 std::complex<float>* out,
                 memory where = memory::host);
    //! Blocking transform; the plan's precision must be double.
    void execute(const std::complex<double>* in,
                 std::complex<double>* out,
                 memory where = memory::host);

    /*!
     * CUDA backend only: enqueue the transform of device arrays on `cuda_stream` (a
     * cudaStream_t; nullptr is the legacy default stream) and return at once. This is
     * what engines call between their own kernels; it can be captured in a CUDA graph.
     */
    void execute_async(const void* in, void* out, void* cuda_stream);

    std::int64_t size() const;
    std::int64_t batch() const;
    gpufft::direction direction() const;
    gpufft::precision precision() const;
    //! The backend in use (never `automatic`).
    gpufft::backend backend() const;
    int device_id() const;
    //! Elements an input or output array must hold: (batch-1)*distance + (n-1)*stride
    //! + 1.
    std::int64_t extent() const;

    class impl;

private:
    std::unique_ptr<impl> d_impl;
};

} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_DENSE_FFT_PLAN_H */
