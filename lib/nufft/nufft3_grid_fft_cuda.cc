/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "cuda/cuda_resources.h"
#include "nufft/nufft3_grid_fft.h"
#include <cufft.h>
#include <algorithm>
#include <cmath>

namespace gr {
namespace gpufft {
namespace nufft {

namespace {

//! Grids of fewer cells take the single plan: a pruned grid costs a few cuFFT calls of
//! its own, each a launch or more, where one plan-many covers the whole batch.
constexpr long long min_pruned_cells = 1LL << 20;
//! Pruning must leave at most this share of the work: the axis-by-axis passes read and
//! write the grid once per pass, where cuFFT fuses axes of the full plan.
constexpr double max_pruned_fraction = 0.8;

//! Cells [lo, hi) of axis a that can be nonzero on input.
void input_band(const grid_fft_shape& s, int a, long long& lo, long long& hi)
{
    const long long M = s.cells[a];
    lo = 0;
    hi = M;
    if (s.in_hi[a] > 0) {
        lo = std::max<long long>(0, s.in_lo[a]);
        hi = std::min<long long>(M, s.in_hi[a]);
    }
}

//! Outputs m < half and m >= M - half of axis a are needed (the two runs meet, or
//! overlap, where 2 half >= M: the whole axis).
long long output_half(const grid_fft_shape& s, int a)
{
    const long long M = s.cells[a];
    const long long h = s.out_half[a];
    return h <= 0 || 2 * h >= M ? (M + 1) / 2 : h;
}

bool output_whole(const grid_fft_shape& s, int a)
{
    return 2 * output_half(s, a) >= s.cells[a];
}

//! Work of `lines` transforms of n cells, in units of one butterfly element-pass.
double work(double lines, double n) { return lines * n * std::log2(std::max(2.0, n)); }

} // namespace

/*!
 * Either `full` (passes == 0) or up to two passes, each one plan run at one or two
 * offsets into every grid. The passes share `work` (cuFFT's scratch), since they run one
 * after the other on one stream.
 */
struct grid_fft_cuda::handle {
    struct pass {
        cuda::cufft_handle plan;
        long long offset[2] = { 0, 0 };
        int offsets = 0;
    };
    cuda::cufft_handle full;
    pass pass_[2];
    int passes = 0;
    long long grid_cells = 0;
    cuda::device_buffer<unsigned char> work;
};

grid_fft_cuda::grid_fft_cuda(const grid_fft_shape& shape)
    : d_shape(shape), d_handle(std::make_unique<handle>())
{
    handle& H = *d_handle;
    const cufftType type = shape.prec == precision::single ? CUFFT_C2C : CUFFT_Z2Z;
    long long cells = 1;
    for (int a = 0; a < shape.dim; ++a)
        cells *= shape.cells[a];
    H.grid_cells = cells;

    // Passes pay only in 3D, on large grids, and where they skip enough. In 2D the
    // column pass, cuFFT's batch of strided lines, costs more than the fused 2-D plan
    // over the whole grid (docs/performance.md).
    if (shape.dim == 3 && cells >= min_pruned_cells) {
        const long long M0 = shape.cells[0], M1 = shape.cells[1], M2 = shape.cells[2];
        const double full_work = work(1, double(cells));
        double kept = 0;
        // The (x, y) planes in axis 2's input band, one 2-D transform each (the
        // others are zero): x and y lines are two levels of lines apart (M0 and
        // M0 M1), which a cuFFT batch cannot span in one call, so the planes are
        // done whole rather than line set by line set. Then the z lines (M0 M1
        // apart) of the rows in axis 1's needed output, all x: those rows are
        // contiguous runs of lines, two calls.
        long long lo2, hi2;
        input_band(shape, 2, lo2, hi2);
        const long long a1 = output_half(shape, 1);
        const bool whole1 = output_whole(shape, 1);
        const long long rows = whole1 ? M1 : 2 * a1;
        const long long plane = M0 * M1;
        kept = (work(double(hi2 - lo2), double(plane)) +
                work(double(rows * M0), double(M2))) /
               full_work;
        if (hi2 > lo2 && kept <= max_pruned_fraction) {
            long long n2[2] = { M1, M0 };
            std::size_t w[2];
            w[0] = H.pass_[0].plan.plan_many_external_work(
                2, n2, n2, 1, plane, hi2 - lo2, type);
            H.pass_[0].offset[0] = lo2 * plane;
            H.pass_[0].offsets = 1;
            long long n = M2, embed = M2;
            w[1] = H.pass_[1].plan.plan_many_external_work(
                1, &n, &embed, plane, 1, (whole1 ? M1 : a1) * M0, type);
            // Rows [0, a1) and [M1 - a1, M1) of every plane.
            H.pass_[1].offset[0] = 0;
            H.pass_[1].offset[1] = (M1 - a1) * M0;
            H.pass_[1].offsets = whole1 ? 1 : 2;
            H.passes = 2;
            H.work.allocate(std::max(w[0], w[1]), "the grid FFT's work area");
        }
        if (H.passes) {
            for (int p = 0; p < H.passes; ++p)
                if (H.work.get())
                    GPUFFT_CUFFT_CHECK(
                        cufftSetWorkArea(H.pass_[p].plan.get(), H.work.get()));
            return;
        }
    }

    // One plan over every axis and grid. cuFFT takes the axes slowest first; null
    // embeddings mean contiguous grids, one after the other.
    long long n[3];
    for (int a = 0; a < shape.dim; ++a)
        n[shape.dim - 1 - a] = shape.cells[a];
    std::size_t work_size = 0;
    GPUFFT_CUFFT_CHECK(cufftMakePlanMany64(H.full.get(),
                                           shape.dim,
                                           n,
                                           nullptr,
                                           1,
                                           cells,
                                           nullptr,
                                           1,
                                           cells,
                                           type,
                                           shape.batch,
                                           &work_size));
}

grid_fft_cuda::~grid_fft_cuda() = default;

bool grid_fft_cuda::serves(const grid_fft_shape& s) const
{
    if (!d_shape.same_grids(s))
        return false;
    if (!d_handle->passes)
        return true;
    // The pruned passes read axis 2's input band and axis 1's needed outputs.
    long long lo, hi, new_lo, new_hi;
    input_band(d_shape, 2, lo, hi);
    input_band(s, 2, new_lo, new_hi);
    return new_lo >= lo && new_hi <= hi && output_half(s, 1) <= output_half(d_shape, 1);
}

namespace {

void exec(cufftHandle h, cufftComplex* p, int dir)
{
    GPUFFT_CUFFT_CHECK(cufftExecC2C(h, p, p, dir));
}
void exec(cufftHandle h, cufftDoubleComplex* p, int dir)
{
    GPUFFT_CUFFT_CHECK(cufftExecZ2Z(h, p, p, dir));
}

} // namespace

void grid_fft_cuda::execute_async(void* data, void* stream)
{
    const cudaStream_t st = static_cast<cudaStream_t>(stream);
    const int dir = d_shape.sign < 0 ? CUFFT_FORWARD : CUFFT_INVERSE;
    handle& H = *d_handle;
    auto run = [&](auto* grids) {
        if (!H.passes) {
            GPUFFT_CUFFT_CHECK(cufftSetStream(H.full.get(), st));
            exec(H.full.get(), grids, dir);
            return;
        }
        for (int p = 0; p < H.passes; ++p)
            GPUFFT_CUFFT_CHECK(cufftSetStream(H.pass_[p].plan.get(), st));
        // Grid by grid: a pass's lines are evenly spaced within a grid, not across
        // grids (a batch spanning them would redo the zero and unneeded lines between).
        for (int b = 0; b < d_shape.batch; ++b) {
            auto* grid = grids + b * H.grid_cells;
            for (int p = 0; p < H.passes; ++p)
                for (int o = 0; o < H.pass_[p].offsets; ++o)
                    exec(H.pass_[p].plan.get(), grid + H.pass_[p].offset[o], dir);
        }
    };
    if (d_shape.prec == precision::single)
        run(static_cast<cufftComplex*>(data));
    else
        run(static_cast<cufftDoubleComplex*>(data));
}

} // namespace nufft
} // namespace gpufft
} // namespace gr
