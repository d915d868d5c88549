/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Signals into transmissions: bursts and hops are separate transmissions, emitters a
// few bins apart stay apart, a hold bridges a missed frame.

#include "reference.h"
#include "stream/transmission_tracker.h"
#include "test_harness.h"
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>

using namespace gr::gpufft::stream;

namespace {

frame_signal sig(double lo, double hi, double snr = 20)
{
    frame_signal s;
    s.lower_hz = lo;
    s.upper_hz = hi;
    s.center_hz = 0.5 * (lo + hi);
    s.snr_db = snr;
    s.peak_power_dbfs = -40 + snr;
    s.total_power_dbfs = -40 + snr;
    return s;
}

// An RTL-SDR's DC at 2 MS/s in 8192-point frames: one dc signal a frame, signal_of(f),
// through a tracker of hold 2; the transmissions, flushed at the end.
constexpr std::int64_t dc_len = 8192;
template <typename SignalOf>
std::vector<transmission> track_dc(int frames, const SignalOf& signal_of)
{
    transmission_tracker tr(2);
    std::vector<transmission> ended;
    for (int f = 0; f < frames; ++f) {
        std::vector<frame_signal> s{ signal_of(f) };
        s.back().dc = true;
        tr.update(f * dc_len, dc_len, 2e6, 2e6 / double(dc_len), s, ended);
    }
    tr.flush(ended);
    return ended;
}

} // namespace

GPUFFT_TEST(bursts_are_separate_transmissions)
{
    transmission_tracker tr(1);
    std::vector<transmission> ended;
    const std::int64_t len = 1000;
    // On for 3 frames, off for 5, on for 2: two transmissions.
    for (int f = 0; f < 10; ++f) {
        std::vector<frame_signal> s;
        if (f < 3 || f >= 8)
            s.push_back(sig(100, 200));
        tr.update(f * len, len, 1e4, 10, s, ended);
    }
    tr.flush(ended);
    GPUFFT_CHECK_EQ(ended.size(), std::size_t(2));
    if (ended.size() == 2) {
        GPUFFT_CHECK_EQ(ended[0].start_sample, std::int64_t(0));
        GPUFFT_CHECK_EQ(ended[0].sample_count, std::int64_t(3 * len));
        GPUFFT_CHECK_EQ(ended[0].frames, 3);
        GPUFFT_CHECK_EQ(ended[1].start_sample, std::int64_t(8 * len));
        GPUFFT_CHECK_EQ(ended[1].sample_count, std::int64_t(2 * len));
        GPUFFT_CHECK(std::fabs(ended[0].duration_s - 0.3) < 1e-12);
        GPUFFT_CHECK(std::fabs(ended[0].bandwidth_hz - 100) < 1e-9);
    }
}

GPUFFT_TEST(a_hold_bridges_one_missed_frame)
{
    transmission_tracker tr(1);
    std::vector<transmission> ended;
    for (int f = 0; f < 6; ++f) {
        std::vector<frame_signal> s;
        if (f != 2)
            s.push_back(sig(100, 200));
        tr.update(f * 100, 100, 1e4, 10, s, ended);
    }
    tr.flush(ended);
    GPUFFT_CHECK_EQ(ended.size(), std::size_t(1));
    if (!ended.empty())
        GPUFFT_CHECK_EQ(ended[0].frames, 5);
}

// A wide carrier whose band breaks into pieces in some frames (its spectrum dips
// under the threshold between them, as an LTE carrier's does) is one transmission;
// pieces that open separately and join later merge; an emitter beside the carrier,
// not overlapping it, stays apart.
GPUFFT_TEST(a_band_broken_into_pieces_stays_one_transmission)
{
    transmission_tracker tr(1);
    std::vector<transmission> ended;
    const std::int64_t len = 100;
    for (int f = 0; f < 12; ++f) {
        std::vector<frame_signal> s;
        if (f == 0 || f % 3 == 1) // broken: three pieces (the first frame opens three)
            s = { sig(0, 300), sig(350, 650), sig(700, 1000) };
        else
            s = { sig(0, 1000) };
        s.push_back(sig(1100, 1200)); // a neighbour 100 Hz above (bins of 10 Hz)
        tr.update(f * len, len, 1e4, 10, s, ended);
    }
    tr.flush(ended);
    GPUFFT_CHECK_EQ(ended.size(), std::size_t(2));
    if (ended.size() == 2) {
        const auto& wide = ended[0].upper_hz > 1050 ? ended[1] : ended[0];
        const auto& narrow = ended[0].upper_hz > 1050 ? ended[0] : ended[1];
        GPUFFT_CHECK_EQ(wide.start_sample, std::int64_t(0));
        GPUFFT_CHECK_EQ(wide.sample_count, std::int64_t(12 * len));
        GPUFFT_CHECK(std::fabs(wide.lower_hz) < 1e-9);
        GPUFFT_CHECK(std::fabs(wide.upper_hz - 1000) < 1e-9);
        GPUFFT_CHECK(std::fabs(narrow.bandwidth_hz - 100) < 1e-9);
        GPUFFT_CHECK_EQ(narrow.frames, 12);
    }
}

GPUFFT_TEST(close_emitters_stay_apart_and_hops_are_new)
{
    transmission_tracker tr(1);
    std::vector<transmission> ended;
    // Two emitters 3 kHz apart (bins of 1 kHz), both always on; and a hopper that
    // moves every 2 frames.
    for (int f = 0; f < 8; ++f) {
        std::vector<frame_signal> s = { sig(10e3, 12e3),
                                        sig(15e3, 17e3),
                                        sig(100e3 + 50e3 * (f / 2),
                                            101e3 + 50e3 * (f / 2)) };
        tr.update(f * 100, 100, 1e6, 1e3, s, ended);
    }
    tr.flush(ended);
    // 2 emitters + 4 hops.
    GPUFFT_CHECK_EQ(ended.size(), std::size_t(6));
    int whole = 0;
    for (const auto& t : ended)
        whole += t.frames == 8 ? 1 : 0;
    GPUFFT_CHECK_EQ(whole, 2);
}

// A TDD carrier (on 4 frames, off 3) over the radio's DC spike: while the carrier is
// off, the spike alone lies inside its last edges; it must not chain the bursts into
// one row (nor start rows of its own while the carrier is in its hold).
GPUFFT_TEST(a_dc_spike_inside_a_tdd_carrier_does_not_chain_its_bursts)
{
    transmission_tracker tr(2);
    std::vector<transmission> ended;
    const std::int64_t len = 100;
    for (int f = 0; f < 20; ++f) {
        std::vector<frame_signal> s;
        if (f % 7 < 4)
            s.push_back(sig(-9e3, 9e3));
        else
            s.push_back(sig(-20, 20));
        s.back().dc = true;
        tr.update(f * len, len, 1e5, 10, s, ended);
    }
    tr.flush(ended);
    int wide = 0;
    for (const auto& t : ended)
        if (t.bandwidth_hz > 1000) {
            ++wide;
            GPUFFT_CHECK_EQ(t.sample_count, std::int64_t(4 * len));
            GPUFFT_CHECK_EQ(t.start_sample % (7 * len), std::int64_t(0));
        }
    GPUFFT_CHECK_EQ(wide, 3);
}

// A burst whose band takes in the DC spike (an ADS-B message 12 kHz off DC: one dc
// signal 25 kHz wide in its frame) while the spike's row is on is a transmission of its
// own. It was dropped as "the spike inside a carrier in its hold", the rule read the
// other way round (the row the spike, the signal the carrier): no row had the burst.
// And a signal on DC a few times the spike's width three frames later (another message,
// 3 kHz off DC) merged the burst, still in its hold, into the spike's row.
GPUFFT_TEST(a_burst_over_the_dc_spike_is_not_dropped)
{
    const std::int64_t len = dc_len;
    const auto ended = track_dc(12, [](int f) {
        return f == 3 ? sig(-24.9e3, 0.9e3) : f == 6 ? sig(-500, 6.5e3) : sig(-500, 500);
    });
    GPUFFT_CHECK_EQ(ended.size(), std::size_t(2));
    int bursts = 0, spikes = 0;
    for (const auto& t : ended) {
        if (t.lower_hz < -20e3) {
            ++bursts;
            GPUFFT_CHECK_EQ(t.start_sample, std::int64_t(3 * len));
            // Frame 6's signal overlaps it more than the spike's row: its continuation.
            GPUFFT_CHECK_EQ(t.frames, 2);
            GPUFFT_CHECK(t.dc);
        } else {
            ++spikes;
            GPUFFT_CHECK(t.lower_hz > -1000);
        }
    }
    GPUFFT_CHECK_EQ(bursts, 1);
    GPUFFT_CHECK_EQ(spikes, 1);
}

// The DC spike keeps its row beside a burst's row on DC. A message 3 kHz off DC
// continues the burst's row (its last edges now the spike's and 4 kHz more); the next
// frames' spike, a hair wider than its own row's last edges, overlapped the burst's row
// more, took it, and the spike's row ended after its hold.
GPUFFT_TEST(the_dc_spike_keeps_its_row_beside_a_bursts)
{
    const std::int64_t len = dc_len, frames = 16;
    const auto ended = track_dc(int(frames), [](int f) {
        return f < 3    ? sig(-550, 550)
               : f == 3 ? sig(-24.9e3, 0.9e3)
               : f == 4 ? sig(-600, 4.3e3)
                        : sig(-500, 600);
    });
    int spike_rows = 0;
    for (const auto& t : ended)
        if (t.start_sample == 0) {
            ++spike_rows;
            GPUFFT_CHECK_EQ(t.sample_count, frames * len);
            GPUFFT_CHECK(t.upper_hz - t.lower_hz < 1200);
        }
    GPUFFT_CHECK_EQ(spike_rows, 1);
}

// The DC spike under bursts over DC for longer than its hold (ADS-B messages over DC in
// four frames in a row) is hidden, as a steady line is: one row, where it ended and a
// row of a burst's went on as the spike's.
GPUFFT_TEST(the_dc_spike_under_bursts_is_hidden_not_ended)
{
    const std::int64_t len = dc_len, frames = 24;
    const auto ended = track_dc(int(frames), [](int f) {
        return f >= 10 && f < 14 ? sig(-24e3 + 1e3 * f, 0.5e3) : sig(-500, 500);
    });
    int spike_rows = 0;
    for (const auto& t : ended)
        if (t.upper_hz - t.lower_hz < 1200) {
            ++spike_rows;
            GPUFFT_CHECK_EQ(t.start_sample, std::int64_t(0));
            GPUFFT_CHECK_EQ(t.sample_count, frames * len);
            GPUFFT_CHECK_EQ(t.frames, int(frames) - 4);
        }
    GPUFFT_CHECK_EQ(spike_rows, 1);
    GPUFFT_CHECK_EQ(ended.size(), std::size_t(2)); // and the bursts' row
}

// The spike's row keeps the spike's edges when a message over DC a few times wider
// continues it, so the next frame's message, 8 times the spike's width but not the last
// one's, is a row of its own. The spike's row took both, its edges 1.1 -> 7 -> 23 kHz.
GPUFFT_TEST(the_dc_spike_row_keeps_its_edges)
{
    const std::int64_t len = dc_len, frames = 20;
    const auto ended = track_dc(int(frames), [](int f) {
        return f == 10   ? sig(-550, 6.5e3, 22)
               : f == 11 ? sig(-22.5e3, 550, 24)
                         : sig(-550, 550);
    });
    GPUFFT_CHECK_EQ(ended.size(), std::size_t(2));
    for (const auto& t : ended)
        if (t.start_sample == 0) {
            GPUFFT_CHECK(t.upper_hz - t.lower_hz < 1200);
            GPUFFT_CHECK_EQ(t.sample_count, frames * len);
        } else {
            GPUFFT_CHECK_EQ(t.start_sample, 11 * len);
            GPUFFT_CHECK(t.lower_hz < -20e3);
        }
}

// A signal near the threshold, found in one frame of two to five while it is on (an
// intermod product, a weak spur), is one transmission (its hold grows: seen in 2/5 of
// its frames, missing it 9 frames in a row has a chance under 1 %); a pulse train whose
// pulses are found in every frame they last stays one transmission a pulse. Seeded gaps.
GPUFFT_TEST(a_flickering_signal_is_one_transmission_a_pulse_train_is_not)
{
    const std::uint64_t seed = gpufft_test::fresh_seed();
    std::printf("seed %llu\n", (unsigned long long)seed);
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int> gap(1, 4);
    transmission_tracker tr(2);
    std::vector<transmission> ended;
    const std::int64_t len = 100;
    int pulses = 0, next = 10, found = 0;
    for (int f = 0; f < 300; ++f) {
        std::vector<frame_signal> s;
        // the flicker: on in frames 10..249, found after 1-2 misses for its first 6
        // frames (its rate is learnt), then after 1-4
        if (f >= 10 && f < 250 && f == next) {
            s.push_back(sig(1000, 1040, 11));
            next = f + 1 + (++found < 6 ? 1 + found % 2 : gap(rng));
        }
        // the pulse train: 7 frames on, 7 off
        if (f % 14 < 7) {
            s.push_back(sig(5000, 5020, 30));
            pulses += f % 14 == 0;
        }
        tr.update(f * len, len, 1e5, 10, s, ended);
    }
    tr.flush(ended);
    int flicker = 0, train = 0;
    for (const auto& t : ended)
        (t.center_hz < 3000 ? flicker : train)++;
    GPUFFT_CHECK_EQ(flicker, 1);
    GPUFFT_CHECK_EQ(train, pulses);
}

// A pulse train (7 frames on, 7 off) whose bins held a single sighting 11 frames before
// its first pulse (a burst's splatter, a split band): the sighting waits as a line
// (line_memory) and the first pulse continues it; the row, 1 of 19 frames seen, then
// 8 of 20, counted as flickering, and its hold bridged every off time after: on the
// OOK capture a pulse train's 15 rows became one.
GPUFFT_TEST(a_sighting_before_a_pulse_train_does_not_chain_its_pulses)
{
    transmission_tracker tr(2);
    std::vector<transmission> ended;
    const std::int64_t len = 100;
    int pulses = 0;
    for (int f = 0; f < 200; ++f) {
        std::vector<frame_signal> s;
        if (f == 0)
            s.push_back(sig(5000, 5020, 12));
        if (f >= 11 && (f - 11) % 14 < 7) {
            s.push_back(sig(5000, 5020, 20));
            pulses += (f - 11) % 14 == 0;
        }
        tr.update(f * len, len, 1e5, 10, s, ended);
    }
    tr.flush(ended);
    std::printf("  %d pulses, %zu rows\n", pulses, ended.size());
    for (const auto& t : ended)
        std::printf(
            "    frames %d from sample %lld\n", t.frames, (long long)t.start_sample);
    // the sighting with the first pulse, or on its own: each pulse after is a row
    GPUFFT_CHECK(int(ended.size()) >= pulses);
    GPUFFT_CHECK(int(ended.size()) <= pulses + 1);
}

// Two FM stations 400 kHz apart, each 180 kHz wide, seen apart frame after frame; their
// skirts fill the gap between them now and then and a frame's band takes in both (11
// of 292 frames in a synthetic FM band). Each brief join left one row for both from
// then on; now each station stays its row. Joined in hold_frames + 2 frames in a row or
// more they merge, and split again once apart in apart_frames frames in a row: two
// rows either way.
GPUFFT_TEST(two_emitters_a_band_joins_now_and_then_stay_two_rows)
{
    const std::uint64_t seed = gpufft_test::fresh_seed();
    std::printf("  seed %llu\n", (unsigned long long)seed);
    std::mt19937_64 rng(seed);
    for (const int run : { 1, 2, 3, 4, 8 }) { // joined frames in a row
        transmission_tracker tr(2);
        std::vector<transmission> ended;
        // joins at seeded frames, at least 10 frames apart, the first from frame 4 on
        std::vector<int> joins;
        for (int f = 4 + int(rng() % 6); f < 150; f += run + 10 + int(rng() % 20))
            joins.push_back(f);
        for (int f = 0; f < 200; ++f) {
            const bool joined = std::any_of(
                joins.begin(), joins.end(), [&](int j) { return f >= j && f < j + run; });
            std::vector<frame_signal> s;
            if (joined)
                s = { sig(-990e3, -410e3, 40) };
            else
                s = { sig(-990e3, -810e3, 40), sig(-590e3, -410e3, 30) };
            tr.update(f * 4096, 4096, 2.4e6, 2.4e6 / 4096, s, ended);
        }
        tr.flush(ended);
        std::printf("  joined %d frames in a row, %zu times: %zu rows\n",
                    run,
                    joins.size(),
                    ended.size());
        GPUFFT_CHECK_EQ(ended.size(), std::size_t(2));
        if (ended.size() == 2)
            for (const auto& t : ended) {
                GPUFFT_CHECK(t.upper_hz - t.lower_hz < 200e3);
                GPUFFT_CHECK_EQ(t.start_sample, std::int64_t(0));
            }
    }
}

// Two emitters one band took in from their first frame (their skirts, or an IQ image
// between them, fill the gap) and apart after it are two rows, each from its own start:
// FM stations 400 kHz apart on from frame 0, joined in its first 1-5 frames, a line
// inside the gap in some frames; a neighbour that starts at frame 50, joined to the
// carrier beside it in its first frame. Before, each pair was one row to the end. A
// carrier whose load leaves a gap that moves from frame to frame, or a narrow one (1.5
// MHz between pieces of 8-9 MHz, as in the LTE captures), stays one row.
GPUFFT_TEST(two_emitters_joined_from_their_first_frame_split_into_two_rows)
{
    const std::uint64_t seed = gpufft_test::fresh_seed();
    std::printf("  seed %llu\n", (unsigned long long)seed);
    std::mt19937_64 rng(seed);
    const double bin = 2.4e6 / 4096;
    const auto run = [&](int start_b, int joined, bool line) {
        transmission_tracker tr(2);
        std::vector<transmission> ended;
        for (int f = 0; f < 200; ++f) {
            std::vector<frame_signal> s;
            if (f < start_b)
                s = { sig(-990e3, -810e3, 40) };
            else if (f < start_b + joined)
                s = { sig(-990e3, -410e3, 40) };
            else
                s = { sig(-990e3 + bin * double(rng() % 8),
                          -810e3 - bin * double(rng() % 8),
                          40),
                      sig(-590e3, -410e3, 30) };
            if (line && f >= start_b + joined && rng() % 3 == 0) // an image in the gap
                s.insert(s.begin() + 1, sig(-702e3, -698e3, 12));
            tr.update(f * 4096, 4096, 2.4e6, 2.4e6 / 4096, s, ended);
        }
        tr.flush(ended);
        return ended;
    };
    for (const int joined : { 1, 2, 5 })
        for (const bool line : { false, true }) {
            const auto ended = run(0, joined, line);
            int stations = 0;
            for (const auto& t : ended)
                if (t.upper_hz - t.lower_hz > 100e3) {
                    ++stations;
                    GPUFFT_CHECK(t.upper_hz - t.lower_hz < 200e3);
                    GPUFFT_CHECK_EQ(t.start_sample, std::int64_t(0));
                    GPUFFT_CHECK_EQ(t.sample_count, std::int64_t(200 * 4096));
                }
            std::printf("  joined in the first %d frames%s: %zu rows, %d stations\n",
                        joined,
                        line ? ", a line in the gap" : "",
                        ended.size(),
                        stations);
            GPUFFT_CHECK_EQ(stations, 2);
        }
    const auto late = run(50, 1, false);
    GPUFFT_CHECK_EQ(late.size(), std::size_t(2));
    for (const auto& t : late) {
        const bool upper = t.center_hz > -700e3;
        std::printf("  row %.0f..%.0f Hz from sample %lld\n",
                    t.lower_hz,
                    t.upper_hz,
                    (long long)t.start_sample);
        GPUFFT_CHECK_EQ(t.start_sample, std::int64_t(upper ? 50 * 4096 : 0));
        GPUFFT_CHECK(t.upper_hz - t.lower_hz < 200e3);
    }
    // A carrier 18 MHz wide broken by its load: a gap of 1-3 MHz that moves from frame
    // to frame, and in some frames a gap of 1.5 MHz at one place between pieces of 8 and
    // 9 MHz.
    transmission_tracker tr(2);
    std::vector<transmission> ended;
    for (int f = 0; f < 200; ++f) {
        std::vector<frame_signal> s;
        const double at = -6e6 + 1e6 * double(rng() % 12),
                     gap = 1e6 + 1e5 * double(rng() % 20);
        if (f % 4 == 0)
            s = { sig(-9e6, 9e6, 30) };
        else if (f % 4 == 1)
            s = { sig(-9e6, -1e6, 30), sig(0.5e6, 9e6, 30) };
        else
            s = { sig(-9e6, at, 30), sig(at + gap, 9e6, 30) };
        tr.update(f * 65536, 65536, 20e6, 20e6 / 65536, s, ended);
    }
    tr.flush(ended);
    std::printf("  a carrier with gaps that move: %zu rows\n", ended.size());
    GPUFFT_CHECK_EQ(ended.size(), std::size_t(1));
}

// A weak line seen in single frames 3-5 frames apart (a spur just over the threshold,
// an intermod product keyed with its carrier) is one transmission from its first
// sighting: one frame says nothing of its rate yet (p = 1/2 by Laplace's rule: a hold
// of 7 frames). A sighting 20 frames after the last is another transmission.
GPUFFT_TEST(a_line_seen_in_isolated_frames_is_one_transmission)
{
    transmission_tracker tr(2);
    std::vector<transmission> ended;
    const int seen[] = { 10, 14, 17, 22, 26, 29, 35, 55 };
    for (int f = 0, i = 0; f < 70; ++f) {
        std::vector<frame_signal> s;
        if (i < 8 && f == seen[i]) {
            s.push_back(sig(1000, 1020, 11));
            ++i;
        }
        tr.update(f * 100, 100, 1e5, 10, s, ended);
    }
    tr.flush(ended);
    GPUFFT_CHECK_EQ(ended.size(), std::size_t(2));
    if (ended.size() == 2) {
        GPUFFT_CHECK_EQ(ended[0].frames, 7);
        GPUFFT_CHECK_EQ(ended[0].start_sample, std::int64_t(1000));
        GPUFFT_CHECK_EQ(ended[0].sample_count, std::int64_t(2600));
        GPUFFT_CHECK_EQ(ended[1].frames, 1);
    }
}

// A line near the threshold found in single frames 10-30 frames apart (a spur, an
// intermod product keyed with its carrier: the NFM capture's +121 kHz spur) is one
// transmission: the flicker hold's cap (8 x hold_frames) ended it 16 frames after a
// sighting, a row every sighting or two; now, while missing it that long still has a
// chance over 1 % given its sightings, a signal on its bins continues it (the tracker's
// line_memory). A second such line 3 bins above stays its own; a hopper's hops (2
// frames each, 5 channels in turn, each channel again 10 frames later) stay a row a
// hop; after a gap longer than the memory the line is another transmission; with
// line_memory 0 the line is many rows, as before. Seeded gaps.
GPUFFT_TEST(an_intermittent_line_is_one_transmission_hops_and_neighbours_are_not)
{
    const std::uint64_t seed = gpufft_test::fresh_seed();
    std::printf("seed %llu\n", (unsigned long long)seed);
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int> gap(10, 30);
    // sightings: the first three at set gaps (a rate to learn from), then 10-30 apart
    const auto sightings = [&](int first, int a, int b) {
        std::vector<int> f = { first, first + a, first + a + b };
        while (f.back() < 900)
            f.push_back(f.back() + gap(rng));
        return f;
    };
    std::vector<int> line_a = sightings(20, 8, 12), line_b = sightings(25, 9, 11);
    const int a_first = int(line_a.size());
    line_a.push_back(1300); // after 400 dark frames (the memory: 64 x 2 frames)
    const auto rows = [&](int line_memory, int& a, int& b, int& hops, int& hop_rows) {
        transmission_tracker tr(2, line_memory);
        std::vector<transmission> ended;
        std::size_t ia = 0, ib = 0;
        hops = 0;
        for (int f = 0; f < 1320; ++f) {
            std::vector<frame_signal> s;
            if (ia < line_a.size() && f == line_a[ia]) {
                s.push_back(sig(1000, 1020, 11.5));
                ++ia;
            }
            if (ib < line_b.size() && f == line_b[ib]) {
                s.push_back(sig(1050, 1070, 11.5));
                ++ib;
            }
            if (f < 200) {
                const double c = 5000 + 200 * ((f / 2) % 5);
                s.push_back(sig(c, c + 40, 25));
                hops += f % 2 == 0;
            }
            tr.update(f * 100, 100, 1e5, 10, s, ended);
        }
        tr.flush(ended);
        a = b = hop_rows = 0;
        for (const auto& t : ended) {
            if (t.center_hz < 1030) {
                ++a;
                if (t.start_sample == 2000 && line_memory > 0)
                    GPUFFT_CHECK_EQ(t.frames, a_first);
            } else if (t.center_hz < 1100) {
                ++b;
            } else {
                ++hop_rows;
                GPUFFT_CHECK_EQ(t.frames, 2);
            }
        }
    };
    int a = 0, b = 0, hops = 0, hop_rows = 0;
    rows(transmission_tracker::default_line_memory, a, b, hops, hop_rows);
    std::printf("line a: %d rows (%d sightings), line b: %d rows (%d), hopper: %d rows "
                "for %d hops\n",
                a,
                int(line_a.size()),
                b,
                int(line_b.size()),
                hop_rows,
                hops);
    GPUFFT_CHECK_EQ(a, 2);
    GPUFFT_CHECK_EQ(b, 1);
    GPUFFT_CHECK_EQ(hop_rows, hops);
    rows(0, a, b, hops, hop_rows);
    std::printf("line_memory 0: line a %d rows, line b %d rows\n", a, b);
    GPUFFT_CHECK(a > 10 && b > 10);
    GPUFFT_CHECK_EQ(hop_rows, hops);
}

// The chance of missing a line after its sightings (a uniform prior on its rate):
// seen once, 13 frames (2 / ((m + 1)(m + 2)) <= 1 % from m = 13); against a direct sum.
GPUFFT_TEST(a_lines_miss_chance_matches_a_direct_sum)
{
    GPUFFT_CHECK(transmission_tracker::may_still_be_on(1, 1, 12));
    GPUFFT_CHECK(!transmission_tracker::may_still_be_on(1, 1, 13));
    // found 3 of 20, missed m: E[(1 - p)^m] under Beta(4, 18) by a midpoint sum
    for (int m : { 10, 30, 50, 70 }) {
        const int k = 3, n = 20, steps = 200000;
        double num = 0, den = 0;
        for (int i = 0; i < steps; ++i) {
            const double p = (i + 0.5) / steps;
            const double w = std::pow(p, k) * std::pow(1 - p, n - k);
            num += w * std::pow(1 - p, m);
            den += w;
        }
        const bool on = num / den > transmission_tracker::flicker_miss_chance;
        GPUFFT_CHECK_EQ(transmission_tracker::may_still_be_on(k, n, m), on);
    }
}

// A wide band that comes back as pieces each narrower than an eighth of it (a carrier
// under light load) is still the same transmission when they cover an eighth of it.
// A weak line that the plan's held test follows (sensing_options::watch_frames): found
// by the band's threshold in one frame, then held for stretches of 6-10 frames, lost
// for 3-6 frames in fades between them, is one transmission: the frames seen only by
// the held test do not count in its rate (before, each stretch looked like a burst seen
// in every frame of its span and took the plain hold: a row a stretch). A pulse train
// beside it, found by the band's threshold, keeps a row a pulse.
GPUFFT_TEST(a_held_line_over_fades_is_one_transmission_a_pulse_train_is_not)
{
    const std::uint64_t seed = gpufft_test::fresh_seed();
    std::printf("seed %llu\n", (unsigned long long)seed);
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int> on(6, 10), off(3, 6);
    transmission_tracker tr(2);
    std::vector<transmission> ended;
    int pulses = 0, f = 0;
    const auto frame = [&](bool line, bool held) {
        std::vector<frame_signal> s;
        if (line) {
            s.push_back(sig(1000, 1040, held ? 8 : 11));
            s.back().held = held;
        }
        if (f % 14 < 7) {
            s.push_back(sig(5000, 5020, 30));
            pulses += f % 14 == 0;
        }
        tr.update(f * 100, 100, 1e5, 10, s, ended);
        ++f;
    };
    for (int stretch = 0; stretch < 20; ++stretch) {
        const int m = on(rng);
        for (int i = 0; i < m; ++i)
            frame(true, i > 0);
        const int k = off(rng);
        for (int i = 0; i < k; ++i)
            frame(false, false);
    }
    tr.flush(ended);
    int line = 0, train = 0;
    for (const auto& t : ended)
        (t.center_hz < 3000 ? line : train)++;
    std::printf(
        "held line: %d rows; pulse train: %d rows for %d pulses\n", line, train, pulses);
    GPUFFT_CHECK_EQ(line, 1);
    GPUFFT_CHECK_EQ(train, pulses);
}

// A carrier seen whole, then only as a narrow line inside it (its last edges shrink to
// the line's), then in two pieces: the piece over the line continues it, the other
// opened a transmission of its own and ran beside it while the carrier stayed in
// pieces (the LTE FDD capture: two rows side by side for one carrier). It lies inside
// the carrier's strongest edges, and both are seen: one transmission.
GPUFFT_TEST(a_piece_that_opened_its_own_transmission_joins_its_carrier)
{
    transmission_tracker tr(2);
    std::vector<transmission> ended;
    for (int f = 0; f < 12; ++f) {
        std::vector<frame_signal> s;
        if (f == 0) {
            s.push_back(sig(0, 18000, 30));
        } else if (f == 1) {
            s.push_back(sig(7000, 7100, 15));
        } else {
            s.push_back(sig(0, 6000, 28));
            s.push_back(sig(6500, 18000, 28));
        }
        tr.update(f * 100, 100, 1e5, 10, s, ended);
    }
    tr.flush(ended);
    GPUFFT_CHECK_EQ(ended.size(), std::size_t(1));
    if (!ended.empty()) {
        GPUFFT_CHECK_EQ(ended[0].start_sample, std::int64_t(0));
        GPUFFT_CHECK_EQ(ended[0].sample_count, std::int64_t(1200));
        GPUFFT_CHECK(ended[0].lower_hz <= 0 && ended[0].upper_hz >= 18000);
    }
}

GPUFFT_TEST(narrow_pieces_that_cover_a_wide_band_continue_it)
{
    transmission_tracker tr(0);
    std::vector<transmission> ended;
    for (int f = 0; f < 4; ++f) {
        std::vector<frame_signal> s;
        if (f % 2 == 0)
            s = { sig(0, 10000) };
        else
            for (int i = 0; i < 10; ++i)
                s.push_back(sig(i * 1000, i * 1000 + 300));
        tr.update(f * 100, 100, 1e5, 10, s, ended);
    }
    tr.flush(ended);
    GPUFFT_CHECK_EQ(ended.size(), std::size_t(1));
}

// A weak wide link for four frames, then a strong burst an eighth of its width or less
// at its edge, alone over it (DroneID: a 0.86 MHz burst at the 12 MHz link's upper
// edge): the burst continues the row, but the row keeps the link's edges. A signal over
// an eighth of the width that is stronger does give the row its edges.
GPUFFT_TEST(a_sliver_of_a_wide_transmission_keeps_its_edges)
{
    for (const double burst : { 1000.0, 2000.0 }) {
        transmission_tracker tr(1);
        std::vector<transmission> ended;
        for (int f = 0; f < 5; ++f) {
            std::vector<frame_signal> s;
            if (f < 4)
                s = { sig(0, 12000, 5) };
            else
                s = { sig(12000 - burst, 12000, 25) };
            tr.update(f * 100, 100, 1e5, 10, s, ended);
        }
        tr.flush(ended);
        GPUFFT_CHECK_EQ(ended.size(), std::size_t(1));
        if (ended.size() == 1) {
            GPUFFT_CHECK_EQ(ended[0].frames, 5);
            const double want = burst * 8 < 12000 ? 12000 : burst;
            std::printf(
                "burst %.0f Hz: row %.0f Hz wide\n", burst, ended[0].bandwidth_hz);
            GPUFFT_CHECK(std::fabs(ended[0].bandwidth_hz - want) < 1e-9);
        }
    }
}

// A 2-FSK burst (tones at 143-147.5 and 152.5-157 kHz, 1 kHz bins) over 10 or 40 frames:
// most frames hold both tones, a third of the odd ones one, and those are its strongest
// (the power of a frame in one tone shows a hair higher). Its row is both tones wide, not
// its strongest frame's one tone (1.9 of 14 kHz on a synthetic POCSAG-like burst before);
// one frame where a neighbour joined the band (to 190 kHz) does not widen it.
GPUFFT_TEST(a_long_transmission_has_the_edges_of_its_frames_not_its_strongest)
{
    const std::uint64_t seed = gpufft_test::fresh_seed();
    std::printf("  seed %llu\n", (unsigned long long)seed);
    std::mt19937_64 rng(seed);
    for (const int frames : { 10, 40 }) {
        transmission_tracker tr(1);
        std::vector<transmission> ended;
        const int joined = int(rng() % std::uint64_t(frames));
        for (int f = 0; f < frames; ++f) {
            frame_signal s = sig(143e3, 157e3, 20);
            // one tone only in odd frames: two in a row would be two rows (disjoint)
            const auto pick = f % 2 ? rng() % 3 : 2;
            if (f == joined)
                s = sig(143e3, 190e3, 20);
            else if (pick == 0)
                s = sig(143e3, 147.5e3, 20.1);
            else if (pick == 1)
                s = sig(152.5e3, 157e3, 20.1);
            tr.update(f * 1000, 1000, 1e6, 1000, { s }, ended);
        }
        tr.flush(ended);
        GPUFFT_CHECK_EQ(ended.size(), std::size_t(1));
        if (ended.size() == 1) {
            std::printf("  %d frames: %.1f..%.1f kHz\n",
                        frames,
                        ended[0].lower_hz / 1e3,
                        ended[0].upper_hz / 1e3);
            GPUFFT_CHECK_EQ(ended[0].frames, frames);
            GPUFFT_CHECK_EQ(ended[0].lower_hz, 143e3);
            GPUFFT_CHECK_EQ(ended[0].upper_hz, 157e3);
            GPUFFT_CHECK_EQ(ended[0].bandwidth_hz, 14e3);
        }
    }
}

// A carrier on for longer than the tracker records frames (edge_record_cap): its edges
// wander over 100 Hz each frame; the row's edges are the trimmed quantiles of all its
// frames' (the 10th percentile of the lower edges, -1090 Hz; the 90th of the upper,
// +1090 Hz), from an even sample of its frames.
GPUFFT_TEST(a_carrier_past_the_edge_record_has_its_frames_quantiles)
{
    const std::uint64_t seed = gpufft_test::fresh_seed();
    std::printf("  seed %llu\n", (unsigned long long)seed);
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> wander(0, 100);
    transmission_tracker tr(1);
    std::vector<transmission> ended;
    const int frames = 5 * int(transmission_tracker::edge_record_cap) + 17;
    for (int f = 0; f < frames; ++f)
        tr.update(f * 100,
                  100,
                  1e5,
                  10,
                  { sig(-1000 - wander(rng), 1000 + wander(rng)) },
                  ended);
    tr.flush(ended);
    GPUFFT_CHECK_EQ(ended.size(), std::size_t(1));
    if (ended.size() == 1) {
        std::printf(
            "  %d frames: %.2f..%.2f Hz\n", frames, ended[0].lower_hz, ended[0].upper_hz);
        GPUFFT_CHECK_EQ(ended[0].frames, frames);
        // The sample holds 512-1024 frames: a quantile's standard deviation is under
        // 1.4 Hz; 8 Hz is over 5.7 of them (a failure by chance 2e-8 a run). Its
        // strongest frame's edges (the first frame's: all have one power) would pass
        // both in 2.6 % of runs.
        GPUFFT_CHECK(std::fabs(ended[0].lower_hz + 1090) < 8);
        GPUFFT_CHECK(std::fabs(ended[0].upper_hz - 1090) < 8);
    }
}

// A wide FSK burst's own spectrum at its edges (wM-Bus): in its onset frame a line
// beyond its bins of that frame, inside those of the next; in later frames a line at the
// edge of its bins of the frames before, where the band this frame began higher. Both
// are the burst's (6 rows for 2 bursts on the capture before). What stays apart: a line
// deeper inside a burst's extent, a line at the edge of a pulse whose keying widened
// its bins once (a line in its strongest frame), and two lines 3 bins apart.
GPUFFT_TEST(a_bursts_own_spectrum_at_its_edges_is_part_of_it)
{
    transmission_tracker tr(2);
    std::vector<transmission> ended;
    const std::int64_t len = 100;
    const double bin = 1e3;
    const auto with_core = [](frame_signal s, double lo, double hi) {
        s.core_lower_hz = lo;
        s.core_upper_hz = hi;
        return s;
    };
    for (int f = 0; f < 60; ++f) {
        std::vector<frame_signal> s;
        // burst 1, frames 10-12: its onset frame holds a line at +240 kHz
        if (f == 10) {
            s.push_back(with_core(sig(-150e3, 80e3, 40), -160e3, 100e3));
            s.push_back(with_core(sig(240e3, 243e3, 15), 239.5e3, 243.5e3));
        } else if (f == 11 || f == 12) {
            s.push_back(with_core(sig(-150e3, 190e3, 40), -170e3, 300e3));
        }
        // burst 2, frames 40-45: its band's lower edge at -160.5 kHz in even frames,
        // at -125 kHz in odd ones with a line at the edge beside it; a line deeper
        // inside, 3 kHz under the upper edge, in frames 41 and 43
        if (f >= 40 && f <= 45) {
            if (f % 2 == 0) {
                s.push_back(with_core(sig(-125e3, 80e3, 40), -160.5e3, 100e3));
            } else {
                s.push_back(with_core(sig(-110e3, 80e3, 40), -125e3, 90e3));
                s.push_back(with_core(sig(-161.2e3, -160.6e3, 15), -161.5e3, -160.5e3));
                if (f < 45)
                    s.push_back(with_core(sig(95e3, 97e3, 15), 94.5e3, 97.5e3));
            }
        }
        // a pulse at +700 kHz, frames 50-52, its keying widening its bins in the first;
        // a line at the edge of those in the second
        if (f >= 50 && f <= 52)
            s.push_back(with_core(sig(700e3, 703e3, 30),
                                  f == 50 ? 680e3 : 699.5e3,
                                  f == 50 ? 720e3 : 703.5e3));
        if (f == 51)
            s.push_back(with_core(sig(718.6e3, 719.6e3, 15), 718.5e3, 719.5e3));
        // two lines 3 bins apart, always on
        s.push_back(sig(500e3, 502e3, 20));
        s.push_back(sig(505e3, 507e3, 20));
        std::sort(s.begin(), s.end(), [](const frame_signal& a, const frame_signal& b) {
            return a.center_hz < b.center_hz;
        });
        tr.update(f * len, len, 1e6, bin, s, ended);
    }
    tr.flush(ended);
    int bursts = 0, deep = 0, pulse = 0, beside_pulse = 0, close_lines = 0, other = 0;
    for (const auto& t : ended) {
        if (t.bandwidth_hz > 100e3)
            ++bursts;
        else if (t.center_hz > 90e3 && t.center_hz < 100e3)
            ++deep;
        else if (t.center_hz > 699e3 && t.center_hz < 704e3)
            ++pulse;
        else if (t.center_hz > 718e3 && t.center_hz < 720e3)
            ++beside_pulse;
        else if (t.center_hz > 499e3 && t.center_hz < 508e3)
            ++close_lines;
        else {
            ++other;
            std::printf(
                "other row %.0f..%.0f Hz, %d frames\n", t.lower_hz, t.upper_hz, t.frames);
        }
    }
    std::printf(
        "rows: %zu (bursts %d, deep %d, pulse %d + %d, close lines %d, other %d)\n",
        ended.size(),
        bursts,
        deep,
        pulse,
        beside_pulse,
        close_lines,
        other);
    GPUFFT_CHECK_EQ(bursts, 2);
    GPUFFT_CHECK_EQ(other, 0); // the onset line and the edge lines joined their bursts
    GPUFFT_CHECK_EQ(deep, 1);
    GPUFFT_CHECK_EQ(pulse, 1);
    GPUFFT_CHECK_EQ(beside_pulse, 1);
    GPUFFT_CHECK_EQ(close_lines, 2);
    GPUFFT_CHECK_EQ(ended.size(), std::size_t(7));
}

// A line seen in a single frame within two main lobes of a line on in that frame is
// that line's (its skirt, or noise beside it: the NFM capture's -115 kHz spur, on in
// every frame, had a second row for one 12 dB sighting 4-5 bins away). A neighbour seen
// more than once, a sighting further off, and one after the line has ended stay rows.
GPUFFT_TEST(a_single_sighting_beside_a_line_is_that_lines)
{
    transmission_tracker tr(2);
    std::vector<transmission> ended;
    const double bin = 10; // Hz
    for (int f = 0; f < 160; ++f) {
        std::vector<frame_signal> s;
        if (f < 100)
            s.push_back(sig(1000, 1020)); // the line
        if (f == 40)
            s.push_back(sig(1060, 1070, 12)); // 4 bins above it, once
        if (f == 60)
            s.push_back(sig(1150, 1160, 12)); // 13 bins above it, once
        if (f >= 70 && f < 73)
            s.push_back(sig(990 - 100, 990 - 80, 12)); // 9 bins below, 3 frames
        if (f >= 80 && f < 82)
            s.push_back(sig(950, 960, 12)); // 4 bins below, twice
        if (f == 150)
            s.push_back(sig(1060, 1070, 12)); // where the first was, the line gone
        tr.update(f * 100, 100, 1e5, bin, s, ended);
    }
    tr.flush(ended);
    int rows_at_1065 = 0, rows_at_1155 = 0, rows_at_955 = 0, rows_at_895 = 0, line = 0;
    for (const auto& t : ended) {
        std::printf("row %.0f..%.0f Hz, %d frames from %lld\n",
                    t.lower_hz,
                    t.upper_hz,
                    t.frames,
                    (long long)(t.start_sample / 100));
        const double c = t.center_hz;
        line += c > 1000 && c < 1020;
        rows_at_1065 += c > 1060 && c < 1070;
        rows_at_1155 += c > 1150 && c < 1160;
        rows_at_955 += c > 950 && c < 960;
        rows_at_895 += c > 890 && c < 910;
    }
    GPUFFT_CHECK_EQ(line, 1);
    GPUFFT_CHECK_EQ(rows_at_1065, 1); // frame 150's; frame 40's is the line's
    GPUFFT_CHECK_EQ(rows_at_1155, 1);
    GPUFFT_CHECK_EQ(rows_at_955, 1);
    GPUFFT_CHECK_EQ(rows_at_895, 1);
    GPUFFT_CHECK_EQ(ended.size(), std::size_t(5));
}

GPUFFT_TEST(a_steady_line_under_a_burst_is_hidden_not_ended)
{
    // A CW spur on 1000..1020 Hz for 20 frames; then a burst whose splatter covers it
    // in some frames and in the others only hides it (the spur is not found) for 10
    // frames; then the spur alone again: one row for the spur, one for the burst. A
    // spur that does not come back ends at its last sighting.
    for (const bool back : { true, false }) {
        transmission_tracker tr(2);
        std::vector<transmission> ended;
        const std::int64_t len = 1000;
        for (int f = 0; f < 40; ++f) {
            std::vector<frame_signal> s;
            const bool burst = f >= 20 && f < 30;
            if (burst)
                s.push_back(f % 3 == 0 ? sig(400, 2400, 40) : sig(1400, 2600, 40));
            else if (f < 20 || back)
                s.push_back(sig(1000, 1020, 15));
            tr.update(f * len, len, 1e4, 10, s, ended);
        }
        tr.flush(ended);
        int spur = 0, wide = 0;
        for (const auto& t : ended) {
            const bool line = t.upper_hz - t.lower_hz < 100;
            spur += line;
            wide += !line;
            if (line) {
                GPUFFT_CHECK_EQ(t.start_sample, std::int64_t(0));
                GPUFFT_CHECK_EQ(t.sample_count, std::int64_t((back ? 40 : 20) * len));
                GPUFFT_CHECK_EQ(t.frames, back ? 30 : 20);
            }
        }
        std::printf(
            "spur comes back %d: %d spur rows, %d burst rows\n", back, spur, wide);
        GPUFFT_CHECK_EQ(spur, 1);
        GPUFFT_CHECK_EQ(wide, 1);
    }
}

GPUFFT_TEST(bad_hold_is_refused)
{
    GPUFFT_CHECK_THROWS(transmission_tracker(-1), std::invalid_argument, "hold_frames");
    GPUFFT_CHECK_THROWS(
        transmission_tracker(2, -1), std::invalid_argument, "line_memory");
    GPUFFT_CHECK_THROWS(
        transmission_tracker(2, 1001), std::invalid_argument, "line_memory");
}

GPUFFT_TEST_MAIN()

// Frames out of order would close rows before they start: a frame from before the
// last one is refused, naming first_sample, and after flush() a stream starts anywhere.
GPUFFT_TEST(frames_out_of_order_are_refused)
{
    transmission_tracker tr(1);
    std::vector<transmission> ended;
    const std::vector<frame_signal> s{ sig(100, 200) };
    tr.update(5000, 1000, 1e4, 10, s, ended);
    tr.update(5000, 1000, 1e4, 10, s, ended); // the same start again: allowed
    GPUFFT_CHECK_THROWS(tr.update(4000, 1000, 1e4, 10, s, ended),
                        std::invalid_argument,
                        "first_sample: frames must come in order; got 4000 after 5000");
    tr.flush(ended);
    GPUFFT_CHECK_EQ(ended.size(), std::size_t(1));
    tr.update(0, 1000, 1e4, 10, s, ended); // a new stream
    tr.flush(ended);
    GPUFFT_CHECK_EQ(ended.size(), std::size_t(2));
    if (ended.size() == 2)
        GPUFFT_CHECK_EQ(ended[1].start_sample, std::int64_t(0));
}

// A chirp that sweeps its channel faster than its width a frame (a LoRa chirp at SF 12
// in 2 ms frames: the window shows a segment of 9 bins, 16 bins on from the last; here
// 15, so the wraps do not repeat every 8 frames at one place), wraps
// at the channel's top (two pieces in that frame) and jumps to a random place where a
// symbol starts, is one transmission whose edges are its channel's; without the rule
// it was a row a frame. A burst on the channel beside one that has just ended (each
// seen in 6 frames, as wide and as strong) stays its own row. Seeded starts and jumps.
GPUFFT_TEST(a_chirp_is_one_transmission_a_burst_beside_an_ended_one_is_not)
{
    const std::uint64_t seed = gpufft_test::fresh_seed();
    std::printf("seed %llu\n", (unsigned long long)seed);
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> where(0, 128e3);
    const double bottom = 100e3, channel = 128e3, seg = 9e3, step = 15e3;
    transmission_tracker tr(2);
    std::vector<transmission> ended;
    double at = where(rng);
    for (int f = 0; f < 96; ++f) {
        if (f % 16 == 15)
            at = where(rng); // a symbol starts elsewhere in the channel
        std::vector<frame_signal> s;
        const double lo = bottom + std::fmod(at, channel);
        if (lo + seg <= bottom + channel) {
            s.push_back(sig(lo, lo + seg));
        } else { // wrapped within the frame; a piece under 3 bins is not seen
            if (lo + seg - channel - bottom >= 3e3)
                s.push_back(sig(bottom, lo + seg - channel));
            if (bottom + channel - lo >= 3e3)
                s.push_back(sig(lo, bottom + channel));
        }
        if (f < 6)
            s.push_back(sig(500e3, 510e3));
        else if (f < 12)
            s.push_back(sig(513e3, 523e3));
        tr.update(f * 1000, 1000, 1e6, 1e3, s, ended);
        at += step;
    }
    tr.flush(ended);
    for (const auto& t : ended)
        std::printf("  %lld + %lld: %.1f .. %.1f kHz, %d frames\n",
                    (long long)t.start_sample,
                    (long long)t.sample_count,
                    t.lower_hz / 1e3,
                    t.upper_hz / 1e3,
                    t.frames);
    int chirp = 0, bursts = 0;
    for (const auto& t : ended) {
        if (t.upper_hz < 300e3) {
            ++chirp;
            GPUFFT_CHECK_LE(t.lower_hz, bottom + step);
            GPUFFT_CHECK_LE(bottom + channel - step, t.upper_hz);
        } else {
            ++bursts;
            GPUFFT_CHECK_EQ(t.frames, 6);
        }
    }
    GPUFFT_CHECK_EQ(chirp, 1);
    GPUFFT_CHECK_EQ(bursts, 2);
}

// A steady spur 50 kHz under a chirp's channel (the chirp as above, from a random place),
// joined to the chirp's segment by one band in random frames (its symbols' splatter
// fills the gap: the band's power and centre are the chirp's), stays one row with the
// spur's edges, and no row spans the two. Before, the spur's row took such a band and
// with those edges took in the chirp's rows (LoRa at SF 9 beside a spur: one row of
// 1.6 s from the spur across three channels).
GPUFFT_TEST(a_spur_joined_to_a_chirp_now_and_then_keeps_its_row_and_edges)
{
    const std::uint64_t seed = gpufft_test::fresh_seed();
    std::printf("seed %llu\n", (unsigned long long)seed);
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> where(0, 128e3), u(0, 1);
    const double bottom = 100e3, channel = 128e3, seg = 9e3, step = 15e3;
    const double spur_lo = 49.5e3, spur_hi = 50.5e3;
    transmission_tracker tr(2);
    std::vector<transmission> ended;
    double at = where(rng);
    int joins = 0;
    for (int f = 0; f < 200; ++f) {
        if (f % 16 == 15)
            at = where(rng);
        const double lo = bottom + std::fmod(at, channel);
        const double hi = std::min(lo + seg, bottom + channel);
        std::vector<frame_signal> s;
        if (f > 20 && u(rng) < 0.1) {
            frame_signal band = sig(spur_lo, hi);
            band.center_hz = 0.5 * (lo + hi);
            s.push_back(band);
            ++joins;
        } else {
            s.push_back(sig(spur_lo, spur_hi, 15));
            s.push_back(sig(lo, hi));
        }
        tr.update(f * 1000, 1000, 1e6, 1e3, s, ended);
        at += step;
    }
    tr.flush(ended);
    int spur = 0, across = 0;
    for (const auto& t : ended) {
        if (t.upper_hz < 60e3) {
            ++spur;
            GPUFFT_CHECK_EQ(t.lower_hz, spur_lo);
            GPUFFT_CHECK_EQ(t.upper_hz, spur_hi);
            GPUFFT_CHECK_EQ(t.start_sample, std::int64_t(0));
        }
        if (t.lower_hz < 60e3 && t.upper_hz > bottom) {
            ++across;
            std::printf("  across: %lld + %lld: %.1f .. %.1f kHz, %d frames\n",
                        (long long)t.start_sample,
                        (long long)t.sample_count,
                        t.lower_hz / 1e3,
                        t.upper_hz / 1e3,
                        t.frames);
        }
    }
    std::printf("%d joined frames: %d spur rows, %d rows across\n", joins, spur, across);
    GPUFFT_CHECK_EQ(spur, 1);
    GPUFFT_CHECK_EQ(across, 0);
}

// A hopper (Bluetooth-like: 79 channels 1 MHz apart, 0.8 MHz wide, two hops a frame,
// each one frame long, at random channels, none on a channel of the 8 frames before: a
// hop seen once is held 7 frames) is a row a hop: a hop beside one of the frame before
// (1 in 20) is no step of a moving signal. Three hops a channel apart the same way are
// taken for a chirp's first steps: 769-800 rows for 800 hops over 200 seeds, so 95 %.
// Without the first step's check against the frame before, 800 hops gave 154-566
// rows; without a jump's price in moves (sweeping()), 157 in one seed of 12. (Without
// the line memory: with it, a hop back on a channel seen within its memory continues
// that channel's row, a hopper's known cost; see
// an_intermittent_line_is_one_transmission_hops_and_neighbours_are_not.)
GPUFFT_TEST(random_hops_to_neighbouring_channels_stay_a_row_a_hop)
{
    const std::uint64_t seed = gpufft_test::fresh_seed();
    std::printf("seed %llu\n", (unsigned long long)seed);
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int> channel(0, 78);
    transmission_tracker tr(2, 0);
    std::vector<transmission> ended;
    std::vector<int> recent;
    int hops = 0;
    for (int f = 0; f < 400; ++f) {
        std::vector<int> now;
        while (now.size() < 2) {
            const int c = channel(rng);
            if (std::find(recent.begin(), recent.end(), c) == recent.end() &&
                std::find(now.begin(), now.end(), c) == now.end())
                now.push_back(c);
        }
        std::sort(now.begin(), now.end());
        std::vector<frame_signal> s;
        for (int c : now)
            s.push_back(sig(c * 1e6 - 0.4e6, c * 1e6 + 0.4e6));
        hops += 2;
        tr.update(f * 1000, 1000, 80e6, 80e3, s, ended);
        recent.insert(recent.end(), now.begin(), now.end());
        if (recent.size() > 16)
            recent.erase(recent.begin(), recent.begin() + 2);
    }
    tr.flush(ended);
    std::printf("%d hops, %zu rows\n", hops, ended.size());
    GPUFFT_CHECK(double(ended.size()) >= 0.95 * hops);
}
