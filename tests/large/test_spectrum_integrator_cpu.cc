/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// spectrum_integrator on the CPU backend (the large FFT, in one pass and in the
// multi-round schedule of a tiny budget, plus the host window and reduction) against
// a double-precision window + FFTW + band sum, every channel checked.

#include "large/spectrum_integrator_checks.h"
#include <gnuradio/gpufft/spectrum_integrator.h>
#include <cstdio>

using namespace gr::gpufft;
using namespace gpufft_test;

namespace {

spectrum_integrator
make(const band_spec& b, integration_mode mode, std::size_t budget = 0, int threads = 2)
{
    spectrum_integrator_options o;
    o.backend = backend::cpu;
    o.window = b.window;
    o.mode = mode;
    o.memory_budget = budget;
    o.threads = threads;
    return spectrum_integrator(b.n, b.start, b.stop, b.bins, o);
}

} // namespace

GPUFFT_TEST(mean_subband_decimated_matches_double_reference)
{
    const std::uint64_t seed = fresh_seed();
    std::printf("seed %llu\n", (unsigned long long)seed);
    // 3 * 2^12 points; a band straddling DC, 10 bins per channel; a tone between bins.
    const band_spec b{ 12288, 1000, 11000, 1000, "hann" };
    const int frames = 4;
    const auto x = tone_frames(b.n, frames, 1234.4, 3.0, seed);
    const auto ref = integrated_power(x, frames, b, integration_mode::mean);
    std::vector<std::complex<float>> scratch(std::size_t(b.n));
    // In one pass, then the out-of-card schedule a budget of 1/8 of a frame forces.
    for (std::size_t budget : { std::size_t(0), std::size_t(b.n) }) {
        auto s = make(b, integration_mode::mean, budget);
        GPUFFT_CHECK(s.backend() == backend::cpu);
        GPUFFT_CHECK(!s.on_device());
        std::printf("%s", s.describe().c_str());
        const auto got = integrate(s, x, frames, scratch.data());
        std::printf("  worst error / peak %.2e\n", check_channels(got, ref, 2e-5));
    }
}

GPUFFT_TEST(max_hold_whole_band_skips_non_finite_frames)
{
    const std::uint64_t seed = fresh_seed();
    std::printf("seed %llu\n", (unsigned long long)seed);
    const band_spec b{ 4096, 0, 0, 4096, "blackman-harris" };
    band_spec whole = b;
    whole.stop = b.n;
    const int frames = 5;
    auto x = tone_frames(b.n, frames, 700.0, 2.0, seed);
    x[std::size_t(1 * b.n + 17)] = std::complex<float>(std::nanf(""), 0.5f);
    x[std::size_t(3 * b.n + b.n - 1)] =
        std::complex<float>(0.5f, std::numeric_limits<float>::infinity());
    const auto ref = integrated_power(x, frames, whole, integration_mode::max_hold);
    std::vector<std::complex<float>> scratch(std::size_t(b.n));
    auto s = make(b, integration_mode::max_hold);
    GPUFFT_CHECK_EQ(s.band_stop(), b.n);
    const auto got = integrate(s, x, frames, scratch.data()); // checks the skips
    GPUFFT_CHECK_EQ(s.frames(), 3);
    check_channels(got, ref, 2e-5);
}

GPUFFT_TEST(reset_starts_a_new_integration_and_switches_mode)
{
    const std::uint64_t seed = fresh_seed();
    const band_spec b{ 2048, 512, 1536, 64, "flattop" };
    const auto x = tone_frames(b.n, 4, 1000.0, 1.0, seed);
    std::vector<std::complex<float>> scratch(std::size_t(b.n));
    auto s = make(b, integration_mode::mean, 0, 1);
    std::vector<float> out(64, -1.0f);
    GPUFFT_CHECK_EQ(s.read(out.data()), 0); // nothing accumulated: nothing written
    for (float v : out)
        GPUFFT_CHECK_EQ(v, -1.0f);
    integrate(s, x, 2, scratch.data());
    s.reset(integration_mode::max_hold);
    GPUFFT_CHECK(s.mode() == integration_mode::max_hold);
    GPUFFT_CHECK_EQ(s.frames(), 0);
    // The second integration holds frames 2 and 3 only.
    const std::vector<std::complex<float>> tail(x.begin() + 2 * b.n, x.end());
    const auto got = integrate(s, tail, 2, scratch.data());
    check_channels(got, integrated_power(tail, 2, b, integration_mode::max_hold), 2e-5);
}

GPUFFT_TEST(bad_parameters_name_themselves)
{
    spectrum_integrator_options o;
    o.backend = backend::cpu;
    GPUFFT_CHECK_THROWS(
        spectrum_integrator(0, 0, 0, 0, o), std::invalid_argument, "fft_size");
    GPUFFT_CHECK_THROWS(
        spectrum_integrator(1024, 0, 2048, 0, o), std::invalid_argument, "band_stop");
    GPUFFT_CHECK_THROWS(
        spectrum_integrator(1024, 1024, 0, 0, o), std::invalid_argument, "band_start");
    GPUFFT_CHECK_THROWS(
        spectrum_integrator(1024, 0, 0, 300, o), std::invalid_argument, "output_bins");
    o.window = "kaiser";
    GPUFFT_CHECK_THROWS(
        spectrum_integrator(1024, 0, 0, 0, o), std::invalid_argument, "window");
    o.window = "hann";
    o.threads = -1;
    GPUFFT_CHECK_THROWS(
        spectrum_integrator(1024, 0, 0, 0, o), std::invalid_argument, "threads");
    o.threads = 0;
    spectrum_integrator s(1024, 0, 0, 0, o);
    GPUFFT_CHECK_EQ(s.output_bins(), 1024);
    GPUFFT_CHECK_THROWS(s.accumulate(nullptr), std::invalid_argument, "frame");
}

GPUFFT_TEST_MAIN()
