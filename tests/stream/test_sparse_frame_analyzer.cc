/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The sparse_fft block's frame analysis without GNU Radio: parameter checks, exact
// mode against a direct DFT, robust mode on a tone in noise, skipped frames, k changed
// between frames, the rate-limited not-sparse warning; the frame's signals (the
// sensing plan's on the dense path, a 1-bin signal per tone on the sparse path and per
// coefficient in exact mode), truncation and its rate-limited line, transmissions
// across frames, the new settings and setters, and the memory count.

#include "reference.h"
#include "stream/not_sparse_warning.h"
#include "stream/sparse_frame_analyzer.h"
#include "test_harness.h"
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <random>
#include <set>

using namespace gr::gpufft;
using namespace gr::gpufft::stream;
using namespace gpufft_test;
using cf = std::complex<float>;

namespace {

sparse_frame_settings cpu_settings(int n, int k, const std::string& mode)
{
    sparse_frame_settings s;
    s.fft_size = n;
    s.k = k;
    s.samp_rate = 2e6;
    s.display_bins = 64;
    s.backend = "cpu";
    s.mode = mode;
    return s;
}

struct log_lines {
    std::vector<std::pair<log_level, std::string>> lines;
    log_handler handler()
    {
        return [this](log_level l, const std::string& m) { lines.emplace_back(l, m); };
    }
    int count(log_level level) const
    {
        int c = 0;
        for (const auto& l : lines)
            c += l.first == level;
        return c;
    }
};

//! k tones of random amplitude on distinct random bins: exactly k-sparse.
std::vector<cf> sparse_frame(int n, int k, std::mt19937_64& rng)
{
    std::uniform_int_distribution<int> bin(0, n - 1);
    std::uniform_real_distribution<double> u(0.5, 1.0), ph(0.0, 2 * std::acos(-1.0));
    std::set<int> bins;
    while (int(bins.size()) < k)
        bins.insert(bin(rng));
    std::vector<cd> x(std::size_t(n), 0.0);
    const double pi2 = 2 * std::acos(-1.0);
    for (int b : bins) {
        const cd a = std::polar(u(rng), ph(rng));
        for (int t = 0; t < n; ++t)
            x[t] += a * std::polar(1.0, pi2 * double((std::int64_t(b) * t) % n) / n);
    }
    return std::vector<cf>(x.begin(), x.end());
}

} // namespace

GPUFFT_TEST(every_bad_setting_is_named)
{
    const auto good = cpu_settings(1024, 10, "robust");
    const double nan = std::numeric_limits<double>::quiet_NaN();
    auto with = [&](auto change) {
        auto s = good;
        change(s);
        return s;
    };
    using S = sparse_frame_settings;
    const std::vector<std::pair<S, std::string>> bad = {
        { with([](S& s) { s.fft_size = 8; }), "fft_size: must be >= 16" },
        { with([](S& s) { s.k = 0; }), "k: must be in [1, fft_size / 4] = [1, 256]" },
        { with([](S& s) { s.k = 257; }), "in mode \"robust\"" },
        { with([](S& s) { s.samp_rate = 0; }), "samp_rate: must be a finite value > 0" },
        { with([&](S& s) { s.samp_rate = nan; }), "samp_rate:" },
        { with([](S& s) { s.display_bins = 2048; }), "display_bins: must be in [1, " },
        { with([](S& s) { s.hop = -1; }), "hop: must be >= 0" },
        { with([](S& s) { s.backend = "opencl"; }), "backend" },
        { with([](S& s) { s.device_id = -1; }), "device_id: must be >= 0" },
        { with([](S& s) { s.mode = "fuzzy"; }), "mode: must be \"robust\" or \"exact\"" },
        { with([](S& s) { s.min_snr_db = 500; }), "min_snr_db: must be in [0, 200]" },
        { with([](S& s) { s.false_alarm = 0.7; }), "false_alarm: must be in (0, 0.5]" },
        { with([](S& s) { s.dc_mask_bins = 256; }),
          "dc_mask_bins: must be in [0, fft_size / 4) = [0, 256)" },
        { with([](S& s) { s.dc_mask_bins = -1; }), "dc_mask_bins:" },
        { with([](S& s) { s.bandwidth_rule = "obw90"; }), "bandwidth_rule" },
        { with([](S& s) { s.hold_frames = 1001; }), "hold_frames" },
    };
    for (const auto& b : bad)
        GPUFFT_CHECK_THROWS(
            sparse_frame_analyzer(b.first, {}), std::invalid_argument, b.second);
    // Exact mode allows k up to fft_size - 1; hop 0 means fft_size.
    sparse_frame_analyzer a(with([](S& s) {
                                s.mode = "exact";
                                s.k = 1023;
                            }),
                            {});
    GPUFFT_CHECK_EQ(a.hop(), 1024);
    GPUFFT_CHECK_EQ(a.mode_name(), std::string("exact"));
    GPUFFT_CHECK_THROWS(a.set_samp_rate(-1), std::invalid_argument, "samp_rate:");
    GPUFFT_CHECK_THROWS(
        a.set_k(1024), std::invalid_argument, "k: must be in [1, fft_size) = [1, 1024)");
    a.set_samp_rate(3.5e6);
    GPUFFT_CHECK_EQ(a.samp_rate(), 3.5e6);
}

GPUFFT_TEST(exact_mode_matches_a_direct_dft)
{
    const std::uint64_t seed = fresh_seed();
    std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
    std::mt19937_64 rng(seed);
    const int n = 1024, k = 6;
    log_lines log;
    sparse_frame_analyzer a(cpu_settings(n, k, "exact"), log.handler());
    bool described = false; // the engine's describe() line, logged when made
    for (const auto& l : log.lines)
        described |= l.first == log_level::info && l.second == a.describe();
    GPUFFT_CHECK(described);
    GPUFFT_CHECK_EQ(a.backend(), std::string("cpu"));
    const double center = 100e6, rate = 2e6;
    for (int frame = 0; frame < 3; ++frame) {
        const auto x = sparse_frame(n, k, rng);
        const auto X = direct_dft(x.data(), n, -1);
        GPUFFT_CHECK(a.analyze(x.data(), frame, center, rate));
        GPUFFT_CHECK(!a.not_sparse());
        const auto& e = a.entries();
        GPUFFT_CHECK_EQ(e.bins.size(), std::size_t(k));
        double peak = 0;
        for (const auto& v : X)
            peak = std::max(peak, std::abs(v));
        for (std::size_t i = 0; i < e.bins.size(); ++i) {
            const auto b = e.bins[i];
            GPUFFT_CHECK_EQ(std::int64_t(e.bins32[i]), b);
            GPUFFT_CHECK_LE(std::abs(cd(e.values[i]) - X[b]), 1e-4 * peak);
            const double sb = b < (n + 1) / 2 ? double(b) : double(b - n);
            GPUFFT_CHECK_LE(std::abs(e.freqs[i] - (center + sb * rate / n)), 1e-6);
            GPUFFT_CHECK(std::isnan(e.snr_db[i]));
        }
    }
    GPUFFT_CHECK_EQ(a.frames_processed(), std::uint64_t(3));
    GPUFFT_CHECK_EQ(a.frames_skipped(), std::uint64_t(0));
}

GPUFFT_TEST(non_finite_frame_is_skipped_with_the_reason)
{
    const std::uint64_t seed = fresh_seed();
    std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
    const int n = 256;
    sparse_frame_analyzer a(cpu_settings(n, 4, "robust"), {});
    auto x = random_complex<float>(n, seed);
    x[seed % n] = cf(std::numeric_limits<float>::quiet_NaN(), 0.0f);
    GPUFFT_CHECK(!a.analyze(x.data(), 0, 0.0, 1e6));
    GPUFFT_CHECK(a.error().find("non-finite samples") != std::string::npos);
    GPUFFT_CHECK_EQ(a.frames_skipped(), std::uint64_t(1));
    GPUFFT_CHECK_EQ(a.frames_processed(), std::uint64_t(0));
    x[seed % n] = cf(0.5f, 0.5f);
    GPUFFT_CHECK(a.analyze(x.data(), 1, 0.0, 1e6));
    GPUFFT_CHECK(a.error().empty());
}

// The sensing path reads no frame for NaNs before the engine (its floor refuses a
// non-finite spectrum): the frame is still skipped with the block's reason.
GPUFFT_TEST(non_finite_frame_on_the_sensing_path_is_skipped_with_the_reason)
{
    const std::uint64_t seed = fresh_seed();
    std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
    const int n = 4096;
    sparse_frame_analyzer a(cpu_settings(n, 16, "robust"), {});
    GPUFFT_CHECK(a.path() == frame_path::sensing);
    auto x = random_complex<float>(n, seed);
    for (const float bad : { std::numeric_limits<float>::quiet_NaN(),
                             std::numeric_limits<float>::infinity() }) {
        x[seed % n] = cf(0.0f, bad);
        GPUFFT_CHECK(!a.analyze(x.data(), 0, 0.0, 1e6));
        GPUFFT_CHECK(a.error().find("non-finite samples") != std::string::npos);
    }
    GPUFFT_CHECK_EQ(a.frames_skipped(), std::uint64_t(2));
    x[seed % n] = cf(0.5f, 0.5f);
    GPUFFT_CHECK(a.analyze(x.data(), 1, 0.0, 1e6));
    GPUFFT_CHECK(a.error().empty());
    GPUFFT_CHECK_EQ(a.frames_processed(), std::uint64_t(1));
}

GPUFFT_TEST(robust_mode_finds_a_tone_in_noise)
{
    const std::uint64_t seed = fresh_seed();
    std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
    std::mt19937_64 rng(seed);
    const int n = 4096;
    std::uniform_real_distribution<double> where(100.0, n - 100.0);
    const double f = where(rng); // bins, off the grid
    std::normal_distribution<double> g(0.0, std::sqrt(0.5) * 0.01);
    std::vector<cf> x(n);
    const double pi2 = 2 * std::acos(-1.0);
    for (int t = 0; t < n; ++t)
        x[t] = cf(std::polar(1.0, pi2 * f * t / n) + cd(g(rng), g(rng)));
    // One false signal a frame in a hundred is what false_alarm = 0.01 asks for (a
    // noise crossing at 11.5 dB failed this check once); at 1e-6 the one entry is the
    // tone.
    auto settings = cpu_settings(n, 8, "robust");
    settings.false_alarm = 1e-6;
    sparse_frame_analyzer a(settings, {});
    const double center = 1e9, rate = 4096e3; // 1 kHz bins
    GPUFFT_CHECK(a.analyze(x.data(), 0, center, rate));
    const auto& e = a.entries();
    GPUFFT_CHECK_EQ(e.freqs.size(), std::size_t(1));
    const double want = center + (f >= n / 2 ? f - n : f) * rate / n;
    GPUFFT_CHECK_LE(std::abs(e.freqs[0] - want), 0.05 * rate / n);
    // Noise of variance 1e-4 per sample: 10 log10(1e-4 / n) dBFS per bin.
    GPUFFT_CHECK_LE(std::abs(a.noise_floor_db() - 10 * std::log10(1e-4 / n)), 3.0);
}

GPUFFT_TEST(k_changes_at_the_next_frame)
{
    const std::uint64_t seed = fresh_seed();
    std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
    std::mt19937_64 rng(seed);
    const int n = 1024;
    log_lines log;
    sparse_frame_analyzer a(cpu_settings(n, 8, "exact"), log.handler());
    const auto x = sparse_frame(n, 8, rng);
    GPUFFT_CHECK(a.analyze(x.data(), 0, 0.0, 1e6));
    GPUFFT_CHECK_EQ(a.entries().bins.size(), std::size_t(8));
    a.set_k(3);
    GPUFFT_CHECK_EQ(a.k(), 3);
    GPUFFT_CHECK(a.analyze(x.data(), 1, 0.0, 1e6));
    GPUFFT_CHECK_EQ(a.entries().bins.size(), std::size_t(3));
    GPUFFT_CHECK(a.describe().find("k=3") != std::string::npos ||
                 a.describe().find("k = 3") != std::string::npos);
    GPUFFT_CHECK_EQ(log.count(log_level::debug), 1); // the new plan's line
}

GPUFFT_TEST(not_sparse_warning_is_rate_limited)
{
    const std::uint64_t seed = fresh_seed();
    std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
    std::mt19937_64 rng(seed);
    const std::uint64_t every = 2 + rng() % 50, start = rng() % 1000;
    not_sparse_warning w(every);
    GPUFFT_CHECK(w.note(start).find("frame " + std::to_string(start) + ":") == 0);
    for (std::uint64_t i = 1; i < every; ++i)
        GPUFFT_CHECK(w.note(start + i).empty());
    const std::string next = w.note(start + every);
    GPUFFT_CHECK(next.find(std::to_string(every) + " such frame(s)") !=
                 std::string::npos);
    GPUFFT_CHECK(next.find(std::to_string(every + 1) + " in all") != std::string::npos);
    GPUFFT_CHECK_EQ(w.frames(), every + 1);

    // Through the analyzer: exact mode on noise warns once for two frames.
    log_lines log;
    sparse_frame_analyzer a(cpu_settings(512, 4, "exact"), log.handler());
    for (std::uint64_t f = 0; f < 2; ++f) {
        const auto x = random_complex<float>(512, seed + f);
        GPUFFT_CHECK(a.analyze(x.data(), f, 0.0, 1e6));
        GPUFFT_CHECK(a.not_sparse());
    }
    GPUFFT_CHECK_EQ(log.count(log_level::warning), 1);
}

namespace {

//! sum_j a_j exp(2 pi i f_j t / n) (f_j in bins) + complex noise of variance s2.
std::vector<cf> tones_in_noise(int n,
                               const std::vector<double>& f,
                               const std::vector<double>& a,
                               double s2,
                               std::mt19937_64& rng)
{
    std::normal_distribution<double> g(0.0, std::sqrt(s2 / 2));
    std::uniform_real_distribution<double> ph(0.0, 2 * std::acos(-1.0));
    const double pi2 = 2 * std::acos(-1.0);
    std::vector<cd> x(static_cast<std::size_t>(n));
    for (auto& v : x)
        v = cd(g(rng), g(rng));
    for (std::size_t j = 0; j < f.size(); ++j) {
        const double p0 = ph(rng);
        for (int t = 0; t < n; ++t)
            x[t] += std::polar(a[j], pi2 * f[j] * t / n + p0);
    }
    return std::vector<cf>(x.begin(), x.end());
}

} // namespace

GPUFFT_TEST(dense_path_signals_are_the_sensing_plans)
{
    const std::uint64_t seed = fresh_seed();
    std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
    std::mt19937_64 rng(seed);
    const int n = 4096, k = 8;
    log_lines log;
    auto st = cpu_settings(n, k, "robust");
    st.false_alarm = 1e-6; // no noise peak next to the two tones
    sparse_frame_analyzer a(st, log.handler());
    GPUFFT_CHECK(a.path() == frame_path::sensing);
    GPUFFT_CHECK(a.describe().find("spectrum sensing") != std::string::npos);
    // describe() logged once: by the analyzer, not also by the engine.
    int described = 0;
    for (const auto& l : log.lines)
        described += l.second.find("sparse FFT n=4096") != std::string::npos;
    GPUFFT_CHECK_EQ(described, 1);
    sensing_options so;
    so.backend = backend::cpu;
    so.max_signals = k;
    so.false_alarm = st.false_alarm;
    sensing_plan ref(n, so);
    const double center = 100e6, rate = 4.096e6; // 1 kHz bins
    std::uniform_real_distribution<double> where(-1800.0, 1800.0);
    const double f0 = where(rng), f1 = f0 + 150.5;
    const auto x = tones_in_noise(n, { f0, f1 }, { 0.05, 0.02 }, 1e-4, rng);
    GPUFFT_CHECK(a.analyze(x.data(), 0, center, rate));
    sensing_result want;
    ref.detect(x.data(), want);
    const auto& got = a.result();
    GPUFFT_CHECK_EQ(got.signals.size(), want.signals.size());
    GPUFFT_CHECK_EQ(got.signals.size(), std::size_t(2));
    for (std::size_t i = 0; i < got.signals.size(); ++i) {
        GPUFFT_CHECK_EQ(got.signals[i].center_bin, want.signals[i].center_bin);
        GPUFFT_CHECK_EQ(got.signals[i].snr_db, want.signals[i].snr_db);
        const auto& hz = a.signals_hz()[i];
        GPUFFT_CHECK_LE(
            std::abs(hz.center_hz - (center + got.signals[i].center_bin * rate / n)),
            1e-6);
    }
    const double wanted_f[] = { std::min(f0, f1), std::max(f0, f1) };
    for (int i = 0; i < 2; ++i)
        GPUFFT_CHECK_LE(std::abs(got.signals[i].tone_bin - wanted_f[i]), 0.05);
    // The coefficients message's entries: one per signal, its tone fit.
    GPUFFT_CHECK_EQ(a.entries().freqs.size(), std::size_t(2));
    // Rectangular-window floor: noise of variance 1e-4: 10 log10(1e-4 / n) dBFS.
    GPUFFT_CHECK_LE(std::abs(a.noise_floor_db() - 10 * std::log10(1e-4 / n)), 1.5);
    GPUFFT_CHECK(!got.truncated);

    // A frame of zeros: no signals, no error, the floor of nothing.
    const std::vector<cf> zeros(static_cast<std::size_t>(n));
    GPUFFT_CHECK(a.analyze(zeros.data(), 1, center, rate));
    GPUFFT_CHECK(a.result().signals.empty());
    GPUFFT_CHECK_EQ(a.noise_floor_db(), -300.0);
}

// A retune starts the sensing plan's floor and held signals afresh: after a frame with
// a tone, a frame without it looks the tone's bins over again (the held test), but not
// when the centre frequency moved between them.
GPUFFT_TEST(retune_forgets_the_tracked_floor_and_held_signals)
{
    const std::uint64_t seed = fresh_seed();
    std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
    std::mt19937_64 rng(seed);
    const int n = 4096, k = 8;
    log_lines log;
    auto st = cpu_settings(n, k, "robust");
    st.false_alarm = 1e-6;
    sparse_frame_analyzer a(st, log.handler());
    GPUFFT_CHECK(a.path() == frame_path::sensing);
    const double center = 100e6, rate = 4.096e6;
    std::uniform_real_distribution<double> where(-1800.0, 1800.0);
    const double f0 = where(rng);
    const auto tone = tones_in_noise(n, { f0 }, { 0.05 }, 1e-4, rng);
    const auto noise = tones_in_noise(n, {}, {}, 1e-4, rng);
    GPUFFT_CHECK(a.analyze(tone.data(), 0, center, rate));
    GPUFFT_CHECK_EQ(a.result().signals.size(), std::size_t(1));
    GPUFFT_CHECK(a.analyze(noise.data(), 1, center, rate));
    GPUFFT_CHECK(a.result().held_threshold_db > 0); // the tone's bins, looked at again
    GPUFFT_CHECK(a.analyze(tone.data(), 2, center, rate));
    GPUFFT_CHECK(a.analyze(noise.data(), 3, center + 1e6, rate)); // retuned
    GPUFFT_CHECK_EQ(a.result().held_threshold_db, 0.0);
    GPUFFT_CHECK(a.result().signals.empty());
}

// Frames overlapping by half or more share their noise: the sensing plan then keeps
// each frame's own floor rather than one tracked over frames.
GPUFFT_TEST(overlapping_frames_keep_their_own_floor)
{
    log_lines log;
    auto st = cpu_settings(4096, 8, "robust");
    sparse_frame_analyzer whole(st, log.handler());
    GPUFFT_CHECK(whole.describe().find("floor_frames=8") != std::string::npos);
    st.hop = 2048;
    sparse_frame_analyzer half(st, log.handler());
    GPUFFT_CHECK(half.describe().find("floor_frames=1") != std::string::npos);
    st.hop = 3072;
    sparse_frame_analyzer quarter(st, log.handler());
    GPUFFT_CHECK(quarter.describe().find("floor_frames=8") != std::string::npos);
}

// floor_frames and watch_frames reach the sensing plan (its describe() line), a
// setter's value at the next frame; overlap by half or more still uses floor_frames 1;
// a bad value is refused with the plan's own message (one check, sensing_params.h).
GPUFFT_TEST(floor_and_watch_frames_reach_the_plan)
{
    log_lines log;
    auto st = cpu_settings(4096, 8, "robust");
    st.floor_frames = 3;
    st.watch_frames = 5;
    sparse_frame_analyzer a(st, log.handler());
    GPUFFT_CHECK_EQ(a.floor_frames(), 3);
    GPUFFT_CHECK_EQ(a.watch_frames(), 5);
    GPUFFT_CHECK(a.describe().find("floor_frames=3 ") != std::string::npos);
    GPUFFT_CHECK(a.describe().find("watch_frames=5") != std::string::npos);
    a.set_floor_frames(1024);
    a.set_watch_frames(0);
    GPUFFT_CHECK(a.describe().find("floor_frames=3 ") != std::string::npos); // not yet
    const std::vector<cf> zeros(4096);
    GPUFFT_CHECK(a.analyze(zeros.data(), 0, 0.0, 1e6));
    GPUFFT_CHECK(a.describe().find("floor_frames=1024 ") != std::string::npos);
    GPUFFT_CHECK(a.describe().find("watch_frames=0") != std::string::npos);
    st.hop = 2048;
    sparse_frame_analyzer half(st, log.handler());
    GPUFFT_CHECK_EQ(half.floor_frames(), 3); // asked for; 1 in force
    GPUFFT_CHECK(half.describe().find("floor_frames=1 ") != std::string::npos);

    const auto plan_message = [](int floor_frames, int watch_frames) {
        sensing_options o;
        o.backend = backend::cpu;
        o.floor_frames = floor_frames;
        o.watch_frames = watch_frames;
        try {
            sensing_plan(4096, o);
        } catch (const std::invalid_argument& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    const auto block_message = [&](int floor_frames, int watch_frames) {
        auto s = cpu_settings(4096, 8, "robust");
        s.floor_frames = floor_frames;
        s.watch_frames = watch_frames;
        try {
            sparse_frame_analyzer(s, log.handler());
        } catch (const std::invalid_argument& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    const auto setter_message = [&](int floor_frames, int watch_frames) {
        try {
            if (floor_frames != 8)
                a.set_floor_frames(floor_frames);
            else
                a.set_watch_frames(watch_frames);
        } catch (const std::invalid_argument& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    const std::pair<int, int> bad[] = { { 0, 2 },  { -1, 2 }, { 1025, 2 },
                                        { 8, -1 }, { 8, 9 },  { 8, 1 << 20 } };
    for (const auto& b : bad) {
        const std::string m = plan_message(b.first, b.second);
        GPUFFT_CHECK(m.rfind(b.first != 8 ? "floor_frames" : "watch_frames", 0) == 0);
        GPUFFT_CHECK(m.find(b.first != 8 ? "[1, 1024]" : "[0, 8]") != std::string::npos);
        GPUFFT_CHECK_EQ(block_message(b.first, b.second), m);
        GPUFFT_CHECK_EQ(setter_message(b.first, b.second), m);
    }
    // A refused setter keeps the value in force.
    GPUFFT_CHECK_EQ(a.floor_frames(), 1024);
    GPUFFT_CHECK_EQ(a.watch_frames(), 0);
}

// watch_frames 0: the frame after a tone's looks at nothing held (held_threshold_db 0);
// the default 2 looks at the tone's bins again.
GPUFFT_TEST(watch_frames_zero_holds_nothing)
{
    const std::uint64_t seed = fresh_seed();
    std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
    std::mt19937_64 rng(seed);
    const int n = 4096;
    const auto tone = tones_in_noise(n, { 300.4 }, { 0.05 }, 1e-4, rng);
    const auto noise = tones_in_noise(n, {}, {}, 1e-4, rng);
    for (const int watch : { 2, 0 }) {
        log_lines log;
        auto st = cpu_settings(n, 8, "robust");
        st.false_alarm = 1e-6;
        st.watch_frames = watch;
        sparse_frame_analyzer a(st, log.handler());
        GPUFFT_CHECK(a.path() == frame_path::sensing);
        GPUFFT_CHECK(a.analyze(tone.data(), 0, 0.0, 1e6));
        GPUFFT_CHECK_EQ(a.result().signals.size(), std::size_t(1));
        GPUFFT_CHECK(a.analyze(noise.data(), 1, 0.0, 1e6));
        if (watch > 0)
            GPUFFT_CHECK(a.result().held_threshold_db > 0);
        else
            GPUFFT_CHECK_EQ(a.result().held_threshold_db, 0.0);
    }
}

GPUFFT_TEST(truncated_frames_are_flagged_and_logged_rarely)
{
    const std::uint64_t seed = fresh_seed();
    std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
    std::mt19937_64 rng(seed);
    const int n = 2048;
    log_lines log;
    auto s = cpu_settings(n, 2, "robust");
    s.false_alarm = 1e-6;
    sparse_frame_analyzer a(s, log.handler());
    const std::vector<double> f = { -700.3, -300.6, 100.2, 500.7, 800.1 };
    const std::vector<double> amp = { 0.01, 0.08, 0.02, 0.05, 0.004 };
    for (int frame = 0; frame < 5; ++frame) {
        const auto x = tones_in_noise(n, f, amp, 1e-4, rng);
        GPUFFT_CHECK(a.analyze(x.data(), std::uint64_t(frame), 0.0, 1e6));
        const auto& r = a.result();
        GPUFFT_CHECK(r.truncated);
        GPUFFT_CHECK_EQ(r.bands_found, std::int64_t(5));
        GPUFFT_CHECK_EQ(r.signals.size(), std::size_t(2)); // the two strongest
        GPUFFT_CHECK_LE(std::abs(r.signals[0].center_bin - f[1]), 1.0);
        GPUFFT_CHECK_LE(std::abs(r.signals[1].center_bin - f[3]), 1.0);
    }
    GPUFFT_CHECK_EQ(a.frames_truncated(), std::uint64_t(5));
    // Five truncated frames in well under 10 s: one line.
    int lines = 0;
    for (const auto& l : log.lines)
        lines += l.first == log_level::warning &&
                 l.second.find("raise k") != std::string::npos;
    GPUFFT_CHECK_EQ(lines, 1);
}

GPUFFT_TEST(a_burst_makes_two_transmissions)
{
    const std::uint64_t seed = fresh_seed();
    std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
    std::mt19937_64 rng(seed);
    const int n = 1024;
    auto s = cpu_settings(n, 8, "robust");
    s.false_alarm = 1e-6;
    s.hold_frames = 1;
    sparse_frame_analyzer a(s, {});
    GPUFFT_CHECK_EQ(a.hold_frames(), 1);
    std::vector<transmission> all;
    for (int frame = 0; frame < 12; ++frame) {
        const bool on = frame < 4 || frame >= 8;
        const auto x = tones_in_noise(n, { 211.3 }, { on ? 0.05 : 0.0 }, 1e-4, rng);
        GPUFFT_CHECK(a.analyze(x.data(), std::uint64_t(frame), 0.0, 1e6));
        all.insert(all.end(), a.ended().begin(), a.ended().end());
    }
    GPUFFT_CHECK_EQ(all.size(), std::size_t(1)); // the first burst ended
    for (const auto& t : a.flush())
        all.push_back(t);
    GPUFFT_CHECK_EQ(all.size(), std::size_t(2));
    for (std::size_t i = 0; i < all.size(); ++i) {
        GPUFFT_CHECK_EQ(all[i].start_sample, std::int64_t(8 * n * i));
        GPUFFT_CHECK_EQ(all[i].sample_count, std::int64_t(4 * n));
        GPUFFT_CHECK_LE(std::abs(all[i].center_hz - 211.3 * 1e6 / n), 1e6 / n);
    }
}

GPUFFT_TEST(sparse_path_and_exact_mode_give_one_bin_signals)
{
    const std::uint64_t seed = fresh_seed();
    std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
    std::mt19937_64 rng(seed);
    // Exact mode: each coefficient a signal one bin wide, SNR NaN.
    const int n = 1024, k = 6;
    sparse_frame_analyzer e(cpu_settings(n, k, "exact"), {});
    GPUFFT_CHECK(e.path() == frame_path::exact);
    const auto x = sparse_frame(n, k, rng);
    GPUFFT_CHECK(e.analyze(x.data(), 0, 0.0, 1e6));
    const auto& r = e.result();
    GPUFFT_CHECK_EQ(r.signals.size(), std::size_t(k));
    std::set<std::int64_t> bins;
    for (auto b : e.entries().bins)
        bins.insert(b < n / 2 ? b : b - n);
    for (const auto& sig : r.signals) {
        GPUFFT_CHECK(bins.count(sig.first_bin) == 1);
        GPUFFT_CHECK_EQ(sig.bandwidth_bins, 1.0);
        GPUFFT_CHECK(std::isnan(sig.snr_db));
    }
    // Robust mode's sparse path (large n, high min_snr_db): each tone a 1-bin signal.
    const int big = 1 << 20;
    auto s = cpu_settings(big, 4, "robust");
    s.min_snr_db = 55;
    s.false_alarm = 1e-6;
    sparse_frame_analyzer a(s, {});
    if (a.path() != frame_path::sparse) {
        std::printf("engine runs dense here: %s\n", a.describe().c_str());
        return;
    }
    const double f = 12345.25;
    const auto y = tones_in_noise(big, { f }, { 1.0 }, 1e-4, rng);
    GPUFFT_CHECK(a.analyze(y.data(), 0, 0.0, 1e6));
    GPUFFT_CHECK_EQ(a.result().signals.size(), std::size_t(1));
    const auto& t = a.result().signals[0];
    GPUFFT_CHECK_LE(std::abs(t.center_bin - f), 0.05);
    GPUFFT_CHECK_EQ(t.upper_bin - t.lower_bin, 1.0);
    GPUFFT_CHECK(t.narrow && t.tone_refined);
    GPUFFT_CHECK(!a.result().truncated);
}

GPUFFT_TEST(setters_take_effect_at_the_next_frame)
{
    const std::uint64_t seed = fresh_seed();
    std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
    std::mt19937_64 rng(seed);
    const int n = 1024;
    sparse_frame_analyzer a(cpu_settings(n, 8, "robust"), {});
    GPUFFT_CHECK_THROWS(a.set_mode("fuzzy"), std::invalid_argument, "mode:");
    GPUFFT_CHECK_THROWS(a.set_min_snr_db(-1), std::invalid_argument, "min_snr_db:");
    GPUFFT_CHECK_THROWS(a.set_false_alarm(0), std::invalid_argument, "false_alarm:");
    a.set_false_alarm(1e-3);
    a.set_min_snr_db(33);
    GPUFFT_CHECK(a.describe().find("min_snr_db=20") != std::string::npos);
    const auto x = sparse_frame(n, 4, rng);
    GPUFFT_CHECK(a.analyze(x.data(), 0, 0.0, 1e6));
    GPUFFT_CHECK(a.describe().find("min_snr_db=33") != std::string::npos);
    GPUFFT_CHECK(a.describe().find("false_alarm=0.001") != std::string::npos);
    a.set_mode("exact");
    GPUFFT_CHECK(a.frame_mode() == sparse_fft_mode::robust); // until the next frame
    GPUFFT_CHECK(a.analyze(x.data(), 1, 0.0, 1e6));
    GPUFFT_CHECK(a.frame_mode() == sparse_fft_mode::exact);
    GPUFFT_CHECK(a.path() == frame_path::exact);
    // k = 500 is fine in exact mode; robust takes at most n / 4.
    a.set_k(500);
    GPUFFT_CHECK_THROWS(a.set_mode("robust"), std::invalid_argument, "k: must be in");
}

GPUFFT_TEST(memory_is_counted_before_allocating)
{
    // fft_size 2^28 in robust mode: a dense FFT + sensing (20 bytes a sample) and the
    // frame buffer (8): 7 GiB, counted without allocating any of it.
    auto s = cpu_settings(1 << 28, 16, "robust");
    s.display_bins = 1024;
    std::string what;
    GPUFFT_CHECK_EQ(sparse_block_memory(s, backend::cpu, &what), std::uint64_t(28) << 28);
    GPUFFT_CHECK(what.find("frame buffer") != std::string::npos);
    // The sparse path (high min_snr_db) needs far less than a dense one.
    s.min_snr_db = 60;
    GPUFFT_CHECK_LE(sparse_block_memory(s), std::uint64_t(12) << 28);
}

GPUFFT_TEST_MAIN()
