/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The tone fit of sensing's narrow bands, on the host for both backends: robust mode's
// fit (robust_fit_tone: the offset d that maximises the lobe energy the window's
// transform explains), at a bounded, small cost. Two savings, neither of which changes
// what is maximised:
// - the explained energy |sum y conj W|^2 / sum |W|^2 does not change when every W(j - d)
//   is scaled by one complex factor, so the search leaves out sin(pi d) and
//   exp(i pi d (n-1)/n) (three trigonometric calls an evaluation) and reads the lobe's
//   j-dependent phases from a table made once a plan;
// - after the grid, one parabolic (Newton) step from the maximum of the quartic through
//   the best five grid points takes 3 evaluations to ~1e-9 bin (two steps from the
//   grid's parabola, 6 evaluations, where that moves the offset by more than 1e-4 bin),
//   where Brent's search took 9-14 to 1e-6 (and the golden section alone 20 to 1.6e-5);
//   Brent's search stays where a step leaves its points. The step's three evaluations
//   run as one, four offsets in vector lanes, and the energy and amplitude at its
//   vertex come from the parabolas through its three points (to ~1e-10 relative),
//   where a fourth evaluation took them.
// The amplitude is robust_tone_lobe's least-squares one, from the search's own sums at
// the offset found.

#ifndef INCLUDED_GPUFFT_SENSING_FIT_H
#define INCLUDED_GPUFFT_SENSING_FIT_H

#include "sparse/robust/robust_math.h"
#include <cmath>

namespace gr {
namespace gpufft {
namespace detail {

/*!
 * What a plan's fits share: the lobe's phases exp(-i pi j (n-1)/n), |j| <= lobe, and at
 * the search's 9 grid offsets d the window's transform over the lobe, V_j = sum_m wt_m /
 * sin(pi (j - m - d) / n), and its energy there (the explained energy's denominator, the
 * same for every tone): the grid then costs a fit one sum of 2 lobe + 1 complex products
 * an offset.
 */
struct sensing_fit_table {
    static constexpr int grid_points = 9;
    static constexpr int max_q = 4 * robust_window_terms - 1;
    double pj_r[2 * robust_window_terms + 1] = {}, pj_i[2 * robust_window_terms + 1] = {};
    double grid_vr[grid_points][2 * robust_window_terms + 1] = {};
    double grid_vi[grid_points][2 * robust_window_terms + 1] = {};
    double grid_den[grid_points] = {};
    //! The grid's V_j by grid point, 12 a row (three vectors of four; the d = 0 point and
    //! the padding 0), and 1 / grid_den (0 there): the grid in vector lanes.
    static constexpr int grid_lanes = 12;
    alignas(32) double lane_vr[2 * robust_window_terms + 1][grid_lanes] = {};
    alignas(32) double lane_vi[2 * robust_window_terms + 1][grid_lanes] = {};
    alignas(32) double lane_inv_den[grid_lanes] = {};
    //! pi / n and n / pi, as the search's evaluations made them (a division each, the
    //! first step of each evaluation's chain).
    double pi_n = 0, n_pi = 0;

    explicit sensing_fit_table(const robust_consts& c);
};

/*!
 * robust_fit_tone() over [-0.5, 0.5] with every lobe bin present: a grid of 9 (from the
 * table), then the maximum within the grid step either side of the best point (the
 * grid's quartic and a parabolic step, 3 evaluations, ~1e-9 bin; Brent's search, at
 * most 40 evaluations to 1e-6 bin, where the steps do not hold), then the amplitude
 * there. Returns the explained energy.
 */
double sensing_fit_tone(const robust_consts& c,
                        const sensing_fit_table& t,
                        const double* yr,
                        const double* yi,
                        double& delta,
                        double& ar,
                        double& ai);

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_SENSING_FIT_H */
