/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "sensing/sensing_fit.h"
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

// 1 / sin(pi (q - d) / n) for |q| <= K, d != 0: for n >= 4096, |t| = |pi (q - d) / n| <
// 0.006, where 1/sin t = 1/t + t/6 + 7 t^3 / 360 is exact to 1e-16 relative (as
// robust_tone_lobe). From n = 256 (|t| < 0.08) the series to t^9 is as exact (its next
// term, 1414477 t^11 / 653837184000, is under 1e-18 of 1/t): 13 sines an evaluation
// were half of a fit's cost, and the fits most of detect()'s at n = 1024.
template <typename T>
inline __attribute__((always_inline)) T
inverse_sine_series(std::int64_t n, double pi_n, double n_pi, T x)
{
    const T s = pi_n * x;
    if (n >= 4096)
        return n_pi / x + s * (1.0 / 6.0 + s * s * (7.0 / 360.0));
    const T s2 = s * s;
    return n_pi / x +
           s * (1.0 / 6.0 + s2 * (7.0 / 360.0 + s2 * (31.0 / 15120.0 +
                                                      s2 * (127.0 / 604800.0 +
                                                            s2 * (73.0 / 3421440.0)))));
}

inline __attribute__((always_inline)) void
inverse_sines(const robust_consts& c, int K, double d, double* inv)
{
    const double N = double(c.n);
    const double pi_n = 3.141592653589793238 / N, n_pi = N / 3.141592653589793238;
    for (int q = -K; q <= K; ++q) {
        const double x = double(q) - d;
        inv[q + K] = c.n >= 256 ? inverse_sine_series(c.n, pi_n, n_pi, x)
                                : 1.0 / std::sin(3.141592653589793238 * x / N);
    }
}

// 1 / (k (k + 1)), k = 1 .. 23, made at compile time: the same quotients (a constant
// expression's division rounds as the instruction does). The series' loops below are
// not unrolled, and each of their 23 steps made its own with a division, which
// competed with the inverse sines' for the divider (a tenth of a fit).
struct sincos_terms {
    double r[24];
    constexpr sincos_terms() : r()
    {
        for (int k = 1; k < 24; ++k)
            r[k] = 1.0 / double(k * (k + 1));
    }
};
constexpr sincos_terms sincos_inv{};

// sin(pi d) and cos(pi d) for |d| <= 0.7 from their Taylor series to the 23rd and 24th
// power (the next terms under 1e-17 there), nested: sin x = x (1 - x^2 / (2 3) (1 -
// x^2 / (4 5) (...))), cos x = 1 - x^2 / (1 2) (1 - x^2 / (3 4) (...)).
inline __attribute__((always_inline)) void sincos_pi(double d, double& s, double& c)
{
    const double x = 3.141592653589793238 * d, x2 = x * x;
    double ts = 1, tc = 1;
    for (int k = 22; k >= 2; k -= 2)
        ts = 1 - x2 * ts * sincos_inv.r[k];
    for (int k = 23; k >= 1; k -= 2)
        tc = 1 - x2 * tc * sincos_inv.r[k];
    s = x * ts;
    c = tc;
}

// Four offsets a step (GCC's vector extension: AVX2 in the x86-64-v3 build, SSE2
// pairs in the baseline): the parabolic step's three evaluations, one after the other,
// were most of a fit (39 scalar divisions, 294 products).
typedef double v4d __attribute__((vector_size(32)));

//! inverse_sines() at four offsets (none an integer).
inline __attribute__((always_inline)) void
inverse_sines4(const robust_consts& c, const sensing_fit_table& t, int K, v4d d, v4d* inv)
{
    const double N = double(c.n);
    const double pi_n = t.pi_n, n_pi = t.n_pi; // the table's: no division first
    for (int q = -K; q <= K; ++q) {
        const v4d x = double(q) - d;
        if (c.n >= 256) {
            inv[q + K] = inverse_sine_series(c.n, pi_n, n_pi, x);
        } else {
            for (int l = 0; l < 4; ++l)
                inv[q + K][l] = 1.0 / std::sin(3.141592653589793238 * x[l] / N);
        }
    }
}

//! sincos_pi() at four offsets.
inline __attribute__((always_inline)) void sincos_pi4(v4d d, v4d& s, v4d& c)
{
    const v4d x = 3.141592653589793238 * d, x2 = x * x;
    v4d ts = (v4d{} + 1.0), tc = (v4d{} + 1.0);
    for (int k = 22; k >= 2; k -= 2)
        ts = 1.0 - x2 * ts * sincos_inv.r[k];
    for (int k = 23; k >= 1; k -= 2)
        tc = 1.0 - x2 * tc * sincos_inv.r[k];
    s = x * ts;
    c = tc;
}

// V_j = sum_m wt_m inv[j - m] over the lobe's bins (j from -H, into vr, vi) and sum_j
// |V_j|^2: the window's transform and energy at offset d, up to the factor sin(pi d)
// common to every bin.
inline __attribute__((always_inline)) double window_sums(
    const robust_consts& c, int H, int M, const double* inv, double* vr, double* vi)
{
    const int K = H + M;
    double den = 0;
    for (int j = -H; j <= H; ++j) {
        double sr = 0, si = 0;
        for (int m = -M; m <= M; ++m) {
            sr += c.wt_r[m + 3] * inv[j - m + K];
            si += c.wt_i[m + 3] * inv[j - m + K];
        }
        vr[j + H] = sr;
        vi[j + H] = si;
        den += sr * sr + si * si;
    }
    return den;
}

// One fit's explained energy, robust_tone_lobe::explained(d) up to rounding and without
// its d-only factors (sin(pi d) and exp(i pi d (n-1)/n) scale every W(j - d) alike):
// with a_j = y_j (-1)^(j+1) conj(phase_j), the numerator is |S|^2, S = sum_j a_j
// conj(V_j), over D = sum_j |V_j|^2 (window_sums). On the grid the V_j come from the
// plan's table (7 products a point); elsewhere window_sums makes them with D (the sums
// over q of a_j's products with the window, 49 a fit, were a sixth of its cost). H the
// lobe's half-width, M the window's terms - 1.
template <int H, int M>
struct tone_lobe {
    static constexpr int K = H + M;
    const robust_consts& c;
    const sensing_fit_table& t;
    const double* yr;
    const double* yi;
    double ar[2 * H + 1], ai[2 * H + 1]; // a_j

    tone_lobe(const robust_consts& consts,
              const sensing_fit_table& table,
              const double* y_r,
              const double* y_i)
        : c(consts), t(table), yr(y_r), yi(y_i)
    {
        for (int j = -H; j <= H; ++j) {
            const double s1 = (j & 1) ? 1.0 : -1.0;
            const double pr = t.pj_r[j + H], pi = -t.pj_i[j + H]; // conj(phase_j)
            ar[j + H] = s1 * (yr[j + H] * pr - yi[j + H] * pi);
            ai[j + H] = s1 * (yr[j + H] * pi + yi[j + H] * pr);
        }
    }

    // S = sum_j a_j conj(V_j).
    __attribute__((always_inline)) void
    sum(const double* vr, const double* vi, double& nr, double& ni) const
    {
        nr = 0;
        ni = 0;
        for (int j = 0; j <= 2 * H; ++j) {
            nr += ar[j] * vr[j] + ai[j] * vi[j];
            ni += ai[j] * vr[j] - ar[j] * vi[j];
        }
    }

    // On the grid: W(j) = c_j; sum_j y_j c_j and sum_j c_j^2.
    __attribute__((always_inline)) void
    zero_sums(double& nr, double& ni, double& den) const
    {
        nr = ni = den = 0;
        for (int j = -M; j <= M && j <= H; ++j) {
            if (j < -H)
                continue;
            const double w = c.wc[j + 3];
            nr += yr[j + H] * w;
            ni += yi[j + H] * w;
            den += w * w;
        }
    }

    __attribute__((always_inline)) double at_zero() const
    {
        double nr, ni, den;
        zero_sums(nr, ni, den);
        return den > 0 ? (nr * nr + ni * ni) / den : 0;
    }

    __attribute__((always_inline)) double operator()(double d) const
    {
        if (d == 0)
            return at_zero();
        double inv[2 * K + 1], vr[2 * H + 1], vi[2 * H + 1], nr, ni;
        inverse_sines(c, K, d, inv);
        const double den = window_sums(c, H, M, inv, vr, vi);
        sum(vr, vi, nr, ni);
        return den > 0 ? (nr * nr + ni * ni) / den : 0;
    }

    //! grid(i) for every grid point at once, four points a vector, each times 1 / D
    //! where grid() divides by D (the offset moves by ~1e-12 bin at most).
    __attribute__((always_inline)) void grid_all(double* g) const
    {
        constexpr int V = sensing_fit_table::grid_lanes / 4;
        v4d nr[V] = {}, ni[V] = {};
        for (int j = 0; j <= 2 * H; ++j)
            for (int b = 0; b < V; ++b) {
                v4d vr, vi;
                __builtin_memcpy(&vr, &t.lane_vr[j][4 * b], sizeof vr);
                __builtin_memcpy(&vi, &t.lane_vi[j][4 * b], sizeof vi);
                nr[b] += ar[j] * vr + ai[j] * vi;
                ni[b] += ai[j] * vr - ar[j] * vi;
            }
        double out[sensing_fit_table::grid_lanes];
        for (int b = 0; b < V; ++b) {
            v4d inv;
            __builtin_memcpy(&inv, &t.lane_inv_den[4 * b], sizeof inv);
            const v4d e = (nr[b] * nr[b] + ni[b] * ni[b]) * inv;
            __builtin_memcpy(&out[4 * b], &e, sizeof e);
        }
        for (int i = 0; i < sensing_fit_table::grid_points; ++i)
            g[i] = t.grid_den[i] <= 0 ? at_zero() : out[i];
    }

    /*!
     * explained(d) with the least-squares amplitude (robust_tone_lobe::explained): with
     * W_j = phase_j E s_j sin(pi d) V_j (E = exp(i pi d (n-1)/n), s_j = -(-1)^j, V_j =
     * sum_m wt_m inv_{j-m}), sum_j y_j conj(W_j) = sin(pi d) conj(E) S (S = sum_j a_j
     * conj(V_j)) and sum_j |W_j|^2 = sin^2(pi d) D, so A = conj(E) S /
     * (sin(pi d) D): from the sums the search makes, where robust_tone_lobe made every
     * W_j again.
     */
    __attribute__((always_inline)) double
    explained(double d, double& Ar, double& Ai) const
    {
        if (d == 0) {
            double nr, ni, den;
            zero_sums(nr, ni, den);
            Ar = den > 0 ? nr / den : 0;
            Ai = den > 0 ? ni / den : 0;
            return den > 0 ? (nr * nr + ni * ni) / den : 0;
        }
        double inv[2 * K + 1], vr[2 * H + 1], vi[2 * H + 1], nr, ni;
        inverse_sines(c, K, d, inv);
        const double den = window_sums(c, H, M, inv, vr, vi);
        sum(vr, vi, nr, ni);
        if (!(den > 0)) {
            Ar = Ai = 0;
            return 0;
        }
        // E = exp(i pi d) exp(-i pi d / n), both from their series (|pi d| < 2,
        // |pi d / n| < 0.01): a sine and a sincos call were a tenth of a fit.
        double sd, cd;
        sincos_pi(d, sd, cd);
        const double y = 3.141592653589793238 * d / double(c.n), y2 = y * y;
        const double cy = 1 - y2 * (0.5 - y2 * (1.0 / 24 - y2 * (1.0 / 720))),
                     sy = y * (1 - y2 * (1.0 / 6 - y2 * (1.0 / 120 - y2 * (1.0 / 5040))));
        const double er = cd * cy + sd * sy, ei = sd * cy - cd * sy;
        const double scale = 1.0 / (sd * den);
        Ar = (er * nr + ei * ni) * scale; // conj(E) S / (sin(pi d) D)
        Ai = (er * ni - ei * nr) * scale;
        return (nr * nr + ni * ni) / den;
    }

    /*!
     * explained() and its amplitude at four offsets at once, none of them 0 (f, Ar and
     * Ai lane by lane; 0 where D is not positive): the same sums as operator() and
     * explained(), a lane an offset.
     */
    __attribute__((always_inline)) void explained4(v4d d, v4d& f, v4d& Ar, v4d& Ai) const
    {
        v4d inv[2 * K + 1];
        inverse_sines4(c, t, K, d, inv);
        v4d den = v4d{}, nr = v4d{}, ni = v4d{};
        for (int j = -H; j <= H; ++j) {
            v4d sr = v4d{}, si = v4d{};
            for (int m = -M; m <= M; ++m) {
                sr += c.wt_r[m + 3] * inv[j - m + K];
                si += c.wt_i[m + 3] * inv[j - m + K];
            }
            den += sr * sr + si * si;
            nr += ar[j + H] * sr + ai[j + H] * si;
            ni += ai[j + H] * sr - ar[j + H] * si;
        }
        v4d sd, cd;
        sincos_pi4(d, sd, cd);
        const v4d y = t.pi_n * d, y2 = y * y; // pi / n
        const v4d cy = 1.0 - y2 * (0.5 - y2 * (1.0 / 24 - y2 * (1.0 / 720))),
                  sy = y * (1.0 - y2 * (1.0 / 6 - y2 * (1.0 / 120 - y2 * (1.0 / 5040))));
        const v4d er = cd * cy + sd * sy, ei = sd * cy - cd * sy;
        const auto good = den > 0;
        const v4d safe = good ? den : (v4d{} + 1.0);
        const v4d scale = 1.0 / (sd * safe);
        f = good ? (nr * nr + ni * ni) / safe : v4d{};
        Ar = good ? (er * nr + ei * ni) * scale : v4d{};
        Ai = good ? (er * ni - ei * nr) * scale : v4d{};
    }
};

// Brent's minimisation (Numerical Recipes' brent) of -explained on [a, b] from its best
// point x so far (value -fx): the fallback where the parabolic steps below do not hold
// (inlined, as every piece of the search, into the AVX2 + FMA build of fit()).
template <typename F>
inline __attribute__((always_inline)) double
brent(const F& f, double a, double b, double x, double fx)
{
    const double cgold = 0.3819660112501051, tol = 1e-6;
    double w = x, v = x, fw = fx, fv = fx;
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

// The vertex of the parabola through (x - h, fm), (x, f0), (x + h, fp); false where the
// three do not bend down (no maximum to step to).
inline bool vertex(double x, double h, double fm, double f0, double fp, double& v)
{
    const double curve = 2 * f0 - fm - fp;
    if (!(curve > 0))
        return false;
    v = x + 0.5 * h * (fp - fm) / curve;
    return true;
}

// The maximum of the quartic through f[0..4] at x - 2h .. x + 2h: Newton's method on its
// derivative from the parabola's vertex; false where it does not bend down there.
inline bool quartic_vertex(double x, double h, const double* f, double& v)
{
    // (Products with 1/12 and 1/24, not quotients: four divisions were a tenth of the
    // search; the vertex moves by ~1e-15 bin.)
    const double c1 = (f[0] - 8 * f[1] + 8 * f[3] - f[4]) * (1.0 / 12);
    const double c2 = (-f[0] + 16 * f[1] - 30 * f[2] + 16 * f[3] - f[4]) * (1.0 / 24);
    const double c3 = (-f[0] + 2 * f[1] - 2 * f[3] + f[4]) * (1.0 / 12);
    const double c4 = (f[0] - 4 * f[1] + 6 * f[2] - 4 * f[3] + f[4]) * (1.0 / 24);
    if (!(c2 < 0))
        return false;
    double t = -c1 / (2 * c2);
    for (int it = 0; it < 4; ++it) {
        const double slope = c1 + t * (2 * c2 + t * (3 * c3 + t * 4 * c4));
        const double bend = 2 * c2 + t * (6 * c3 + t * 12 * c4);
        if (!(bend < 0))
            return false;
        t -= slope / bend;
    }
    v = x + h * t;
    return std::isfinite(v);
}

// The offset in [-0.625, 0.625] that maximises explained(): the grid spans the peak
// bin's half-widths, and the search may go one grid step past them, since noise can put
// the peak in the neighbour of a tone 0.49 bin off (a search held to +-0.5 then returned
// the tone at exactly the half bin, which the two roundings of a message put in two
// bins).
//
// From the grid, the parabola through the best point and its neighbours puts the
// maximum within ~0.01 bin; each parabola through a point and two more `h` either side
// is then a Newton step whose error is ~(error^2 + h^2) x the lobe's third over its
// second derivative (~1 a bin): two of them (h 1/128, then 1/4096) reach 1e-7 bin for
// 6 evaluations, where Brent's search took 9-14 to 1e-6. Brent's search is kept where a
// step leaves its points' span (the grid's parabola misled by noise, or no maximum
// between them).
// One parabolic step at four lanes: explained() and its amplitude at q - h, q, q + h
// (and q again), the vertex v of their parabola, and where it is within the points'
// span, the explained energy and amplitude at v from the parabolas through the three
// (both smooth in d: their error is ~h^3 |t| of the third derivative, under 1e-10
// relative for h = 1/4096; explained() at v took a fourth evaluation). False where a
// point is 0 or the three do not bend down.
template <int H, int M>
inline __attribute__((always_inline)) bool step4(const tone_lobe<H, M>& lobe,
                                                 double q,
                                                 double h,
                                                 double& v,
                                                 double& fv,
                                                 double& Ar,
                                                 double& Ai)
{
    if (q - h == 0 || q == 0 || q + h == 0)
        return false;
    v4d f, ar, ai;
    lobe.explained4(v4d{ q - h, q, q + h, q }, f, ar, ai);
    if (!vertex(q, h, f[0], f[1], f[2], v))
        return false;
    const double t = (v - q) / h;
    const double lm = 0.5 * t * (t - 1), l0 = 1 - t * t, lp = 0.5 * t * (t + 1);
    fv = lm * f[0] + l0 * f[1] + lp * f[2];
    Ar = lm * ar[0] + l0 * ar[1] + lp * ar[2];
    Ai = lm * ai[0] + l0 * ai[1] + lp * ai[2];
    return true;
}

// The search's result: the offset, and where the search's last step gave them, the
// explained energy and amplitude there (have; else search() evaluates them).
struct fit_point {
    double d = 0, f = 0, ar = 0, ai = 0;
    bool have = false;
};

template <int H, int M>
inline __attribute__((always_inline)) fit_point offset(const tone_lobe<H, M>& lobe)
{
    const auto f = [&](double d) { return -lobe(d); };
    const double grid = 1.0 / 8.0;
    double g[sensing_fit_table::grid_points];
    lobe.grid_all(g);
    // The first greatest point, its value kept in a register: through g[ib] each
    // step's compare waited on the last one's load (a tenth of a fit's time).
    int ib = 0;
    double top = g[0];
    for (int i = 1; i < sensing_fit_table::grid_points; ++i) {
        const bool more = g[i] > top;
        top = more ? g[i] : top;
        ib = more ? i : ib;
    }
    const double best = -0.5 + grid * double(ib);
    const double a = best - grid, b = best + grid;
    // Brent's search, where the steps do not hold, is called in place: through a
    // lambda its body was built for the baseline, outside fit()'s AVX2 + FMA build.
    // The quartic through the best grid point and two either side: its maximum is
    // within 1e-4 bin of explained()'s in 99 % of lobes (3e-4 at most; simulated
    // tones 3-80 dB a bin), so one step of h = 1/4096 (3 evaluations) reaches it to
    // ~1e-8 bin; a second where the first moved the offset by more than 1e-4.
    {
        const int iq = std::clamp(ib, 2, sensing_fit_table::grid_points - 3);
        double q;
        if (quartic_vertex(-0.5 + grid * double(iq), grid, g + iq - 2, q) && q > a &&
            q < b) {
            const double h = 1.0 / 4096.0;
            for (int step = 0; step < 2; ++step) {
                fit_point p;
                if (!step4(lobe, q, h, p.d, p.f, p.ar, p.ai) ||
                    !(std::fabs(p.d - q) <= 2 * h) || !(p.d > a && p.d < b))
                    break;
                if (std::fabs(p.d - q) <= 1e-4) {
                    p.have = true;
                    return p;
                }
                q = p.d;
            }
        }
    }
    const int ic = std::clamp(ib, 1, sensing_fit_table::grid_points - 2);
    fit_point p;
    double d;
    if (!vertex(-0.5 + grid * double(ic), grid, g[ic - 1], g[ic], g[ic + 1], d) ||
        !(d > a && d < b)) {
        p.d = brent(f, a, b, best, -g[ib]);
        return p;
    }
    const double steps[2] = { 1.0 / 128.0, 1.0 / 4096.0 };
    for (const double h : steps) {
        double v;
        if (!vertex(d, h, lobe(d - h), lobe(d), lobe(d + h), v) ||
            !(std::fabs(v - d) <= 2 * h) || !(v > a && v < b)) {
            p.d = brent(f, a, b, best, -g[ib]);
            return p;
        }
        d = v;
    }
    p.d = d;
    return p;
}

// The offset (delta), its amplitude and the explained energy, from one lobe.
template <int H, int M>
inline __attribute__((always_inline)) double search(const robust_consts& c,
                                                    const sensing_fit_table& t,
                                                    const double* yr,
                                                    const double* yi,
                                                    double& delta,
                                                    double& ar,
                                                    double& ai)
{
    const tone_lobe<H, M> lobe(c, t, yr, yi);
    const fit_point p = offset(lobe);
    delta = p.d;
    if (!p.have)
        return lobe.explained(delta, ar, ai);
    ar = p.ar;
    ai = p.ai;
    return p.f;
}

SENSING_SIMD double fit(const robust_consts& c,
                        const sensing_fit_table& t,
                        const double* yr,
                        const double* yi,
                        double& delta,
                        double& ar,
                        double& ai)
{
    // The sensing plan's two windows (sensing_params: fit_half = lobe).
    if (c.lobe == 3 && c.window_terms == 4)
        return search<3, 3>(c, t, yr, yi, delta, ar, ai);
    if (c.lobe == 2 && c.window_terms == 2)
        return search<2, 1>(c, t, yr, yi, delta, ar, ai);
    throw std::logic_error(
        "sensing_fit_tone: a window other than Blackman-Harris or Hann");
}

} // namespace

sensing_fit_table::sensing_fit_table(const robust_consts& c)
{
    const double N = double(c.n);
    pi_n = 3.141592653589793238 / N;
    n_pi = N / 3.141592653589793238;
    for (int j = -c.lobe; j <= c.lobe; ++j) {
        const double a = -double(j) * (N - 1.0) / N;
        pj_r[j + c.lobe] = std::cos(3.141592653589793238 * a);
        pj_i[j + c.lobe] = std::sin(3.141592653589793238 * a);
    }
    const int H = c.lobe, M = c.window_terms > 0 ? c.window_terms - 1 : 0;
    if (2 * (H + M) + 1 > max_q || M > 3)
        throw std::logic_error("sensing_fit_table: a lobe wider than the table");
    for (int i = 0; i < grid_points; ++i) {
        const double d = -0.5 + double(i) / double(grid_points - 1);
        if (d == 0)
            continue; // grid_den 0: the search takes W(j) = c_j there
        double inv[max_q];
        inverse_sines(c, H + M, d, inv);
        grid_den[i] = window_sums(c, H, M, inv, grid_vr[i], grid_vi[i]);
        for (int j = 0; j <= 2 * H; ++j) {
            lane_vr[j][i] = grid_vr[i][j];
            lane_vi[j][i] = grid_vi[i][j];
        }
        lane_inv_den[i] = grid_den[i] > 0 ? 1.0 / grid_den[i] : 0.0;
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
    return fit(c, t, yr, yi, delta, ar, ai);
}

} // namespace detail
} // namespace gpufft
} // namespace gr
