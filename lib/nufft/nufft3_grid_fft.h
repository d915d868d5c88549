/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The FFT of the type-3 NUFFT's fine grids: `batch` grids of dim axes (axis 0 fastest)
// one after the other, transformed in place. The CPU transforms them whole with one
// multi-dimensional plan (FFTW's guru interface), so a batch of strength vectors costs
// one call. The GPU skips what the NUFFT does not need where that saves enough: the
// input is zero outside a band of about M / sigma cells per axis (the sources' taps) and
// interpolation reads only outputs within about M / (2 sigma) of 0 (mod M), so in 3D it
// transforms the (x, y) planes in the input band of z, then the z lines of the needed
// output rows of y, a few cuFFT calls per grid; the other cells are left unfinished,
// never read, and cleared with the grid before the next spreading. 1D and 2D grids
// (where cuFFT's strided column pass costs more than the fused plan), grids too small
// for the calls to pay, and supports of most of an axis get one plan-many over every
// grid and axis, as on the CPU.

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
    //! Per axis, the cells [in_lo, in_hi) that can be nonzero on input and the outputs
    //! m < out_half or m >= cells - out_half that must be computed
    //! (axis_geometry's fields of the same names). in_hi = 0 or out_half = 0: the whole
    //! axis. The CPU transform ignores them.
    std::int64_t in_lo[3] = { 0, 0, 0 };
    std::int64_t in_hi[3] = { 0, 0, 0 };
    std::int64_t out_half[3] = { 0, 0, 0 };
    //! The same grids and transform, whatever the supports.
    bool same_grids(const grid_fft_shape& o) const
    {
        for (int a = 0; a < 3; ++a)
            if (cells[a] != o.cells[a])
                return false;
        return dim == o.dim && batch == o.batch && sign == o.sign && prec == o.prec;
    }
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
/*!
 * cuFFT plans (64-bit sizes) for grids on the current device: one plan-many over the
 * whole batch, or the pruned passes (see the top of the file), which share one work
 * area and are run grid by grid.
 */
class grid_fft_cuda
{
public:
    explicit grid_fft_cuda(const grid_fft_shape& shape);
    ~grid_fft_cuda();
    grid_fft_cuda(const grid_fft_cuda&) = delete;
    grid_fft_cuda& operator=(const grid_fft_cuda&) = delete;
    /*!
     * Enqueues the in-place transform of device array `data` on `stream`. Pruned, only
     * the outputs in the needed set are the transform's; the input must be zero outside
     * the input support.
     */
    void execute_async(void* data, void* stream);
    /*!
     * Whether this plan transforms grids of shape s correctly: the same grids, and, if
     * it skips work, supports of s inside the ones it was made for (points that move
     * within them, as a stream's frames do, keep the plan).
     */
    bool serves(const grid_fft_shape& s) const;

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
