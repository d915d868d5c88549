/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "stream/time_input.h"
#include "test_harness.h"
#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <random>
#include <vector>

using namespace gr::gpufft::stream;

GPUFFT_TEST(reads_float64_offsets_and_float32_deviations)
{
    std::mt19937_64 rng(std::random_device{}());
    std::uniform_real_distribution<double> u(-1e-3, 1e-3);
    const int n = 37;
    const std::uint64_t first = 1000 + rng() % 1000;
    std::vector<double> t64(n), out(n, std::nan(""));
    std::vector<float> dev(n);
    for (int j = 0; j < n; ++j) {
        t64[j] = 5.0 + u(rng);
        dev[j] = float(u(rng));
    }
    time_input f64(0);
    GPUFFT_CHECK_EQ(f64.item_size(), sizeof(double));
    f64.read(t64.data(), first, n, out.data());
    for (int j = 0; j < n; ++j)
        GPUFFT_CHECK_EQ(out[j], t64[j]);

    const double rate = 48000;
    time_input f32(rate);
    GPUFFT_CHECK_EQ(f32.item_size(), sizeof(float));
    std::fill(out.begin(), out.end(), std::nan(""));
    f32.read(dev.data(), first, n, out.data());
    for (int j = 0; j < n; ++j)
        GPUFFT_CHECK_LE(std::abs(out[j] - (double(first + j) / rate + double(dev[j]))),
                        1e-15);
    GPUFFT_CHECK_THROWS(time_input(-1), std::invalid_argument, "nominal_rate");
}

GPUFFT_TEST(finite_frame_finds_any_nan_or_infinity)
{
    const int n = 16;
    std::vector<std::complex<float>> x(n, { 0.5f, -0.25f });
    std::vector<double> t(n, 1.5);
    GPUFFT_CHECK(finite_frame(x.data(), t.data(), n));
    for (int j : { 0, 7, n - 1 }) {
        auto xb = x;
        xb[j] = { std::numeric_limits<float>::quiet_NaN(), 0.f };
        GPUFFT_CHECK(!finite_frame(xb.data(), t.data(), n));
        xb = x;
        xb[j] = { 0.f, std::numeric_limits<float>::infinity() };
        GPUFFT_CHECK(!finite_frame(xb.data(), t.data(), n));
        auto tb = t;
        tb[j] = std::numeric_limits<double>::quiet_NaN();
        GPUFFT_CHECK(!finite_frame(x.data(), tb.data(), n));
    }
}

GPUFFT_TEST(absolute_time_splits_whole_and_fractional_seconds)
{
    const absolute_time a = to_absolute_time(1700000000, 12.75);
    GPUFFT_CHECK_EQ(a.seconds, std::uint64_t(1700000012));
    GPUFFT_CHECK_EQ(a.fraction, 0.75);
    // Before the epoch: the fraction stays in [0, 1).
    const absolute_time b = to_absolute_time(1700000000, -0.25);
    GPUFFT_CHECK_EQ(b.seconds, std::uint64_t(1699999999));
    GPUFFT_CHECK_EQ(b.fraction, 0.75);
}

GPUFFT_TEST(stream_clock_follows_the_epoch_until_rx_time_anchors_it)
{
    stream_clock c(1700000000);
    GPUFFT_CHECK(!c.anchored());
    absolute_time a = c.at(12.75);
    GPUFFT_CHECK_EQ(a.seconds, std::uint64_t(1700000012));
    GPUFFT_CHECK_EQ(a.fraction, 0.75);
    // rx_time says the sample whose time reads 100.5 is at 1800000000.125.
    c.anchor(1800000000, 0.125, 100.5);
    GPUFFT_CHECK(c.anchored());
    a = c.at(100.5);
    GPUFFT_CHECK_EQ(a.seconds, std::uint64_t(1800000000));
    GPUFFT_CHECK_EQ(a.fraction, 0.125);
    a = c.at(100.25); // before the tagged sample: the fraction stays in [0, 1)
    GPUFFT_CHECK_EQ(a.seconds, std::uint64_t(1799999999));
    GPUFFT_CHECK_LE(std::abs(a.fraction - 0.875), 1e-12);
    a = c.at(3700.5); // an hour on, sub-nanosecond
    GPUFFT_CHECK_EQ(a.seconds, std::uint64_t(1800003600));
    GPUFFT_CHECK_LE(std::abs(a.fraction - 0.125), 1e-9);
}

GPUFFT_TEST_MAIN()
