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

//! Hashes per loop at most: the unshifted one plus rounds x shifts.
constexpr int robust_max_hashes = 32;
//! Shifted hashes per location round at most (their state stays in registers).
constexpr int robust_max_shifts = 4;
//! Terms of the cosine-sum time windows (Blackman-Harris has four).
constexpr int robust_window_terms = 4;
//! The bucket noise is the median over at most this many (loop, bucket) powers of the
//! unshifted hashes: every robust_noise_stride()-th. Its median then scatters by ~1%
//! (0.07 dB), and one thread block selects it in shared memory.
constexpr int robust_noise_samples = 8192;

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
    int shifts = 0;      //!< shifted hashes voting in each round (Rloc)
    int cands = 0;       //!< candidate locations per round (t)
    int hashes = 0;      //!< per loop: 1 + rounds x shifts
    //! Time offset of each hash of a loop; offset[0] = 0, then round d, shift i at
    //! 1 + d shifts + i.
    std::int64_t offset[robust_max_hashes] = {};
    double ghat_scale = 0; //!< of window_response()
    double span0 = 0;      //!< half-width of the first search interval, in buckets
    double shrink = 0;     //!< the interval shrinks by this factor per round
    double vote_cos = 0;   //!< a shift votes for a candidate when cos(phase error) > this
    //! Time window a_0 - a_1 cos + a_2 cos 2 - a_3 cos 3 (a_m = 0 past its terms).
    float window_a[robust_window_terms] = {};
    int window_terms = 0; //!< 0: no window
    //! The window's transform W(nu) = sum_m c_m D(nu - m), D the transform of n ones:
    //! wt[m + 3] = c_m (-1)^m exp(i pi m (n - 1) / n) / n (see robust_window_transform).
    double wt_r[2 * robust_window_terms - 1] = {};
    double wt_i[2 * robust_window_terms - 1] = {};
    double wc[2 * robust_window_terms - 1] = {}; //!< c_m itself
    int lobe = 0; //!< half-width of the main lobe in bins (a tone's coefficients)
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
 * [-0.5, 0.5] that maximises the explained lobe energy, by a grid of 1/8 bin and then a
 * golden section to ~1e-5 bin, and the least-squares amplitude at that offset.
 */
SFFT_HD void robust_fit_tone(const robust_consts& c,
                             const double* yr,
                             const double* yi,
                             const unsigned char* present,
                             double& delta,
                             double& ar,
                             double& ai)
{
    const robust_tone_lobe lobe(c, yr, yi, present);
    double best = 0;
    if (lobe.count > 1) {
        double bv = -1, tr, ti;
        for (int i = 0; i <= 8; ++i) {
            const double d = -0.5 + 0.125 * double(i);
            const double v = lobe.explained(d, tr, ti);
            if (v > bv) {
                bv = v;
                best = d;
            }
        }
        double lo = best - 0.125 < -0.5 ? -0.5 : best - 0.125;
        double hi = best + 0.125 > 0.5 ? 0.5 : best + 0.125;
        const double g = 0.6180339887498949;
        double a = hi - g * (hi - lo), b = lo + g * (hi - lo);
        double fa = lobe.explained(a, tr, ti), fb = lobe.explained(b, tr, ti);
        for (int it = 0; it < 20; ++it) { // bracket 0.25 -> 1.7e-5 bin
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
    lobe.explained(best, ar, ai);
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

//! Shift i of round d for a bucket starting at `base`: the predicted phase, in turns,
//! of its first candidate (t0) and the turn from one candidate to the next (dt).
SFFT_HD void robust_shift_turns(const robust_consts& c,
                                int d,
                                int i,
                                std::int64_t base,
                                double first,
                                double step,
                                double& t0,
                                double& dt)
{
    const std::uint64_t n = std::uint64_t(c.n);
    const std::uint64_t a = std::uint64_t(c.offset[1 + d * c.shifts + i]);
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

/*!
 * LocateSignal/LocateInner for one bucket of one loop. u: the bucket in each hash of the
 * loop (u[0] unshifted; u[h] with time offset offset[h]); u[h] conj(u[0]) turns by
 * g offset[h] / n for a tone at permuted frequency g. Each round searches `cands`
 * candidates spread over the current interval; every shift votes for the candidates
 * its measured phase agrees with (within acos(vote_cos)), a candidate needs more than
 * half the votes, and the best-scoring one (sum of cos(phase error), i.e. the votes
 * weighted by how well they agree) becomes the centre of the next interval, `shrink`
 * times narrower. The shifts of a round are drawn so the phase turns by at most one
 * turn across the interval, so no alias competes. Returns false when no candidate wins
 * a round, the bucket is below min_power, or the location lies in a neighbour's bucket
 * (which reports it).
 */
SFFT_HD bool robust_locate(const robust_consts& c,
                           const double* ur,
                           const double* ui,
                           std::int64_t b,
                           double min_power,
                           std::int64_t& g)
{
    const double m0 = ur[0] * ur[0] + ui[0] * ui[0];
    if (!(m0 > min_power))
        return false;
    const std::int64_t base = b * c.nb;
    // Unit phasors of u[h] conj(u[0]).
    double pr[robust_max_hashes], pi_[robust_max_hashes];
    for (int h = 1; h < c.hashes; ++h) {
        const double re = ur[h] * ur[0] + ui[h] * ui[0];
        const double im = ui[h] * ur[0] - ur[h] * ui[0];
        const double mag = sqrt(re * re + im * im);
        if (!(mag > 0))
            return false;
        pr[h] = re / mag;
        pi_[h] = im / mag;
    }
    double e = 0; // centre of the interval, frequencies from the bucket's centre
    double w = 2.0 * c.span0 * double(c.nb);
    const int half = c.shifts / 2;
    for (int d = 0; d < c.rounds; ++d) {
        int count;
        double step, first;
        robust_round_candidates(c, d, e, w, count, step, first);
        // Per shift: the phasor of (predicted - measured) at the first candidate, and
        // its rotation per candidate; fixed-size, unrolled, so they stay in registers.
        double zr[robust_max_shifts], zi[robust_max_shifts];
        double rr[robust_max_shifts], ri[robust_max_shifts];
#pragma unroll
        for (int i = 0; i < robust_max_shifts; ++i) {
            zr[i] = zi[i] = ri[i] = 0;
            rr[i] = 1;
            if (i >= c.shifts)
                continue;
            const int h = 1 + d * c.shifts + i;
            double turns, per_step;
            robust_shift_turns(c, d, i, base, first, step, turns, per_step);
            double cr, ci;
#ifdef __CUDA_ARCH__
            sincospi(2.0 * wrap_turns(turns), &ci, &cr);
            sincospi(2.0 * wrap_turns(per_step), &ri[i], &rr[i]);
#else
            const double t = 6.283185307179586476925 * wrap_turns(turns);
            cr = std::cos(t);
            ci = std::sin(t);
            const double u = 6.283185307179586476925 * wrap_turns(per_step);
            rr[i] = std::cos(u);
            ri[i] = std::sin(u);
#endif
            // exp(i pred) conj(exp(i meas))
            zr[i] = cr * pr[h] + ci * pi_[h];
            zi[i] = ci * pr[h] - cr * pi_[h];
        }
        int best = -1;
        double best_score = -1e300;
        for (int q = 0; q < count; ++q) {
            double score = 0;
            int votes = 0;
#pragma unroll
            for (int i = 0; i < robust_max_shifts; ++i) {
                if (i < c.shifts) {
                    score += zr[i];
                    votes += zr[i] > c.vote_cos ? 1 : 0;
                }
                const double nr = zr[i] * rr[i] - zi[i] * ri[i];
                zi[i] = zr[i] * ri[i] + zi[i] * rr[i];
                zr[i] = nr;
            }
            if (votes > half && score > best_score) {
                best_score = score;
                best = q;
            }
        }
        if (best < 0)
            return false;
        e = first + double(best) * step;
        w /= c.shrink;
    }
    return robust_located(c, base, e, g);
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
    const std::uint64_t n = std::uint64_t(c.n);
    std::uint64_t u = mulmod(std::uint64_t(g), a, n) + mulmod(std::uint64_t(f), tau, n);
    if (u >= n)
        u -= n;
    double cr, ci;
    unit_phasor(u, c.n, cr, ci);
    const double w = window_response(robust_offset(c, b, g), c.ghat_scale) / double(c.n);
    zr = cr * w;
    zi = ci * w;
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
