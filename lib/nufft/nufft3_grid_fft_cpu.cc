/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "core/fftw_lock.h"
#include "nufft/nufft3_grid_fft.h"
#include <fftw3.h>
#include <mutex>
#include <stdexcept>
#include <string>

namespace gr {
namespace gpufft {
namespace nufft {

namespace {

//! FFTW lists axes slowest first: axis dim-1 is the outermost.
template <typename D>
void fill_dims(const grid_fft_shape& s, D* dims, D& many)
{
    std::int64_t stride = 1;
    for (int a = 0; a < s.dim; ++a) {
        D& d = dims[s.dim - 1 - a];
        d.n = s.cells[a];
        d.is = d.os = stride;
        stride *= s.cells[a];
    }
    many.n = s.batch;
    many.is = many.os = stride;
}

} // namespace

grid_fft_cpu::grid_fft_cpu(const grid_fft_shape& shape, int threads, void* data)
    : d_shape(shape)
{
    detail::init_fftw_threads();
    const int dir = shape.sign < 0 ? FFTW_FORWARD : FFTW_BACKWARD;
    std::lock_guard<std::mutex> lock(detail::fftw_planner_mutex());
    if (shape.prec == precision::single) {
        fftwf_iodim64 dims[3], many;
        fill_dims(shape, dims, many);
        auto* p = static_cast<fftwf_complex*>(data);
        fftwf_plan_with_nthreads(threads);
        d_plan =
            fftwf_plan_guru64_dft(shape.dim, dims, 1, &many, p, p, dir, FFTW_ESTIMATE);
    } else {
        fftw_iodim64 dims[3], many;
        fill_dims(shape, dims, many);
        auto* p = static_cast<fftw_complex*>(data);
        fftw_plan_with_nthreads(threads);
        d_plan =
            fftw_plan_guru64_dft(shape.dim, dims, 1, &many, p, p, dir, FFTW_ESTIMATE);
    }
    if (!d_plan)
        throw std::runtime_error("FFTW could not plan the fine grid's transform (" +
                                 std::to_string(shape.dim) + "D, batch " +
                                 std::to_string(shape.batch) + ")");
}

grid_fft_cpu::~grid_fft_cpu()
{
    std::lock_guard<std::mutex> lock(detail::fftw_planner_mutex());
    if (d_shape.prec == precision::single)
        fftwf_destroy_plan(static_cast<fftwf_plan>(d_plan));
    else
        fftw_destroy_plan(static_cast<fftw_plan>(d_plan));
}

void grid_fft_cpu::execute(void* data)
{
    if (d_shape.prec == precision::single) {
        auto* p = static_cast<fftwf_complex*>(data);
        fftwf_execute_dft(static_cast<fftwf_plan>(d_plan), p, p);
    } else {
        auto* p = static_cast<fftw_complex*>(data);
        fftw_execute_dft(static_cast<fftw_plan>(d_plan), p, p);
    }
}

} // namespace nufft
} // namespace gpufft
} // namespace gr
