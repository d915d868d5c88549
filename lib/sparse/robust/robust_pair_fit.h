/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The joint fit itself (robust_pair_fit()): Levenberg-Marquardt on the tones'
// offsets, a tone added where the residual says one is hidden, a tone split or dropped
// where the fit's own covariance says so. CPU: resolve_close_tones() (robust_tones.cc);
// GPU: a warp per cluster (robust_dense_kernels.cu).
// Written once for host and device, like robust_math.h.

#ifndef INCLUDED_GPUFFT_ROBUST_PAIR_FIT_H
#define INCLUDED_GPUFFT_ROBUST_PAIR_FIT_H

#include "sparse/robust/robust_pair_model.h"

namespace gr {
namespace gpufft {
namespace detail {

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
GPUFFT_HD inline double robust_pair_lm(const robust_consts& c,
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
GPUFFT_HD inline double robust_pair_candidate(const robust_consts& c,
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
GPUFFT_HD inline bool robust_pair_valid(int W,
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
GPUFFT_HD inline int robust_pair_split_tone(
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
 * A fit of p tones whose tones do not stand apart (robust_pair_valid()) with the tone
 * whose removal costs least taken out: each of the p fits of p - 1 tones is tried
 * (robust_pair_trial_iterations), the best that stands is fitted again with
 * `iterations` into (d, br, bi, S, rss) and the work. Returns p - 1, or 0 where none
 * stands.
 */
template <typename Lanes>
GPUFFT_HD inline int robust_pair_prune(const robust_consts& c,
                                       robust_pair_work& w,
                                       int W,
                                       int p,
                                       double* d,
                                       double* br,
                                       double* bi,
                                       double* S,
                                       double noise,
                                       double min_power,
                                       double& rss,
                                       const Lanes& lanes,
                                       int iterations = robust_pair_iterations)
{
    double d2[robust_pair_max_tones], br2[robust_pair_max_basis],
        bi2[robust_pair_max_basis], S2[robust_pair_max_sums];
    double d3[robust_pair_max_tones], best = -1;
    for (int drop = 0; drop < p; ++drop) {
        for (int i = 0, k = 0; i < p; ++i)
            if (i != drop)
                d2[k++] = d[i];
        if (!robust_pair_amplitudes(c, w, W, p - 1, d2, br2, bi2, lanes))
            continue;
        const double rss2 = robust_pair_lm(
            c, w, W, p - 1, d2, br2, bi2, S2, noise, lanes, robust_pair_trial_iterations);
        if ((best < 0 || rss2 < best) &&
            robust_pair_valid(W, p - 1, d2, br2, bi2, S2, noise, min_power)) {
            best = rss2;
            for (int i = 0; i + 1 < p; ++i)
                d3[i] = d2[i];
        }
    }
    if (best < 0)
        return 0;
    --p;
    for (int i = 0; i < p; ++i)
        d[i] = d3[i];
    if (!robust_pair_amplitudes(c, w, W, p, d, br, bi, lanes))
        return 0;
    rss = robust_pair_lm(c, w, W, p, d, br, bi, S, noise, lanes, iterations);
    return p;
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
GPUFFT_HD inline int robust_pair_fit(const robust_consts& c,
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
    // A tone the first fit takes out of the window can never stand (robust_pair_valid()),
    // and every tone added beside it is fitted around it: a pair of nearly opposite phase
    // cancels in the middle, its lobe fit lands on one side, 1-1.5 bins off, and the one
    // tone, which cannot explain the pair, can run off along the far terms. Such tones
    // go; where none is left, the fit starts again from one tone where the residual says.
    {
        int inside = 0;
        for (int i = 0; i < p; ++i)
            if (d[i] >= 1.0 && d[i] <= double(W) - 2.0)
                d[inside++] = d[i];
        if (inside < p) {
            p = inside;
            if (p == 0) {
                if (!robust_pair_amplitudes(c, w, W, 0, d, br, bi, lanes))
                    return 0;
                robust_pair_lm(c, w, W, 0, d, br, bi, S, noise, lanes);
                double x = 0;
                if (!(robust_pair_candidate(c, w, W, 0, d, S, x, lanes) > eta * noise))
                    return 0;
                d[0] = x;
                p = 1;
            }
            if (!robust_pair_amplitudes(c, w, W, p, d, br, bi, lanes))
                return 0;
            rss = robust_pair_lm(c, w, W, p, d, br, bi, S, noise, lanes);
        }
    }
    // Add tones while the residual is more than noise (3 sd over its mean).
    // A swap (a tone added, another taken out) keeps p: the rounds are bounded.
    for (int round = 0; p < robust_pair_max_tones && round < 2 * robust_pair_max_tones;
         ++round) {
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
        int kept = -1, nearest = 0, p3 = p + 1;
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
            double rss2 = robust_pair_lm(c,
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
            if (!(rss2 < rss3 && weaker >= min_power))
                continue;
            int p2 = p + 1;
            // The added tones can leave an earlier one nothing to explain (the lobe
            // fit's tone beside a pair of nearly opposite phase, which cancels in the
            // middle: its lobe fit lands 1-1.5 bins off), and the fit runs it onto a
            // tone it cannot be told from. Then the fit without it: a swap.
            if (!robust_pair_valid(W, p2, d2, br2, bi2, S2, noise, min_power))
                p2 = robust_pair_prune(c,
                                       w,
                                       W,
                                       p2,
                                       d2,
                                       br2,
                                       bi2,
                                       S2,
                                       noise,
                                       min_power,
                                       rss2,
                                       lanes,
                                       robust_pair_trial_iterations);
            if (p2 > 0 && rss2 < rss3) {
                kept = start;
                p3 = p2;
                rss3 = rss2;
                for (int i = 0; i < p2; ++i)
                    d3[i] = d2[i];
                for (int k = 0; k < p2 + robust_pair_far; ++k) {
                    br3[k] = br2[k];
                    bi3[k] = bi2[k];
                }
            }
        }
        if (kept < 0) {
            robust_pair_pass(c, w, W, p, d, br, bi, S, lanes); // the work back
            break;
        }
        p = p3;
        for (int i = 0; i < p; ++i)
            d[i] = d3[i];
        for (int k = 0; k < p + robust_pair_far; ++k) {
            br[k] = br3[k];
            bi[k] = bi3[k];
        }
        rss = robust_pair_lm(c, w, W, p, d, br, bi, S, noise, lanes); // the work, S again
    }
    // Each tone was tested when it was added; a later one can leave an earlier one with
    // nothing to explain (the lobe fit's tone beside a pair the added tones resolve), and
    // the full fit then runs it onto a tone it cannot be told from, which would void the
    // whole fit and leave the lobe fits (one tone 1-1.5 bins off the pair). Where the
    // tones do not stand apart, the one whose removal costs least goes (the residual
    // test below still decides whether the fit is trusted). Only such fits pay for this.
    while (p > 1 && !robust_pair_valid(W, p, d, br, bi, S, noise, min_power)) {
        p = robust_pair_prune(c, w, W, p, d, br, bi, S, noise, min_power, rss, lanes);
        if (p == 0)
            return 0;
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

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_ROBUST_PAIR_FIT_H */
