/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The spreading kernels of the type-3 NUFFT and their Fourier transforms, as inline
// functions that compile for the host (CPU backend) and the device (CUDA backend), so
// both backends evaluate exactly the same formulas.
//
// Units: a kernel lives on a grid of unit spacing; it is evaluated at offsets z from a
// point, |z| <= half_width, and covers `taps` consecutive cells. Its transform
// khat(xi) = integral k(z) cos(xi z) dz is what the NUFFT divides out.

#ifndef INCLUDED_GPUFFT_NUFFT3_KERNEL_H
#define INCLUDED_GPUFFT_NUFFT3_KERNEL_H

#include "core/host_device.h"
#include <cmath>


namespace gr {
namespace gpufft {
namespace nufft {

enum : int { kernel_es = 0, kernel_gaussian = 1 };

//! Most Gauss-Legendre nodes used for the transform of the ES kernel.
constexpr int max_quadrature = 48;
//! Widest ES kernel (eps = 1e-14 at upsampling 2 needs 15).
constexpr int max_es_width = 16;
//! Widest kernel of any kind (the Gaussian's rules give 39 taps at eps = 1e-6, R = 2.2).
constexpr int max_taps = 128;

//! Everything a backend needs to evaluate one kernel; small enough to pass by value
//! to a CUDA kernel.
struct kernel_spec {
    int kind = kernel_es;
    int taps = 0;          //!< cells covered per point and axis
    double half_width = 0; //!< taps / 2
    double beta = 0;       //!< ES: exp(beta (sqrt(1 - (z/half)^2) - 1))
    double gauss_b = 0;    //!< Gaussian: exp(-z^2 / (4 b))
    int quad_n = 0;        //!< ES transform: nodes t_i in (0, 1) ...
    double quad_t[max_quadrature] = {};
    double quad_a[max_quadrature] = {}; //!< ... and weights times kernel values
};

template <typename T>
GPUFFT_HD inline T kernel_value(const kernel_spec& k, T z)
{
    using std::exp;
    using std::sqrt;
    if (k.kind == kernel_gaussian)
        return exp(-z * z * T(0.25 / k.gauss_b));
    const T r = z * T(1.0 / k.half_width);
    const T arg = T(1) - r * r;
    return arg > T(0) ? exp(T(k.beta) * (sqrt(arg) - T(1))) : T(0);
}

//! The kernel's Fourier transform at angular frequency xi (radians per cell).
template <typename T>
GPUFFT_HD inline T kernel_transform(const kernel_spec& k, T xi)
{
    using std::cos;
    using std::exp;
    using std::sqrt;
    if (k.kind == kernel_gaussian)
        return T(sqrt(4.0 * 3.14159265358979323846 * k.gauss_b)) *
               exp(-T(k.gauss_b) * xi * xi);
    T sum = 0;
    const T scale = xi * T(k.half_width);
    for (int i = 0; i < k.quad_n; ++i)
        sum += T(k.quad_a[i]) * cos(scale * T(k.quad_t[i]));
    return sum;
}

/*!
 * Where a point x lands on a grid of spacing h centred on `centre`: its first cell
 * first = ceil(u - half_width), u = (x - centre) / h, and that cell's offset
 * z0 = first - u, so the taps are at z0, z0 + 1, ... u is carried as hi + lo, with the
 * rounding of the subtraction (TwoSum) and of the division (an FMA gives the exact
 * remainder) kept, so z0 is as exact as x itself rather than off by up to half an ulp
 * of u, which adds its own 1e-16 S X to the phases. Splitting in double also keeps
 * single-precision plans exact on grids of millions of cells, where a float u would lose
 * the fraction.
 */
GPUFFT_HD inline void split_coordinate(
    double x, double centre, double h, double half_width, long long& first, double& z0)
{
    const double d = x - centre;
    const double back = d - x;
    const double d_lo = (x - (d - back)) + (-centre - back);
    const double hi = d / h;
    const double lo = (std::fma(-hi, h, d) + d_lo) / h;
    const double f = std::ceil(hi - half_width);
    first = (long long)f;
    z0 = (f - hi) - lo;
}

} // namespace nufft
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_NUFFT3_KERNEL_H */
