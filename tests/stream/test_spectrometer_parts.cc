/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The accumulator block's parts without GNU Radio: parameter checks, spectrum axes
// against the formula of docs/large_fft_accumulator.md, dB output, the filterbank file
// (header from the first spectrum, one retune warning), progress pacing, and runs of
// the pipeline (counts over runs, live settings, the unfinished integration).

#include "accumulator/filterbank_writer.h"
#include "reference.h"
#include "stream/filterbank_recorder.h"
#include "stream/progress_timer.h"
#include "stream/spectrometer_runner.h"
#include "stream/spectrometer_setup.h"
#include "stream/spectrum_axes.h"
#include "test_harness.h"
#include <unistd.h>
#include <cmath>
#include <cstdio>
#include <random>
#include <thread>

using namespace gr::gpufft;
using namespace gr::gpufft::stream;
using namespace gpufft_test;

namespace {

spectrometer_setup setup_with(std::int64_t n,
                              const std::string& path = "",
                              const std::string& format = "fil",
                              double rate = 1e6,
                              const std::string& window = "hann")
{
    spectrometer_settings s;
    s.fft_size = n;
    s.n_integrations = 2;
    s.output_bins = 16;
    s.window = window;
    s.samp_rate = rate;
    s.center_freq = 1e9;
    s.filterbank_path = path;
    s.source_name = "src";
    s.backend = "cpu";
    s.file_format = format;
    return checked_spectrometer_setup(s);
}

struct log_lines {
    std::vector<std::pair<log_level, std::string>> lines;
    log_handler handler()
    {
        return [this](log_level l, const std::string& m) { lines.emplace_back(l, m); };
    }
    int count(log_level level, const std::string& part) const
    {
        int c = 0;
        for (const auto& l : lines)
            c += l.first == level && l.second.find(part) != std::string::npos;
        return c;
    }
};

std::string temp_path(const char* name)
{
    return "/tmp/gpufft_test_" + std::to_string(::getpid()) + "_" + name;
}

} // namespace

GPUFFT_TEST(setup_names_every_bad_parameter)
{
    GPUFFT_CHECK_THROWS(
        setup_with(1024, "", "csv"), std::invalid_argument, "file_format");
    GPUFFT_CHECK_THROWS(setup_with(1024, "/nonexistent_dir/x.fil"),
                        std::invalid_argument,
                        "filterbank_path: cannot write '/nonexistent_dir/x.fil'");
    GPUFFT_CHECK_THROWS(
        setup_with(1024, "", "fil", 0.0), std::invalid_argument, "samp_rate");
    GPUFFT_CHECK_THROWS(
        setup_with(1024, "", "fil", NAN), std::invalid_argument, "samp_rate");
    GPUFFT_CHECK_THROWS(
        setup_with(1024, "", "fil", 1e6, "kaiser"), std::invalid_argument, "window");
    GPUFFT_CHECK_THROWS(setup_with(1), std::invalid_argument, "fft_size");
    spectrometer_settings infinite;
    infinite.center_freq = INFINITY;
    GPUFFT_CHECK_THROWS(
        checked_spectrometer_setup(infinite), std::invalid_argument, "center_freq");
    spectrometer_settings typed;
    typed.input_type = "cs16";
    GPUFFT_CHECK_THROWS(
        checked_spectrometer_setup(typed), std::invalid_argument, "input_type");
    const auto s = setup_with(1024, temp_path("ok.h5"), "fil");
    GPUFFT_CHECK_EQ(s.config.fft_size, std::int64_t(1024));
    GPUFFT_CHECK(!s.filterbank_h5);
    GPUFFT_CHECK_EQ(s.samp_rate, 1e6);
    auto engine = s;
    log_lines log;
    auto integrator = make_spectrometer_integrator(engine, log.handler());
    GPUFFT_CHECK(!engine.config.pinned); // the CPU engine's frames need no page-locking
    GPUFFT_CHECK_EQ(describe_spectrometer(engine.config, *integrator),
                    std::string("fft_size 1024 (2^10) on the cpu backend, window and "
                                "band reduction on the host"));
    GPUFFT_CHECK(frame_memory_warning(1024).empty());
}

GPUFFT_TEST(axes_follow_the_channel_formula)
{
    const std::uint64_t seed = fresh_seed();
    std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
    std::mt19937_64 rng(seed);
    for (int trial = 0; trial < 20; ++trial) {
        const std::int64_t n = 64 << (rng() % 6);
        const std::int64_t start = std::int64_t(rng() % (n / 4));
        const std::int64_t bins = 4 << (rng() % 3);
        const std::int64_t d =
            1 + std::int64_t(rng() % std::uint64_t((n - start) / bins));
        const std::int64_t stop = start + bins * d, overlap = std::int64_t(rng() % n);
        const int nint = 1 + int(rng() % 9);
        const double freq = double(rng() % 1000000) * 1e3,
                     rate = 1e5 + double(rng() % 1000);
        power::band_reducer r(n, start, stop, bins);
        const spectrum_axes a = axes_of(r, n, overlap, nint, freq, rate);
        // f_c = rx_freq + (band_start + c*D + (D - 1)/2 - fft_size//2) * rate / fft_size
        const double f0 = freq + (double(start) + (double(d) - 1) / 2 - double(n / 2)) *
                                     rate / double(n);
        GPUFFT_CHECK_LE(std::abs(a.fch1 - f0), 1e-6 * std::abs(f0) + 1e-6);
        GPUFFT_CHECK_LE(std::abs(a.foff - double(d) * rate / double(n)), 1e-9 * rate);
        GPUFFT_CHECK_LE(std::abs(a.tsamp - nint * double(n - overlap) / rate), 1e-12);
    }
    std::vector<float> p = { 1.0f, 100.0f, 0.0f }, out(3);
    output_power(p, true, out.data());
    GPUFFT_CHECK_EQ(out[0], 0.0f);
    GPUFFT_CHECK_LE(std::abs(out[1] - 20.0f), 1e-5f);
    GPUFFT_CHECK_LE(std::abs(out[2] + 300.0f), 1e-3f);
    output_power(p, false, out.data());
    GPUFFT_CHECK(out == p);
}

GPUFFT_TEST(filterbank_header_comes_from_the_first_spectrum)
{
    const std::uint64_t seed = fresh_seed();
    std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
    const std::string path = temp_path("rec.fil");
    log_lines log;
    filterbank_recorder rec(path, "W51", false, log.handler());
    GPUFFT_CHECK(rec.enabled());
    rec.start();
    integrated_spectrum s;
    s.n_integrations = 4;
    s.power = std::vector<float>(8);
    for (auto& v : s.power)
        v = float(random_complex<float>(1, seed)[0].real() + 2.0f);
    spectrum_axes a{ 1420.4e6, 1e3, 0.25 };
    rec.write(s, 1420.0e6, a, 60000.5);
    rec.write(s, 1420.0e6, a, 60000.6);
    GPUFFT_CHECK_EQ(log.count(log_level::warning, "changed"), 0);
    rec.write(s, 1421.0e6, a, 60000.7); // a retune: one warning, however many follow
    rec.write(s, 1422.0e6, a, 60000.8);
    GPUFFT_CHECK_EQ(log.count(log_level::warning, "changed"), 1);
    rec.finish();
    GPUFFT_CHECK_EQ(log.count(log_level::info, "wrote 4 spectra to " + path), 1);
    std::int64_t header_bytes = 0;
    const auto h = accumulator::read_filterbank_header(path, &header_bytes);
    GPUFFT_CHECK_EQ(h.source_name, std::string("W51"));
    GPUFFT_CHECK_LE(std::abs(h.fch1 - 1420.4), 1e-9);
    GPUFFT_CHECK_LE(std::abs(h.foff - 1e-3), 1e-12);
    GPUFFT_CHECK_EQ(h.nchans, 8);
    GPUFFT_CHECK_EQ(h.tstart, 60000.5);
    GPUFFT_CHECK_EQ(h.tsamp, 0.25);
    std::remove(path.c_str());
    filterbank_recorder bad("/nonexistent_dir/x.fil", "", false, {});
    GPUFFT_CHECK_THROWS(bad.start(), std::runtime_error, "filterbank_path");
    filterbank_recorder none("", "", false, {});
    none.start();
    none.write(s, 0.0, a, 0.0); // records nothing
    GPUFFT_CHECK(!none.enabled());
}

GPUFFT_TEST(progress_is_paced)
{
    using namespace std::chrono;
    progress_timer t;
    const auto t0 = progress_timer::clock::now();
    t.reset(t0);
    GPUFFT_CHECK(t.message_due(t0)); // the first at once
    GPUFFT_CHECK(!t.message_due(t0 + milliseconds(999)));
    GPUFFT_CHECK(t.message_due(t0 + milliseconds(999), true));
    GPUFFT_CHECK(t.message_due(t0 + milliseconds(2000)));
    GPUFFT_CHECK(!t.log_due(t0 + seconds(9), 0));
    GPUFFT_CHECK(t.log_due(t0 + seconds(10), 0));
    GPUFFT_CHECK(!t.log_due(t0 + seconds(15), 0));
    GPUFFT_CHECK(!t.log_due(t0 + seconds(21), 1)); // an integration came out
    GPUFFT_CHECK(!t.log_due(t0 + seconds(30), 1));
    GPUFFT_CHECK(t.log_due(t0 + seconds(31), 1));
}

GPUFFT_TEST(runner_counts_over_runs_and_reports_the_partial_integration)
{
    const std::uint64_t seed = fresh_seed();
    std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
    auto s = setup_with(256);
    log_lines log;
    auto integrator = make_spectrometer_integrator(s, log.handler());
    spectrometer_runner r(s.config, integrator, log.handler());
    GPUFFT_CHECK(r.pipeline() == nullptr);
    GPUFFT_CHECK_THROWS(r.set_n_integrations(0), std::invalid_argument, "n_integrations");
    GPUFFT_CHECK_THROWS(r.set_mode("median"), std::invalid_argument, "mean");
    r.set_mode("max");
    GPUFFT_CHECK(r.mode() == accumulate_mode::max_hold);
    r.set_mode("mean");
    for (int run = 0; run < 2; ++run) {
        r.start();
        GPUFFT_CHECK(r.pipeline() != nullptr);
        // 2 integrations of 2 frames, then 1 frame and a half.
        const auto x = random_complex<float>(256 * 5 + 128, seed + run);
        std::int64_t taken = 0;
        while (taken < std::int64_t(x.size()))
            taken += r.take(x.data() + taken, std::int64_t(x.size()) - taken);
        // Let the worker transform every full frame before the run stops.
        for (int i = 0; i < 10000 && (r.pipeline()->integrations_done() < 2 ||
                                      r.pipeline()->frames_in_integration() < 1);
             ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        stream::spectrometer_progress p;
        GPUFFT_CHECK(r.progress_due(p));
        GPUFFT_CHECK_EQ(p.n_integrations, 2);
        auto pipeline = r.stop();
        GPUFFT_CHECK(r.pipeline() == nullptr);
        integrated_spectrum partial;
        int popped = 0;
        pipeline->finish();
        while (pipeline->pop(partial))
            ++popped;
        GPUFFT_CHECK_EQ(popped, 2);
        GPUFFT_CHECK(r.wind_down(*pipeline, partial));
        GPUFFT_CHECK_EQ(partial.frames, std::int64_t(1));
        GPUFFT_CHECK_EQ(log.count(log_level::info, "stopped 1 of 2 frames"), run + 1);
        GPUFFT_CHECK_EQ(log.count(log_level::info, "a frame 50.0% filled"), run + 1);
        GPUFFT_CHECK_EQ(r.integrations_done(), std::uint64_t(2 * (run + 1)));
    }
    GPUFFT_CHECK_EQ(r.frames_skipped(), std::uint64_t(0));
}

GPUFFT_TEST_MAIN()
