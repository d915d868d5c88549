/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Parameter choice of the type-3 NUFFT: the kernel from eps, and from the extents of the
// points the fine grid (size, spacings), shared by both backends.
//
// The method (per axis; a 2D or 3D plan does it on each): with centred sources x' in [-X,
// X] and targets s' in [-S, S], sources are spread onto a grid of M cells of spacing h
// (in x), the grid is divided by the transform of the interpolation kernel and FFT'd,
// giving samples spaced ds = 2 pi / (M h) in s, which are interpolated at the targets and
// divided by the transform of the spreading kernel. Both kernels must see their support
// inside 1/upsampling of the band: X/h + w/2 <= M/(2 sigma) and S/ds + w/2 <= M/(2
// sigma), so M is about 2 sigma^2 X S / pi + O(w).

#ifndef INCLUDED_GPUFFT_NUFFT3_PARAMS_H
#define INCLUDED_GPUFFT_NUFFT3_PARAMS_H

#include "nufft/nufft3_kernel.h"
#include <gnuradio/gpufft/backend.h>
#include <gnuradio/gpufft/nufft3_plan.h>
#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace gpufft {
namespace nufft {

//! min and max of one coordinate array.
struct extent {
    double lo = 0, hi = 0;
    double centre() const { return 0.5 * (lo + hi); }
    double half() const { return 0.5 * (hi - lo); }
};

//! One axis of the fine grid.
struct axis_geometry {
    double x_centre = 0;    //!< sources are x = x_centre + h * u
    double s_centre = 0;    //!< targets are s = s_centre + ds * v
    double h = 1;           //!< source-space spacing of a cell
    double ds = 1;          //!< target-space spacing of a cell, 2 pi / (M h)
    std::int64_t cells = 1; //!< M (even)
    //! Grid indices [in_lo, in_hi) hold every tap of every source (p = n + M/2), so the
    //! rest of the axis is zero when the FFT starts (the CUDA grid FFT skips it).
    std::int64_t in_lo = 0, in_hi = 1;
    //! FFT outputs m with m < out_half or m >= M - out_half hold every tap any target
    //! reads (wrapped mod M): the others need not be computed. 2 out_half >= M: all.
    std::int64_t out_half = 1;
};

//! Most dimensions of a plan.
constexpr int max_dim = 3;

struct geometry {
    int dim = 1;
    //! The direct sum instead of a grid: the fields below but `reason` are unused.
    bool direct = false;
    //! Why this method (and, for the grid, this upsampling) was chosen, for describe().
    std::string reason;
    double sigma = 2; //!< upsampling factor used
    kernel_spec kernel;
    axis_geometry axis[max_dim]; //!< axes past dim have one cell
    std::int64_t total_cells() const
    {
        return axis[0].cells * axis[1].cells * axis[2].cells;
    }
    bool needs_prephase() const
    {
        for (int a = 0; a < dim; ++a)
            if (axis[a].s_centre != 0)
                return true;
        return false;
    }
    bool same_grid(const geometry& o) const
    {
        return dim == o.dim && axis[0].cells == o.axis[0].cells &&
               axis[1].cells == o.axis[1].cells && axis[2].cells == o.axis[2].cells;
    }
};

//! The requested accuracy range for a precision; throws std::invalid_argument naming eps.
void validate_eps(double eps, precision prec);

//! ES kernel of about eps accuracy at upsampling sigma (1.25 <= sigma <= 2) in dim
//! dimensions.
kernel_spec make_es_kernel(double eps, double sigma, int dim);
//! The paper's Gaussian: b from eq. 6 by successive approximation, m_sp = ceil(2 pi b).
kernel_spec make_gaussian_kernel(double eps, double R);

//! The kernel for eps at upsampling sigma; throws std::invalid_argument when rounding in
//! `prec` would keep it from reaching eps.
kernel_spec
make_kernel(nufft_kernel kind, int dim, double eps, double sigma, precision prec);

//! How much the correction factors of kernel k at upsampling sigma amplify rounding in
//! the grid (the ratio of its transform at 0 and at the band edge, to the power dim).
double correction_gain(const kernel_spec& k, double sigma, int dim);

//! The error that rounding in `prec` alone leaves after the corrections.
double rounding_floor(const kernel_spec& k, double sigma, int dim, precision prec);

//! Upsampling factors a plan may choose from (one when the user fixed it), the default
//! first.
std::vector<double> candidate_upsampling(nufft_kernel kind, double upsampling);

//! Throws std::invalid_argument when no candidate upsampling reaches eps, naming every
//! candidate tried and its rounding floor or kernel width.
void check_reachable(
    nufft_kernel kind, int dim, double eps, double upsampling, precision prec);

//! The precision a plan of I/O precision `prec` computes its grid in: prec where a
//! candidate reaches eps in it, else double (single I/O only). Throws check_reachable's
//! error, for both precisions, where neither reaches eps.
precision
grid_precision(nufft_kernel kind, int dim, double eps, double upsampling, precision prec);

//! Work of one direct term (a double sincos, a complex multiply-add, the phase's dim
//! multiply-adds) in execute_cost's unit, per backend. CPU: measured 19-23 ns a term
//! against 0.6-2 ns a unit of execute_cost (gpufft-bench nufft3, cases 1d-wide,
//! 2d-cross, 3d-cross, --method grid and direct; 2 EPYC cores). CUDA: estimated (FP64
//! sincos against atomics and cuFFT passes), to be measured the same way.
constexpr double cpu_direct_term_cost = 20;
constexpr double cuda_direct_term_cost = 8;

struct plan_request {
    int dim = 1;
    double eps = 1e-6;
    precision prec = precision::double_;
    nufft_kernel kernel = nufft_kernel::es;
    double upsampling = 0;
    std::size_t budget_bytes = 0;
    //! Bytes per source and per target the backend needs besides the grid.
    double bytes_per_source = 0, bytes_per_target = 0;
    nufft_method method = nufft_method::automatic;
    //! Bytes per source and per target the direct sum needs (it has no grid).
    double direct_bytes_per_source = 0, direct_bytes_per_target = 0;
    //! The backend's cost of one direct term (cpu_direct_term_cost, ...).
    double direct_term_cost = cpu_direct_term_cost;
    std::int64_t n_sources = 0, n_targets = 0;
};

//! The cost model that picks the upsampling: relative work of one execute on g.
double execute_cost(const geometry& g, std::int64_t n_sources, std::int64_t n_targets);


//! The same model for the direct sum: n_sources n_targets terms of `term_cost` each.
double direct_cost(std::int64_t n_sources, std::int64_t n_targets, double term_cost);

/*!
 * The geometry for sources with extents x[0..dim) and targets s[0..dim): among the
 * candidate upsampling factors, the one of least execute_cost whose grid fits the
 * budget. For the es kernel a factor below 2 is taken only where its rounding floor
 * stays below eps / 3. req.prec is the grid's precision. With nufft_method::automatic
 * the direct sum (geometry::direct) is returned where direct_cost is below the best
 * grid's execute_cost, or where no grid fits (the budget, or 2^30 cells per axis) and
 * the direct sum's point arrays do; nufft_method::direct always returns it. Throws
 * std::invalid_argument when nothing allowed fits, naming the grid, the
 * space-bandwidth product, what would fit and what the direct sum needs.
 */
geometry choose_geometry(const plan_request& req, const extent* x, const extent* s);

//! Smallest even 2,3,5-smooth integer >= n (FFT-friendly sizes).
std::int64_t next_smooth_even(std::int64_t n);

std::string format_bytes(double bytes);

} // namespace nufft
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_NUFFT3_PARAMS_H */
