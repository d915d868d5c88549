/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The parts of the sublinear path's self-check (the probe's floor, the verdict) against
// direct computation. The whole check on real and synthetic frames runs per backend in
// test_sparse_robust_backends.cc (self_check_cases.h).

#include "reference.h"
#include "sparse/robust/robust_check.h"
#include "test_harness.h"
#include <gnuradio/gpufft/dense_fft_plan.h>
#include <cmath>
#include <complex>
#include <cstdio>
#include <random>
#include <vector>

using namespace gr::gpufft;
using namespace gpufft_test;

// White noise of variance s2: the probe's floor is s2 n within 20% (its median scatters
// by 3%, sd 0.030 and 0.91-1.11 over 300 seeds, so 10% failed 1 run in 300; 20% is 6.7
// sd). A carrier 90 dB up and 40% of the band 30 dB up leave it under 2 x: the
// averaged periodograms' median (Gamma(8) / 8 noise) reads 1.42 (sd 0.06, at most 1.58
// over 300 seeds; 2 is 9.9 sd), where one periodogram's median / ln 2, as the dense
// path's, reads ~2.6; so the probe errs low, towards redoing a frame.
GPUFFT_TEST(probe_floor_is_the_median_floor)
{
    const std::uint64_t seed = fresh_seed();
    std::printf("  seed %llu\n", (unsigned long long)seed);
    std::mt19937_64 rng(seed);
    const std::int64_t n = 65536;
    const double s2 = 0.37;
    std::normal_distribution<double> g(0, std::sqrt(s2 / 2));
    std::vector<std::complex<float>> x(n);
    for (auto& v : x)
        v = std::complex<float>(float(g(rng)), float(g(rng)));
    detail::robust_floor_probe probe(n, 4);
    const double white = probe.floor(x.data());
    std::printf("  white: %.4f of s2 n\n", white / (s2 * n));
    GPUFFT_CHECK(std::fabs(white / (s2 * n) - 1) < 0.2);
    // + a carrier at 90 dB per bin, + noise 30 dB up over 40% of the band (a filtered
    // noise by adding bins in frequency: through an FFT of the noise).
    std::vector<std::complex<float>> busy(x);
    const double a = std::sqrt(s2 * n * 1e9) / double(n);
    for (std::int64_t t = 0; t < n; ++t)
        busy[t] += std::complex<float>(std::polar(a, 2 * M_PI * 1234.3 * t / double(n)));
    dense_fft_options o;
    o.backend = backend::cpu;
    dense_fft_plan fwd(n, 1, direction::forward, o), inv(n, 1, direction::backward, o);
    std::vector<std::complex<float>> w(n), W(n);
    for (auto& v : w)
        v = std::complex<float>(float(g(rng)), float(g(rng)));
    fwd.execute(w.data(), W.data());
    for (std::int64_t i = 0; i < n; ++i)
        W[i] *= i < 4 * n / 10 ? float(std::sqrt(1000.0) / n) : 0.0f;
    inv.execute(W.data(), w.data());
    for (std::int64_t t = 0; t < n; ++t)
        busy[t] += w[t];
    const double floor = probe.floor(busy.data());
    std::printf("  busy: %.4f of s2 n\n", floor / (s2 * n));
    GPUFFT_CHECK(floor / (s2 * n) > 0.9 && floor / (s2 * n) < 2.0);
}

GPUFFT_TEST(verdict_rules)
{
    using detail::robust_check;
    GPUFFT_CHECK(detail::robust_verdict(1.0, 1.0, 0, 3) == robust_check::passed);
    GPUFFT_CHECK(detail::robust_verdict(1.9, 1.0, 1, 3) == robust_check::passed);
    GPUFFT_CHECK(detail::robust_verdict(2.1, 1.0, 0, 3) == robust_check::floor);
    GPUFFT_CHECK(detail::robust_verdict(1.0, 1.0, 2, 3) == robust_check::residual);
    GPUFFT_CHECK(detail::robust_verdict(1.0, 1.0, 1, 1) == robust_check::residual);
    GPUFFT_CHECK(detail::robust_verdict(1.0, 0.0, 0, 3) == robust_check::passed);
    // A bucket is unexplained over 4 eta P and over a quarter of its power before.
    GPUFFT_CHECK(detail::robust_bucket_unexplained(50, 60, 10));
    GPUFFT_CHECK(!detail::robust_bucket_unexplained(50, 300, 10));
    GPUFFT_CHECK(!detail::robust_bucket_unexplained(39, 39, 10));
}

GPUFFT_TEST(non_finite_probe_sample_throws)
{
    const std::int64_t n = 65536;
    detail::robust_floor_probe probe(n, 4);
    std::vector<std::complex<float>> x(n, std::complex<float>(1, 0));
    x[probe.start(3) + 5] = std::complex<float>(std::nanf(""), 0);
    GPUFFT_CHECK_THROWS(probe.floor(x.data()), std::invalid_argument, "x");
}

GPUFFT_TEST_MAIN()
