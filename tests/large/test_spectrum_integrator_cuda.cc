/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// spectrum_integrator's fused GPU path (upload, window, cuFFT, band power, device
// accumulator) against the CPU backend and against a double-precision reference,
// every channel checked: mean and max-hold, sub-bands and decimation (short channels,
// and a few channels of millions of bins summed in pieces), NaN and infinite frames,
// pinned and pageable frames, the host fallback when the budget is too small.

#include "gpu_skip.h"
#include "large/spectrum_integrator_checks.h"
#include "stream/host_frame.h"
#include <gnuradio/gpufft/device.h>
#include <gnuradio/gpufft/spectrum_integrator.h>
#include <cstdio>

using namespace gr::gpufft;
using namespace gpufft_test;

namespace {

spectrum_integrator
make(const band_spec& b, integration_mode mode, backend be, std::size_t budget = 0)
{
    spectrum_integrator_options o;
    o.backend = be;
    o.window = b.window;
    o.mode = mode;
    o.memory_budget = budget;
    return spectrum_integrator(b.n, b.start, b.stop, b.bins, o);
}

//! GPU (through `scratch`, pinned or not) against the CPU backend and the reference.
void compare(const band_spec& b,
             integration_mode mode,
             const std::vector<std::complex<float>>& x,
             int frames,
             bool pinned)
{
    auto gpu = make(b, mode, backend::cuda);
    std::printf("%s", gpu.describe().c_str());
    GPUFFT_CHECK(gpu.on_device());
    GPUFFT_CHECK(gpu.backend() == backend::cuda);
    gr::gpufft::stream::host_frame frame(b.n, pinned, gpu.device_id());
    GPUFFT_CHECK_EQ(frame.pinned(), pinned);
    const auto got = integrate(gpu, x, frames, frame.data());

    auto cpu = make(b, mode, backend::cpu);
    std::vector<std::complex<float>> scratch(std::size_t(b.n));
    const auto host = integrate(cpu, x, frames, scratch.data());

    const auto ref = integrated_power(x, frames, b, mode);
    const double e_ref = check_channels(got, ref, 1e-4);
    std::vector<double> host_d(host.begin(), host.end());
    const double e_cpu = check_channels(got, host_d, 1e-4);
    std::printf("  max error / peak: %.2e vs double reference, %.2e vs CPU backend\n",
                e_ref,
                e_cpu);
}

} // namespace

GPUFFT_TEST(mean_subband_decimated_with_nan_and_inf_frames_pinned)
{
    require_gpu();
    const std::uint64_t seed = fresh_seed();
    std::printf("seed %llu\n", (unsigned long long)seed);
    const std::int64_t n = std::int64_t(1) << 20;
    // A band straddling DC, 256 bins per channel; a tone between bins.
    const band_spec b{ n, n / 8, n - n / 8, 3072, "hann" };
    const int frames = 6;
    auto x = tone_frames(n, frames, 123456.3, 4.0, seed);
    x[std::size_t(2 * n + 12345)] = std::complex<float>(0.25f, std::nanf(""));
    x[std::size_t(4 * n)] = std::complex<float>(-std::numeric_limits<float>::infinity());
    compare(b, integration_mode::mean, x, frames, true);
}

GPUFFT_TEST(max_hold_whole_band_rectangular_pageable_with_inf_frame)
{
    require_gpu();
    const std::uint64_t seed = fresh_seed();
    std::printf("seed %llu\n", (unsigned long long)seed);
    const std::int64_t n = std::int64_t(1) << 16;
    const band_spec b{ n, 0, n, n, "none" };
    const int frames = 5;
    auto x = tone_frames(n, frames, -1000.0, 2.0, seed);
    x[std::size_t(3 * n + n / 2)] =
        std::complex<float>(std::numeric_limits<float>::infinity(), 0.0f);
    compare(b, integration_mode::max_hold, x, frames, false);
}

GPUFFT_TEST(few_long_channels_summed_in_pieces)
{
    require_gpu();
    const std::uint64_t seed = fresh_seed();
    std::printf("seed %llu\n", (unsigned long long)seed);
    // 3,000,000 = 2^6 3 5^6 points, 4 channels of 749,997 bins: pieces of uneven length.
    {
        const band_spec b{ 3000000, 7, 2999995, 4, "blackman" };
        const auto x = tone_frames(b.n, 3, 400000.0, 1.0, seed);
        compare(b, integration_mode::mean, x, 3, true);
    }
    // One channel of the whole band of 2^22 bins.
    {
        const std::int64_t n = std::int64_t(1) << 22;
        const band_spec b{ n, 0, n, 1, "flattop" };
        const auto x = tone_frames(n, 2, 5.0, 1.0, seed + 1);
        compare(b, integration_mode::max_hold, x, 2, true);
    }
}

GPUFFT_TEST(small_budget_falls_back_to_the_host_path)
{
    require_gpu();
    const std::uint64_t seed = fresh_seed();
    const std::int64_t n = std::int64_t(1) << 20;
    const band_spec b{ n, 0, n, 1024, "hamming" };
    const auto x = tone_frames(n, 2, 777.0, 1.0, seed);
    // A budget of one frame leaves no room for cuFFT's work area: out of card.
    auto s = make(b, integration_mode::mean, backend::cuda, std::size_t(n) * 8);
    std::printf("%s", s.describe().c_str());
    GPUFFT_CHECK(!s.on_device());
    GPUFFT_CHECK(s.backend() == backend::cuda);
    std::vector<std::complex<float>> scratch(static_cast<std::size_t>(n));
    const auto got = integrate(s, x, 2, scratch.data());
    check_channels(got, integrated_power(x, 2, b, integration_mode::mean), 1e-4);
}

GPUFFT_TEST(device_accumulator_resets_between_integrations)
{
    require_gpu();
    const std::uint64_t seed = fresh_seed();
    const std::int64_t n = std::int64_t(1) << 18;
    const band_spec b{ n, 1000, 1000 + 4096 * 16, 4096, "hann" };
    const auto x = tone_frames(n, 5, 3000.0, 1.0, seed);
    auto s = make(b, integration_mode::max_hold, backend::cuda);
    GPUFFT_CHECK(s.on_device());
    std::vector<float> out(4096, -1.0f);
    GPUFFT_CHECK_EQ(s.read(out.data()), 0);
    for (float v : out)
        GPUFFT_CHECK_EQ(v, -1.0f);
    gr::gpufft::stream::host_frame frame(n, true, s.device_id());
    check_channels(integrate(s, x, 2, frame.data()),
                   integrated_power(x, 2, b, integration_mode::max_hold),
                   1e-4);
    // A new integration in the other mode over frames 2..4 only.
    s.reset(integration_mode::mean);
    const std::vector<std::complex<float>> tail(x.begin() + 2 * n, x.end());
    check_channels(integrate(s, tail, 3, frame.data()),
                   integrated_power(tail, 3, b, integration_mode::mean),
                   1e-4);
}

GPUFFT_TEST_MAIN()
