/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The model of the dense path's joint fit: tones that share a window lobe fitted
// together to the unwindowed spectrum, X[b] = sum_i A_i D(b - f_i), plus far-leakage
// terms; its constants, the Dirichlet kernel, one pass of sums over the bins, the
// amplitudes and the normal equations.
// Written once for host and device, like robust_math.h.

#ifndef INCLUDED_GPUFFT_ROBUST_PAIR_MODEL_H
#define INCLUDED_GPUFFT_ROBUST_PAIR_MODEL_H

#include "sparse/robust/robust_linalg.h"
#include "sparse/robust/robust_math.h"

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
GPUFFT_HD inline double
robust_pair_min_power(const robust_consts& c, double eta, double noise)
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
GPUFFT_HD inline double robust_pair_dof(int W, int p)
{
    const double half = 0.5 * double(2 * W - 3 * p - 2 * robust_pair_far);
    return half > 1 ? half : 1.0;
}
GPUFFT_HD inline double robust_pair_residual(int W, int p)
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
GPUFFT_HD inline void robust_pair_kernel(std::int64_t n, double x, double& g, double& dg)
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
GPUFFT_HD inline double robust_pair_far_term(int t, int j, int W)
{
    const double s = (j & 1) ? -1.0 : 1.0;
    return t == 0 ? s : s * (double(j) - 0.5 * double(W - 1)) / double(W);
}

//! exp(i pi x (n - 1) / n): the linear phase of D that the fit takes out.
GPUFFT_HD inline void robust_pair_phase(std::int64_t n, double x, double& re, double& im)
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
 * The sums one pass over the bins gives (robust_pair_pass()), for p tones and q = p +
 * robust_pair_far basis functions phi (the tones' g, then the far terms): [0] the
 * residual's energy; G_kl = sum phi_k phi_l (k <= l < q), H_ik = sum g_i' g_k'
 * (i <= k < p), C_ik = sum g_i' phi_k, sum phi_k r and sum g_i' r (complex).
 */
struct robust_pair_sums {
    int p, q;
    GPUFFT_HD inline explicit robust_pair_sums(int tones)
        : p(tones), q(tones + robust_pair_far)
    {
    }
    GPUFFT_HD inline int G(int k, int l) const { return 1 + tri(k, l, q); }
    GPUFFT_HD inline int H(int i, int k) const
    {
        return 1 + q * (q + 1) / 2 + tri(i, k, p);
    }
    GPUFFT_HD inline int C(int i, int k) const
    {
        return 1 + q * (q + 1) / 2 + p * (p + 1) / 2 + i * q + k;
    }
    GPUFFT_HD inline int gr(int k) const { return C(p, 0) + 2 * k; }
    GPUFFT_HD inline int dgr(int i) const { return C(p, 0) + 2 * q + 2 * i; }
    GPUFFT_HD inline int count() const { return C(p, 0) + 2 * q + 2 * p; }
    GPUFFT_HD inline static int tri(int i, int k, int size)
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
GPUFFT_HD inline void robust_pair_pass(const robust_consts& c,
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
GPUFFT_HD inline bool robust_pair_amplitudes(const robust_consts& c,
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
GPUFFT_HD inline void robust_pair_normal(const robust_pair_sums& at,
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

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_ROBUST_PAIR_MODEL_H */
