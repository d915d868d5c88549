/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The joint fit's small dense linear algebra: Cholesky factor and substitution of a
// symmetric positive definite system of at most robust_pair_max_params unknowns.
// Written once for host and device, like robust_math.h.

#ifndef INCLUDED_GPUFFT_ROBUST_LINALG_H
#define INCLUDED_GPUFFT_ROBUST_LINALG_H

#include "core/host_device.h"

namespace gr {
namespace gpufft {
namespace detail {

/*!
 * Cholesky factor (lower, in place) of the m x m symmetric positive definite a
 * (row-major); false when a is not positive definite.
 */
GPUFFT_HD inline bool robust_pair_factor(double* a, int m)
{
    for (int j = 0; j < m; ++j) {
        double d = a[j * m + j];
        for (int k = 0; k < j; ++k)
            d -= a[j * m + k] * a[j * m + k];
        if (!(d > 0))
            return false;
        d = sqrt(d);
        a[j * m + j] = d;
        for (int i = j + 1; i < m; ++i) {
            double v = a[i * m + j];
            for (int k = 0; k < j; ++k)
                v -= a[i * m + k] * a[j * m + k];
            a[i * m + j] = v / d;
        }
    }
    return true;
}

//! b = L^-1 b (forward), then, when `back`, L^-T of that: with back, a solve.
GPUFFT_HD inline void
robust_pair_substitute(const double* a, double* b, int m, bool back = true)
{
    for (int i = 0; i < m; ++i) {
        double v = b[i];
        for (int k = 0; k < i; ++k)
            v -= a[i * m + k] * b[k];
        b[i] = v / a[i * m + i];
    }
    if (!back)
        return;
    for (int i = m - 1; i >= 0; --i) {
        double v = b[i];
        for (int k = i + 1; k < m; ++k)
            v -= a[k * m + i] * b[k];
        b[i] = v / a[i * m + i];
    }
}

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_ROBUST_LINALG_H */
