/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "sensing_fit.h"
#include <algorithm>
#include <stdexcept>

// Built for AVX2 + FMA beside the baseline (as sensing_cpu_loops.cc): an evaluation's
// 2 (lobe + terms) + 1 divisions and its sums run 4 wide.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__)
#define SENSING_SIMD __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define SENSING_SIMD
#endif

namespace gr {
namespace gpufft {
namespace detail {

namespace {

// robust_tone_lobe::explained(d) up to rounding, without its d-only factors; H the
// lobe's half-width, M the window's terms - 1 (compile-time, so the loops unroll).
template <int H, int M>
inline __attribute__((always_inline)) double explained(const robust_consts& c,
                                                       const sensing_fit_table& t,
                                                       const double* yr,
                                                       const double* yi,
                                                       double d)
{
    constexpr int K = H + M;
    const double N = double(c.n);
    double inv[2 * K + 1];
    const double pi_n = 3.141592653589793238 / N, n_pi = N / 3.141592653589793238;
    if (d != 0) {
        if (c.n >= 4096) {
            for (int q = -K; q <= K; ++q) {
                const double x = double(q) - d;
                const double s = pi_n * x;
                inv[q + K] = n_pi / x + s * (1.0 / 6.0 + s * s * (7.0 / 360.0));
            }
        } else {
            for (int q = -K; q <= K; ++q)
                inv[q + K] = 1.0 / std::sin(3.141592653589793238 * (double(q) - d) / N);
        }
    }
    double nr = 0, ni = 0, den = 0;
    for (int j = -H; j <= H; ++j) {
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
            const double s1 = (j & 1) ? 1.0 : -1.0;
            const double qr = t.pj_r[j + H], qi = t.pj_i[j + H];
            wr = s1 * (qr * sr - qi * si);
            wi = s1 * (qr * si + qi * sr);
        }
        nr += yr[j + H] * wr + yi[j + H] * wi;
        ni += yi[j + H] * wr - yr[j + H] * wi;
        den += wr * wr + wi * wi;
    }
    return den > 0 ? (nr * nr + ni * ni) / den : 0;
}

// The offset in [-0.5, 0.5] that maximises explained().
template <int H, int M>
inline __attribute__((always_inline)) double search(const robust_consts& c,
                                                    const sensing_fit_table& t,
                                                    const double* yr,
                                                    const double* yi)
{
    const auto f = [&](double d) { return -explained<H, M>(c, t, yr, yi, d); };
    const double grid = 1.0 / 8.0;
    double best = 0, fbest = 1;
    for (int i = 0; i <= 8; ++i) {
        const double d = -0.5 + grid * double(i);
        const double v = f(d);
        if (i == 0 || v < fbest) {
            fbest = v;
            best = d;
        }
    }
    double a = std::max(-0.5, best - grid), b = std::min(0.5, best + grid);
    // Brent's minimisation (Numerical Recipes' brent) of -explained on [a, b].
    const double cgold = 0.3819660112501051, tol = 1e-6;
    double x = best, w = best, v = best, fx = fbest, fw = fbest, fv = fbest;
    double e = 0, step = 0;
    for (int it = 0; it < 40; ++it) {
        const double xm = 0.5 * (a + b), tol2 = 2 * tol;
        if (std::fabs(x - xm) <= tol2 - 0.5 * (b - a))
            break;
        bool golden = true;
        if (std::fabs(e) > tol) {
            const double r = (x - w) * (fx - fv);
            double q = (x - v) * (fx - fw);
            double p = (x - v) * q - (x - w) * r;
            q = 2 * (q - r);
            if (q > 0)
                p = -p;
            q = std::fabs(q);
            const double etemp = e;
            e = step;
            if (!(std::fabs(p) >= std::fabs(0.5 * q * etemp) || p <= q * (a - x) ||
                  p >= q * (b - x))) {
                step = p / q;
                const double u = x + step;
                if (u - a < tol2 || b - u < tol2)
                    step = xm >= x ? tol : -tol;
                golden = false;
            }
        }
        if (golden) {
            e = x >= xm ? a - x : b - x;
            step = cgold * e;
        }
        const double u = std::fabs(step) >= tol ? x + step : x + (step > 0 ? tol : -tol);
        const double fu = f(u);
        if (fu <= fx) {
            if (u >= x)
                a = x;
            else
                b = x;
            v = w;
            fv = fw;
            w = x;
            fw = fx;
            x = u;
            fx = fu;
        } else {
            if (u < x)
                a = u;
            else
                b = u;
            if (fu <= fw || w == x) {
                v = w;
                fv = fw;
                w = u;
                fw = fu;
            } else if (fu <= fv || v == x || v == w) {
                v = u;
                fv = fu;
            }
        }
    }
    return x;
}

SENSING_SIMD double search_offset(const robust_consts& c,
                                  const sensing_fit_table& t,
                                  const double* yr,
                                  const double* yi)
{
    // The sensing plan's two windows (sensing_params: fit_half = lobe).
    if (c.lobe == 3 && c.window_terms == 4)
        return search<3, 3>(c, t, yr, yi);
    if (c.lobe == 2 && c.window_terms == 2)
        return search<2, 1>(c, t, yr, yi);
    throw std::logic_error(
        "sensing_fit_tone: a window other than Blackman-Harris or Hann");
}

} // namespace

sensing_fit_table::sensing_fit_table(const robust_consts& c)
{
    const double N = double(c.n);
    for (int j = -c.lobe; j <= c.lobe; ++j) {
        const double a = -double(j) * (N - 1.0) / N;
        pj_r[j + c.lobe] = std::cos(3.141592653589793238 * a);
        pj_i[j + c.lobe] = std::sin(3.141592653589793238 * a);
    }
}

double sensing_fit_tone(const robust_consts& c,
                        const sensing_fit_table& t,
                        const double* yr,
                        const double* yi,
                        double& delta,
                        double& ar,
                        double& ai)
{
    delta = search_offset(c, t, yr, yi);
    unsigned char present[2 * robust_window_terms + 1];
    for (int j = 0; j <= 2 * c.lobe; ++j)
        present[j] = 1;
    const robust_tone_lobe lobe(c, yr, yi, present);
    return lobe.explained(delta, ar, ai);
}

} // namespace detail
} // namespace gpufft
} // namespace gr
