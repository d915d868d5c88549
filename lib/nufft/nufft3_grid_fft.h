/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The FFT of the type-3 NUFFT's fine grids: `batch` grids of dim axes (axis 0 fastest)
// one after the other, transformed in place by one multi-dimensional plan (FFTW's guru
// interface on the CPU, cuFFT's plan-many on the GPU), so a batch of strength vectors
// costs one call and the 2D/3D axes need no strided 1-D passes.

#ifndef INCLUDED_GPUFFT_NUFFT3_GRID_FFT_H
#define INCLUDED_GPUFFT_NUFFT3_GRID_FFT_H

#include <gnuradio/gpufft/backend.h>
#include <cstdint>
#include <memory>

namespace gr {
namespace gpufft {
namespace nufft {

struct grid_fft_shape {
    int dim = 1;
    std::int64_t cells[3] = { 1, 1, 1 }; //!< per axis, axis 0 contiguous
    int batch = 1;
    int sign = -1; //!< of the exponent
    precision prec = precision::double_;
};

//! One FFTW plan for grids at `data` (planned with FFTW_ESTIMATE, which leaves the data
//! alone); execute() must be given the same array.
class grid_fft_cpu
{
public:
    grid_fft_cpu(const grid_fft_shape& shape, int threads, void* data);
    ~grid_fft_cpu();
    grid_fft_cpu(const grid_fft_cpu&) = delete;
    grid_fft_cpu& operator=(const grid_fft_cpu&) = delete;
    void execute(void* data);

private:
    grid_fft_shape d_shape;
    void* d_plan = nullptr;
};

#ifdef GPUFFT_HAVE_CUDA
//! One cuFFT plan (64-bit sizes) for grids on the current device.
class grid_fft_cuda
{
public:
    explicit grid_fft_cuda(const grid_fft_shape& shape);
    ~grid_fft_cuda();
    grid_fft_cuda(const grid_fft_cuda&) = delete;
    grid_fft_cuda& operator=(const grid_fft_cuda&) = delete;
    //! Enqueues the in-place transform of device array `data` on `stream`.
    void execute_async(void* data, void* stream);

private:
    struct handle;
    grid_fft_shape d_shape;
    std::unique_ptr<handle> d_handle;
};
#endif

} // namespace nufft
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_NUFFT3_GRID_FFT_H */
