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
#include <cstdio>
#include <random>
#include <vector>

namespace gpufft_test {

//! Sources and targets: y and t empty in 1D.
struct nufft3_points {
    std::vector<double> x, y, s, t;
};

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
    if (dim == 2) {
        fill(p.y, n, 0.7 * x_half);
        fill(p.t, m, 1.3 * s_half);
    }
    return p;
}

//! F[k] = sum_j c[j] exp(sign i (s[k] x[j] + t[k] y[j])) in double, for targets [0,
//! count).
template <typename T>
std::vector<cd> direct_nudft(const nufft3_points& p,
                             const std::complex<T>* c,
                             int sign,
                             std::size_t count)
{
    const bool two = !p.y.empty();
    std::vector<cd> F(count);
    for (std::size_t k = 0; k < count; ++k) {
        cd acc = 0;
        for (std::size_t j = 0; j < p.x.size(); ++j) {
            const double ph = p.s[k] * p.x[j] + (two ? p.t[k] * p.y[j] : 0.0);
            acc += cd(c[j]) * cd(std::cos(ph), sign * std::sin(ph));
        }
        F[k] = acc;
    }
    return F;
}

inline void set_points(gr::gpufft::nufft3_plan& plan,
                       const nufft3_points& p,
                       gr::gpufft::memory where = gr::gpufft::memory::host)
{
    if (p.y.empty())
        plan.set_points(p.x.size(), p.x.data(), p.s.size(), p.s.data(), where);
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
 * Runs a plan on fresh random strengths and returns the relative l2 error against the
 * direct sum; fails the calling test when an output was left unwritten.
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
    return rel_l2_error(F.data(), ref.data(), F.size());
}

} // namespace gpufft_test

#endif /* INCLUDED_GPUFFT_TEST_NUFFT3_CHECKS_H */
