/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// One loop's estimate of a coefficient from its floor and ceil buckets
// (EstimateValues), its subtraction from the hashes, the median over loops and the
// estimate's noise.
// Written once for host and device (plain C++ when not compiled by nvcc): the CPU and
// CUDA backends run the same arithmetic, which makes their results comparable for the
// same seed.

#ifndef INCLUDED_GPUFFT_ROBUST_ESTIMATE_H
#define INCLUDED_GPUFFT_ROBUST_ESTIMATE_H

#include "sparse/robust/robust_consts.h"

namespace gr {
namespace gpufft {
namespace detail {

//! The floor and ceil buckets of permuted frequency g (the bucket centres around it).
GPUFFT_HD inline void floor_ceil_buckets(const robust_consts& c,
                                         std::int64_t g,
                                         std::int64_t& bf,
                                         std::int64_t& bc)
{
    bf = (g / c.nb) % c.B;
    bc = bf + 1 == c.B ? 0 : bf + 1;
}

//! Offset of g from the centre of bucket b, in buckets, in [-B/2, B/2).
GPUFFT_HD inline double
robust_offset(const robust_consts& c, std::int64_t b, std::int64_t g)
{
    std::int64_t d = b * c.nb - g;
    if (d >= c.n / 2)
        d -= c.n;
    else if (d < -(c.n / 2))
        d += c.n;
    return double(d) / double(c.nb);
}

//! robust_response()'s weight in bucket b, Ghat(D) / n: the same in every hash.
GPUFFT_HD inline double
robust_response_weight(const robust_consts& c, std::int64_t b, std::int64_t g)
{
    return window_response(robust_offset(c, b, g), c.ghat_scale) / double(c.n);
}

/*!
 * What a unit coefficient at f (permuted g) contributes to bucket b of the hash with time
 * offset a of a loop (tau): exp(2 pi i (g a + f tau) / n) Ghat(D) / n.
 */
GPUFFT_HD inline void robust_response(const robust_consts& c,
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
GPUFFT_HD inline void robust_add_coefficient(const robust_consts& c,
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
    GPUFFT_HD inline int lane() const { return 0; }
    GPUFFT_HD inline double sum(double v) const { return v; }
    //! v[0..count) summed over the lanes, in place (robust_pairs.h).
    GPUFFT_HD inline void sum_n(double*, int) const {}
    GPUFFT_HD inline void sync() const {}
    //! The largest value over the lanes and its index (ties: the lowest index).
    GPUFFT_HD inline void best(double&, int&) const {}
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
GPUFFT_HD inline double robust_loop_estimate(const robust_consts& c,
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
GPUFFT_HD inline double robust_median(double* v, int count)
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
 * Whether another found coefficient shares a bucket with the one at f in the loop of
 * permutation sigma: occ counts, per bucket of that loop, the found coefficients whose
 * floor or ceil bucket it is (robust_count_buckets()), f's own included.
 */
template <typename Count>
GPUFFT_HD inline bool robust_bucket_shared(const robust_consts& c,
                                           std::int64_t f,
                                           std::uint64_t sigma,
                                           const Count* occ)
{
    const std::int64_t g =
        std::int64_t(mulmod(sigma, std::uint64_t(f), std::uint64_t(c.n)));
    std::int64_t bf, bc;
    floor_ceil_buckets(c, g, bf, bc);
    return bf == bc ? occ[bf] > 2 : occ[bf] + occ[bc] > 2;
}

/*!
 * Counts the coefficient at f in its floor and ceil buckets of the loop of permutation
 * sigma: count(b) adds one at bucket b.
 */
template <typename Count>
GPUFFT_HD inline void robust_count_buckets(const robust_consts& c,
                                           std::int64_t f,
                                           std::uint64_t sigma,
                                           const Count& count)
{
    const std::int64_t g =
        std::int64_t(mulmod(sigma, std::uint64_t(f), std::uint64_t(c.n)));
    std::int64_t bf, bc;
    floor_ceil_buckets(c, g, bf, bc);
    count(bf);
    count(bc);
}

/*!
 * A value from its loops' estimates er, ei [0..count) (count <= 16): the plain medians,
 * or where the loops whose bit is set in `shared` (another coefficient found in one of
 * the value's two buckets there) are half or more of them and disagree among themselves,
 * the medians over the loops it has to itself, if those differ from the plain ones. Both
 * tests are against four standard deviations of one loop's estimate (noise: its
 * variance).
 *
 * Why: where two coefficients share buckets in most loops, each of those loops'
 * estimates carries the other's error and the plain median takes one of them; the refine
 * passes shrink such a pair's errors only by the overlap of their responses per pass (a
 * peak 16 % off after two passes, n = 2^22, k = 50, 80-90 dB per bin). That error enters
 * each shared loop through a different response, so those loops disagree. The loops
 * where a value is alone see noise and what was never found (a strong tone's
 * coefficients past the ones located), so one of them is no better witness than shared
 * loops that agree: taking it then put tones 0.03 bin off at 80-90 dB per bin, and at
 * 60 dB per bin (n = 2^20), where one loop alone is noisier than the median of three,
 * 0.1 bin off. Four deviations, not three: a lone loop passes three in e^-9 of values,
 * a frame in a few hundred there. A minority of shared loops the median already
 * outvotes. er and ei are reordered; scratch holds count values, and is written only
 * where the clean medians are taken (the GPU's refine kernel lends it the loops'
 * |Ghat|^2, already reduced, so that the kernel keeps its stack and registers).
 */
GPUFFT_HD inline void robust_value_median(double* er,
                                          double* ei,
                                          int count,
                                          unsigned shared,
                                          double noise,
                                          double* scratch,
                                          double& xr,
                                          double& xi)
{
    int nshared = 0;
    for (int r = 0; r < count; ++r)
        nshared += int(shared >> r & 1u);
    bool clean = nshared > 0 && nshared < count && 2 * nshared >= count;
    double yr = 0, yi = 0;
    if (clean) {
        // Shared loops that agree within the noise carry no partner's error worth
        // leaving out (their partners are well estimated by now).
        double spread = 0;
        for (int r = 0; r < count; ++r)
            for (int q = r + 1; q < count; ++q)
                if ((shared >> r & 1u) && (shared >> q & 1u)) {
                    const double a = er[r] - er[q], b = ei[r] - ei[q];
                    spread = a * a + b * b > spread ? a * a + b * b : spread;
                }
        clean = spread > 16.0 * noise;
    }
    if (clean) {
        for (int part = 0; part < 2; ++part) {
            const double* v = part == 0 ? er : ei;
            int kept = 0;
            for (int r = 0; r < count; ++r)
                if (!(shared >> r & 1u))
                    scratch[kept++] = v[r];
            (part == 0 ? yr : yi) = robust_median(scratch, kept);
        }
    }
    xr = robust_median(er, count);
    xi = robust_median(ei, count);
    if (!clean)
        return;
    const double dr = yr - xr, di = yi - xi;
    if (dr * dr + di * di > 16.0 * noise) {
        xr = yr;
        xi = yi;
    }
}

/*!
 * The noise power of one loop's estimate of a value, n^2 P / g2: P the bucket noise
 * power, g2 the median over loops of sum |Ghat|^2 over its floor and ceil buckets (what
 * robust_loop_estimate() returns), held off zero.
 */
GPUFFT_HD inline double robust_estimate_noise(const robust_consts& c, double P, double g2)
{
    return double(c.n) * double(c.n) * P / (g2 > 1e-3 ? g2 : 1e-3);
}

/*!
 * The noise power of a coefficient's estimate at f: n^2 P / (the median over loops of
 * sum Ghat^2 over its floor and ceil buckets), P the bucket noise power. The same figure
 * robust_loop_estimate() returns beside a value, without reading any bucket.
 */
template <typename U>
GPUFFT_HD inline double
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
    return robust_estimate_noise(c, P, robust_median(g, L));
}

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_ROBUST_ESTIMATE_H */
