/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The dense path's joint fit of tones that share a window lobe (robust mode, written
// once for host and device like robust_math.h): the tones of a cluster are fitted
// together to the unwindowed spectrum around them, X[b] = sum_i A_i D(b - f_i), and a
// tone hidden in the lobe of another is added where the residual says one is there.
// CPU: resolve_close_tones() (robust_tones.cc); GPU: a warp per cluster
// (robust_dense_kernels.cu). Both run robust_pair_fit() below.

#ifndef INCLUDED_GPUFFT_ROBUST_PAIRS_H
#define INCLUDED_GPUFFT_ROBUST_PAIRS_H

#include "robust_math.h"

namespace gr {
namespace gpufft {
namespace detail {

/*!
 * A cluster: tones whose lobe peaks lie at most robust_pair_gap bins apart (each one's
 * windowed fit then sees the other's main lobe, +-4 bins with Blackman-Harris, within
 * its own +-3 bins), or one tone whose unwindowed fit failed (robust_plain_fit_ok():
 * something else sits in its bins) or left more than noise around it
 * (robust_pair_quiet()). At most robust_pair_max_tones tones, found or added; a longer
 * chain is left as the lobe fits gave it.
 */
constexpr int robust_pair_gap = 10;
constexpr int robust_pair_max_tones = 4;
//! The fit reads the unwindowed bins from margin + 1 below the lowest peak to margin +
//! 1 above the highest: a tone hidden in a peak's lobe lies up to half the main lobe
//! (4 bins) from it, and its frequency information lies in its +-3 bins.
constexpr int robust_pair_margin = 6;
constexpr int robust_pair_max_bins = 64;
//! An added tone's candidate positions stand this far (bins) from the fit's tones;
//! closer pairs come from splitting a tone (robust_pair_split).
constexpr double robust_pair_grid_sep = 0.6;
//! Two tones of a fit are told apart when they stand this many standard deviations of
//! their separation's noise error apart (the fit's own covariance). This, not the
//! Rayleigh limit of one bin, is what tells two tones from one: the closer the pair, the
//! more SNR it takes. Below it the fit could split one tone in two.
constexpr double robust_pair_resolution = 5.0;
//! And never closer than this (bins): two kernels this close are nearly one vector, and
//! the normal equations lose their precision.
constexpr double robust_pair_min_sep = 0.1;
//! A split replaces a tone by two this far (bins) on either side of it.
constexpr double robust_pair_split = 0.2;
//! Tones outside the cluster within robust_tone_reach bins are taken out of its bins
//! with their fitted values; where their leakage exceeds this many bins' noise the
//! subtraction's own error (the fits' resolution, float rounding) could pass for a
//! tone, and the cluster keeps its lobe fits.
constexpr double robust_pair_guard = 1e5;
//! Gauss-Newton (Levenberg-Marquardt) iterations of one fit, at most; of a trial fit
//! with a tone added, which only has to show whether the tone pays (the fit it wins
//! goes on from there), fewer: a doubtful tone's offset can crawl through them all.
constexpr int robust_pair_iterations = 24;
constexpr int robust_pair_trial_iterations = 8;
//! A step of the offsets this small (bins) ends the iterations: far below their errors
//! in noise, and each pass is a warp's serial work on the GPU.
constexpr double robust_pair_converged = 1e-6;
//! A step that takes out less than this share of one bin's noise ends them too: a
//! residual that far above its minimum puts the offsets within ~0.05 of their bound.
constexpr double robust_pair_settled = 1e-3;
//! Candidate positions of an added tone per bin.
constexpr int robust_pair_steps = 4;

//! The weakest |A|^2 the windowed threshold finds: eta x the windowed bin noise at the
//! window's peak gain c_0 (noise: one unwindowed bin's noise power).
SFFT_HD double robust_pair_min_power(const robust_consts& c, double eta, double noise)
{
    double wp = 0;
    for (int m = 0; m < 2 * robust_window_terms - 1; ++m)
        wp += c.wc[m] * c.wc[m];
    const double c0 = c.wc[robust_window_terms - 1];
    return eta * noise * wp / (c0 * c0);
}

/*!
 * Beside its tones, the fit has robust_pair_far linear terms for the leakage of every
 * tone farther away than the ones it takes out: with the Dirichlet kernel's phase taken
 * out, a far tone's leakage across the window is (-1)^j times a slowly varying
 * function of the bin j, here (-1)^j (a + b j). Without them, the leakage of the
 * frame's other tones (at 1000 tones and 70 dB per bin, several bins' noise) would
 * pass for a hidden tone, or fail the residual test.
 */
constexpr int robust_pair_far = 2;
constexpr int robust_pair_max_basis = robust_pair_max_tones + robust_pair_far;
constexpr int robust_pair_max_params = robust_pair_max_tones + 2 * robust_pair_max_basis;

/*!
 * The residual a fit of p tones to W bins may leave, in units of one bin's noise: in
 * noise alone it is chi-square with 2W - 3p - 2 robust_pair_far degrees of freedom over
 * 2; this bound (mean + 6 sd + 12) is passed about once in 10^8 fits, like
 * robust_plain_residual for the 7-bin fit.
 */
SFFT_HD double robust_pair_dof(int W, int p)
{
    const double half = 0.5 * double(2 * W - 3 * p - 2 * robust_pair_far);
    return half > 1 ? half : 1.0;
}
SFFT_HD double robust_pair_residual(int W, int p)
{
    const double half = robust_pair_dof(W, p);
    return half + 6.0 * sqrt(half) + 12.0;
}

//! Scratch of one cluster's fit: the bins (re, im), the residual and the basis.
struct robust_pair_work {
    double yr[robust_pair_max_bins], yi[robust_pair_max_bins];
    double rr[robust_pair_max_bins], ri[robust_pair_max_bins];
    double g[robust_pair_max_basis][robust_pair_max_bins];
};

/*!
 * g(x) = sin(pi x) / (n sin(pi x / n)), the real part of the Dirichlet kernel once its
 * linear phase is taken out (D(x) = exp(-i pi x (n-1)/n) g(x)), and g'(x).
 */
SFFT_HD void robust_pair_kernel(std::int64_t n, double x, double& g, double& dg)
{
    const double N = double(n), pi = 3.141592653589793238;
    if (fabs(x) < 1e-6) {
        const double k = pi * pi * (1.0 - 1.0 / (N * N));
        g = 1.0 - k * x * x / 6.0;
        dg = -k * x / 3.0;
        return;
    }
    double s, co;
#ifdef __CUDA_ARCH__
    sincospi(x, &s, &co);
#else
    s = std::sin(pi * x);
    co = std::cos(pi * x);
#endif
    double inv, ct;
    const double t = pi * x / N;
    if (n >= 4096 && fabs(x) <= 256.0) {
        // |t| < 0.2: 1/sin t and cos t by their series, exact to ~1e-13 relative.
        const double t2 = t * t;
        inv = 1.0 / t + t * (1.0 / 6.0 + t2 * (7.0 / 360.0 + t2 * (31.0 / 15120.0)));
        ct = 1.0 - t2 * (0.5 - t2 * (1.0 / 24.0 - t2 / 720.0));
    } else {
        inv = 1.0 / sin(t);
        ct = cos(t);
    }
    g = s * inv / N;
    dg = (pi * co * inv - s * (pi / N) * ct * inv * inv) / N;
}

//! The far-leakage terms at bin j of W: (-1)^j and (-1)^j (j - (W - 1)/2) / W.
SFFT_HD double robust_pair_far_term(int t, int j, int W)
{
    const double s = (j & 1) ? -1.0 : 1.0;
    return t == 0 ? s : s * (double(j) - 0.5 * double(W - 1)) / double(W);
}

//! exp(i pi x (n - 1) / n): the linear phase of D that the fit takes out.
SFFT_HD void robust_pair_phase(std::int64_t n, double x, double& re, double& im)
{
    const double a = x * (double(n) - 1.0) / double(n);
#ifdef __CUDA_ARCH__
    sincospi(a, &im, &re);
#else
    re = std::cos(3.141592653589793238 * a);
    im = std::sin(3.141592653589793238 * a);
#endif
}

/*!
 * Cholesky factor (lower, in place) of the m x m symmetric positive definite a
 * (row-major); false when a is not positive definite.
 */
SFFT_HD bool robust_pair_factor(double* a, int m)
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
SFFT_HD void robust_pair_substitute(const double* a, double* b, int m, bool back = true)
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

/*!
 * The sums one pass over the bins gives (robust_pair_pass()), for p tones and q = p +
 * robust_pair_far basis functions phi (the tones' g, then the far terms): [0] the
 * residual's energy; G_kl = sum phi_k phi_l (k <= l < q), H_ik = sum g_i' g_k'
 * (i <= k < p), C_ik = sum g_i' phi_k, sum phi_k r and sum g_i' r (complex).
 */
struct robust_pair_sums {
    int p, q;
    SFFT_HD explicit robust_pair_sums(int tones) : p(tones), q(tones + robust_pair_far) {}
    SFFT_HD int G(int k, int l) const { return 1 + tri(k, l, q); }
    SFFT_HD int H(int i, int k) const { return 1 + q * (q + 1) / 2 + tri(i, k, p); }
    SFFT_HD int C(int i, int k) const
    {
        return 1 + q * (q + 1) / 2 + p * (p + 1) / 2 + i * q + k;
    }
    SFFT_HD int gr(int k) const { return C(p, 0) + 2 * k; }
    SFFT_HD int dgr(int i) const { return C(p, 0) + 2 * q + 2 * i; }
    SFFT_HD int count() const { return C(p, 0) + 2 * q + 2 * p; }
    SFFT_HD static int tri(int i, int k, int size)
    {
        const int a = i < k ? i : k, b = i < k ? k : i;
        return a * size - a * (a - 1) / 2 + (b - a);
    }
};
constexpr int robust_pair_max_sums =
    1 + robust_pair_max_basis * (robust_pair_max_basis + 1) / 2 +
    robust_pair_max_tones * (robust_pair_max_tones + 1) / 2 +
    robust_pair_max_tones * robust_pair_max_basis + 2 * robust_pair_max_basis +
    2 * robust_pair_max_tones;

/*!
 * One pass over the W bins for p tones at offsets d (bins from the window's first bin)
 * and the coefficients (br, bi) of the q = p + robust_pair_far basis functions (phase
 * taken out, as Y): the basis and the residual r = Y - sum B_k phi_k into the work, and
 * the sums (robust_pair_sums), the same in every lane.
 */
template <typename Lanes>
SFFT_HD void robust_pair_pass(const robust_consts& c,
                              robust_pair_work& w,
                              int W,
                              int p,
                              const double* d,
                              const double* br,
                              const double* bi,
                              double* S,
                              const Lanes& lanes)
{
    const robust_pair_sums at(p);
    const int q = at.q, count = at.count();
    for (int k = 0; k < count; ++k)
        S[k] = 0;
    for (int j = lanes.lane(); j < W; j += Lanes::width) {
        double g[robust_pair_max_basis], dg[robust_pair_max_tones];
        double rr = w.yr[j], ri = w.yi[j];
        for (int k = 0; k < q; ++k) {
            if (k < p)
                robust_pair_kernel(c.n, double(j) - d[k], g[k], dg[k]);
            else
                g[k] = robust_pair_far_term(k - p, j, W);
            w.g[k][j] = g[k];
            rr -= br[k] * g[k];
            ri -= bi[k] * g[k];
        }
        w.rr[j] = rr;
        w.ri[j] = ri;
        S[0] += rr * rr + ri * ri;
        for (int k = 0; k < q; ++k) {
            for (int l = k; l < q; ++l)
                S[at.G(k, l)] += g[k] * g[l];
            S[at.gr(k)] += g[k] * rr;
            S[at.gr(k) + 1] += g[k] * ri;
        }
        for (int i = 0; i < p; ++i) {
            for (int k = i; k < p; ++k)
                S[at.H(i, k)] += dg[i] * dg[k];
            for (int k = 0; k < q; ++k)
                S[at.C(i, k)] += dg[i] * g[k];
            S[at.dgr(i)] += dg[i] * rr;
            S[at.dgr(i) + 1] += dg[i] * ri;
        }
    }
    lanes.sum_n(S, count);
}

//! The least-squares coefficients of the basis for p tones at offsets d.
template <typename Lanes>
SFFT_HD bool robust_pair_amplitudes(const robust_consts& c,
                                    robust_pair_work& w,
                                    int W,
                                    int p,
                                    const double* d,
                                    double* br,
                                    double* bi,
                                    const Lanes& lanes)
{
    double S[robust_pair_max_sums];
    const robust_pair_sums at(p);
    const int q = at.q;
    for (int k = 0; k < q; ++k)
        br[k] = bi[k] = 0;
    robust_pair_pass(c, w, W, p, d, br, bi, S, lanes);
    double a[robust_pair_max_basis * robust_pair_max_basis];
    for (int k = 0; k < q; ++k) {
        br[k] = S[at.gr(k)];
        bi[k] = S[at.gr(k) + 1];
        for (int l = 0; l < q; ++l)
            a[k * q + l] = S[at.G(k, l)];
    }
    if (!robust_pair_factor(a, q))
        return false;
    robust_pair_substitute(a, br, q);
    robust_pair_substitute(a, bi, q);
    return true;
}

/*!
 * The normal equations of a fit of p tones from its sums S (robust_pair_pass()) and
 * coefficients (br, bi). Parameters: the p offsets, then (Re B_k, Im B_k) per basis
 * function. r = Y - sum B phi: dr/dd_i = B_i g_i', dr/dRe B_k = -phi_k, dr/dIm B_k =
 * -i phi_k; a = Re(J^H J) (m x m, m = p + 2q), v = -Re(J^H r) (v may be null). The
 * noise's covariance of the parameters is a^-1 times half a bin's noise power.
 */
SFFT_HD void robust_pair_normal(const robust_pair_sums& at,
                                const double* S,
                                const double* br,
                                const double* bi,
                                double* a,
                                double* v)
{
    const int p = at.p, q = at.q, m = p + 2 * q;
    for (int i = 0; i < p; ++i) {
        for (int k = 0; k < p; ++k)
            a[i * m + k] = (br[i] * br[k] + bi[i] * bi[k]) * S[at.H(i, k)];
        for (int k = 0; k < q; ++k) {
            const double ci = S[at.C(i, k)];
            a[i * m + p + 2 * k] = a[(p + 2 * k) * m + i] = -br[i] * ci;
            a[i * m + p + 2 * k + 1] = a[(p + 2 * k + 1) * m + i] = -bi[i] * ci;
        }
        if (v)
            v[i] = -(br[i] * S[at.dgr(i)] + bi[i] * S[at.dgr(i) + 1]);
    }
    for (int k = 0; k < q; ++k) {
        for (int l = 0; l < q; ++l) {
            const double g = S[at.G(k, l)];
            a[(p + 2 * k) * m + p + 2 * l] = g;
            a[(p + 2 * k + 1) * m + p + 2 * l + 1] = g;
            a[(p + 2 * k) * m + p + 2 * l + 1] = 0;
            a[(p + 2 * k + 1) * m + p + 2 * l] = 0;
        }
        if (v) {
            v[p + 2 * k] = S[at.gr(k)];
            v[p + 2 * k + 1] = S[at.gr(k) + 1];
        }
    }
}

/*!
 * Levenberg-Marquardt on the offsets of p tones and the coefficients of the basis from
 * (d, br, bi), over the bins in the work. Returns the residual energy at the end; the
 * work then holds that fit's basis and residual, and S its sums. It stops once an
 * undamped step takes out less than robust_pair_settled of one bin's noise (`noise`):
 * the minimum is then nearer than a small part of the bound, and a weak tone's offset
 * can otherwise crawl through every iteration, each a pass of a warp's serial work on
 * the GPU.
 */
template <typename Lanes>
SFFT_HD double robust_pair_lm(const robust_consts& c,
                              robust_pair_work& w,
                              int W,
                              int p,
                              double* d,
                              double* br,
                              double* bi,
                              double* S,
                              double noise,
                              const Lanes& lanes,
                              int iterations = robust_pair_iterations)
{
    const robust_pair_sums at(p);
    const int q = at.q, m = p + 2 * q;
    robust_pair_pass(c, w, W, p, d, br, bi, S, lanes);
    double rss = S[0], lambda = 1e-3;
    bool current = true; // the work holds the fit at (d, br, bi)
    double S2[robust_pair_max_sums];
    constexpr int M = robust_pair_max_params;
    for (int it = 0; it < iterations; ++it) {
        double a[M * M], v[M];
        robust_pair_normal(at, S, br, bi, a, v);
        for (int k = 0; k < m; ++k)
            a[k * m + k] *= 1.0 + lambda;
        if (!robust_pair_factor(a, m)) {
            lambda *= 10.0;
            if (lambda > 1e8)
                break;
            continue;
        }
        robust_pair_substitute(a, v, m);
        double d2[robust_pair_max_tones], br2[robust_pair_max_basis],
            bi2[robust_pair_max_basis], step = 0;
        for (int i = 0; i < p; ++i) {
            d2[i] = d[i] + v[i];
            step = fabs(v[i]) > step ? fabs(v[i]) : step;
        }
        for (int k = 0; k < q; ++k) {
            br2[k] = br[k] + v[p + 2 * k];
            bi2[k] = bi[k] + v[p + 2 * k + 1];
        }
        robust_pair_pass(c, w, W, p, d2, br2, bi2, S2, lanes);
        if (S2[0] < rss) {
            const double gain = rss - S2[0];
            for (int i = 0; i < p; ++i)
                d[i] = d2[i];
            for (int k = 0; k < q; ++k) {
                br[k] = br2[k];
                bi[k] = bi2[k];
            }
            for (int k = 0; k < at.count(); ++k)
                S[k] = S2[k];
            rss = S2[0];
            current = true;
            lambda = lambda * 0.1 > 1e-9 ? lambda * 0.1 : 1e-9;
            // A small gain says the minimum is near only for a Gauss-Newton step; a
            // damped one (lambda raised by failed steps) is short on purpose.
            if (step < robust_pair_converged ||
                (gain < robust_pair_settled * noise && lambda <= 1e-3))
                break;
        } else {
            // At the minimum, rounding makes every further step fail: stop there rather
            // than raise lambda until it gives up (a dozen passes more).
            current = false;
            lambda *= 10.0;
            if (lambda > 1e8 || step < robust_pair_converged)
                break;
        }
    }
    if (!current)
        robust_pair_pass(c, w, W, p, d, br, bi, S, lanes);
    return rss;
}

/*!
 * Where a further tone would take the most out of the residual the work holds (a fit
 * of p tones, S its sums): the energy it explains, |sum u r|^2 / |u projected off the
 * basis|^2 for u = g(j - x), over x on a grid of robust_pair_steps per bin inside the
 * window, robust_pair_grid_sep from the tones. Lanes share the positions.
 */
template <typename Lanes>
SFFT_HD double robust_pair_candidate(const robust_consts& c,
                                     const robust_pair_work& w,
                                     int W,
                                     int p,
                                     const double* d,
                                     const double* S,
                                     double& where,
                                     const Lanes& lanes)
{
    const robust_pair_sums at(p);
    const int q = at.q;
    double L[robust_pair_max_basis * robust_pair_max_basis];
    for (int k = 0; k < q; ++k)
        for (int l = 0; l < q; ++l)
            L[k * q + l] = S[at.G(k, l)];
    if (!robust_pair_factor(L, q))
        return 0;
    lanes.sync(); // the work's residual and basis, from every lane
    const int count = (W - 3) * robust_pair_steps + 1;
    double best = 0;
    int best_at = -1;
    for (int n = lanes.lane(); n < count; n += Lanes::width) {
        const double x = 1.0 + double(n) / double(robust_pair_steps);
        bool apart = true;
        for (int i = 0; i < p; ++i)
            apart = apart && fabs(x - d[i]) >= robust_pair_grid_sep;
        if (!apart)
            continue;
        double ar = 0, ai = 0, uu = 0, b[robust_pair_max_basis] = {};
        for (int j = 0; j < W; ++j) {
            double u, du;
            robust_pair_kernel(c.n, double(j) - x, u, du);
            ar += u * w.rr[j];
            ai += u * w.ri[j];
            uu += u * u;
            for (int k = 0; k < q; ++k)
                b[k] += w.g[k][j] * u;
        }
        robust_pair_substitute(L, b, q, false); // |L^-1 b|^2 = b^T G^-1 b
        double proj = 0;
        for (int k = 0; k < q; ++k)
            proj += b[k] * b[k];
        const double den = uu - proj;
        const double gain = den > 1e-6 * uu ? (ar * ar + ai * ai) / den : 0.0;
        if (gain > best) {
            best = gain;
            best_at = n;
        }
    }
    lanes.best(best, best_at);
    where = 1.0 + double(best_at) / double(robust_pair_steps);
    lanes.sync(); // before the work is written again
    return best_at < 0 ? 0.0 : best;
}

/*!
 * The tones of a fit (p, d, B, its sums S) stand inside the window and apart: each two
 * robust_pair_grid_sep apart, or closer but at least robust_pair_min_sep and
 * robust_pair_resolution standard deviations of their separation, by the fit's
 * covariance (a^-1 noise / 2), apart. Tones weaker than min_power (|B|^2) are not
 * held to this.
 */
SFFT_HD bool robust_pair_valid(int W,
                               int p,
                               const double* d,
                               const double* br,
                               const double* bi,
                               const double* S,
                               double noise,
                               double min_power)
{
    // A tone the fit leaves too weak to have been found is dropped afterwards (its
    // offset has no meaning).
    bool strong[robust_pair_max_tones];
    for (int i = 0; i < p; ++i) {
        strong[i] = br[i] * br[i] + bi[i] * bi[i] >= min_power;
        if (strong[i] && !(d[i] >= 1.0 && d[i] <= double(W) - 2.0))
            return false;
    }
    // Only strong pairs closer than robust_pair_grid_sep need the covariance (a
    // factorisation per trial fit, a warp's serial work on the GPU).
    bool close = false;
    for (int i = 0; i < p; ++i)
        for (int k = 0; k < i; ++k)
            if (strong[i] && strong[k] && fabs(d[i] - d[k]) < robust_pair_grid_sep) {
                if (!(fabs(d[i] - d[k]) >= robust_pair_min_sep))
                    return false;
                close = true;
            }
    if (!close)
        return true;
    const robust_pair_sums at(p);
    const int m = p + 2 * at.q;
    double a[robust_pair_max_params * robust_pair_max_params];
    robust_pair_normal(at, S, br, bi, a, nullptr);
    if (!robust_pair_factor(a, m))
        return false;
    for (int i = 0; i < p; ++i) {
        for (int k = 0; k < i; ++k) {
            const double sep = fabs(d[i] - d[k]);
            if (!strong[i] || !strong[k] || sep >= robust_pair_grid_sep)
                continue;
            double e[robust_pair_max_params] = {};
            e[k] = 1.0;
            e[i] = -1.0;
            robust_pair_substitute(a, e, m, false); // |L^-1 e|^2 = e^T a^-1 e
            double var = 0;
            for (int j = 0; j < m; ++j)
                var += e[j] * e[j];
            var *= 0.5 * noise;
            const double z = robust_pair_resolution;
            if (!(sep * sep >= z * z * var))
                return false;
        }
    }
    return true;
}

/*!
 * The tone of a fit (the work's residual) with the most residual energy within one bin
 * of it: where a pair fitted as one tone leaves what the one cannot explain.
 */
template <typename Lanes>
SFFT_HD int robust_pair_split_tone(
    const robust_pair_work& w, int W, int p, const double* d, const Lanes& lanes)
{
    double e[robust_pair_max_tones] = {};
    // The lanes' bins as robust_pair_pass() wrote them: no sync needed.
    for (int j = lanes.lane(); j < W; j += Lanes::width)
        for (int i = 0; i < p; ++i)
            if (fabs(double(j) - d[i]) <= 1.0)
                e[i] += w.rr[j] * w.rr[j] + w.ri[j] * w.ri[j];
    lanes.sum_n(e, p);
    int most = 0;
    for (int i = 1; i < p; ++i)
        most = e[i] > e[most] ? i : most;
    return most;
}

/*!
 * The joint fit of a cluster. In: the W bins Y (phase taken out: Y_j = X[b0 + j]
 * exp(i pi j (n-1)/n), less the tones outside the cluster within robust_tone_reach) in
 * the work; p tones at offsets d from b0 (their lobe or unwindowed fits). noise: one
 * unwindowed bin's noise power; eta: the detection threshold's factor (ln(n /
 * false_alarm)); min_power: the weakest |A|^2 the windowed threshold could have found.
 * The tones are fitted together (Levenberg-Marquardt on offsets and amplitudes, with
 * the far-leakage terms); while the residual is larger than noise explains, a tone is
 * added where it takes the most out of it, or a tone is split in two, and kept when
 * that takes out more than eta bins' noise (the threshold's test: noise alone does that
 * about false_alarm / n times per position), the tones stand resolved
 * (robust_pair_valid()) and the new ones are strong enough to have been found on their
 * own; a tone the fit leaves weaker than that is dropped. Out:
 * the tones (d, and amplitudes B with the phase taken out: A = B exp(-i pi d (n-1)/n)),
 * br and bi holding robust_pair_max_basis; returns their count, or 0 when the fit is
 * not trusted (a tone left the window or is not resolved from another, or the residual
 * stays larger than noise explains) and the lobe fits stand.
 */
template <typename Lanes>
SFFT_HD int robust_pair_fit(const robust_consts& c,
                            robust_pair_work& w,
                            int W,
                            int p,
                            double* d,
                            double* br,
                            double* bi,
                            double noise,
                            double eta,
                            double min_power,
                            const Lanes& lanes)
{
    double S[robust_pair_max_sums];
    if (p < 1 || p > robust_pair_max_tones || W > robust_pair_max_bins || !(noise > 0))
        return 0;
    if (!robust_pair_amplitudes(c, w, W, p, d, br, bi, lanes))
        return 0;
    double rss = robust_pair_lm(c, w, W, p, d, br, bi, S, noise, lanes);
    // Add tones while the residual is more than noise (3 sd over its mean).
    while (p < robust_pair_max_tones) {
        const double half = robust_pair_dof(W, p);
        if (!(rss > noise * (half + 3.0 * sqrt(half))))
            break;
        double x = 0;
        const bool grid = robust_pair_candidate(c, w, W, p, d, S, x, lanes) > eta * noise;
        // Up to four starts, the best fit kept. 0: the tones where they are, a tone added
        // at x. 1: the same with the nearest one mirrored about itself away from x; a
        // fit of one tone to two puts it between them (nearer the stronger) and x near
        // the other, and from there start 0 can end in a poorer minimum, a tone run off
        // to one side. 2: the tone with the most residual around it split in two; a pair
        // closer than robust_pair_grid_sep fits as one tone between them, and leaves its
        // residual there, not at x. 3: the nearest one and x replaced by a pair split
        // about their midpoint; two close tones of opposite phase cancel in the middle
        // and look like two weak tones a lobe's width apart.
        double d2[robust_pair_max_tones], br2[robust_pair_max_basis],
            bi2[robust_pair_max_basis], S2[robust_pair_max_sums];
        double d3[robust_pair_max_tones], br3[robust_pair_max_basis],
            bi3[robust_pair_max_basis], rss3 = rss - eta * noise;
        int kept = -1, nearest = 0;
        for (int i = 1; i < p; ++i)
            nearest = fabs(d[i] - x) < fabs(d[nearest] - x) ? i : nearest;
        const int split = robust_pair_split_tone(w, W, p, d, lanes);
        const double mid = 0.5 * (d[nearest] + x);
        const double quiet = robust_pair_dof(W, p + 1);
        for (int start = grid ? 0 : 2; start < (grid ? 4 : 3); ++start) {
            // The splits only where the added tone leaves more than noise: they cost
            // two more trial fits, and a tone hidden a few bins away is the common case.
            if (start == 2 && kept >= 0 && rss3 <= noise * (quiet + 3.0 * sqrt(quiet)))
                break;
            for (int i = 0; i < p; ++i)
                d2[i] = d[i];
            d2[p] = x;
            if (start == 1)
                d2[nearest] = 2.0 * d[nearest] - x;
            if (start == 2) {
                d2[split] = d[split] - robust_pair_split;
                d2[p] = d[split] + robust_pair_split;
            }
            if (start == 3) {
                d2[nearest] = mid - robust_pair_split;
                d2[p] = mid + robust_pair_split;
            }
            if (!robust_pair_amplitudes(c, w, W, p + 1, d2, br2, bi2, lanes))
                continue;
            const double rss2 = robust_pair_lm(c,
                                               w,
                                               W,
                                               p + 1,
                                               d2,
                                               br2,
                                               bi2,
                                               S2,
                                               noise,
                                               lanes,
                                               robust_pair_trial_iterations);
            const int other = start == 2 ? split : (start == 3 ? nearest : p);
            const double weaker = fmin(br2[p] * br2[p] + bi2[p] * bi2[p],
                                       br2[other] * br2[other] + bi2[other] * bi2[other]);
            if (rss2 < rss3 && weaker >= min_power &&
                robust_pair_valid(W, p + 1, d2, br2, bi2, S2, noise, min_power)) {
                kept = start;
                rss3 = rss2;
                for (int i = 0; i <= p; ++i)
                    d3[i] = d2[i];
                for (int k = 0; k < p + 1 + robust_pair_far; ++k) {
                    br3[k] = br2[k];
                    bi3[k] = bi2[k];
                }
            }
        }
        if (kept < 0) {
            robust_pair_pass(c, w, W, p, d, br, bi, S, lanes); // the work back
            break;
        }
        ++p;
        for (int i = 0; i < p; ++i)
            d[i] = d3[i];
        for (int k = 0; k < p + robust_pair_far; ++k) {
            br[k] = br3[k];
            bi[k] = bi3[k];
        }
        rss = robust_pair_lm(c, w, W, p, d, br, bi, S, noise, lanes); // the work, S again
    }
    // Tones the joint fit leaves too weak to have been found: the weakest goes first.
    while (p > 1) {
        int weakest = -1;
        double wp = min_power;
        for (int i = 0; i < p; ++i) {
            const double pw = br[i] * br[i] + bi[i] * bi[i];
            if (pw < wp) {
                wp = pw;
                weakest = i;
            }
        }
        if (weakest < 0)
            break;
        for (int i = weakest; i + 1 < p; ++i)
            d[i] = d[i + 1];
        --p;
        if (!robust_pair_amplitudes(c, w, W, p, d, br, bi, lanes))
            return 0;
        rss = robust_pair_lm(c, w, W, p, d, br, bi, S, noise, lanes);
    }
    if (!robust_pair_valid(W, p, d, br, bi, S, noise, min_power) ||
        !(rss <= noise * robust_pair_residual(W, p)))
        return 0;
    return p;
}

//! The joint fit runs where asked (sparse_fft_options::resolve_close_tones), with a time
//! window (the lobes it resolves are the window's) and for frames long enough that a
//! cluster's bins and its neighbours' do not wrap around.
SFFT_HD bool robust_pair_enabled(const robust_consts& c)
{
    return c.joint_fit && c.window_terms > 0 && c.n >= 1024;
}

/*!
 * The cluster whose lowest peak is at bin b: false (0) when another peak lies up to
 * robust_pair_gap bins below b (b is not its lowest), else its tones in order of their
 * peaks, each peak at most robust_pair_gap above the last: members[i] (find(bin): the
 * tone whose peak is that bin, or -1) at offset[i] bins above b. Returns the count, or
 * -1 for a cluster of more than robust_pair_max_tones.
 */
template <typename Find>
SFFT_HD int robust_pair_members(std::int64_t b,
                                const Find& find,
                                long long* members,
                                std::int64_t* offset)
{
    for (int s = 1; s <= robust_pair_gap; ++s)
        if (find(b - s) >= 0)
            return 0;
    members[0] = find(b);
    offset[0] = 0;
    if (members[0] < 0)
        return 0;
    int m = 1;
    for (;;) {
        long long next = -1;
        int s = 1;
        for (; s <= robust_pair_gap && next < 0; ++s)
            next = find(b + offset[m - 1] + s);
        if (next < 0)
            return m;
        if (m == robust_pair_max_tones)
            return -1;
        members[m] = next;
        offset[m] = offset[m - 1] + (s - 1);
        ++m;
    }
}

//! The bins a cluster's fit reads: margin + 1 around the peaks, `span` bins apart.
SFFT_HD int robust_pair_window(std::int64_t span)
{
    return int(span) + 2 * robust_pair_margin + 3;
}

//! Frequency f as an offset from bin b0, within half a frame of it.
SFFT_HD double robust_pair_offset(const robust_consts& c, double f, std::int64_t b0)
{
    const double N = double(c.n);
    double x = fmod(f - double(b0), N);
    x = x < -0.5 * N ? x + N : (x >= 0.5 * N ? x - N : x);
    return x;
}

/*!
 * A tone outside the cluster at frequency f, amplitude A, taken out of the window's bins
 * j = first, first + stride, ... (Y_j -= B g(j - x), B = A exp(i pi x (n-1)/n), x its
 * offset); what was taken out is added to (lr, li).
 */
SFFT_HD void robust_pair_subtract(const robust_consts& c,
                                  robust_pair_work& w,
                                  int W,
                                  std::int64_t b0,
                                  double f,
                                  double ar,
                                  double ai,
                                  double* lr,
                                  double* li,
                                  int first = 0,
                                  int stride = 1)
{
    const double x = robust_pair_offset(c, f, b0);
    double pr, pi;
    robust_pair_phase(c.n, x, pr, pi);
    const double br = ar * pr - ai * pi, bi = ar * pi + ai * pr;
    for (int j = first; j < W; j += stride) {
        double g, dg;
        robust_pair_kernel(c.n, double(j) - x, g, dg);
        w.yr[j] -= br * g;
        w.yi[j] -= bi * g;
        lr[j] += br * g;
        li[j] += bi * g;
    }
}

//! The leakage taken out of the window's bins is small enough to trust
//! (robust_pair_guard).
SFFT_HD bool robust_pair_leak_ok(const double* leak, int W, double noise)
{
    double most = 0;
    for (int j = 0; j < W; ++j)
        most = leak[j] > most ? leak[j] : most;
    return most <= robust_pair_guard * noise;
}

//! A fitted tone (offset d from b0, B with the phase taken out) as frequency in [0, n)
//! and amplitude A.
SFFT_HD void robust_pair_tone(const robust_consts& c,
                              std::int64_t b0,
                              double d,
                              double br,
                              double bi,
                              double& f,
                              double& ar,
                              double& ai)
{
    const double N = double(c.n);
    f = fmod(double(b0) + d, N);
    f = f < 0 ? f + N : (f >= N ? f - N : f);
    double pr, pi;
    robust_pair_phase(c.n, d, pr, pi);
    ar = br * pr + bi * pi; // B conj(phase)
    ai = bi * pr - br * pi;
}

/*!
 * A tone whose unwindowed fit stood may still hide another in its window lobe: one on
 * an integer bin 3-4 bins away puts nothing into the fit's 7 bins. So the fit's
 * residual is also taken over the robust_pair_hint bins on each side (the joint fit's
 * window for one tone); above robust_pair_residual() of them, the tone goes to a joint
 * fit. robust_pair_model(): what the tone (frequency f, amplitude A) puts into bin b.
 */
constexpr int robust_pair_hint = robust_pair_margin + 1;

SFFT_HD void robust_pair_model(const robust_consts& c,
                               std::int64_t b,
                               double f,
                               double ar,
                               double ai,
                               double& mr,
                               double& mi)
{
    const double nu = -robust_pair_offset(c, f, b); // b - f, near 0
    double g, dg, pr, pi;
    robust_pair_kernel(c.n, nu, g, dg);
    robust_pair_phase(c.n, nu, pr, pi); // D(nu) = conj(phase) g
    mr = g * (ar * pr + ai * pi);
    mi = g * (ai * pr - ar * pi);
}

SFFT_HD bool robust_pair_quiet(double residual, double noise)
{
    return residual <= noise * robust_pair_residual(2 * robust_pair_hint + 1, 1);
}

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_ROBUST_PAIRS_H */
