/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// A tone fitted to its main lobe's coefficients (frequency and amplitude), and the
// dense path's second fit on the unwindowed bins.
// Written once for host and device (plain C++ when not compiled by nvcc): the CPU and
// CUDA backends run the same arithmetic, which makes their results comparable for the
// same seed.

#ifndef INCLUDED_GPUFFT_ROBUST_TONE_FIT_H
#define INCLUDED_GPUFFT_ROBUST_TONE_FIT_H

#include "sparse/robust/robust_window.h"

namespace gr {
namespace gpufft {
namespace detail {

/*!
 * The main lobe of a tone: y[j + lobe], j = -lobe..lobe, around the peak bin,
 * present[j + lobe] false where the coefficient was not found (unknown, not zero).
 * explained(d) is the lobe energy the window's transform explains at fractional offset
 * d, |sum y conj(W(j - d))|^2 / sum |W(j - d)|^2, with the least-squares amplitude; a
 * tone's offset is the d in [-0.5, 0.5] that maximises it (robust_fit_tone() on one
 * thread, a warp's grid search on the GPU).
 */
struct robust_tone_lobe {
    const robust_consts& c;
    const double* yr;
    const double* yi;
    const unsigned char* present;
    int count = 0; //!< coefficients present
    // W(j - d) for the lobe's bins: exp(-i pi (j - d)(n-1)/n) sin(pi (j - d)) sum_m wt_m
    // / sin(pi (j - d - m) / n), with sin(pi (j - d)) = -(-1)^j sin(pi d); the
    // j-dependent phase is the same for every d.
    double pj_r[2 * robust_window_terms + 1], pj_i[2 * robust_window_terms + 1];

    GPUFFT_HD inline robust_tone_lobe(const robust_consts& consts,
                                      const double* y_r,
                                      const double* y_i,
                                      const unsigned char* found)
        : c(consts), yr(y_r), yi(y_i), present(found)
    {
        const int h = c.lobe;
        const double N = double(c.n);
        for (int j = -h; j <= h; ++j) {
            count += present[j + h] ? 1 : 0;
            const double a = -double(j) * (N - 1.0) / N;
#ifdef __CUDA_ARCH__
            sincospi(a, &pj_i[j + h], &pj_r[j + h]);
#else
            pj_r[j + h] = std::cos(3.141592653589793238 * a);
            pj_i[j + h] = std::sin(3.141592653589793238 * a);
#endif
        }
    }

    GPUFFT_HD inline double explained(double d, double& Ar, double& Ai) const
    {
        const int h = c.lobe;
        const double N = double(c.n);
        const int M = c.window_terms > 0 ? c.window_terms - 1 : 0;
        // 1 / sin(pi (q - d) / n) for the integers q = j - m of the lobe: one division
        // per q instead of one per (j, m). For n >= 4096, |t| = |pi (q - d) / n| <
        // 0.006, where 1/sin t = 1/t + t/6 + 7 t^3 / 360 is exact to 1e-16 relative.
        const int K = h + M;
        double inv[4 * robust_window_terms - 1];
        const double pi_n = 3.141592653589793238 / N, n_pi = N / 3.141592653589793238;
        double sd, er, ei;
#ifdef __CUDA_ARCH__
        sd = sinpi(d);
        sincospi(d * (N - 1.0) / N, &ei, &er);
#else
        sd = std::sin(3.141592653589793238 * d);
        er = std::cos(3.141592653589793238 * d * (N - 1.0) / N);
        ei = std::sin(3.141592653589793238 * d * (N - 1.0) / N);
#endif
        if (d != 0) {
            for (int q = -K; q <= K; ++q) {
                const double x = double(q) - d;
                if (c.n >= 4096) {
                    const double t = pi_n * x;
                    inv[q + K] = n_pi / x + t * (1.0 / 6.0 + t * t * (7.0 / 360.0));
                } else {
#ifdef __CUDA_ARCH__
                    inv[q + K] = 1.0 / sinpi(x / N);
#else
                    inv[q + K] = 1.0 / std::sin(3.141592653589793238 * x / N);
#endif
                }
            }
        }
        double nr = 0, ni = 0, den = 0;
        for (int j = -h; j <= h; ++j) {
            if (!present[j + h])
                continue;
            double wr, wi;
            if (d == 0) { // on the grid: W(j) = c_j
                wr = (j >= -M && j <= M) ? c.wc[j + 3] : 0.0;
                wi = 0;
            } else {
                double sr = 0, si = 0;
                for (int m = -M; m <= M; ++m) {
                    sr += c.wt_r[m + 3] * inv[j - m + K];
                    si += c.wt_i[m + 3] * inv[j - m + K];
                }
                const double s1 = (j & 1) ? sd : -sd;
                // phase_j exp(i pi d (n-1)/n) s1 (sr + i si)
                const double qr = pj_r[j + h] * er - pj_i[j + h] * ei;
                const double qi = pj_r[j + h] * ei + pj_i[j + h] * er;
                wr = s1 * (qr * sr - qi * si);
                wi = s1 * (qr * si + qi * sr);
            }
            nr += yr[j + h] * wr + yi[j + h] * wi; // y conj(w)
            ni += yi[j + h] * wr - yr[j + h] * wi;
            den += wr * wr + wi * wi;
        }
        Ar = den > 0 ? nr / den : 0;
        Ai = den > 0 ? ni / den : 0;
        return den > 0 ? (nr * nr + ni * ni) / den : 0;
    }
};

/*!
 * A tone from the coefficients of its main lobe (robust_tone_lobe): the offset delta in
 * [lo, hi] (by default [-0.5, 0.5]) that maximises the explained lobe energy, by a grid
 * of (hi - lo) / 8 and then a golden section to ~1e-5 bin, and the least-squares
 * amplitude at that offset. Returns the explained energy there.
 */
GPUFFT_HD inline double robust_fit_tone(const robust_consts& c,
                                        const double* yr,
                                        const double* yi,
                                        const unsigned char* present,
                                        double& delta,
                                        double& ar,
                                        double& ai,
                                        double lo_end = -0.5,
                                        double hi_end = 0.5)
{
    const robust_tone_lobe lobe(c, yr, yi, present);
    const double grid = (hi_end - lo_end) / 8.0;
    double best = 0.5 * (lo_end + hi_end);
    if (lobe.count > 1) {
        double bv = -1, tr, ti;
        for (int i = 0; i <= 8; ++i) {
            const double d = lo_end + grid * double(i);
            const double v = lobe.explained(d, tr, ti);
            if (v > bv) {
                bv = v;
                best = d;
            }
        }
        double lo = best - grid < lo_end ? lo_end : best - grid;
        double hi = best + grid > hi_end ? hi_end : best + grid;
        const double g = 0.6180339887498949;
        double a = hi - g * (hi - lo), b = lo + g * (hi - lo);
        double fa = lobe.explained(a, tr, ti), fb = lobe.explained(b, tr, ti);
        for (int it = 0; it < 20; ++it) { // bracket 2 grid steps -> 7e-5 of them
            if (fa > fb) {
                hi = b;
                b = a;
                fb = fa;
                a = hi - g * (hi - lo);
                fa = lobe.explained(a, tr, ti);
            } else {
                lo = a;
                a = b;
                fa = fb;
                b = lo + g * (hi - lo);
                fb = lobe.explained(b, tr, ti);
            }
        }
        best = 0.5 * (lo + hi);
    }
    delta = best;
    return lobe.explained(best, ar, ai);
}

//! Frequency f in bins brought into [0, n) (f within one n of it).
GPUFFT_HD inline double robust_wrap_frequency(const robust_consts& c, double f)
{
    const double N = double(c.n);
    return f < 0 ? f + N : (f >= N ? f - N : f);
}

/*!
 * The rectangular window's constants (W = D, the transform of n ones), to fit a tone to
 * the unwindowed spectrum's bins around it (the dense path's last step).
 */
inline robust_consts robust_plain_consts(const robust_consts& c)
{
    robust_consts p = c;
    p.window_terms = 0;
    for (int m = 0; m < 2 * robust_window_terms - 1; ++m)
        p.wt_r[m] = p.wt_i[m] = p.wc[m] = 0;
    p.wt_r[robust_window_terms - 1] = 1.0 / double(c.n);
    p.wc[robust_window_terms - 1] = 1.0;
    return p;
}

/*!
 * The dense path fits each tone twice. The window's lobe finds it and keeps strong
 * neighbours' leakage out, but the window weights the frame's ends, which carry most of
 * the frequency information, down: that fit's errors run at about 3x the Cramer-Rao
 * bound. The unwindowed bins around the tone (the lobe's width, centred on the bin
 * nearest the first fit, the same least-squares fit with W = D) reach close to the
 * bound, where nothing else leaks into them. The second fit searches within
 * robust_plain_reach bin of the first and is kept when its maximum lies inside that
 * range and what it leaves unexplained, total - explained, is below
 * robust_plain_residual x the unwindowed bin noise. In noise alone that residual is
 * chi-square with 11 degrees of freedom (7 complex bins less 3 real parameters), in
 * units of half a bin's noise: above 30 bins' noise about once in 10^8 tones (at 22, once
 * in 10^5, and a 31 dB tone of the accuracy study lost its second fit to it).
 */
constexpr double robust_plain_reach = 0.25;
constexpr double robust_plain_residual = 30.0;

//! The second fit's range around bin b0 for a first fit at frequency f (circular).
GPUFFT_HD inline void robust_plain_range(
    const robust_consts& c, double f, std::int64_t& b0, double& lo, double& hi)
{
    const double N = double(c.n);
    double r = floor(f + 0.5);
    const double centre = f - r;
    b0 = std::int64_t(r >= N ? r - N : r);
    lo = centre - robust_plain_reach;
    hi = centre + robust_plain_reach;
}

GPUFFT_HD inline bool robust_plain_fit_ok(double delta,
                                          double lo,
                                          double hi,
                                          double total,
                                          double explained,
                                          double plain_noise)
{
    const double edge = 1e-3 * (hi - lo);
    return delta > lo + edge && delta < hi - edge &&
           total - explained <= robust_plain_residual * plain_noise;
}

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_ROBUST_TONE_FIT_H */
