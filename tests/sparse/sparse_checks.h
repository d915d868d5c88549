/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Shared pieces of the sparse FFT tests: exactly k-sparse test signals and a check of a
// plan's answer against a dense FFTW double-precision reference of the same fp32 input.

#ifndef INCLUDED_GPUFFT_TEST_SPARSE_CHECKS_H
#define INCLUDED_GPUFFT_TEST_SPARSE_CHECKS_H

#include "reference.h"
#include "test_harness.h"
#include <gnuradio/gpufft/dense_fft_plan.h>
#include <gnuradio/gpufft/sparse_fft_plan.h>
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <random>
#include <set>
#include <vector>

namespace gpufft_test {

using cf = std::complex<float>;

//! k distinct bins: random ones plus a run of adjacent bins, DC and the last bin.
inline std::vector<std::int64_t>
sparse_bins(std::int64_t n, std::int64_t k, std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::set<std::int64_t> s;
    if (k >= 4) {
        s.insert(0);
        s.insert(n - 1);
        const std::int64_t a = std::int64_t(rng() % std::uint64_t(n - 4)) + 1;
        s.insert(a);
        s.insert(a + 1);
        s.insert(a + 2);
    }
    while (std::int64_t(s.size()) < k)
        s.insert(std::int64_t(rng() % std::uint64_t(n)));
    std::vector<std::int64_t> v(s.begin(), s.end());
    v.resize(k);
    return v;
}

//! x[t] = (1/n) sum_f X[f] exp(2 pi i f t / n) with X random complex (|X| in [0.1, 1] n)
//! on `bins`, computed in double and rounded to fp32.
inline std::vector<cf>
sparse_signal(std::int64_t n, const std::vector<std::int64_t>& bins, std::uint64_t seed)
{
    std::mt19937_64 rng(seed ^ 0x5bd1e995);
    std::uniform_real_distribution<double> mag(0.1, 1.0), ph(0, 2 * M_PI);
    std::vector<cd> X(n, cd(0, 0)), x(n);
    for (auto f : bins)
        X[f] = std::polar(mag(rng), ph(rng));
    gr::gpufft::dense_fft_options o;
    o.backend = gr::gpufft::backend::cpu;
    o.precision = gr::gpufft::precision::double_;
    gr::gpufft::dense_fft_plan inv(n, 1, gr::gpufft::direction::backward, o);
    inv.execute(X.data(), x.data());
    std::vector<cf> out(n);
    for (std::int64_t t = 0; t < n; ++t)
        out[t] = cf(x[t]);
    return out;
}

//! Dense forward DFT of the fp32 input, in double (FFTW).
inline std::vector<cd> dense_reference(const std::vector<cf>& x)
{
    const std::int64_t n = std::int64_t(x.size());
    std::vector<cd> xd(x.begin(), x.end()), X(n);
    gr::gpufft::dense_fft_options o;
    o.backend = gr::gpufft::backend::cpu;
    o.precision = gr::gpufft::precision::double_;
    gr::gpufft::dense_fft_plan fwd(n, 1, gr::gpufft::direction::forward, o);
    fwd.execute(xd.data(), X.data());
    return X;
}

struct sparse_score {
    std::int64_t misses = 0; //!< true bins absent from the answer
    double max_error = 0;    //!< max |value - X[bin]| / max |X| over the answer
};

//! Scores an answer against the dense reference; `truth` are the signal's bins.
inline sparse_score score(const std::vector<cd>& X,
                          const std::vector<std::int64_t>& truth,
                          const std::vector<std::int64_t>& bins,
                          const std::vector<cf>& values)
{
    double peak = 0;
    for (const auto& v : X)
        peak = std::max(peak, std::abs(v));
    sparse_score s;
    std::set<std::int64_t> got(bins.begin(), bins.end());
    for (auto f : truth)
        s.misses += got.count(f) ? 0 : 1;
    for (std::size_t i = 0; i < bins.size(); ++i) {
        const double e = std::abs(cd(values[i]) - X[bins[i]]) / peak;
        s.max_error = std::isfinite(e) ? std::max(s.max_error, e) : INFINITY;
    }
    return s;
}

//! Runs `plan` on a fresh exactly-k-sparse signal and checks every property of the
//! answer.
inline void check_sparse(gr::gpufft::sparse_fft_plan& plan,
                         std::int64_t tones,
                         std::uint64_t seed,
                         gr::gpufft::memory where = gr::gpufft::memory::host,
                         const std::complex<float>* device_x = nullptr,
                         std::vector<cf>* x_out = nullptr)
{
    const std::int64_t n = plan.size();
    const auto truth = sparse_bins(n, tones, seed);
    const auto x = sparse_signal(n, truth, seed);
    const auto X = dense_reference(x);
    std::vector<std::int64_t> bins(7, -5); // poisoned: must be replaced
    std::vector<cf> values(3, poison<float>());
    plan.execute(
        where == gr::gpufft::memory::host ? x.data() : device_x, bins, values, where);
    GPUFFT_CHECK_EQ(bins.size(), values.size());
    GPUFFT_CHECK(std::int64_t(bins.size()) <= plan.k());
    GPUFFT_CHECK(std::is_sorted(bins.begin(), bins.end()));
    GPUFFT_CHECK(std::adjacent_find(bins.begin(), bins.end()) == bins.end());
    for (auto b : bins)
        GPUFFT_CHECK(b >= 0 && b < n);
    GPUFFT_CHECK(all_finite(values.data(), values.size()));
    const sparse_score s = score(X, truth, bins, values);
    if (s.misses || !(s.max_error <= 1e-5))
        std::printf(
            "  n=%lld k=%lld tones=%lld seed=%llu: %lld misses, max error %.3g (%s)\n",
            (long long)n,
            (long long)plan.k(),
            (long long)tones,
            (unsigned long long)seed,
            (long long)s.misses,
            s.max_error,
            plan.describe().c_str());
    GPUFFT_CHECK_EQ(s.misses, 0);
    GPUFFT_CHECK_LE(s.max_error, 1e-5);
    if (x_out)
        *x_out = x;
}

//! A signal with more tones than the plan's k: the answer must be the k largest.
inline void
check_largest_k(gr::gpufft::sparse_fft_plan& plan, std::int64_t tones, std::uint64_t seed)
{
    const std::int64_t n = plan.size(), k = plan.k();
    const auto truth = sparse_bins(n, tones, seed);
    const auto x = sparse_signal(n, truth, seed);
    const auto X = dense_reference(x);
    std::vector<std::int64_t> want(truth);
    std::sort(want.begin(), want.end(), [&](auto a, auto b) {
        return std::abs(X[a]) > std::abs(X[b]);
    });
    want.resize(k);
    std::sort(want.begin(), want.end());
    std::vector<std::int64_t> bins;
    std::vector<cf> values;
    plan.execute(x.data(), bins, values);
    GPUFFT_CHECK(bins == want);
    const sparse_score s = score(X, want, bins, values);
    GPUFFT_CHECK_LE(s.max_error, 1e-5);
}

} // namespace gpufft_test

#endif /* INCLUDED_GPUFFT_TEST_SPARSE_CHECKS_H */
