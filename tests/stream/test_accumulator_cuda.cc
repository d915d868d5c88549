/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The accumulator's frame pipeline on the CUDA large-FFT engine, with page-locked
// frames, in card and out of card, cross-checked against the same pipeline on the CPU
// engine (itself checked against a direct DFT in test_spectrometer_pipeline).

#include "gpu_skip.h"
#include "reference.h"
#include "stream/spectrometer_pipeline.h"
#include "test_harness.h"
#include <gnuradio/gpufft/device.h>
#include <gnuradio/gpufft/large_fft_plan.h>
#include <gnuradio/gpufft/spectrum_integrator.h>
#include <cmath>
#include <memory>
#include <random>

using namespace gr::gpufft;
using namespace gr::gpufft::stream;
using gpufft_test::require_gpu;

namespace {

frame_transform engine(backend b, std::int64_t n, std::size_t budget)
{
    large_fft_options o;
    o.backend = b;
    o.memory_budget = budget;
    auto plan = std::make_shared<large_fft_plan>(
        std::vector<std::int64_t>{ n }, direction::forward, o);
    std::printf("  %s\n",
                plan->describe().substr(0, plan->describe().find('\n')).c_str());
    return [plan](std::complex<float>* x) { plan->execute(x, x); };
}

std::vector<integrated_spectrum> run(spectrometer_pipeline& p,
                                     const std::vector<std::complex<float>>& x)
{
    std::vector<integrated_spectrum> out;
    std::int64_t pos = 0;
    const std::int64_t total = std::int64_t(x.size());
    integrated_spectrum s;
    while (pos < total || p.pending()) {
        const std::int64_t got =
            p.push(x.data() + pos, std::min<std::int64_t>(8192, total - pos));
        pos += got;
        if (got == 0)
            p.wait(std::chrono::milliseconds(1));
        while (p.pop(s))
            out.push_back(std::move(s));
    }
    return out;
}

} // namespace

GPUFFT_TEST(cuda_pipeline_matches_cpu_pipeline_in_and_out_of_card)
{
    require_gpu();
    const std::uint64_t seed = gpufft_test::fresh_seed();
    std::printf("seed %llu\n", (unsigned long long)seed);
    pipeline_config c;
    c.fft_size = std::int64_t(1) << 18;
    c.overlap = c.fft_size / 4;
    c.window = window_type::hann;
    c.n_integrations = 3;
    c.band_start = c.fft_size / 8;
    c.band_stop = c.fft_size - c.fft_size / 8;
    c.output_bins = 3072; // 64 bins per channel
    const std::int64_t hop = c.fft_size - c.overlap;
    auto x =
        gpufft_test::random_complex<float>(std::size_t(2 * 3 * hop + c.overlap), seed);

    pipeline_config cpu_config = c;
    spectrometer_pipeline cpu(cpu_config, engine(backend::cpu, c.fft_size, 0));
    const auto ref = run(cpu, x);
    GPUFFT_CHECK_EQ(ref.size(), std::size_t(2));

    // 0: in card; 1/8 of a frame: the engine's multi-round out-of-card schedule
    for (std::size_t budget : { std::size_t(0), std::size_t(c.fft_size) }) {
        pipeline_config g = c;
        g.pinned = true;
        spectrometer_pipeline gpu(g, engine(backend::cuda, c.fft_size, budget));
        GPUFFT_CHECK(gpu.pinned());
        const auto out = run(gpu, x);
        GPUFFT_CHECK_EQ(out.size(), ref.size());
        for (std::size_t i = 0; i < out.size(); ++i) {
            GPUFFT_CHECK_EQ(out[i].first_sample, ref[i].first_sample);
            GPUFFT_CHECK_EQ(out[i].frames, 3);
            double err = 0, peak = 0;
            for (std::size_t k = 0; k < ref[i].power.size(); ++k) {
                GPUFFT_CHECK(std::isfinite(out[i].power[k]));
                err = std::max(err, std::abs(double(out[i].power[k]) - ref[i].power[k]));
                peak = std::max(peak, double(ref[i].power[k]));
            }
            GPUFFT_CHECK_LE(err / peak, 1e-4);
        }
    }
}

GPUFFT_TEST(fused_gpu_integrator_in_the_pipeline_matches_cpu_pipeline)
{
    require_gpu();
    const std::uint64_t seed = gpufft_test::fresh_seed();
    std::printf("seed %llu\n", (unsigned long long)seed);
    pipeline_config c;
    c.fft_size = std::int64_t(1) << 18;
    c.overlap = c.fft_size / 4;
    c.window = window_type::blackman_harris;
    c.n_integrations = 3;
    c.mode = accumulate_mode::max_hold;
    c.band_start = c.fft_size / 8;
    c.band_stop = c.fft_size - c.fft_size / 8;
    c.output_bins = 3072;
    const std::int64_t hop = c.fft_size - c.overlap;
    auto x =
        gpufft_test::random_complex<float>(std::size_t(2 * 3 * hop + c.overlap), seed);
    x[std::size_t(hop + 77)] = std::complex<float>(std::nanf(""), 1.0f); // frame 1 only

    spectrometer_pipeline cpu(c, engine(backend::cpu, c.fft_size, 0));
    const auto ref = run(cpu, x);

    pipeline_config g = c;
    g.pinned = true;
    spectrum_integrator_options o;
    o.backend = backend::cuda;
    o.window = to_string(c.window);
    o.mode = c.mode;
    auto integrator = std::make_shared<spectrum_integrator>(
        c.fft_size, c.band_start, c.band_stop, c.output_bins, o);
    GPUFFT_CHECK(integrator->on_device());
    spectrometer_pipeline gpu(g, integrator);
    const auto out = run(gpu, x);
    GPUFFT_CHECK_EQ(ref.size(), std::size_t(2));
    GPUFFT_CHECK_EQ(out.size(), ref.size());
    for (std::size_t i = 0; i < out.size(); ++i) {
        GPUFFT_CHECK_EQ(out[i].first_sample, ref[i].first_sample);
        GPUFFT_CHECK_EQ(out[i].frames, ref[i].frames);
        GPUFFT_CHECK_EQ(out[i].skipped, ref[i].skipped);
        GPUFFT_CHECK_EQ(out[i].power.size(), ref[i].power.size());
        double peak = 0;
        for (float v : ref[i].power)
            peak = std::max(peak, double(v));
        for (std::size_t k = 0; k < ref[i].power.size(); ++k) {
            const double err = std::abs(double(out[i].power[k]) - ref[i].power[k]);
            if (!(err <= 1e-4 * ref[i].power[k] + 1e-6 * peak))
                GPUFFT_FAIL("integration " << i << " channel " << k << ": "
                                           << out[i].power[k] << " vs "
                                           << ref[i].power[k]);
        }
    }
    // the NaN sits in frames 0 and 1 (overlap): both of the first integration skip it
    GPUFFT_CHECK_EQ(out[0].skipped, 2);
}

GPUFFT_TEST(cuda_engine_nan_frame_is_skipped)
{
    require_gpu();
    pipeline_config c;
    c.fft_size = 4096;
    c.n_integrations = 2;
    c.output_bins = 512;
    c.pinned = true;
    auto x = gpufft_test::random_complex<float>(4 * 4096, gpufft_test::fresh_seed());
    x[4096 + 5] = std::complex<float>(std::nanf(""), 0.0f);
    spectrometer_pipeline p(c, engine(backend::cuda, c.fft_size, 0));
    const auto out = run(p, x);
    GPUFFT_CHECK_EQ(out.size(), std::size_t(2));
    GPUFFT_CHECK_EQ(out[0].skipped, 1);
    GPUFFT_CHECK_EQ(out[0].frames, 1);
    GPUFFT_CHECK_EQ(out[1].skipped, 0);
    for (float v : out[0].power)
        GPUFFT_CHECK(std::isfinite(v));
}

GPUFFT_TEST_MAIN()
