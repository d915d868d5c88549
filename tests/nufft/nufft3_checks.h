/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Shared pieces of the type-3 NUFFT tests: random point sets and the direct NUDFT in
// double that every result is compared with.

#ifndef INCLUDED_GPUFFT_TEST_NUFFT3_CHECKS_H
#define INCLUDED_GPUFFT_TEST_NUFFT3_CHECKS_H

#include "reference.h"
#include <gnuradio/gpufft/nufft3_plan.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

namespace gpufft_test {

//! Sources and targets: y, t empty in 1D, z, u empty below 3D.
struct nufft3_points {
    std::vector<double> x, y, z, s, t, u;
    int dim() const { return z.empty() ? (y.empty() ? 1 : 2) : 3; }
};

//! How the sources lie in their box.
enum class layout {
    uniform,   //!< uniform in the box
    clustered, //!< all in a random 1 % of the box (per axis)
    crowded,   //!< half of them inside one fine-grid cell, the rest uniform
};

inline const char* to_string(layout l)
{
    return l == layout::uniform     ? "uniform"
           : l == layout::clustered ? "clustered"
                                    : "crowded";
}

/*!
 * n sources uniform in a box of half-width `x_half` around a random centre, m targets
 * uniform in [-s_half, s_half] around another random centre (centres off zero so the
 * centring and its phase factors are exercised).
 */
inline nufft3_points random_points(int dim,
                                   std::size_t n,
                                   std::size_t m,
                                   double x_half,
                                   double s_half,
                                   std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    nufft3_points p;
    auto fill = [&](std::vector<double>& v, std::size_t count, double half) {
        const double centre = 3 * half * u(rng);
        v.resize(count);
        for (auto& e : v)
            e = centre + half * u(rng);
    };
    fill(p.x, n, x_half);
    fill(p.s, m, s_half);
    if (dim >= 2) {
        fill(p.y, n, 0.7 * x_half);
        fill(p.t, m, 1.3 * s_half);
    }
    if (dim == 3) {
        fill(p.z, n, 1.2 * x_half);
        fill(p.u, m, 0.8 * s_half);
    }
    return p;
}

/*!
 * random_points with the sources rearranged by `l`: clustered moves them into a random
 * 1 % of their box (the box the plan sees shrinks with them), crowded puts every other
 * source within 1e-6 of the box's half-width around one random source (one cell of any
 * fine grid).
 */
inline nufft3_points random_points(int dim,
                                   std::size_t n,
                                   std::size_t m,
                                   double x_half,
                                   double s_half,
                                   std::uint64_t seed,
                                   layout l)
{
    nufft3_points p = random_points(dim, n, m, x_half, s_half, seed);
    if (l == layout::uniform)
        return p;
    std::mt19937_64 rng(seed ^ 0x5bd1e995u);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (std::vector<double>* v : { &p.x, &p.y, &p.z }) {
        if (v->empty())
            continue;
        const double half = x_half * (v == &p.x ? 1.0 : v == &p.y ? 0.7 : 1.2);
        if (l == layout::clustered) {
            const double centre = (*v)[0] + 0.99 * half * u(rng);
            for (auto& e : *v)
                e = centre + 0.01 * half * u(rng);
        } else {
            const double centre = (*v)[0];
            for (std::size_t j = 0; j < v->size(); j += 2)
                (*v)[j] = centre + 1e-6 * half * u(rng);
        }
    }
    return p;
}

//! F[k] = sum_j c[j] exp(sign i (s[k] x[j] + t[k] y[j] + u[k] z[j])) in double (phases
//! in long double with exact_phase), for
//! targets [0, count).
template <typename T>
std::vector<cd> direct_nudft(const nufft3_points& p,
                             const std::complex<T>* c,
                             int sign,
                             std::size_t count,
                             bool exact_phase = false)
{
    const int dim = p.dim();
    std::vector<cd> F(count);
    const long double two_pi = 6.283185307179586476925286766559L;
    for (std::size_t k = 0; k < count; ++k) {
        cd acc = 0;
        for (std::size_t j = 0; j < p.x.size(); ++j) {
            double r;
            if (exact_phase) {
                // The phase of the given double coordinates, multiplied and reduced in
                // long double: s x in double is off by |s x| 2^-53, which at s x ~ 1e5
                // is 1e-11, near the errors the large-grid tests bound.
                long double ph = (long double)p.s[k] * p.x[j];
                if (dim >= 2)
                    ph += (long double)p.t[k] * p.y[j];
                if (dim == 3)
                    ph += (long double)p.u[k] * p.z[j];
                r = double(ph - two_pi * std::nearbyint(ph / two_pi));
            } else {
                r = p.s[k] * p.x[j];
                if (dim >= 2)
                    r += p.t[k] * p.y[j];
                if (dim == 3)
                    r += p.u[k] * p.z[j];
            }
            acc += cd(c[j]) * cd(std::cos(r), sign * std::sin(r));
        }
        F[k] = acc;
    }
    return F;
}

inline void set_points(gr::gpufft::nufft3_plan& plan,
                       const nufft3_points& p,
                       gr::gpufft::memory where = gr::gpufft::memory::host)
{
    if (p.dim() == 1)
        plan.set_points(p.x.size(), p.x.data(), p.s.size(), p.s.data(), where);
    else if (p.dim() == 3)
        plan.set_points(p.x.size(),
                        p.x.data(),
                        p.y.data(),
                        p.z.data(),
                        p.s.size(),
                        p.s.data(),
                        p.t.data(),
                        p.u.data(),
                        where);
    else
        plan.set_points(p.x.size(),
                        p.x.data(),
                        p.y.data(),
                        p.s.size(),
                        p.s.data(),
                        p.t.data(),
                        where);
}

/*!
 * ||F - ref|| over m targets, relative to the larger of ||ref|| and half its rms over
 * the strengths, sqrt(m) ||c|| / 2 (c the n strengths): the relative l2 error, unless
 * the output cancels.
 *
 * Why not ||ref|| alone: for the tests' strengths (independent, zero mean),
 * E |F[k]|^2 = ||c||^2 at every target whatever the points, so sqrt(m) ||c|| is the rms
 * of ||F||. The grid's error at a target, sum_j c[j] d[j][k] with |d| about eps (kernel
 * and rounding), does not cancel with F: it is about eps sqrt(m) ||c||. Where the
 * sources lie within a fraction of a wavelength (clustered: |x| |s| about 0.1 rad per
 * axis in 3D), every F[k] is nearly one phase times sum_j c[j], a single random sum:
 * ||F|| / (sqrt(m) ||c||) is 0.1 or less in 1 draw of 150 (3000 draws; 1 of 400 in 2D),
 * and a transform accurate to eps of its scale shows a relative error past eps (3-D
 * clustered float at 1e-5, seed 2932439320172580657: ||F|| at 0.067 of its rms, relative
 * error 1.03 eps, 0.069 eps of the rms). Sources spread over many wavelengths (uniform)
 * give ||F|| of 0.83..1.2 rms (1500 draws): never under half, so there this is exactly
 * the relative l2 error, as strict as before. A wrong transform is off by about ||F||.
 */
template <typename T>
double nufft3_error(const std::complex<T>* F,
                    const cd* ref,
                    std::size_t m,
                    const std::complex<T>* c,
                    std::size_t n)
{
    double num = 0, den = 0, strengths = 0;
    for (std::size_t k = 0; k < m; ++k) {
        num += std::norm(cd(F[k]) - ref[k]);
        den += std::norm(ref[k]);
    }
    for (std::size_t j = 0; j < n; ++j)
        strengths += std::norm(cd(c[j]));
    const double scale = std::max(den, 0.25 * double(m) * strengths);
    return scale > 0 ? std::sqrt(num / scale) : std::sqrt(num);
}

/*!
 * Runs a plan on fresh random strengths and returns its error against the direct sum
 * (nufft3_error: relative l2 unless the output cancels); 1e300 when an output was left
 * unwritten.
 */
template <typename T>
double
plan_error(gr::gpufft::nufft3_plan& plan, const nufft3_points& p, std::uint64_t seed)
{
    const auto c = random_complex<T>(p.x.size(), seed);
    std::vector<std::complex<T>> F(p.s.size(), poison<T>());
    plan.execute(c.data(), F.data());
    if (!all_finite(F.data(), F.size()))
        return 1e300;
    const auto ref = direct_nudft(p, c.data(), plan.sign(), F.size());
    return nufft3_error(F.data(), ref.data(), F.size(), c.data(), c.size());
}

//! Sources, targets and half-extents of one eps-promise point set.
struct promise_sizes {
    std::int64_t sources, targets;
    double x_half, s_half;
};

/*!
 * The smallest eps promised, as a decade: 1e-12 in double; in single 1e-6 for uniform
 * sources in 1D and 2D and for every layout in 3D (whose grid at 1e-6 is in double: no
 * float grid reaches it), else 1e-5 (a float grid cell summing n piled-up sources rounds
 * to about 6e-8 sqrt(n / 2) of its value, 1e-6 at n = 600 already; docs/nufft3.md).
 */
inline int lowest_promised_decade(bool single, int dim, layout l)
{
    return !single ? 12 : (dim == 3 || l == layout::uniform) ? 6 : 5;
}

/*!
 * eps as a promise: for every promised decade of eps, one plan on `seeds` fresh point
 * sets (sizes[dim - 1], `l`), each error and seed printed (MISS above eps). Returns the
 * worst error over eps of all of them: the promise holds when it is at most 1.
 */
template <typename T>
double promise_worst_ratio(gr::gpufft::nufft3_options o,
                           int dim,
                           layout l,
                           const promise_sizes (&sizes)[3],
                           int seeds = 20)
{
    const bool single = sizeof(T) == 4;
    o.precision = single ? gr::gpufft::precision::single : gr::gpufft::precision::double_;
    const promise_sizes& z = sizes[dim - 1];
    double worst_ratio = 0;
    for (int e = 1; e <= lowest_promised_decade(single, dim, l); ++e) {
        const double eps = std::pow(10.0, -e);
        gr::gpufft::nufft3_plan plan(dim, eps, o);
        double worst = 0;
        for (int r = 0; r < seeds; ++r) {
            const std::uint64_t seed = fresh_seed();
            const auto p =
                random_points(dim, z.sources, z.targets, z.x_half, z.s_half, seed, l);
            set_points(plan, p);
            const double err = plan_error<T>(plan, p, seed + 1);
            worst = std::max(worst, err);
            std::printf("    %sdim %d %s %s eps %.0e: err %.2e (seed %llu)\n",
                        err > eps ? "MISS " : "",
                        dim,
                        single ? "float" : "double",
                        to_string(l),
                        eps,
                        err,
                        (unsigned long long)seed);
        }
        std::printf("  dim %d %s %s eps %.0e: worst of %d seeds %.2e (%.2f eps), %g "
                    "taps, up %.2f\n",
                    dim,
                    single ? "float" : "double",
                    to_string(l),
                    eps,
                    seeds,
                    worst,
                    worst / eps,
                    plan.kernel_width(),
                    plan.upsampling());
        worst_ratio = std::max(worst_ratio, worst / eps);
    }
    return worst_ratio;
}

/*!
 * ntransf strength vectors in one execute against one execute each (must agree to
 * rounding: the same stages on the same grid) and against the direct sum on the first
 * `check` targets; returns the largest error (nufft3_error) of any vector against the
 * direct sum (1e300 when an output was left unwritten) and the largest batch-vs-single
 * difference in *batch_vs_single.
 */
template <typename T>
double batch_error(gr::gpufft::nufft3_plan& plan,
                   const nufft3_points& p,
                   int ntransf,
                   std::uint64_t seed,
                   std::size_t check,
                   double* batch_vs_single = nullptr)
{
    const std::size_t n = p.x.size(), m = p.s.size();
    const auto c = random_complex<T>(n * ntransf, seed);
    std::vector<std::complex<T>> F(m * ntransf, poison<T>()), one(m, poison<T>());
    plan.execute(c.data(), F.data(), gr::gpufft::memory::host, ntransf);
    if (!all_finite(F.data(), F.size()))
        return 1e300;
    double worst = 0, diff = 0;
    for (int v = 0; v < ntransf; ++v) {
        plan.execute(c.data() + v * n, one.data());
        diff = std::max(diff, rel_l2_error(F.data() + v * m, one.data(), m));
        const auto ref = direct_nudft(p, c.data() + v * n, plan.sign(), check);
        worst = std::max(
            worst,
            nufft3_error(F.data() + v * m, ref.data(), check, c.data() + v * n, n));
    }
    if (batch_vs_single)
        *batch_vs_single = diff;
    return worst;
}

/*!
 * Inputs of issue 32 item 9's kind: few points, a space-bandwidth product whose grid
 * holds hundreds of millions of cells or more (or none fits the budget), where the
 * direct sum costs a few million terms. Points uniform in [-x_half, x_half] and
 * [-s_half, s_half] per axis.
 */
struct wide_band_case {
    int dim;
    std::size_t n, m;
    double x_half, s_half;
};
inline const wide_band_case wide_band_cases[] = {
    { 1, 2000, 1500, 3e3, 3e3 }, // a grid of 2.3e7 cells: fits, dearer than 3e6 terms
    { 2, 1000, 800, 300, 300 },  // 2.3e5^2 cells: no budget holds them
    { 3, 3000, 2000, 35, 29 },   // the issue's: 18 GiB at upsampling 1.25
};

//! Plans run on host arrays: the default way of wide_band_error() (nufft3_variant is
//! another: its set_points() and execute() put the arrays where the variant keeps them).
struct host_arrays {
    const char* name() const { return "host arrays"; }
    void set_points(gr::gpufft::nufft3_plan& plan, const nufft3_points& p) const
    {
        gpufft_test::set_points(plan, p);
    }
    template <typename T>
    void execute(gr::gpufft::nufft3_plan& plan,
                 const std::vector<std::complex<T>>& c,
                 std::vector<std::complex<T>>& F,
                 int ntransf) const
    {
        plan.execute(c.data(), F.data(), gr::gpufft::memory::host, ntransf);
    }
};

/*!
 * One plan on a wide_band_case, run `way`: the relative l2 error against the direct
 * NUDFT in double with exactly reduced phases (whose own floor is 1e-16 |s x|, 1e-9 at
 * most here), with the plan's describe() and the seed printed; *method_out gets the
 * method the plan chose.
 */
template <typename T, typename Way = host_arrays>
double wide_band_error(gr::gpufft::nufft3_options o,
                       const wide_band_case& w,
                       double eps,
                       int ntransf = 1,
                       gr::gpufft::nufft_method* method_out = nullptr,
                       const Way& way = Way{})
{
    const std::uint64_t seed = fresh_seed();
    o.precision =
        sizeof(T) == 4 ? gr::gpufft::precision::single : gr::gpufft::precision::double_;
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    nufft3_points p;
    std::vector<double>* src[3] = { &p.x, &p.y, &p.z };
    std::vector<double>* tgt[3] = { &p.s, &p.t, &p.u };
    for (int a = 0; a < w.dim; ++a) {
        src[a]->resize(w.n);
        tgt[a]->resize(w.m);
        for (auto& e : *src[a])
            e = w.x_half * u(rng);
        for (auto& e : *tgt[a])
            e = w.s_half * u(rng);
    }
    gr::gpufft::nufft3_plan plan(w.dim, eps, o);
    way.set_points(plan, p);
    const auto c = random_complex<T>(w.n * ntransf, seed + 1);
    std::vector<std::complex<T>> F(w.m * ntransf, poison<T>());
    way.template execute<T>(plan, c, F, ntransf);
    double worst = all_finite(F.data(), F.size()) ? 0 : 1e300;
    for (int v = 0; v < ntransf && worst < 1e300; ++v) {
        const auto ref = direct_nudft(p, c.data() + v * w.n, plan.sign(), w.m, true);
        worst = std::max(worst, rel_l2_error(F.data() + v * w.m, ref.data(), w.m));
    }
    std::printf("    %s\n    %s, %s eps %.0e ntransf %d: err %.2e (seed %llu)\n",
                plan.describe().c_str(),
                way.name(),
                sizeof(T) == 4 ? "float" : "double",
                eps,
                ntransf,
                worst,
                (unsigned long long)seed);
    if (method_out)
        *method_out = plan.method();
    return worst;
}

} // namespace gpufft_test

#endif /* INCLUDED_GPUFFT_TEST_NUFFT3_CHECKS_H */
