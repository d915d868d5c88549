/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The arithmetic of robust mode (sFFT 4.0's noisy-case algorithm) that the CPU and CUDA
// backends share, written once for host and device: the time window applied in the
// gather, the location of one bucket by phase voting over shifted hashes (LocateInner),
// and one loop's estimate of a coefficient from its floor and ceil buckets
// (EstimateValues). Plain C++ when not compiled by nvcc. One file on purpose: every
// function here must stay identical for both backends, which is what makes their
// results comparable for the same seed.

#ifndef INCLUDED_GPUFFT_ROBUST_MATH_H
#define INCLUDED_GPUFFT_ROBUST_MATH_H

#include "sparse_math.h"

namespace gr {
namespace gpufft {
namespace detail {

//! Hashes per loop at most: the unshifted one plus one per location round.
constexpr int robust_max_hashes = 32;
//! Terms of the cosine-sum time windows (Blackman-Harris has four).
constexpr int robust_window_terms = 4;
//! The bucket noise is the median over at most this many (loop, bucket) powers of the
//! unshifted hashes: every robust_noise_stride()-th. Its median then scatters by ~1%
//! (0.07 dB), and one thread block selects it in shared memory.
constexpr int robust_noise_samples = 8192;
//! A tone is tested as window leakage of the stronger ones within this many bins.
constexpr int robust_tone_reach = 64;

//! The stride over the loops x B unshifted buckets that leaves <= robust_noise_samples.
SFFT_HD std::int64_t robust_noise_stride(std::int64_t loop_buckets)
{
    return (loop_buckets + robust_noise_samples - 1) / robust_noise_samples;
}

//! Everything a robust-mode kernel needs; trivially copyable (kernel argument).
struct robust_consts {
    std::int64_t n = 0;
    std::int64_t B = 0;  //!< buckets; divides n
    std::int64_t nb = 0; //!< n / B
    int loops = 0;       //!< independent permutations
    int rounds = 0;      //!< refinement rounds of the location (Dmax)
    int cands = 0;       //!< candidate locations per round (t)
    int hashes = 0;      //!< per loop: 1 + rounds (one shifted hash a round)
    //! Time offset of each hash of a loop: offset[0] = 0, round d's at 1 + d.
    std::int64_t offset[robust_max_hashes] = {};
    double ghat_scale = 0; //!< of window_response()
    double span0 = 0;      //!< half-width of the first search interval, in buckets
    double shrink = 0;     //!< the interval shrinks by this factor per round
    double vote_turns = 0; //!< a shift votes for a candidate within this phase error
    //! Time window a_0 - a_1 cos + a_2 cos 2 - a_3 cos 3 (a_m = 0 past its terms).
    float window_a[robust_window_terms] = {};
    int window_terms = 0; //!< 0: no window
    //! The window's transform W(nu) = sum_m c_m D(nu - m), D the transform of n ones:
    //! wt[m + 3] = c_m (-1)^m exp(i pi m (n - 1) / n) / n (see robust_window_transform).
    double wt_r[2 * robust_window_terms - 1] = {};
    double wt_i[2 * robust_window_terms - 1] = {};
    double wc[2 * robust_window_terms - 1] = {}; //!< c_m itself
    int lobe = 0;      //!< half-width of the main lobe in bins (a tone's coefficients)
    int joint_fit = 1; //!< the dense path fits close tones together (robust_pairs.h)
};

//! The time window's weight at sample index i of an n-sample frame.
SFFT_HD float robust_window_weight(const robust_consts& c, std::uint64_t i)
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
SFFT_HD void
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

    SFFT_HD robust_tone_lobe(const robust_consts& consts,
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

    SFFT_HD double explained(double d, double& Ar, double& Ai) const
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
SFFT_HD double robust_fit_tone(const robust_consts& c,
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
SFFT_HD double robust_wrap_frequency(const robust_consts& c, double f)
{
    const double N = double(c.n);
    return f < 0 ? f + N : (f >= N ? f - N : f);
}

/*!
 * The dense path's windowed spectrum from the unwindowed one: the time window is a sum
 * of cosines, so X_w[b] = sum_m c_m X[b - m] (c_m = wc[m + 3], 7 taps at most) and one
 * FFT of the frame gives both. bin(q, re, im) reads X[q], 0 <= q < n.
 */
template <typename Bin>
SFFT_HD void robust_windowed_bin(
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
SFFT_HD void robust_plain_range(
    const robust_consts& c, double f, std::int64_t& b0, double& lo, double& hi)
{
    const double N = double(c.n);
    double r = floor(f + 0.5);
    const double centre = f - r;
    b0 = std::int64_t(r >= N ? r - N : r);
    lo = centre - robust_plain_reach;
    hi = centre + robust_plain_reach;
}

SFFT_HD bool robust_plain_fit_ok(double delta,
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

//! Round d's candidates around e in an interval w wide: `count` of them from `first`,
//! `step` apart; the last round takes the integers of its interval.
SFFT_HD void robust_round_candidates(const robust_consts& c,
                                     int d,
                                     double e,
                                     double w,
                                     int& count,
                                     double& step,
                                     double& first)
{
    count = c.cands;
    step = w / double(count);
    first = e - 0.5 * double(count - 1) * step;
    if (d == c.rounds - 1) {
        count = int(ceil(w)) + 1;
        count = count < c.cands ? count : c.cands;
        step = 1.0;
        first = floor(e - 0.5 * double(count - 1) + 0.5);
    }
}

//! Round d's shift for a bucket starting at `base`: the predicted phase, in turns, of
//! its first candidate (t0) and the turn from one candidate to the next (dt).
SFFT_HD void robust_shift_turns(const robust_consts& c,
                                int d,
                                std::int64_t base,
                                double first,
                                double step,
                                double& t0,
                                double& dt)
{
    const std::uint64_t n = std::uint64_t(c.n);
    const std::uint64_t a = std::uint64_t(c.offset[1 + d]);
    t0 = double(mulmod(a, std::uint64_t(base), n)) / double(n) +
         double(a) * first / double(n);
    dt = double(a) * step / double(n);
}

//! The permuted frequency at offset e from a bucket's start `base`; false when it lies in
//! a neighbour's bucket (which reports it).
SFFT_HD bool
robust_located(const robust_consts& c, std::int64_t base, double e, std::int64_t& g)
{
    if (fabs(e) > 0.5 * double(c.nb))
        return false;
    std::int64_t gg = (base + std::int64_t(llround(e))) % c.n;
    if (gg < 0)
        gg += c.n;
    g = gg;
    return true;
}

//! Candidate q of a round if its phase error |y0 + q dt| (turns, wrapped) is below
//! `err`: then it becomes `best` and its error the new `err`.
SFFT_HD void robust_try_candidate(
    std::int64_t q, int count, double y0, double dt, int& best, double& err)
{
    if (q < 0 || q >= count)
        return;
    const double e = fabs(wrap_turns(y0 + double(q) * dt));
    if (e < err) {
        err = e;
        best = int(q);
    }
}

/*!
 * The candidate of a round whose predicted phase y0 + q dt (turns, q = 0..count-1) is
 * nearest the measured one, 0, when that error is below `tol` turns (the shift's vote),
 * else -1; the lowest q on ties. The planner draws each shift so the predicted phase
 * turns by less than one turn across the round's candidates, so the nearest is next to
 * where y0 + q dt crosses an integer, or at an end: a few candidates are tried, not all.
 */
SFFT_HD int robust_nearest_candidate(double y0, double dt, int count, double tol)
{
    int best = -1;
    double err = tol;
    robust_try_candidate(0, count, y0, dt, best, err);
    const double y_end = y0 + double(count - 1) * dt;
    for (double m = ceil(y0); m <= y_end; m += 1.0) {
        const std::int64_t q = std::int64_t(floor((m - y0) / dt));
        robust_try_candidate(q, count, y0, dt, best, err);
        robust_try_candidate(q + 1, count, y0, dt, best, err);
    }
    robust_try_candidate(count - 1, count, y0, dt, best, err);
    return best;
}

/*!
 * LocateSignal/LocateInner for one bucket b of one loop. hash(h, re, im) gives the bucket
 * in hash h of the loop (h = 0 unshifted; h = 1 + d shifted by offset[1 + d] for round
 * d); u[h] conj(u[0]) turns by g offset[h] / n for a tone at permuted frequency g. Each
 * round spreads `cands` candidates over the current interval; its shift votes for those
 * whose predicted phase agrees with the measured one within vote_turns, and the best
 * (the nearest in phase) centres the next interval, `shrink` times narrower; the last
 * round tests integers. With one shift a round the paper's vote and score pick the
 * candidate nearest in phase, found in closed form (robust_nearest_candidate). Returns
 * false when no candidate wins a round, the bucket is below min_power, or the location
 * lies in a neighbour's bucket (which reports it).
 */
template <typename Hash>
SFFT_HD bool robust_locate(const robust_consts& c,
                           const Hash& hash,
                           std::int64_t b,
                           double min_power,
                           std::int64_t& g)
{
    double u0r, u0i;
    hash(0, u0r, u0i);
    if (!(u0r * u0r + u0i * u0i > min_power))
        return false;
    const std::int64_t base = b * c.nb;
    // Round d's measured phase in turns (false when u[1 + d] conj(u[0]) is 0). It does
    // not depend on the location so far, so round d + 1's is read and computed while
    // round d searches.
    const auto measured_turns = [&](int d, double& turns) {
        double ur, ui;
        hash(1 + d, ur, ui);
        const double re = ur * u0r + ui * u0i;
        const double im = ui * u0r - ur * u0i;
        turns = atan2(im, re) * 0.15915494309189533577;
        return re * re + im * im > 0;
    };
    double next = 0;
    bool next_ok = c.rounds > 0 && measured_turns(0, next);
    double e = 0; // centre of the interval, frequencies from the bucket's centre
    double w = 2.0 * c.span0 * double(c.nb);
    for (int d = 0; d < c.rounds; ++d) {
        const double measured = next;
        const bool ok = next_ok;
        if (d + 1 < c.rounds)
            next_ok = measured_turns(d + 1, next);
        if (!ok)
            return false;
        int count;
        double step, first, t0, dt;
        robust_round_candidates(c, d, e, w, count, step, first);
        robust_shift_turns(c, d, base, first, step, t0, dt);
        const int best = robust_nearest_candidate(t0 - measured, dt, count, c.vote_turns);
        if (best < 0)
            return false;
        e = first + double(best) * step;
        w /= c.shrink;
    }
    return robust_located(c, base, e, g);
}

/*!
 * With a time window a tone is a lobe of adjacent coefficients. A coefficient accepted
 * with `power` over `threshold` makes its two neighbours candidates of the next round
 * when it stands robust_lobe_spawn above the threshold: a lobe coefficient whose
 * location failed in every loop (its buckets shared with stronger or still unfound
 * coefficients) is then estimated anyway, instead of leaving a hole that drags the
 * tone's fit off its peak. Weaker ones are the lobe's edges, whose outer neighbours
 * fall below the threshold; they would only cost estimates.
 */
constexpr double robust_lobe_spawn = 100.0;

SFFT_HD bool
robust_spawns_neighbours(const robust_consts& c, double power, double threshold)
{
    return c.window_terms > 0 && power > robust_lobe_spawn * threshold;
}

//! Bin f - 1 (side 0) or f + 1 (side 1), mod n: robust_spawns_neighbours().
SFFT_HD std::int64_t
robust_lobe_neighbour(const robust_consts& c, std::int64_t f, int side)
{
    const std::int64_t b = side ? f + 1 : f - 1;
    return b < 0 ? b + c.n : (b >= c.n ? b - c.n : b);
}

//! The floor and ceil buckets of permuted frequency g (the bucket centres around it).
SFFT_HD void floor_ceil_buckets(const robust_consts& c,
                                std::int64_t g,
                                std::int64_t& bf,
                                std::int64_t& bc)
{
    bf = (g / c.nb) % c.B;
    bc = bf + 1 == c.B ? 0 : bf + 1;
}

//! Offset of g from the centre of bucket b, in buckets, in [-B/2, B/2).
SFFT_HD double robust_offset(const robust_consts& c, std::int64_t b, std::int64_t g)
{
    std::int64_t d = b * c.nb - g;
    if (d >= c.n / 2)
        d -= c.n;
    else if (d < -(c.n / 2))
        d += c.n;
    return double(d) / double(c.nb);
}

//! robust_response()'s weight in bucket b, Ghat(D) / n: the same in every hash.
SFFT_HD double
robust_response_weight(const robust_consts& c, std::int64_t b, std::int64_t g)
{
    return window_response(robust_offset(c, b, g), c.ghat_scale) / double(c.n);
}

/*!
 * What a unit coefficient at f (permuted g) contributes to bucket b of the hash with time
 * offset a of a loop (tau): exp(2 pi i (g a + f tau) / n) Ghat(D) / n.
 */
SFFT_HD void robust_response(const robust_consts& c,
                             std::int64_t f,
                             std::int64_t g,
                             std::int64_t b,
                             std::uint64_t a,
                             std::uint64_t tau,
                             double& zr,
                             double& zi)
{
    double cr, ci;
    hash_phase(c.n, f, g, a, tau, cr, ci); // the same in every bucket
    const double w = robust_response_weight(c, b, g);
    zr = cr * w;
    zi = ci * w;
}

/*!
 * Adds the coefficient (f, x) to every hash of one loop (sigma, tau) in the buckets it
 * reaches, its floor and ceil buckets and one more on each side:
 * add(h, b, dr, di) adds (dr, di) to bucket b of hash h. The phase is worked out once
 * per hash and the weight once per bucket (robust_response() is their product).
 */
template <typename Add>
SFFT_HD void robust_add_coefficient(const robust_consts& c,
                                    std::int64_t f,
                                    std::uint64_t sigma,
                                    std::uint64_t tau,
                                    double xr,
                                    double xi,
                                    const Add& add)
{
    const std::int64_t g =
        std::int64_t(mulmod(sigma, std::uint64_t(f), std::uint64_t(c.n)));
    std::int64_t bf, bc;
    floor_ceil_buckets(c, g, bf, bc);
    std::int64_t b[4];
    double w[4];
    for (int k = 0; k < 4; ++k) {
        b[k] = ((bf + k - 1) % c.B + c.B) % c.B;
        w[k] = robust_response_weight(c, b[k], g);
    }
    for (int h = 0; h < c.hashes; ++h) {
        double cr, ci;
        hash_phase(c.n, f, g, std::uint64_t(c.offset[h]), tau, cr, ci);
        for (int k = 0; k < 4; ++k) {
            const double ur = cr * w[k], ui = ci * w[k];
            add(h, b[k], xr * ur - xi * ui, xr * ui + xi * ur);
        }
    }
}

/*!
 * How robust_loop_estimate() splits its sums among cooperating threads: serial_lanes
 * (one thread, the CPU's order) or, on the GPU, a warp (robust_kernels.cuh), where
 * every lane calls with the same arguments and gets the same result.
 */
struct serial_lanes {
    static constexpr int width = 1;
    SFFT_HD int lane() const { return 0; }
    SFFT_HD double sum(double v) const { return v; }
    //! v[0..count) summed over the lanes, in place (robust_pairs.h).
    SFFT_HD void sum_n(double*, int) const {}
    SFFT_HD void sync() const {}
    //! The largest value over the lanes and its index (ties: the lowest index).
    SFFT_HD void best(double&, int&) const {}
};

/*!
 * One loop's least-squares estimate of the coefficient at f from what is left in its
 * floor and ceil buckets over all hashes of the loop (res: the loop's residual,
 * interleaved re/im, hash h at h * B): sum conj(resp) res / sum |resp|^2, to be added to
 * the coefficient's current value. Returns sum |Ghat|^2 over the two unshifted buckets
 * (the estimate's noise is n^2 P / that, P the bucket noise power). Each lane takes
 * some of the (hash, bucket) pairs.
 */
template <typename Lanes = serial_lanes>
SFFT_HD double robust_loop_estimate(const robust_consts& c,
                                    const double* res,
                                    std::int64_t f,
                                    std::uint64_t sigma,
                                    std::uint64_t tau,
                                    double& xr,
                                    double& xi,
                                    Lanes lanes = Lanes())
{
    const std::int64_t g =
        std::int64_t(mulmod(sigma, std::uint64_t(f), std::uint64_t(c.n)));
    std::int64_t bs[2];
    floor_ceil_buckets(c, g, bs[0], bs[1]);
    double nr = 0, ni = 0, den = 0, g2 = 0;
    for (int t = lanes.lane(); t < 2 * c.hashes; t += Lanes::width) {
        const int h = t / 2, k = t % 2;
        double ur, ui;
        robust_response(c, f, g, bs[k], std::uint64_t(c.offset[h]), tau, ur, ui);
        const std::size_t at =
            2 * (std::size_t(h) * std::size_t(c.B) + std::size_t(bs[k]));
        nr += ur * res[at] + ui * res[at + 1];
        ni += ur * res[at + 1] - ui * res[at];
        den += ur * ur + ui * ui;
        if (h == 0)
            g2 += (ur * ur + ui * ui) * double(c.n) * double(c.n);
    }
    nr = lanes.sum(nr);
    ni = lanes.sum(ni);
    den = lanes.sum(den);
    g2 = lanes.sum(g2);
    xr = den > 0 ? nr / den : 0;
    xi = den > 0 ? ni / den : 0;
    return g2;
}

//! Median of v[0..count) (count <= 64), sorted in place by insertion.
SFFT_HD double robust_median(double* v, int count)
{
    for (int i = 1; i < count; ++i) {
        const double x = v[i];
        int j = i - 1;
        while (j >= 0 && v[j] > x) {
            v[j + 1] = v[j];
            --j;
        }
        v[j + 1] = x;
    }
    return count % 2 ? v[count / 2] : 0.5 * (v[count / 2 - 1] + v[count / 2]);
}

/*!
 * The noise power of a coefficient's estimate at f: n^2 P / (the median over loops of
 * sum Ghat^2 over its floor and ceil buckets), P the bucket noise power. The same figure
 * robust_loop_estimate() returns beside a value, without reading any bucket.
 */
template <typename U>
SFFT_HD double
robust_value_noise(const robust_consts& c, std::int64_t f, const U* sigma, double P)
{
    double g[16];
    const int L = c.loops < 16 ? c.loops : 16;
    for (int r = 0; r < L; ++r) {
        const std::int64_t gg = std::int64_t(
            mulmod(std::uint64_t(sigma[r]), std::uint64_t(f), std::uint64_t(c.n)));
        std::int64_t bf, bc;
        floor_ceil_buckets(c, gg, bf, bc);
        const double a = window_response(robust_offset(c, bf, gg), c.ghat_scale);
        const double b = window_response(robust_offset(c, bc, gg), c.ghat_scale);
        g[r] = a * a + b * b;
    }
    const double g2 = robust_median(g, L);
    return double(c.n) * double(c.n) * P / (g2 > 1e-3 ? g2 : 1e-3);
}

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_ROBUST_MATH_H */
