/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The resampler's numerics without GNU Radio: a band-limited signal sampled at jittered
// times, fitted frame by frame, evaluated on a uniform grid inside the frame's centre.

#include "nufft/band_limited_fit.h"
#include "reference.h"
#include "test_harness.h"
#include <gnuradio/gpufft/device.h>
#include <cmath>
#include <random>

using namespace gr::gpufft;
using namespace gpufft_test;

namespace {

constexpr double two_pi = 6.283185307179586476925;

struct tones {
    std::vector<double> f;
    std::vector<cd> a;
    cd operator()(double t) const
    {
        cd s = 0;
        for (std::size_t i = 0; i < f.size(); ++i)
            s += a[i] * std::polar(1.0, two_pi * f[i] * t);
        return s;
    }
};

//! SNR in dB of the fit's central outputs over a jittered stream of tones in the band.
double resample_snr(backend b, double eps, std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1, 1);
    const double fs = 1000, bw = 250, rate = 400;
    tones sig;
    for (int i = 0; i < 30; ++i) {
        sig.f.push_back(0.45 * bw * u(rng));
        sig.a.push_back(cd(u(rng), u(rng)));
    }
    const int L = 1024, ov = 128, frames = 6;
    std::vector<double> t(L * frames);
    for (std::size_t j = 0; j < t.size(); ++j)
        t[j] = (double(j) + 0.3 * u(rng)) / fs;
    nufft::band_limited_fit fit(bw, eps, b, 0);
    double num = 0, den = 0;
    for (int f = 0; f + 1 < frames; ++f) {
        const std::size_t a = std::size_t(f) * (L - 2 * ov);
        const double centre = 0.5 * (t[a] + t[a + L - 1]);
        std::vector<double> tr(L);
        std::vector<cd> x(L);
        for (int j = 0; j < L; ++j) {
            tr[j] = t[a + j] - centre;
            x[j] = sig(t[a + j]);
        }
        fit.fit(tr.data(), x.data(), L);
        std::vector<double> tau;
        for (double v = std::ceil(t[a + ov] * rate) / rate; v < t[a + L - ov];
             v += 1 / rate)
            tau.push_back(v - centre);
        std::vector<cd> y(tau.size(), poison<double>());
        fit.evaluate(tau.data(), int(tau.size()), y.data());
        for (std::size_t i = 0; i < y.size(); ++i) {
            const cd ref = sig(tau[i] + centre);
            num += std::norm(y[i] - ref);
            den += std::norm(ref);
        }
    }
    const double snr = 10 * std::log10(den / num);
    std::printf(
        "    %s eps %.0e: SNR %.1f dB, %d coefficients, %d CG iterations (seed %llu)\n",
        to_string(b).c_str(),
        eps,
        snr,
        fit.coefficients(),
        fit.iterations(),
        (unsigned long long)seed);
    return snr;
}

/*!
 * SNR in dB of one frame's central outputs where the stream has a gap of `gap` seconds
 * (no samples) in its middle: of the outputs within 1 / bw of the gap (*near) and of the
 * rest (return value).
 */
double gap_snr(double gap, std::uint64_t seed, double* near)
{
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1, 1);
    const double fs = 1000, bw = 250, rate = 400;
    tones sig;
    for (int i = 0; i < 30; ++i) {
        sig.f.push_back(0.5 * bw * u(rng));
        sig.a.push_back(cd(u(rng), u(rng)));
    }
    const int L = 1024, ov = 128;
    std::vector<double> t(L);
    for (int j = 0; j < L; ++j)
        t[j] = (double(j) + 0.3 * u(rng)) / fs + (j >= L / 2 ? gap : 0.0);
    const double g0 = t[L / 2 - 1], g1 = t[L / 2];
    const double centre = 0.5 * (t[0] + t[L - 1]);
    std::vector<double> tr(L);
    std::vector<cd> x(L);
    for (int j = 0; j < L; ++j) {
        tr[j] = t[j] - centre;
        x[j] = sig(t[j]);
    }
    nufft::band_limited_fit fit(bw, 1e-6, backend::cpu, 0);
    fit.fit(tr.data(), x.data(), L);
    std::vector<double> tau;
    for (double v = std::ceil(t[ov] * rate) / rate; v < t[L - ov]; v += 1 / rate)
        tau.push_back(v - centre);
    std::vector<cd> y(tau.size());
    fit.evaluate(tau.data(), int(tau.size()), y.data());
    double num[2] = { 0, 0 }, den[2] = { 0, 0 };
    for (std::size_t i = 0; i < y.size(); ++i) {
        const double at = tau[i] + centre;
        const int k = at > g0 - 1 / bw && at < g1 + 1 / bw ? 1 : 0;
        const cd ref = sig(at);
        num[k] += std::norm(y[i] - ref);
        den[k] += std::norm(ref);
    }
    *near = den[1] > 0 ? 10 * std::log10(den[1] / num[1]) : 999;
    return 10 * std::log10(den[0] / num[0]);
}

} // namespace

GPUFFT_TEST(gaps_past_the_limit_break_the_reconstruction)
{
    // The resampler reports gaps over nufft::band_limited_fit::gap_limit, 2 / bandwidth
    // (issue 32 item 11): up to 3/4 of it the outputs around a gap keep 50 dB, from
    // twice it on they are lost, and the rest of the frame keeps its SNR either way.
    // Near the gap at eps 1e-6, tones filling the band (200 seeds): 62-87 dB at 3/4 of
    // the limit (mean 74.1, sd 4.8), so 60 failed 1 run in 700 and 50 is 5 sd (3e-7);
    // at 1/2 of it, mean 82.8, sd 4.6, at least 73.8, so 60 holds there (5 sd). Lost
    // is checked from three times the limit: over 300 seeds the SNR near the gap was
    // 2-41 dB at twice it (median 10, 1 % over 31), 1-17 dB at three times and 1-8 dB
    // at four.
    const double bw = 250, limit = nufft::band_limited_fit::gap_limit(bw);
    for (double g : { 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 6.0, 8.0 }) {
        const std::uint64_t seed = fresh_seed();
        double near = 0;
        const double far = gap_snr(g / bw, seed, &near);
        std::printf("    gap %.2f / bandwidth (%.2f x the limit): SNR %.1f dB near it, "
                    "%.1f dB elsewhere (seed %llu)\n",
                    g,
                    g / (bw * limit),
                    near,
                    far,
                    (unsigned long long)seed);
        GPUFFT_CHECK(far >= 60);
        if (g / bw <= 0.5 * limit)
            GPUFFT_CHECK(near >= 60);
        else if (g / bw <= 0.75 * limit)
            GPUFFT_CHECK(near >= 50);
        if (g / bw >= 3 * limit)
            GPUFFT_CHECK(near < 30);
    }
}

GPUFFT_TEST(jittered_tones_resampled_above_60_db)
{
    GPUFFT_CHECK(resample_snr(backend::cpu, 1e-6, fresh_seed()) >= 60);
    GPUFFT_CHECK(resample_snr(backend::cpu, 1e-9, fresh_seed()) >= 80);
    if (cuda_available(0))
        GPUFFT_CHECK(resample_snr(backend::cuda, 1e-6, fresh_seed()) >= 60);
}

GPUFFT_TEST(too_few_samples_for_the_band_is_an_error)
{
    nufft::band_limited_fit fit(900, 1e-6, backend::cpu, 0);
    std::vector<double> t(100);
    std::vector<cd> x(100, cd(1, 0));
    for (int j = 0; j < 100; ++j)
        t[j] = j / 1000.0;
    GPUFFT_CHECK_THROWS(
        fit.fit(t.data(), x.data(), 100), std::invalid_argument, "bandwidth");
    t.assign(100, 0.5);
    GPUFFT_CHECK_THROWS(fit.fit(t.data(), x.data(), 100), std::invalid_argument, "times");
}

GPUFFT_TEST_MAIN()
