/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Frames cut from a stream fed in random pieces, against frames cut from the whole.

#include "stream/frame_assembler.h"
#include "stream/host_frame.h"
#include "test_harness.h"
#include <gnuradio/gpufft/device.h>
#include <cmath>
#include <cstdio>
#include <random>

using namespace gr::gpufft::stream;
using cf = std::complex<float>;

namespace {
// Feeds `x` in random pieces (as GNU Radio does), taking back what is not consumed, and
// checks every frame against the slice of `x` it should be.
void check_pieces(std::int64_t size, std::int64_t hop, std::mt19937_64& rng)
{
    const std::int64_t total = 5 * size + std::int64_t(rng() % std::uint64_t(3 * size));
    std::vector<cf> x(static_cast<std::size_t>(total));
    std::normal_distribution<float> g;
    for (auto& v : x)
        v = cf(g(rng), g(rng));
    frame_assembler a(size, hop);
    std::int64_t pos = 0;
    std::uint64_t expect_first = 0;
    int bad = 0;
    int rooms = 0;
    while (pos < total) {
        const std::int64_t n = std::min<std::int64_t>(
            total - pos, 1 + std::int64_t(rng() % std::uint64_t(2 * size)));
        // Sometimes no room for a frame: nothing may be lost.
        const int room = int(rng() % 3);
        int handed = 0;
        const std::int64_t used = a.feed(
            x.data() + pos,
            n,
            [&] { return handed < room; },
            [&](const cf* frame, std::uint64_t first) {
                ++handed;
                if (first != expect_first)
                    ++bad;
                for (std::int64_t j = 0; j < size; ++j)
                    if (frame[j] != x[std::size_t(first) + std::size_t(j)])
                        ++bad;
                expect_first += std::uint64_t(hop);
            });
        GPUFFT_CHECK(used >= 0 && used <= n);
        pos += used;
        rooms += room;
        if (used == 0 && room > 0 && a.needed() <= n)
            ++bad; // a frame was possible and not handed out
    }
    // Every frame that fits in the stream came out.
    const std::uint64_t frames =
        total >= size ? std::uint64_t((total - size) / hop + 1) : 0;
    GPUFFT_CHECK_EQ(a.frames(), frames);
    GPUFFT_CHECK_EQ(bad, 0);
    if (frames > 0)
        GPUFFT_CHECK_EQ(a.covered_until(),
                        (frames - 1) * std::uint64_t(hop) + std::uint64_t(size));
}
} // namespace

GPUFFT_TEST(frames_straddle_calls_with_overlap_and_gaps)
{
    const std::uint64_t seed = std::random_device{}();
    std::printf("seed %llu\n", (unsigned long long)seed);
    std::mt19937_64 rng(seed);
    for (int trial = 0; trial < 40; ++trial) {
        const std::int64_t size = 1 + std::int64_t(rng() % 300);
        // hop: overlapping, equal, and with dropped samples between frames.
        const std::int64_t hops[] = { 1 + std::int64_t(rng() % std::uint64_t(size)),
                                      size,
                                      size + 1 + std::int64_t(rng() % 50) };
        for (std::int64_t hop : hops)
            check_pieces(size, hop, rng);
    }
}

GPUFFT_TEST(bad_sizes_name_the_parameter)
{
    GPUFFT_CHECK_THROWS(frame_assembler(0, 1), std::invalid_argument, "fft_size");
    GPUFFT_CHECK_THROWS(frame_assembler(8, 0), std::invalid_argument, "hop");
}

GPUFFT_TEST(host_frame_pinned_where_cuda_is_usable)
{
    // Page-locked with a usable GPU, ordinary memory otherwise; writable either way.
    for (bool pinned : { false, true }) {
        host_frame f(3001, pinned);
        GPUFFT_CHECK(f.data() != nullptr);
        GPUFFT_CHECK_EQ(f.size(), 3001);
        GPUFFT_CHECK_EQ(reinterpret_cast<std::uintptr_t>(f.data()) % 64,
                        std::uintptr_t(0));
        GPUFFT_CHECK_EQ(f.pinned(), pinned && gr::gpufft::cuda_available(0));
        for (std::int64_t i = 0; i < f.size(); ++i)
            f.data()[i] = std::complex<float>(float(i), -float(i));
        GPUFFT_CHECK_EQ(f.data()[3000], std::complex<float>(3000.0f, -3000.0f));
        host_frame g = std::move(f);
        GPUFFT_CHECK(f.data() == nullptr);
        GPUFFT_CHECK_EQ(g.data()[7], std::complex<float>(7.0f, -7.0f));
    }
    GPUFFT_CHECK(host_physical_memory() > 0);
    GPUFFT_CHECK(host_available_memory() > 0);
    GPUFFT_CHECK(host_available_memory() <= host_physical_memory());
}

GPUFFT_TEST_MAIN()
