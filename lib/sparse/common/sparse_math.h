/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The arithmetic both sparse FFT backends share, written once for host and device so the
// CPU and CUDA backends decode the same buckets to the same frequencies. Plain C++ when
// not compiled by nvcc; no GNU Radio, no CUDA headers.

#ifndef INCLUDED_GPUFFT_SPARSE_MATH_H
#define INCLUDED_GPUFFT_SPARSE_MATH_H

#include "core/host_device.h"
#include <cmath>
#include <cstdint>


namespace gr {
namespace gpufft {
namespace detail {

//! Hashes per loop at most: the time offset 0 plus the phase-refinement offsets.
constexpr int sparse_max_levels = 6;

// The residual check of exact mode, the same on both backends (docs/sparse_fft.md,
// "Frames that are not exactly sparse"). A frame is not exactly sparse when the energy
// its located coefficients leave in the buckets exceeds sparse_residual_tol x the energy
// hashed (exactly sparse frames leave 1e-14 to 1.1e-13: float rounding). In such a frame
// a coefficient is kept when, in more than half of the loops, every level's estimate
// from its own bucket is within sparse_vouch_tol x |V| of V, the median estimate over
// all hashes (then its value).
constexpr double sparse_residual_tol = 1e-8;
constexpr double sparse_vouch_tol = 1e-2;

//! Everything a bucket decoder or a peeling step needs; trivially copyable (kernel arg).
struct sparse_consts {
    std::int64_t n = 0;
    std::int64_t B = 0;  //!< buckets; divides n
    std::int64_t nb = 0; //!< n / B: frequencies per bucket
    int loops = 0;
    int levels = 0; //!< hashes per loop: time offsets offset[0] = 0, offset[1..]
    std::int64_t offset[sparse_max_levels] = {};
    double ghat_scale = 0; //!< 1 / (sqrt(2) * s * B), s the window's spectral std. dev.
    double mag_tol = 0;    //!< |Z_j| / |Z_0| must be within 1 +- mag_tol
    double phase_tol = 0;  //!< measured phases must match the decoded bin (turns)
};

//! Per-hash sample walk of the CUDA hashes: the index of tap 0 and the index step per
//! tap (sigma), mod n.
struct sparse_hash_walk {
    unsigned long long start;
    unsigned long long step;
};

//! a * b mod n without overflow, for a, b < n <= 2^40 (the plans' limit on n).
GPUFFT_HD inline std::uint64_t mulmod(std::uint64_t a, std::uint64_t b, std::uint64_t n)
{
#ifdef __CUDA_ARCH__
    // A 128-bit remainder is a long software routine on the GPU. The quotient from
    // doubles is off by at most one (a b / n < 2^40, relative error ~2^-52), and the
    // remainder a b - q n, exact modulo 2^64, lies in (-n, 2n).
    const std::uint64_t q = static_cast<std::uint64_t>(double(a) * double(b) / double(n));
    std::int64_t r = static_cast<std::int64_t>(a * b - q * n);
    if (r < 0)
        r += static_cast<std::int64_t>(n);
    else if (r >= static_cast<std::int64_t>(n))
        r -= static_cast<std::int64_t>(n);
    return static_cast<std::uint64_t>(r);
#else
    return static_cast<std::uint64_t>((static_cast<unsigned __int128>(a) * b) % n);
#endif
}

//! Wraps x (turns) into [-0.5, 0.5).
GPUFFT_HD inline double wrap_turns(double x) { return x - floor(x + 0.5); }

/*!
 * The window's frequency response at an offset of D buckets from a bucket's centre:
 * a box one bucket wide convolved with a Gaussian (the window is sinc x Gaussian in
 * time). Accurate to ~1e-9 for the taps make_window() builds.
 */
GPUFFT_HD inline double window_response(double D, double ghat_scale)
{
    return 0.5 * (erf((D + 0.5) * ghat_scale) - erf((D - 0.5) * ghat_scale));
}

//! Offset of permuted frequency g from the centre of bucket b, in buckets, in [-B/2,
//! B/2).
GPUFFT_HD inline double
bucket_offset(const sparse_consts& c, std::int64_t b, std::int64_t g)
{
    std::int64_t d = b * c.nb - g; // in (-n, n)
    if (d >= c.n / 2)
        d -= c.n;
    else if (d < -(c.n / 2))
        d += c.n;
    return double(d) / double(c.nb);
}

//! The bucket whose centre is nearest to permuted frequency g.
GPUFFT_HD inline std::int64_t own_bucket(const sparse_consts& c, std::int64_t g)
{
    return ((g + c.nb / 2) / c.nb) % c.B;
}

//! exp(i 2 pi u / n) for an integer phase u in [0, n).
GPUFFT_HD inline void unit_phasor(std::uint64_t u, std::int64_t n, double& re, double& im)
{
#ifdef __CUDA_ARCH__
    sincospi(2.0 * double(u) / double(n), &im, &re);
#else
    const double a = 6.283185307179586476925 * (double(u) / double(n));
    re = std::cos(a);
    im = std::sin(a);
#endif
}

/*!
 * Decodes one bucket of one loop: the permuted frequency g of the single tone the bucket
 * holds, from the phase advance of its value between hashes whose time offsets differ
 * (Z_j / Z_0 = exp(2 pi i g a_j / n)), refined level by level, then checked: every level
 * must agree with the integer g in phase and magnitude, and g must lie in this bucket.
 * zr/zi: the bucket's value in each level's hash. Returns false for an empty, collided
 * or leaked-into bucket. On success: f (the frequency, un-permuted) and its value X.
 */
GPUFFT_HD inline bool decode_bucket(const sparse_consts& c,
                                    const double* zr,
                                    const double* zi,
                                    std::int64_t b,
                                    std::uint64_t sigma_inv,
                                    std::uint64_t tau,
                                    double threshold2,
                                    std::int64_t& f,
                                    double& xr,
                                    double& xi)
{
    const double m0 = zr[0] * zr[0] + zi[0] * zi[0];
    if (!(m0 > threshold2))
        return false;
    const std::uint64_t n = std::uint64_t(c.n);
    const std::int64_t base = b * c.nb; // g = base + e, e real until the last level
    double e = 0;
    double phase[sparse_max_levels];
    for (int j = 1; j < c.levels; ++j) {
        const double mj = zr[j] * zr[j] + zi[j] * zi[j];
        if (fabs(mj / m0 - 1.0) > 2.0 * c.mag_tol)
            return false;
        // Z_j conj(Z_0): its angle is g a_j / n turns.
        const double pr = zr[j] * zr[0] + zi[j] * zi[0];
        const double pi_ = zi[j] * zr[0] - zr[j] * zi[0];
        phase[j] = atan2(pi_, pr) * 0.15915494309189533577;
        const std::uint64_t a = std::uint64_t(c.offset[j]);
        const double predicted = double(mulmod(a, std::uint64_t(base), n)) / double(n) +
                                 double(a) * e / double(n);
        e += wrap_turns(phase[j] - predicted) * double(n) / double(a);
    }
    std::int64_t g = base + std::int64_t(llround(e));
    g %= c.n;
    if (g < 0)
        g += c.n;
    const double D = bucket_offset(c, b, g);
    if (fabs(D) > 0.5)
        return false; // a neighbour's tone leaking in: its own bucket reports it
    for (int j = 1; j < c.levels; ++j) {
        const double p =
            double(mulmod(std::uint64_t(c.offset[j]), std::uint64_t(g), n)) / double(n);
        if (fabs(wrap_turns(phase[j] - p)) > c.phase_tol)
            return false;
    }
    f = std::int64_t(mulmod(sigma_inv, std::uint64_t(g), n));
    // Z_0 = X exp(2 pi i f tau / n) Ghat(D) / n.
    double cr, ci;
    unit_phasor(mulmod(std::uint64_t(f), tau, n), c.n, cr, ci);
    const double scale = double(c.n) / window_response(D, c.ghat_scale);
    xr = (zr[0] * cr + zi[0] * ci) * scale;
    xi = (zi[0] * cr - zr[0] * ci) * scale;
    return true;
}

/*!
 * exp(2 pi i (g a + f tau) / n): the phase of a coefficient at f (permuted g = sigma f)
 * in the hash with time offset `a` of a loop with offset tau, in every bucket.
 */
GPUFFT_HD inline void hash_phase(std::int64_t n,
                                 std::int64_t f,
                                 std::int64_t g,
                                 std::uint64_t a,
                                 std::uint64_t tau,
                                 double& cr,
                                 double& ci)
{
    const std::uint64_t un = std::uint64_t(n);
    std::uint64_t u = mulmod(std::uint64_t(g), a, un) + mulmod(std::uint64_t(f), tau, un);
    if (u >= un)
        u -= un;
    unit_phasor(u, n, cr, ci);
}

/*!
 * What a tone (f, X) contributes to bucket b of the hash with time offset `a` of a loop
 * (sigma, tau): X exp(2 pi i (g a + f tau) / n) Ghat(D) / n, g = sigma f mod n.
 */
GPUFFT_HD inline void tone_in_bucket(const sparse_consts& c,
                                     std::int64_t f,
                                     std::int64_t g,
                                     double xr,
                                     double xi,
                                     std::int64_t b,
                                     std::uint64_t a,
                                     std::uint64_t tau,
                                     double& zr,
                                     double& zi)
{
    double cr, ci;
    hash_phase(c.n, f, g, a, tau, cr, ci);
    const double w = window_response(bucket_offset(c, b, g), c.ghat_scale) / double(c.n);
    zr = (xr * cr - xi * ci) * w;
    zi = (xr * ci + xi * cr) * w;
}

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_SPARSE_MATH_H */
