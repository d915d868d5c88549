/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The stream timeline and the one tag rule of the blocks (docs/stream.md).

#include "stream/stream_timeline.h"
#include "test_harness.h"
#include <cmath>
#include <cstdio>
#include <random>

using namespace gr::gpufft::stream;

GPUFFT_TEST(timeline_extrapolates_and_reanchors)
{
    stream_timeline t(1000.0, 100e6);
    GPUFFT_CHECK(!t.at(0).has_time);
    GPUFFT_CHECK_EQ(t.at(5).freq, 100e6);
    t.set_time(100, { 1700000000, 0.75 });
    t.set_freq(150, 101e6);
    t.set_rate(200, 2000.0); // clock re-anchors at sample 200 = t0 + 0.1 s
    t.set_time(1000000, { 1800000000, 0.0 });

    auto s = t.at(99);
    GPUFFT_CHECK(!s.has_time);
    s = t.at(150);
    GPUFFT_CHECK(s.has_time);
    GPUFFT_CHECK_EQ(s.time.secs, 1700000000);
    GPUFFT_CHECK_LE(std::abs(s.time.frac - 0.8), 1e-12);
    GPUFFT_CHECK_EQ(s.freq, 101e6);
    s = t.at(1200); // 0.85 + 1000 samples / 2000 Hz = 1.35
    GPUFFT_CHECK_EQ(s.time.secs, 1700000001);
    GPUFFT_CHECK_LE(std::abs(s.time.frac - 0.35), 1e-9);
    GPUFFT_CHECK_EQ(s.rate, 2000.0);

    t.forget_before(1200);
    GPUFFT_CHECK_EQ(t.pending(), std::size_t(1));
    s = t.at(1200); // same answer after folding
    GPUFFT_CHECK_EQ(s.time.secs, 1700000001);
    GPUFFT_CHECK_LE(std::abs(s.time.frac - 0.35), 1e-9);
    s = t.at(1000000 + 500);
    GPUFFT_CHECK_EQ(s.time.secs, 1800000000);
    GPUFFT_CHECK_LE(std::abs(s.time.frac - 0.25), 1e-12);
    GPUFFT_CHECK_LE(
        std::abs(stream_time{ 86400 * 3, 0.5 }.mjd() - (40590.0 + 0.5 / 86400)), 1e-9);
}

GPUFFT_TEST(a_tag_inside_a_frame_applies_to_that_frame)
{
    const std::uint64_t seed = std::random_device{}();
    std::printf("seed %llu\n", (unsigned long long)seed);
    std::mt19937_64 rng(seed);
    const std::int64_t len = 64 + std::int64_t(rng() % 1000);
    const std::int64_t first = 3 * len;
    const std::int64_t inside = first + 1 + std::int64_t(rng() % std::uint64_t(len - 1));
    const double rate = 1e3 + double(rng() % 100000);
    stream_timeline t(rate, 0.0);
    t.set_freq(inside, 433e6);
    t.set_rate(inside, 2 * rate);
    t.set_time(inside, { 1700000000, 0.5 });

    // The frame before knows nothing of them.
    auto before = t.frame(first - len, len);
    GPUFFT_CHECK(!before.has_time);
    GPUFFT_CHECK(!before.freq_tagged);
    GPUFFT_CHECK_EQ(before.rate, rate);
    // The frame holding them takes them all; its time is carried back to its start.
    auto s = t.frame(first, len);
    GPUFFT_CHECK(s.freq_tagged && s.rate_tagged && s.has_time);
    GPUFFT_CHECK_EQ(s.freq, 433e6);
    GPUFFT_CHECK_EQ(s.rate, 2 * rate);
    const double expect = 1700000000.5 - double(inside - first) / (2 * rate);
    GPUFFT_CHECK_LE(std::abs(s.time.as_double() - expect), 1e-6);
    // The next frame: the latest rx_time at or before its first sample, extrapolated.
    auto next = t.frame(first + len, len);
    const double expect_next = 1700000000.5 + double(first + len - inside) / (2 * rate);
    GPUFFT_CHECK_LE(std::abs(next.time.as_double() - expect_next), 1e-6);
    // A tag on a frame's first sample dates it exactly.
    t.set_time(first + 2 * len, { 1800000000, 0.25 });
    auto on = t.frame(first + 2 * len, len);
    GPUFFT_CHECK_EQ(on.time.secs, 1800000000);
    GPUFFT_CHECK_EQ(on.time.frac, 0.25);
}

GPUFFT_TEST(default_rate_yields_to_a_tag)
{
    stream_timeline t(1000.0, 0.0);
    t.set_default_rate(2000.0);
    GPUFFT_CHECK_EQ(t.at(0).rate, 2000.0);
    GPUFFT_CHECK(!t.at(0).rate_tagged);
    t.set_rate(10, 500.0);
    t.forget_before(10);
    t.set_default_rate(4000.0);
    GPUFFT_CHECK_EQ(t.at(20).rate, 500.0);
    t.set_default_rate(-1.0); // ignored
    GPUFFT_CHECK_EQ(t.at(20).rate, 500.0);
}

GPUFFT_TEST(change_gate_passes_changes_only)
{
    change_gate g;
    GPUFFT_CHECK(g.changed(100.0));
    GPUFFT_CHECK(!g.changed(100.0));
    GPUFFT_CHECK(g.changed(101.0));
    GPUFFT_CHECK(!g.changed(101.0));
    g.reset();
    GPUFFT_CHECK(g.changed(101.0));
}

GPUFFT_TEST_MAIN()
