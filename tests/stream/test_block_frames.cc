/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The sparse_fft block's frames, in place and staged, against basic_frame_assembler fed
// the same random pieces: the same frames at the same offsets. Staged, the input is
// consumed as it arrives (never held for a frame), which is what frees GNU Radio's
// buffer for the upstream block while the GPU works.

#include "stream/block_frames.h"
#include "stream/frame_assembler.h"
#include "test_harness.h"
#include <gnuradio/gpufft/device.h>
#include <cstdio>
#include <random>

using namespace gr::gpufft::stream;
using byte = unsigned char;

namespace {

struct frame_log {
    std::vector<std::uint64_t> firsts;
    std::vector<std::vector<byte>> frames;
};

// Feeds `x` in the pieces `pieces` (lengths; what is not consumed comes again at the
// head of the next piece), with room for `rooms[i]` frames in call i. Returns what
// came out, and checks `held` (the most bytes fed but not consumed at the end of a call
// that had room for every frame it could complete).
template <class Frames>
frame_log run(Frames& a,
              const std::vector<byte>& x,
              const std::vector<std::int64_t>& pieces,
              const std::vector<int>& rooms,
              std::int64_t* held_max)
{
    frame_log log;
    std::int64_t pos = 0, pending = 0;
    *held_max = 0;
    for (std::size_t i = 0; i < pieces.size() && pos < std::int64_t(x.size()); ++i) {
        pending =
            std::min<std::int64_t>(pending + pieces[i], std::int64_t(x.size()) - pos);
        int handed = 0;
        const std::int64_t used = a.feed(
            x.data() + pos,
            pending,
            [&] { return handed < rooms[i]; },
            [&](const byte* f, std::uint64_t first) {
                ++handed;
                log.firsts.push_back(first);
                log.frames.emplace_back(f, f + a.size());
            });
        GPUFFT_CHECK(used >= 0 && used <= pending);
        if (handed < rooms[i])
            *held_max = std::max(*held_max, pending - used);
        pos += used;
        pending -= used;
    }
    return log;
}

void compare(std::int64_t size, std::int64_t hop, std::mt19937_64& rng)
{
    const std::int64_t total = 6 * size + std::int64_t(rng() % std::uint64_t(3 * size));
    std::vector<byte> x(static_cast<std::size_t>(total));
    for (auto& v : x)
        v = byte(rng());
    std::vector<std::int64_t> pieces;
    std::vector<int> rooms;
    for (std::int64_t fed = 0; fed < 4 * total; fed += pieces.back()) {
        pieces.push_back(1 + std::int64_t(rng() % std::uint64_t(2 * size)));
        rooms.push_back(int(rng() % 3));
    }
    // Enough calls with room at the end that every frame comes out.
    for (int i = 0; i < int(total); ++i) {
        pieces.push_back(size);
        rooms.push_back(4);
    }
    basic_frame_assembler<byte> ref(size, hop);
    block_frames in_place(size, hop);
    block_frames staged(size, hop, true, -1);
    GPUFFT_CHECK(!in_place.staged());
    GPUFFT_CHECK(staged.staged());
    std::int64_t held_ref = 0, held_in_place = 0, held_staged = 0;
    const frame_log a = run(ref, x, pieces, rooms, &held_ref);
    const frame_log b = run(in_place, x, pieces, rooms, &held_in_place);
    const frame_log c = run(staged, x, pieces, rooms, &held_staged);
    const std::uint64_t frames = std::uint64_t((total - size) / hop + 1);
    GPUFFT_CHECK_EQ(a.frames.size(), std::size_t(frames));
    GPUFFT_CHECK(a.firsts == b.firsts);
    GPUFFT_CHECK(a.firsts == c.firsts);
    GPUFFT_CHECK(a.frames == b.frames);
    GPUFFT_CHECK(a.frames == c.frames);
    int bad = 0;
    for (std::size_t i = 0; i < c.frames.size(); ++i)
        for (std::int64_t j = 0; j < size; ++j)
            bad += c.frames[i][std::size_t(j)] !=
                   x[std::size_t(c.firsts[i]) + std::size_t(j)];
    GPUFFT_CHECK_EQ(bad, 0);
    GPUFFT_CHECK_EQ(staged.frames(), frames);
    GPUFFT_CHECK_EQ(staged.covered_until(), in_place.covered_until());
    GPUFFT_CHECK_EQ(staged.next_frame_offset(), in_place.next_frame_offset());
    // Staged, a call with room for its frames consumes everything it was given.
    GPUFFT_CHECK_EQ(held_staged, std::int64_t(0));
}

} // namespace

GPUFFT_TEST(staged_and_in_place_frames_match_the_assembler)
{
    const std::uint64_t seed = std::random_device{}();
    std::printf("seed %llu\n", (unsigned long long)seed);
    std::mt19937_64 rng(seed);
    for (int trial = 0; trial < 30; ++trial) {
        const std::int64_t size = 1 + std::int64_t(rng() % 200);
        const std::int64_t hops[] = { 1 + std::int64_t(rng() % std::uint64_t(size)),
                                      size,
                                      size + 1 + std::int64_t(rng() % 40) };
        for (std::int64_t hop : hops)
            compare(size, hop, rng);
    }
}

GPUFFT_TEST(in_place_hands_out_the_input_staged_a_copy)
{
    // 3 frames of 64 bytes in one piece: in place, the frames point into the input;
    // staged, into the block's own (page-locked where CUDA is usable) buffer.
    std::vector<byte> x(192);
    for (std::size_t i = 0; i < x.size(); ++i)
        x[i] = byte(i);
    for (bool staged : { false, true }) {
        block_frames f(64, 64, staged, 0);
        int inside = 0, frames = 0;
        const std::int64_t used = f.feed(
            x.data(),
            std::int64_t(x.size()),
            [] { return true; },
            [&](const byte* p, std::uint64_t first) {
                ++frames;
                inside += p >= x.data() && p < x.data() + x.size();
                GPUFFT_CHECK_EQ(p[0], byte(first));
            });
        GPUFFT_CHECK_EQ(used, std::int64_t(192));
        GPUFFT_CHECK_EQ(frames, 3);
        GPUFFT_CHECK_EQ(inside, staged ? 0 : 3);
        GPUFFT_CHECK_EQ(f.pinned(), staged && gr::gpufft::cuda_available(0));
    }
}

GPUFFT_TEST(bad_sizes_name_the_parameter)
{
    GPUFFT_CHECK_THROWS(block_frames(0, 1), std::invalid_argument, "fft_size");
    GPUFFT_CHECK_THROWS(block_frames(8, 0, true), std::invalid_argument, "hop");
}

GPUFFT_TEST_MAIN()
