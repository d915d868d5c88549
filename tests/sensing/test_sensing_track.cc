/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The noise floor tracked over frames (sensing_options::floor_frames): a tone near the
// threshold is found in more frames than with each frame's own floor, pure noise keeps
// to false_alarm (also when its level steps by less than the track's reset, or more),
// a floor that falls is followed, a burst that fills most of the band stands over the
// floor before it, so does one over the whole band for part of a frame (not a gain
// step), and floor_frames = 1 or reset_floor() give a fresh plan's signals.

#include "../reference.h"
#include "../test_harness.h"
#include "sensing_signals.h"
#include <gnuradio/gpufft/sensing_plan.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

using namespace gr::gpufft;
using namespace sensing_test;

namespace {

// The floor's track alone (no signals held) unless watch says otherwise.
sensing_options with_frames(int frames, int watch = 0)
{
    sensing_options o;
    o.backend = backend::cpu;
    o.floor_frames = frames;
    o.watch_frames = watch;
    return o;
}

// Every signal over the frame's threshold, a held one over the held test's.
void check_thresholds(const sensing_result& r)
{
    for (const auto& s : r.signals) {
        if (s.held) {
            GPUFFT_CHECK(r.held_threshold_db > 0);
            GPUFFT_CHECK(s.snr_db > r.held_threshold_db);
        } else {
            GPUFFT_CHECK(s.snr_db > r.threshold_db);
        }
    }
}

// The amplitude of a tone on a bin whose windowed (Blackman-Harris) peak bin stands
// snr_db over the mean of a noise bin, noise of power sigma^2 a sample.
double windowed_amplitude(double snr_db, double sigma, std::int64_t n)
{
    const double a0 = 0.35875;
    const double c2 =
        a0 * a0 + (0.48829 * 0.48829 + 0.14128 * 0.14128 + 0.01168 * 0.01168) / 2;
    return sigma * std::sqrt(std::pow(10.0, snr_db / 10.0) * c2 / (double(n) * a0 * a0));
}

bool found_near(const sensing_result& r, double bin)
{
    for (const auto& s : r.signals)
        if (std::fabs(s.center_bin - bin) < 3)
            return true;
    return false;
}

} // namespace

// A tone 11 dB over the floor (the threshold is 10.95 dB for one frame's floor at
// n = 1024, 10.76 dB once tracked: 4 sub-bands, the allowance for the level a median's):
// with each frame's own floor it is found in about 54 % of the frames, tracked in about
// 58 % (6000 frames: +200, the difference's standard deviation about 20 as the two plans
// see the same frames; with floor_frames 1 for both it is 0).
GPUFFT_TEST(a_tracked_floor_finds_a_near_threshold_tone_in_more_frames)
{
    const std::uint64_t seed = gpufft_test::fresh_seed();
    std::printf("seed %llu\n", (unsigned long long)seed);
    std::mt19937_64 rng(seed);
    const std::int64_t n = 1024;
    sensing_plan own(n, with_frames(1)), tracked(n, with_frames(8));
    sensing_result r;
    const int frames = 6000;
    int found_own = 0, found_tracked = 0, other_own = 0, other_tracked = 0;
    std::vector<double> tracked_db; // the tracked threshold of each frame
    for (int f = 0; f < frames; ++f) {
        cvec x(std::size_t(n), 0);
        add_noise(x, 0.01, rng);
        add_tone(x, 100.0, windowed_amplitude(11.0, 0.01, n));
        own.detect(x.data(), r);
        found_own += found_near(r, 100.0);
        other_own += int(r.signals.size()) - int(found_near(r, 100.0));
        tracked.detect(x.data(), r);
        found_tracked += found_near(r, 100.0);
        other_tracked += int(r.signals.size()) - int(found_near(r, 100.0));
        check_thresholds(r);
        tracked_db.push_back(r.threshold_db);
    }
    // The median frame's: a sub-band whose track started again (a 4-deviation step,
    // some 2e-4 a frame) holds the threshold up for the frames after it, so the last
    // frame's was over 10.80 dB in about 0.5 % of runs (seed 9275565313019206528: 10.83).
    std::nth_element(tracked_db.begin(),
                     tracked_db.begin() + std::ptrdiff_t(frames / 2),
                     tracked_db.end());
    const double tracked_median_db = tracked_db[std::size_t(frames / 2)];
    std::printf("tone 11 dB in %d frames: found %d with each frame's floor (threshold "
                "%.2f dB), %d tracked (%.2f dB, the median frame's); other signals %d, "
                "%d\n",
                frames,
                found_own,
                own.threshold_db(),
                found_tracked,
                tracked_median_db,
                other_own,
                other_tracked);
    GPUFFT_CHECK(found_tracked >= found_own + frames / 60);
    GPUFFT_CHECK(tracked_median_db < own.threshold_db() - 0.15);
    // Noise crossings elsewhere: false_alarm 0.01 a frame, 60 expected.
    GPUFFT_CHECK(other_tracked <= 90);
}

// Pure noise over many frames crosses a tracked threshold at the rate false_alarm
// asks, with a steady level and with a level that steps up and down every 40 frames by
// 1 dB (under the track's reset: followed through the frame's own floor) and by 6 dB
// (over it: the track starts again). Measured: 0.0072, 0.0079 and 0.0089 a frame at
// 1 and 2 dB steps for 0.01.
GPUFFT_TEST(noise_over_many_frames_keeps_to_false_alarm_when_tracked)
{
    const std::uint64_t seed = gpufft_test::fresh_seed();
    std::printf("seed %llu\n", (unsigned long long)seed);
    std::mt19937_64 rng(seed);
    const std::int64_t n = 1024;
    const int frames = 20000;
    for (double step_db : { 0.0, 1.0, 6.0 }) {
        sensing_plan plan(n, with_frames(8));
        sensing_result r;
        int hit = 0;
        for (int f = 0; f < frames; ++f) {
            const double sigma =
                (f / 40) % 2 ? 0.01 * std::pow(10.0, step_db / 20) : 0.01;
            cvec x(std::size_t(n), 0);
            add_noise(x, sigma, rng);
            plan.detect(x.data(), r);
            hit += !r.signals.empty();
        }
        std::printf("noise, level steps of %.0f dB: %d of %d frames with a signal "
                    "(%.4f a frame for false_alarm 0.01)\n",
                    step_db,
                    hit,
                    frames,
                    double(hit) / frames);
        // 200 expected at most; 1.3 x is 4 standard deviations over it.
        GPUFFT_CHECK(hit <= int(1.3 * 0.01 * frames));
    }
}

// A floor that falls by 20 dB (a gain step, a carrier that filled the band switching
// off) starts the track again at once: a tone 20 dB over the new floor is found in the
// first frame after the fall, and the floor reported is the new one.
GPUFFT_TEST(a_falling_floor_is_followed_at_once)
{
    const std::uint64_t seed = gpufft_test::fresh_seed();
    std::printf("seed %llu\n", (unsigned long long)seed);
    std::mt19937_64 rng(seed);
    const std::int64_t n = 4096;
    sensing_plan plan(n, with_frames(32));
    sensing_result r;
    for (int f = 0; f < 40; ++f) {
        cvec x(std::size_t(n), 0);
        add_noise(x, 0.1, rng);
        plan.detect(x.data(), r);
    }
    const double loud = r.noise_floor_dbfs;
    cvec x(std::size_t(n), 0);
    add_noise(x, 0.01, rng);
    add_tone(x, -700.3, windowed_amplitude(20.0, 0.01, n));
    plan.detect(x.data(), r);
    std::printf("floor %.1f -> %.1f dBFS, %zu signals\n",
                loud,
                r.noise_floor_dbfs,
                r.signals.size());
    GPUFFT_CHECK(std::fabs(r.noise_floor_dbfs - (loud - 20)) < 1.0);
    GPUFFT_CHECK(found_near(r, -700.3));
}

// A burst that fills most of the band (an 802.11 packet at 20 MS/s fills 83 % of it)
// stands over the floor of the frames before it: an OFDM burst over 85 % of the band,
// 20 dB a bin over the noise, in 3 frames among noise frames, is one signal its width
// in each, the floor reported within 3 dB of the noise's. Before, the frame's level (the
// median of its sub-bands' change) and the track's reset took the burst's plateau for the
// floor: the burst came back as its edges or not at all. A rise that outlasts
// floor_frames frames is the floor's: a band-filling carrier that stays is no signal from
// then on (one frame cannot tell it from a front end's passband).
GPUFFT_TEST(a_burst_that_fills_most_of_the_band_stands_over_the_floor_before_it)
{
    const std::uint64_t seed = gpufft_test::fresh_seed();
    std::printf("seed %llu\n", (unsigned long long)seed);
    std::mt19937_64 rng(seed);
    // 64 floor sub-bands of 512 bins: an eighth of them clear of the burst
    const std::int64_t n = 32768;
    const int fft = 512, carriers = 436; // 64 bins a subcarrier: 27904 bins
    const double sigma = 0.01, width = double(carriers) * double(n) / fft;
    const double p = 100 * (width / double(n)) * sigma * sigma; // 20 dB a bin
    const int frames_tracked = 8;
    sensing_plan plan(n, with_frames(frames_tracked));
    sensing_result r;
    double noise_floor = 0;
    int found = 0, wide_right = 0, floor_right = 0;
    for (int f = 0; f < 30; ++f) {
        cvec x(std::size_t(n), 0);
        add_noise(x, sigma, rng);
        const bool burst = f >= 20 && f < 23;
        if (burst)
            add_ofdm(x, 0.0, fft, 16, carriers, p, 1 << 20, 0.0, int(rng() % 528), rng);
        plan.detect(x.data(), r);
        check_thresholds(r);
        if (f == 19)
            noise_floor = r.noise_floor_dbfs;
        if (!burst)
            continue;
        const sensed_signal* widest = nullptr;
        for (const auto& s : r.signals)
            if (widest == nullptr || s.bandwidth_bins > widest->bandwidth_bins)
                widest = &s;
        found += widest != nullptr;
        if (widest != nullptr) {
            std::printf("frame %d: %zu signals, the widest %.0f bins (%.0f..%.0f), floor "
                        "%.1f dBFS (noise %.1f)\n",
                        f,
                        r.signals.size(),
                        widest->bandwidth_bins,
                        widest->lower_bin,
                        widest->upper_bin,
                        r.noise_floor_dbfs,
                        noise_floor);
            wide_right += std::fabs(widest->bandwidth_bins - width) < 0.1 * width;
        }
        // The sub-bands beside the burst rise by 1-3 dB (an unshaped OFDM symbol's
        // skirts): the frame's level follows them (sensing_level_cluster); the
        // plateau is 20 dB up.
        floor_right += std::fabs(r.noise_floor_dbfs - noise_floor) < 3.0;
    }
    GPUFFT_CHECK_EQ(found, 3);
    GPUFFT_CHECK_EQ(wide_right, 3);
    GPUFFT_CHECK_EQ(floor_right, 3);
    // The same burst on for good: the floor's from frame floor_frames + 1 of it on.
    int late = 0;
    for (int f = 0; f < 2 * frames_tracked; ++f) {
        cvec x(std::size_t(n), 0);
        add_noise(x, sigma, rng);
        add_ofdm(x, 0.0, fft, 16, carriers, p, 1 << 20, 0.0, int(rng() % 528), rng);
        plan.detect(x.data(), r);
        if (f > frames_tracked)
            late += r.noise_floor_dbfs > noise_floor + 10;
    }
    std::printf("a burst that stays: its plateau the floor in %d of %d frames after "
                "floor_frames\n",
                late,
                frames_tracked - 1);
    GPUFFT_CHECK_EQ(late, frames_tracked - 1);
}

// A burst over the whole band for a sixteenth of a frame (ADS-B's 120 us messages at
// 2 MS/s) lifts every sub-band's floor alike, as a gain step does; its frame's quiet
// samples tell them apart (sensing_burst_level): the burst is one signal the band
// wide, while a gain that steps or ramps up within a frame is followed (no signal).
GPUFFT_TEST(a_burst_over_the_band_is_a_signal_a_gain_step_within_a_frame_is_not)
{
    const std::uint64_t seed = gpufft_test::fresh_seed();
    std::printf("seed %llu\n", (unsigned long long)seed);
    std::mt19937_64 rng(seed);
    const std::int64_t n = 4096, len = n / 16;
    const double sigma = 0.01;
    sensing_plan plan(n, with_frames(8));
    sensing_result r;
    const auto widest = [&]() {
        double w = 0;
        for (const auto& s : r.signals)
            w = std::max(w, s.bandwidth_bins);
        return w;
    };
    int bursts = 0, found = 0, idle_wide = 0;
    for (int f = 0; f < 60; ++f) {
        cvec x(std::size_t(n), 0);
        add_noise(x, sigma, rng);
        const bool burst = f >= 10 && f % 5 == 0;
        if (burst) {
            // 20 dB a sample, where the window is over 0.7 of its peak.
            std::uniform_int_distribution<std::int64_t> at(3 * n / 8, 5 * n / 8 - len);
            const std::int64_t t0 = at(rng);
            cvec b(std::size_t(len), 0);
            add_noise(b, 10 * sigma, rng);
            for (std::int64_t t = 0; t < len; ++t)
                x[std::size_t(t0 + t)] += b[std::size_t(t)];
        }
        plan.detect(x.data(), r);
        check_thresholds(r);
        if (burst) {
            ++bursts;
            found += widest() > 0.8 * double(n);
            std::printf("burst frame %d: widest signal %.0f bins\n", f, widest());
        } else {
            idle_wide += widest() > double(n) / 8;
        }
    }
    GPUFFT_CHECK_EQ(found, bursts);
    GPUFFT_CHECK_EQ(idle_wide, 0);
    // A gain that steps up 12 dB at a random sample, or ramps up from a random sample
    // at 12 dB a frame to the frame's end, then stays: followed, no wide signal in any
    // frame.
    for (int kind = 0; kind < 2; ++kind) {
        double gain_db = 0;
        int wide = 0;
        for (int f = 0; f < 60; ++f) {
            cvec x(std::size_t(n), 0);
            add_noise(x, sigma, rng);
            const bool change = f >= 10 && f % 10 == 0;
            std::uniform_int_distribution<std::int64_t> at(n / 8, 7 * n / 8);
            const std::int64_t t0 = change ? at(rng) : n;
            const double from = gain_db, to = change ? gain_db + 12 : gain_db;
            for (std::int64_t t = 0; t < n; ++t) {
                double g = t < t0 ? from : to;
                if (kind == 1 && change)
                    g = t < t0 ? from
                               : std::min(to, from + 12 * double(t - t0) / double(n));
                x[std::size_t(t)] *= std::pow(10.0, g / 20);
            }
            gain_db = kind == 1 && change ? from + 12 * double(n - t0) / double(n) : to;
            plan.detect(x.data(), r);
            check_thresholds(r);
            wide += widest() > double(n) / 8;
        }
        std::printf("%s: %d frames with a signal over an eighth of the band\n",
                    kind == 0 ? "gain steps" : "gain ramps",
                    wide);
        GPUFFT_CHECK_EQ(wide, 0);
        plan.reset_floor();
    }
}

// floor_frames = 1 is each frame's own floor: the signals of a fresh plan, frame after
// frame; reset_floor() makes a tracked plan's next frame a fresh plan's; the first
// frame of a tracked plan is a fresh plan's too.
GPUFFT_TEST(one_floor_frame_and_reset_give_a_fresh_plan_s_signals)
{
    const std::uint64_t seed = gpufft_test::fresh_seed();
    std::printf("seed %llu\n", (unsigned long long)seed);
    std::mt19937_64 rng(seed);
    const std::int64_t n = 2048;
    sensing_plan own(n, with_frames(1)), tracked(n, with_frames(8));
    const auto same = [](const sensing_result& a, const sensing_result& b) {
        GPUFFT_CHECK_EQ(a.signals.size(), b.signals.size());
        GPUFFT_CHECK_EQ(a.noise_floor_dbfs, b.noise_floor_dbfs);
        for (std::size_t i = 0; i < std::min(a.signals.size(), b.signals.size()); ++i) {
            GPUFFT_CHECK_EQ(a.signals[i].lower_bin, b.signals[i].lower_bin);
            GPUFFT_CHECK_EQ(a.signals[i].upper_bin, b.signals[i].upper_bin);
            GPUFFT_CHECK_EQ(a.signals[i].snr_db, b.signals[i].snr_db);
        }
    };
    for (int f = 0; f < 12; ++f) {
        cvec x(std::size_t(n), 0);
        add_noise(x, 0.01, rng);
        add_tone(x, 300.4, windowed_amplitude(12.0 + f, 0.01, n));
        add_tone(x, -51.0, windowed_amplitude(30.0, 0.01, n));
        sensing_plan fresh(n, with_frames(8));
        sensing_result a, b, c;
        fresh.detect(x.data(), a);
        own.detect(x.data(), b);
        same(a, b);
        GPUFFT_CHECK_EQ(fresh.threshold_db(), own.threshold_db());
        if (f == 0 || f == 7) {
            if (f == 7)
                tracked.reset_floor();
            tracked.detect(x.data(), c);
            same(a, c);
        } else {
            tracked.detect(x.data(), c);
            GPUFFT_CHECK(tracked.threshold_db() < own.threshold_db());
        }
    }
}

// A tone 10 dB over the floor, under the threshold of the whole band (10.76 dB
// tracked at n = 1024) in most frames, is held: its 3 to 5 bins are looked at again with
// the threshold of a test on them alone (about 8 dB), so once found it is found in most
// frames after (measured: 31 % of 3000 frames not held, 78 % held over 2 frames). Pure
// noise keeps to false_alarm (a held test runs only after a false signal).
GPUFFT_TEST(a_held_signal_is_found_frame_after_frame_and_noise_keeps_to_false_alarm)
{
    const std::uint64_t seed = gpufft_test::fresh_seed();
    std::printf("seed %llu\n", (unsigned long long)seed);
    std::mt19937_64 rng(seed);
    const std::int64_t n = 1024;
    sensing_plan plain(n, with_frames(8, 0)), held(n, with_frames(8, 2));
    sensing_result r;
    const int frames = 3000;
    int found_plain = 0, found_held = 0, held_signals = 0, held_elsewhere = 0;
    // The held tests' thresholds: the least (a 3-bin test) and the greatest (its
    // threshold grows with the bins it looks at: a 5-bin test is near 9 dB).
    double held_db = 0, held_db_max = 0;
    for (int f = 0; f < frames; ++f) {
        cvec x(std::size_t(n), 0);
        add_noise(x, 0.01, rng);
        add_tone(x, 100.25, windowed_amplitude(10.0, 0.01, n));
        plain.detect(x.data(), r);
        found_plain += found_near(r, 100.25);
        held.detect(x.data(), r);
        found_held += found_near(r, 100.25);
        check_thresholds(r);
        for (const auto& s : r.signals)
            if (s.held) {
                ++held_signals;
                held_db = held_db > 0 ? std::min(held_db, r.held_threshold_db)
                                      : r.held_threshold_db;
                held_db_max = std::max(held_db_max, r.held_threshold_db);
                // a false signal of the frame before is looked at again too
                held_elsewhere += std::fabs(s.center_bin - 100.25) >= 3;
            }
    }
    std::printf("tone 10 dB in %d frames: found %d not held, %d held (%d held signals, "
                "%d elsewhere; held threshold %.2f to %.2f dB against %.2f)\n",
                frames,
                found_plain,
                found_held,
                held_signals,
                held_elsewhere,
                held_db,
                held_db_max,
                held.threshold_db());
    GPUFFT_CHECK(found_held >= found_plain + frames / 4);
    // Held signals away from the tone are noise peaks of the frame before that passed
    // the held test again (and then may be held again): 3000 frames at false_alarm
    // 0.01 make about 30 such tests. Measured over 200 seeds: 0-6, mean 1.6 (6 in 1 %
    // of them, which the bound of 5 here failed); 10 still fails a held test that
    // passes noise a third of the time.
    GPUFFT_CHECK_LE(held_elsewhere, 10);
    GPUFFT_CHECK(held_db > 0 && held_db < held.threshold_db() - 2.0);
    GPUFFT_CHECK(held_db_max < held.threshold_db());

    sensing_plan noise(n, with_frames(8, 2));
    const int noise_frames = 20000;
    int hit = 0, held_noise = 0;
    for (int f = 0; f < noise_frames; ++f) {
        cvec y(std::size_t(n), 0);
        add_noise(y, 0.01, rng);
        noise.detect(y.data(), r);
        check_thresholds(r);
        hit += !r.signals.empty();
        for (const auto& s : r.signals)
            held_noise += s.held;
    }
    std::printf("noise, held over 2 frames: %d of %d frames with a signal (%d held)\n",
                hit,
                noise_frames,
                held_noise);
    GPUFFT_CHECK(hit <= int(1.3 * 0.01 * noise_frames));
    // Held noise peaks: 0-7 over 30 seeds, mean 2.7; 15 or more has the chance 2e-7
    // (11, the old bound, 1.3e-4). A held test that passes noise a third of the time
    // gives about 57.
    GPUFFT_CHECK(held_noise <= 14);
}

GPUFFT_TEST(floor_frames_out_of_range_names_it)
{
    GPUFFT_CHECK_THROWS(
        sensing_plan(4096, with_frames(0)), std::invalid_argument, "floor_frames");
    GPUFFT_CHECK_THROWS(
        sensing_plan(4096, with_frames(1025)), std::invalid_argument, "floor_frames");
    sensing_options o = with_frames(8);
    o.watch_frames = -1;
    GPUFFT_CHECK_THROWS(sensing_plan(4096, o), std::invalid_argument, "watch_frames");
    o.watch_frames = 9;
    GPUFFT_CHECK_THROWS(sensing_plan(4096, o), std::invalid_argument, "watch_frames");
    sensing_plan plan(4096, with_frames(1024));
    GPUFFT_CHECK(plan.describe().find("floor_frames=1024") != std::string::npos);
}

GPUFFT_TEST_MAIN()
