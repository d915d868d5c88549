/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Robust mode's time window: its weight at a sample (applied in the gather), its
// transform, and the dense path's windowed spectrum from the unwindowed one.
// Written once for host and device (plain C++ when not compiled by nvcc): the CPU and
// CUDA backends run the same arithmetic, which makes their results comparable for the
// same seed.

#ifndef INCLUDED_GPUFFT_ROBUST_WINDOW_H
#define INCLUDED_GPUFFT_ROBUST_WINDOW_H

#include "sparse/robust/robust_consts.h"

namespace gr {
namespace gpufft {
namespace detail {

//! The time window's weight at sample index i of an n-sample frame.
GPUFFT_HD inline float robust_window_weight(const robust_consts& c, std::uint64_t i)
{
    if (c.window_terms == 0)
        return 1.0f;
    const double frac = double(i) / double(c.n);
#ifdef __CUDA_ARCH__
    const float c1 = float(cospi(2.0 * frac));
#else
    const float c1 = float(std::cos(6.283185307179586476925 * frac));
#endif
    const float c2 = 2.0f * c1 * c1 - 1.0f;
    const float c3 = c1 * (2.0f * c2 - 1.0f);
    return c.window_a[0] - c.window_a[1] * c1 + c.window_a[2] * c2 - c.window_a[3] * c3;
}

/*!
 * The time window's transform nu bins from a tone: a tone A exp(2 pi i f0 t / n) gives
 * X_w[f] = A W(f - f0). With D(nu) = (1/n) sum_t exp(-2 pi i nu t / n)
 * = exp(-i pi nu (n-1)/n) sin(pi nu) / (n sin(pi nu / n)) and sin(pi (nu - m)) =
 * (-1)^m sin(pi nu), W(nu) = exp(-i pi nu (n-1)/n) sin(pi nu) sum_m wt_m / sin(pi (nu -
 * m) / n); at nu = m exactly W is c_m.
 */
GPUFFT_HD inline void
robust_window_transform(const robust_consts& c, double nu, double& re, double& im)
{
    const double N = double(c.n);
    const int M = c.window_terms > 0 ? c.window_terms - 1 : 0;
    double sr = 0, si = 0;
    double sp, cp, s1;
#ifdef __CUDA_ARCH__
    sincospi(nu * (N - 1.0) / N, &sp, &cp);
    s1 = sinpi(nu);
#else
    sp = std::sin(3.141592653589793238 * nu * (N - 1.0) / N);
    cp = std::cos(3.141592653589793238 * nu * (N - 1.0) / N);
    s1 = std::sin(3.141592653589793238 * nu);
#endif
    for (int m = -M; m <= M; ++m) {
        const double x = nu - double(m);
#ifdef __CUDA_ARCH__
        const double den = sinpi(x / N);
#else
        const double den = std::sin(3.141592653589793238 * x / N);
#endif
        if (fabs(x) < 1e-9) { // at nu = m every other term has sin(pi nu) = 0
            re = c.wc[m + 3];
            im = 0;
            return;
        }
        sr += c.wt_r[m + 3] / den;
        si += c.wt_i[m + 3] / den;
    }
    // exp(-i pi nu (n-1)/n) sin(pi nu) (sr + i si)
    const double ar = s1 * sr, ai = s1 * si;
    re = ar * cp + ai * sp;
    im = ai * cp - ar * sp;
}

/*!
 * The dense path's windowed spectrum from the unwindowed one: the time window is a sum
 * of cosines, so X_w[b] = sum_m c_m X[b - m] (c_m = wc[m + 3], 7 taps at most) and one
 * FFT of the frame gives both. bin(q, re, im) reads X[q], 0 <= q < n.
 */
template <typename Bin>
GPUFFT_HD inline void robust_windowed_bin(
    const robust_consts& c, const Bin& bin, std::int64_t b, double& re, double& im)
{
    const int M = c.window_terms > 0 ? c.window_terms - 1 : 0;
    re = im = 0;
    for (int m = -M; m <= M; ++m) {
        std::int64_t q = b - m;
        q = q < 0 ? q + c.n : (q >= c.n ? q - c.n : q);
        double xr, xi;
        bin(q, xr, xi);
        re += c.wc[m + robust_window_terms - 1] * xr;
        im += c.wc[m + robust_window_terms - 1] * xi;
    }
}

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_ROBUST_WINDOW_H */
