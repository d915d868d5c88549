/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Shared pieces of the sparse FFT tests: exactly k-sparse test signals and a check of a
// plan's answer against a dense FFTW double-precision reference of the same fp32 input;
// frames that are not exactly sparse (tones between bins, noise) and the check of exact
// mode's answer to them (not_sparse() and only genuine coefficients). Each check runs
// the plan through a sparse_exec: on the host array, or (sparse_variants.h) through a
// device copy of it.

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
#include <functional>
#include <random>
#include <set>
#include <vector>

namespace gpufft_test {

using cf = std::complex<float>;

//! Runs a plan on a frame held on the host (plan.execute with the host array, or a copy
//! of it where the variant keeps its frames).
using sparse_exec = std::function<void(gr::gpufft::sparse_fft_plan&,
                                       const std::vector<cf>&,
                                       std::vector<std::int64_t>&,
                                       std::vector<cf>&)>;

inline void host_exec(gr::gpufft::sparse_fft_plan& plan,
                      const std::vector<cf>& x,
                      std::vector<std::int64_t>& bins,
                      std::vector<cf>& values)
{
    plan.execute(x.data(), bins, values);
}

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

//! x[t] = (1/n) sum_i values[i] exp(2 pi i bins[i] t / n): the signal whose DFT is
//! `values` on `bins` (zero elsewhere), computed in double and rounded to fp32.
inline std::vector<cf> tones_signal(std::int64_t n,
                                    const std::vector<std::int64_t>& bins,
                                    const std::vector<cd>& values)
{
    std::vector<cd> X(n, cd(0, 0)), x(n);
    for (std::size_t i = 0; i < bins.size(); ++i)
        X[bins[i]] = values[i] / double(n); // the backward transform is unnormalized
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

//! Adds amplitude * exp(2 pi i f0 t / n) to x, f0 in fractional bins (the phase of
//! the integer part reduced exactly, in double).
inline void add_tone(std::vector<cf>& x, double f0, cd amplitude)
{
    const std::int64_t n = std::int64_t(x.size());
    const double whole = std::floor(f0), frac = f0 - whole;
    const std::int64_t m = std::int64_t(whole) % n;
    for (std::int64_t t = 0; t < n; ++t) {
        const double turns =
            double((m * t) % n) / double(n) + frac * double(t) / double(n);
        x[t] += cf(amplitude * std::polar(1.0, 2 * M_PI * turns));
    }
}

//! Complex white Gaussian noise of variance `power` per sample.
inline std::vector<cf> white_noise(std::int64_t n, double power, std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> g(0, std::sqrt(power / 2));
    std::vector<cf> x(n);
    for (auto& v : x)
        v = cf(float(g(rng)), float(g(rng)));
    return x;
}

//! Circular distance between bins a and b of an n-point DFT.
inline double bin_distance(double a, double b, std::int64_t n)
{
    const double d = std::fabs(std::fmod(a - b, double(n)));
    return std::min(d, double(n) - d);
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
//! answer. Exact mode's location is randomized: a frame whose tones' buckets collide in
//! every loop loses them (docs/sparse_fft.md, "Location failures": about 1 frame in
//! 10^4 at B ~ 2k), and such a frame is always flagged `not_sparse`. So a flagged miss
//! is reported and the check takes a second signal on the same plan, which must come
//! back whole (both failing: ~1e-8); a miss that is not flagged fails at once.
inline void check_sparse(gr::gpufft::sparse_fft_plan& plan,
                         std::int64_t tones,
                         std::uint64_t seed,
                         const sparse_exec& run = host_exec,
                         std::vector<cf>* x_out = nullptr)
{
    const std::int64_t n = plan.size();
    for (int attempt = 0;; ++attempt) {
        const std::uint64_t s_seed = attempt == 0 ? seed : seed ^ 0x9e3779b97f4a7c15ull;
        const auto truth = sparse_bins(n, tones, s_seed);
        const auto x = sparse_signal(n, truth, s_seed);
        const auto X = dense_reference(x);
        std::vector<std::int64_t> bins(7, -5); // poisoned: must be replaced
        std::vector<cf> values(3, poison<float>());
        run(plan, x, bins, values);
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
                "  n=%lld k=%lld tones=%lld seed=%llu: %lld misses, max error %.3g, "
                "flagged %d (%s)\n",
                (long long)n,
                (long long)plan.k(),
                (long long)tones,
                (unsigned long long)s_seed,
                (long long)s.misses,
                s.max_error,
                int(plan.not_sparse()),
                plan.describe().c_str());
        if (attempt == 0 && s.misses > 0 && plan.not_sparse()) {
            std::printf("  a flagged location failure: a second signal on this plan\n");
            continue;
        }
        GPUFFT_CHECK_EQ(s.misses, 0);
        GPUFFT_CHECK_LE(s.max_error, 1e-5);
        GPUFFT_CHECK(!plan.not_sparse()); // a whole answer is never flagged
        if (x_out)
            *x_out = x;
        return;
    }
}

//! A signal with more tones than the plan's k: the answer must be the k largest.
inline void check_largest_k(gr::gpufft::sparse_fft_plan& plan,
                            std::int64_t tones,
                            std::uint64_t seed,
                            const sparse_exec& run = host_exec)
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
    run(plan, x, bins, values);
    GPUFFT_CHECK(bins == want);
    GPUFFT_CHECK(!plan.not_sparse());
    const sparse_score s = score(X, want, bins, values);
    GPUFFT_CHECK_LE(s.max_error, 1e-5);
}

/*!
 * Exact mode on a frame that is not exactly sparse: the plan must flag it and every
 * coefficient it still returns must be genuine: among the k largest |X| of the dense
 * double reference (so never a far phantom bin), with a value within `value_tol` x |X|
 * (vouched-for coefficients agree across loops to 1%). `near` (if >= 0): the returned
 * bins must also lie within `radius` bins of it. Returns the answer.
 */
struct not_sparse_answer {
    std::vector<std::int64_t> bins;
    std::vector<cf> values;
    std::vector<cd> X; //!< the dense reference
};

inline not_sparse_answer check_not_sparse(gr::gpufft::sparse_fft_plan& plan,
                                          const std::vector<cf>& x,
                                          const char* what,
                                          double near = -1,
                                          double radius = 0,
                                          double value_tol = 2e-2,
                                          const sparse_exec& run = host_exec)
{
    const std::int64_t n = plan.size(), k = plan.k();
    not_sparse_answer a;
    a.X = dense_reference(x);
    a.bins.assign(5, -3); // poisoned: must be replaced
    a.values.assign(2, poison<float>());
    run(plan, x, a.bins, a.values);
    std::vector<double> mags(n);
    for (std::int64_t f = 0; f < n; ++f)
        mags[f] = std::abs(a.X[f]);
    std::nth_element(mags.begin(), mags.begin() + (k - 1), mags.end(), std::greater<>());
    const double kth = mags[k - 1]; // the k-th largest |X|
    std::printf("  %s: not_sparse %d, %zu coefficients back:",
                what,
                int(plan.not_sparse()),
                a.bins.size());
    for (std::size_t i = 0; i < a.bins.size() && i < 8; ++i)
        std::printf(" %lld", (long long)a.bins[i]);
    std::printf("%s\n", a.bins.size() > 8 ? " ..." : "");
    GPUFFT_CHECK(plan.not_sparse());
    GPUFFT_CHECK_EQ(a.bins.size(), a.values.size());
    GPUFFT_CHECK(std::int64_t(a.bins.size()) <= k);
    GPUFFT_CHECK(std::is_sorted(a.bins.begin(), a.bins.end()));
    GPUFFT_CHECK(std::adjacent_find(a.bins.begin(), a.bins.end()) == a.bins.end());
    GPUFFT_CHECK(all_finite(a.values.data(), a.values.size()));
    for (std::size_t i = 0; i < a.bins.size(); ++i) {
        const std::int64_t f = a.bins[i];
        GPUFFT_CHECK(f >= 0 && f < n);
        const double m = std::abs(a.X[f]);
        if (!(m >= kth) || !(std::abs(cd(a.values[i]) - a.X[f]) <= value_tol * m) ||
            (near >= 0 && !(bin_distance(double(f), near, n) <= radius)))
            std::printf("  bin %lld: |X| %.4g (k-th largest %.4g), value %.4g%+.4gi, "
                        "X %.4g%+.4gi\n",
                        (long long)f,
                        m,
                        kth,
                        a.values[i].real(),
                        a.values[i].imag(),
                        a.X[f].real(),
                        a.X[f].imag());
        GPUFFT_CHECK(m >= kth);
        GPUFFT_CHECK_LE(std::abs(cd(a.values[i]) - a.X[f]), value_tol * m);
        if (near >= 0)
            GPUFFT_CHECK_LE(bin_distance(double(f), near, n), radius);
    }
    return a;
}

/*!
 * A frame of `tones` on-grid tones of equal magnitude (|X| = n, random phases) plus one
 * weak tone of amplitude `weak` (|X| ~ weak n) between bins, its fractional offset in
 * [0.3, 0.7] so that its leakage leaves at least ~0.2 weak^2 n^2 unexplained: with
 * weak = 4e-3 and 20 tones, 8e-8 of the energy against the 1e-8 the check tolerates.
 */
struct weak_tone_frame {
    std::vector<std::int64_t> bins;
    std::vector<cf> x;
    double weak_bin = 0;
};

inline weak_tone_frame
make_weak_tone_frame(std::int64_t n, std::int64_t tones, double weak, std::uint64_t seed)
{
    weak_tone_frame w;
    w.bins = sparse_bins(n, tones, seed);
    std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ull);
    std::uniform_real_distribution<double> u(0, 1);
    std::vector<cd> values(w.bins.size());
    for (auto& v : values)
        v = std::polar(double(n), 2 * M_PI * u(rng));
    w.x = tones_signal(n, w.bins, values);
    w.weak_bin = std::floor(u(rng) * double(n)) + 0.3 + 0.4 * u(rng);
    add_tone(w.x, w.weak_bin, std::polar(weak, 2 * M_PI * u(rng)));
    return w;
}

/*!
 * Exact mode on a weak_tone_frame: flagged, every on-grid tone back with its value to
 * 1%, and whatever else comes back genuine (check_not_sparse) and next to the weak tone.
 */
inline not_sparse_answer check_weak_tone(gr::gpufft::sparse_fft_plan& plan,
                                         const weak_tone_frame& w,
                                         const sparse_exec& run = host_exec)
{
    const std::int64_t n = plan.size();
    not_sparse_answer a =
        check_not_sparse(plan, w.x, "exact tones + weak tone", -1, 0, 2e-2, run);
    std::set<std::int64_t> got(a.bins.begin(), a.bins.end()),
        truth(w.bins.begin(), w.bins.end());
    for (auto f : w.bins) {
        if (!got.count(f))
            std::printf("  missing on-grid tone %lld\n", (long long)f);
        GPUFFT_CHECK(got.count(f) == 1);
    }
    for (std::size_t i = 0; i < a.bins.size(); ++i) {
        const std::int64_t f = a.bins[i];
        if (truth.count(f))
            GPUFFT_CHECK_LE(std::abs(cd(a.values[i]) - a.X[f]), 1e-2 * std::abs(a.X[f]));
        else
            GPUFFT_CHECK_LE(bin_distance(double(f), w.weak_bin, n), 3.0);
    }
    return a;
}

} // namespace gpufft_test

#endif /* INCLUDED_GPUFFT_TEST_SPARSE_CHECKS_H */
