/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Signals into transmissions: bursts and hops are separate transmissions, emitters a
// few bins apart stay apart, a hold bridges a missed frame.

#include "../../lib/stream/transmission_tracker.h"
#include "../test_harness.h"

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

GPUFFT_TEST(bad_hold_is_refused)
{
    GPUFFT_CHECK_THROWS(transmission_tracker(-1), std::invalid_argument, "hold_frames");
}

GPUFFT_TEST_MAIN()
