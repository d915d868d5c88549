/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The accumulator's frame pipeline (double buffer, worker, window, overlap, mean and
// max-hold, non-finite frames, back-pressure) against a direct DFT in double.

#include "reference.h"
#include "stream/spectrometer_pipeline.h"
#include "test_harness.h"
#include <gnuradio/gpufft/dense_fft_plan.h>
#include <chrono>
#include <cmath>
#include <memory>
#include <random>
#include <thread>

using namespace gr::gpufft;
using namespace gr::gpufft::stream;
using gpufft_test::cd;

namespace {

frame_transform cpu_fft(std::int64_t n)
{
    dense_fft_options o;
    o.backend = backend::cpu;
    o.threads = 1;
    auto plan = std::make_shared<dense_fft_plan>(n, 1, direction::forward, o);
    return [plan](std::complex<float>* x) { plan->execute(x, x); };
}

//! Tone of amplitude `amp` at `bin` (+ fractional) cycles per frame, plus complex noise.
std::vector<std::complex<float>> tone_and_noise(
    std::int64_t count, std::int64_t n, double bin, double amp, std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> g(0.0, 0.1);
    std::vector<std::complex<float>> x(static_cast<std::size_t>(count));
    const double pi2 = 2 * std::acos(-1.0);
    for (std::int64_t t = 0; t < count; ++t)
        x[t] = std::complex<float>(std::polar(amp, pi2 * bin * double(t) / double(n)) +
                                   cd(g(rng), g(rng)));
    return x;
}

//! What the pipeline should output for the integration starting at frame `first`.
std::vector<double> reference(const std::vector<std::complex<float>>& x,
                              const pipeline_config& c,
                              std::int64_t first_frame)
{
    const std::int64_t n = c.fft_size, hop = n - c.overlap;
    spectral_window w(c.window, n);
    band_reducer r(n, c.band_start, c.band_stop, c.output_bins);
    std::vector<double> acc(std::size_t(c.output_bins), 0.0);
    double wsum = 0;
    for (std::int64_t i = 0; i < n; ++i)
        wsum += w.value(i);
    for (int f = 0; f < c.n_integrations; ++f) {
        std::vector<cd> frame(static_cast<std::size_t>(n));
        const std::int64_t s0 = (first_frame + f) * hop;
        for (std::int64_t i = 0; i < n; ++i)
            frame[i] = cd(x[std::size_t(s0 + i)]) * w.value(i);
        auto X = gpufft_test::direct_dft(frame.data(), n, -1);
        for (std::int64_t ch = 0; ch < c.output_bins; ++ch) {
            double p = 0;
            for (std::int64_t k = 0; k < r.decimation(); ++k) {
                const std::int64_t j = r.band_start() + ch * r.decimation() + k;
                p += std::norm(X[std::size_t(((j - n / 2) % n + n) % n)]);
            }
            p /= double(r.decimation()) * wsum * wsum;
            if (c.mode == accumulate_mode::mean)
                acc[ch] += p / c.n_integrations;
            else
                acc[ch] = std::max(acc[ch], p);
        }
    }
    return acc;
}

//! Pushes x in uneven chunks, collecting every spectrum; waits for the worker at the end.
std::vector<integrated_spectrum> run(spectrometer_pipeline& p,
                                     const std::vector<std::complex<float>>& x,
                                     std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<std::int64_t> chunk(1, 700);
    std::vector<integrated_spectrum> out;
    std::int64_t pos = 0;
    const std::int64_t total = std::int64_t(x.size());
    integrated_spectrum s;
    while (pos < total || p.pending()) {
        if (pos < total) {
            const std::int64_t want = std::min(chunk(rng), total - pos);
            const std::int64_t got = p.push(x.data() + pos, want);
            pos += got;
            if (got < want)
                p.wait(std::chrono::milliseconds(1));
        } else {
            p.wait(std::chrono::milliseconds(1));
        }
        while (p.pop(s))
            out.push_back(std::move(s));
    }
    return out;
}

double max_rel_error(const std::vector<float>& got, const std::vector<double>& ref)
{
    double peak = 0, err = 0;
    for (double v : ref)
        peak = std::max(peak, v);
    for (std::size_t i = 0; i < ref.size(); ++i)
        err = std::max(err, std::abs(double(got[i]) - ref[i]));
    return err / peak;
}

} // namespace

GPUFFT_TEST(mean_with_window_overlap_subband_matches_direct_dft)
{
    const std::uint64_t seed = gpufft_test::fresh_seed();
    std::printf("seed %llu\n", (unsigned long long)seed);
    pipeline_config c;
    c.fft_size = 256;
    c.overlap = 64;
    c.window = window_type::hann;
    c.n_integrations = 3;
    c.band_start = 16;
    c.band_stop = 240;
    c.output_bins = 56; // 4 bins per channel
    c.threads = 2;
    const std::int64_t hop = c.fft_size - c.overlap;
    const std::int64_t frames = 3 * c.n_integrations;
    auto x = tone_and_noise(frames * hop + c.overlap + 50, c.fft_size, 37.0, 1.5, seed);
    spectrometer_pipeline p(c, cpu_fft(c.fft_size));
    auto out = run(p, x, seed + 1);
    GPUFFT_CHECK_EQ(out.size(), std::size_t(3));
    for (std::size_t i = 0; i < out.size(); ++i) {
        GPUFFT_CHECK_EQ(out[i].index, std::int64_t(i));
        GPUFFT_CHECK_EQ(out[i].frames, 3);
        GPUFFT_CHECK_EQ(out[i].skipped, 0);
        GPUFFT_CHECK_EQ(out[i].first_sample, std::int64_t(i) * 3 * hop);
        GPUFFT_CHECK_EQ(out[i].power.size(), std::size_t(56));
        const auto ref = reference(x, c, std::int64_t(i) * 3);
        GPUFFT_CHECK_LE(max_rel_error(out[i].power, ref), 2e-5);
    }
}

GPUFFT_TEST(tone_power_lands_in_its_channel)
{
    // A unit-normalised spectrum: a tone of amplitude A on a bin centre reads A^2 in its
    // bin whatever the window (coherent gain divided out).
    const std::uint64_t seed = gpufft_test::fresh_seed();
    for (window_type w : { window_type::none, window_type::blackman_harris }) {
        pipeline_config c;
        c.fft_size = 4096;
        c.window = w;
        c.n_integrations = 4;
        c.output_bins = 4096;
        auto x = tone_and_noise(4 * 4096, 4096, 300.0, 2.0, seed);
        spectrometer_pipeline p(c, cpu_fft(c.fft_size));
        auto out = run(p, x, seed);
        GPUFFT_CHECK_EQ(out.size(), std::size_t(1));
        const auto& s = out[0].power;
        const auto peak = std::max_element(s.begin(), s.end()) - s.begin();
        GPUFFT_CHECK_EQ(peak, 2048 + 300);
        GPUFFT_CHECK_LE(std::abs(s[std::size_t(peak)] - 4.0), 0.05);
    }
}

GPUFFT_TEST(max_hold_matches_direct_dft)
{
    const std::uint64_t seed = gpufft_test::fresh_seed();
    pipeline_config c;
    c.fft_size = 128;
    c.n_integrations = 5;
    c.mode = accumulate_mode::max_hold;
    c.output_bins = 32;
    auto x = tone_and_noise(5 * 128, 128, -20.5, 1.0, seed);
    spectrometer_pipeline p(c, cpu_fft(c.fft_size));
    auto out = run(p, x, seed);
    GPUFFT_CHECK_EQ(out.size(), std::size_t(1));
    GPUFFT_CHECK(out[0].mode == accumulate_mode::max_hold);
    GPUFFT_CHECK_LE(max_rel_error(out[0].power, reference(x, c, 0)), 2e-5);
}

GPUFFT_TEST(non_finite_frame_is_skipped_and_counted)
{
    const std::uint64_t seed = gpufft_test::fresh_seed();
    pipeline_config c;
    c.fft_size = 64;
    c.n_integrations = 4;
    c.output_bins = 64;
    auto x = tone_and_noise(8 * 64, 64, 5.0, 1.0, seed);
    x[64 + 17] = std::complex<float>(std::nanf(""), 0.0f); // frame 1
    x[5 * 64 + 3] = std::complex<float>(INFINITY, 0.0f);   // frame 5
    spectrometer_pipeline p(c, cpu_fft(c.fft_size));
    auto out = run(p, x, seed);
    GPUFFT_CHECK_EQ(out.size(), std::size_t(2));
    GPUFFT_CHECK_EQ(out[0].frames, 3);
    GPUFFT_CHECK_EQ(out[0].skipped, 1);
    GPUFFT_CHECK_EQ(out[1].skipped, 1);
    GPUFFT_CHECK_EQ(p.frames_skipped(), 2);
    // the mean of the three good frames
    pipeline_config one = c;
    one.n_integrations = 1;
    std::vector<double> ref(64, 0.0);
    for (int f : { 0, 2, 3 }) {
        auto r = reference(x, one, f);
        for (int k = 0; k < 64; ++k)
            ref[k] += r[k] / 3;
    }
    GPUFFT_CHECK_LE(max_rel_error(out[0].power, ref), 2e-5);
}

GPUFFT_TEST(slow_transform_back_pressures_without_loss)
{
    // The worker takes 20 ms a frame: push() must refuse samples once both frames are
    // full, and every frame must still come out.
    pipeline_config c;
    c.fft_size = 1000;
    c.n_integrations = 1;
    c.output_bins = 10;
    auto fft = cpu_fft(c.fft_size);
    auto slow = [fft](std::complex<float>* x) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        fft(x);
    };
    auto x = tone_and_noise(6 * 1000, 1000, 1.0, 1.0, gpufft_test::fresh_seed());
    spectrometer_pipeline p(c, slow);
    const std::int64_t first = p.push(x.data(), std::int64_t(x.size()));
    GPUFFT_CHECK(first >= 2000 && first < 6000); // two frames' worth, maybe a third
    std::int64_t pos = first;
    std::vector<integrated_spectrum> out;
    integrated_spectrum s;
    while (pos < std::int64_t(x.size()) || p.pending()) {
        pos += p.push(x.data() + pos, std::int64_t(x.size()) - pos);
        p.wait(std::chrono::milliseconds(5));
        while (p.pop(s))
            out.push_back(s);
    }
    GPUFFT_CHECK_EQ(out.size(), std::size_t(6));
    for (std::size_t i = 0; i < out.size(); ++i)
        GPUFFT_CHECK_EQ(out[i].first_sample, std::int64_t(i) * 1000);
}

GPUFFT_TEST(worker_failure_reaches_the_caller)
{
    pipeline_config c;
    c.fft_size = 16;
    c.output_bins = 16;
    spectrometer_pipeline p(
        c, [](std::complex<float>*) { throw std::runtime_error("device lost"); });
    std::vector<std::complex<float>> x(64, { 1.0f, 1.0f });
    bool threw = false;
    try {
        for (int i = 0; i < 1000 && !threw; ++i) {
            p.push(x.data(), 16);
            p.wait(std::chrono::milliseconds(1));
            integrated_spectrum s;
            p.pop(s);
        }
    } catch (const std::runtime_error& e) {
        threw = std::string(e.what()) == "device lost";
    }
    GPUFFT_CHECK(threw);
}

GPUFFT_TEST(settings_apply_at_the_next_integration)
{
    pipeline_config c;
    c.fft_size = 32;
    c.n_integrations = 2;
    c.output_bins = 32;
    spectrometer_pipeline p(c, cpu_fft(c.fft_size));
    auto x = tone_and_noise(32 * 8, 32, 3.0, 1.0, gpufft_test::fresh_seed());
    std::int64_t pos = 0;
    while (pos < 32)
        pos += p.push(x.data() + pos, 32 - pos); // frame 0 of integration 0
    p.set_n_integrations(3);
    p.set_mode(accumulate_mode::max_hold);
    auto out = run(p, std::vector<std::complex<float>>(x.begin() + 32, x.end()), 7);
    GPUFFT_CHECK_EQ(out.size(), std::size_t(3)); // 2 + 3 + 3 frames
    GPUFFT_CHECK_EQ(out[0].n_integrations, 2);
    GPUFFT_CHECK(out[0].mode == accumulate_mode::mean);
    GPUFFT_CHECK_EQ(out[1].n_integrations, 3);
    GPUFFT_CHECK(out[1].mode == accumulate_mode::max_hold);
    GPUFFT_CHECK_EQ(out[2].first_sample, 5 * 32);
    GPUFFT_CHECK_THROWS(p.set_n_integrations(0), std::invalid_argument, "n_integrations");
}

GPUFFT_TEST(bad_configurations_name_the_parameter)
{
    pipeline_config c;
    c.fft_size = 1024;
    c.output_bins = 1024;
    auto bad = [&](auto edit, const char* needle) {
        pipeline_config b = c;
        edit(b);
        GPUFFT_CHECK_THROWS(validate(b), std::invalid_argument, needle);
    };
    bad([](pipeline_config& b) { b.fft_size = 1; }, "fft_size");
    // 2^40 samples: 16 TiB of frames, more than any host here
    bad([](pipeline_config& b) { b.fft_size = std::int64_t(1) << 40; }, "host memory");
    bad([](pipeline_config& b) { b.overlap = 1024; }, "overlap");
    bad([](pipeline_config& b) { b.overlap = -1; }, "overlap");
    bad([](pipeline_config& b) { b.n_integrations = 0; }, "n_integrations");
    bad([](pipeline_config& b) { b.output_bins = 1000; }, "output_bins");
    bad([](pipeline_config& b) { b.band_stop = 2000; }, "band_stop");
    bad(
        [](pipeline_config& b) {
            b.fft_size = std::int64_t(1) << 20;
            b.output_bins = std::int64_t(1) << 19;
        },
        "output_bins");
    validate(c);
    GPUFFT_CHECK_THROWS(parse_integration_mode("median"), std::invalid_argument, "mode");
}

GPUFFT_TEST_MAIN()
