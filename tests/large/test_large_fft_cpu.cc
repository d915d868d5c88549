/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The large FFT's schedules on the CPU backend, on small sizes with tiny budgets so
// every decomposition (in-card, two rounds, three rounds, 2-D, 3-D, in place) runs.

#include "large/host_transpose.h"
#include "large/large_fft_checks.h"
#include "large/large_fft_host.h"
#include "large/large_fft_plan_impl.h"
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>

using namespace gr::gpufft;
using namespace gpufft_test;

namespace {

large_fft_options cpu(std::size_t budget, precision p = precision::double_)
{
    large_fft_options o;
    o.backend = backend::cpu;
    o.precision = p;
    o.memory_budget = budget;
    return o;
}

// The parameters of a round of kind K (the check fails, and a default is returned,
// when it is of another kind).
template <typename K>
K as(const detail::large_round& r)
{
    const K* k = r.as<K>();
    GPUFFT_CHECK(k != nullptr);
    return k ? *k : K();
}
const auto cols = as<detail::column_round>;
const auto rows = as<detail::rows_transposed_round>;
const auto tiles = as<detail::tile_transpose_round>;

std::string kinds(const detail::large_schedule& s)
{
    std::string r;
    for (const auto& x : s.rounds)
        r += std::string(r.empty() ? "" : ",") + x.kind_name();
    if (!s.host_permute.empty())
        r += ",permute";
    return r;
}

template <typename Fn>
void for_each_element(
    std::int64_t offset, std::int64_t rows, std::int64_t width, std::int64_t pitch, Fn fn)
{
    for (std::int64_t i = 0; i < rows; ++i)
        for (std::int64_t j = 0; j < width; ++j)
            fn(offset + i * pitch + j, i, j);
}

/*
 * Replays each round on element labels: every input element is read exactly once (after
 * any host moves), every position is written exactly once, and, where the round reads
 * and writes the same array, nothing is written or moved onto memory that still holds
 * an unread element; no pass buffer element is filled twice or left empty.
 */
void check_coverage(const detail::large_schedule& s)
{
    constexpr std::int64_t free_slot = -1, final_slot = -2;
    for (const auto& r : s.rounds) {
        const bool one_array = s.in_place || !r.from_input;
        std::vector<std::int64_t> label(s.size);
        for (std::int64_t i = 0; i < s.size; ++i)
            label[i] = i;
        std::vector<int> reads(s.size, 0), writes(s.size, 0);
        for (const auto& p : r.pass_list) {
            std::vector<int> filled(p.elements, 0);
            for (const auto& b : p.reads)
                for_each_element(b.host_offset,
                                 b.rows,
                                 b.width,
                                 b.pitch,
                                 [&](auto pos, auto i, auto j) {
                                     GPUFFT_CHECK(label[pos] >= 0);
                                     if (label[pos] >= 0)
                                         ++reads[label[pos]];
                                     ++filled[b.dev_offset + i * b.dpitch() + j];
                                     if (one_array)
                                         label[pos] = free_slot;
                                 });
            for (int f : filled)
                GPUFFT_CHECK_EQ(f, 1);
            for (const auto& m : p.moves)
                for_each_element(
                    m.from, m.rows, m.width, m.pitch, [&](auto pos, auto, auto) {
                        const std::int64_t to = pos - m.from + m.to;
                        GPUFFT_CHECK(label[pos] >= 0);
                        GPUFFT_CHECK_EQ(label[to], free_slot);
                        label[to] = label[pos];
                        label[pos] = free_slot;
                    });
            for (const auto& b : p.writes)
                for_each_element(
                    b.host_offset, b.rows, b.width, b.pitch, [&](auto pos, auto, auto) {
                        ++writes[pos];
                        if (one_array) { // else the output is another array
                            GPUFFT_CHECK_EQ(label[pos], free_slot);
                            label[pos] = final_slot;
                        }
                    });
            if (!r.as<detail::whole_round>())
                GPUFFT_CHECK_LE(p.elements, s.pass_elems);
        }
        for (std::int64_t i = 0; i < s.size; ++i) {
            GPUFFT_CHECK_EQ(reads[i], 1);
            GPUFFT_CHECK_EQ(writes[i], 1);
        }
    }
}

} // namespace

GPUFFT_TEST(planner_picks_the_paper_schedules)
{
    using detail::plan_large_fft;
    // fits: one in-card round
    GPUFFT_CHECK_EQ(kinds(plan_large_fft({ 4096 }, 16, 2 * 4096 * 16, false)), "whole");
    // 64 x 64 four-step out of place: transposing round 1, round 2 in place
    auto s2 = plan_large_fft({ 4096 }, 16, budget_for_pass(1024, 16), false);
    GPUFFT_CHECK_EQ(kinds(s2), "columns,columns");
    GPUFFT_CHECK(cols(s2.rounds[0]).transposed_write && cols(s2.rounds[0]).twiddle);
    GPUFFT_CHECK_EQ(cols(s2.rounds[0]).L, 64);
    check_coverage(s2);
    // in place and square: the row round writes transposed, host moves make room
    auto s2i = plan_large_fft({ 4096 }, 16, budget_for_pass(1024, 16), true);
    GPUFFT_CHECK_EQ(kinds(s2i), "columns,rows_transposed");
    GPUFFT_CHECK_EQ(rows(s2i.rounds[1]).tile, 16);
    check_coverage(s2i);
    // ... unless its column strips would be narrow: tile-pair transpose round
    auto s2t = plan_large_fft({ 4096 }, 16, budget_for_pass(256, 16), true);
    GPUFFT_CHECK_EQ(kinds(s2t), "columns,columns,tile_transpose");
    check_coverage(s2t);
    // in place, 64 x 128 with passes of 16 rows: the transposed row round over both
    // 64x64 squares, moves in each
    auto s2b = plan_large_fft({ 8192 }, 16, budget_for_pass(2048, 16), true);
    GPUFFT_CHECK_EQ(kinds(s2b), "columns,rows_transposed");
    GPUFFT_CHECK_EQ(rows(s2b.rounds[1]).blocks, 2);
    GPUFFT_CHECK_EQ(rows(s2b.rounds[1]).tile, 16);
    check_coverage(s2b);
    // the CUDA executor's order: each square's own rows first, and each square's move
    // of tile row j + 1 (what the next pass reads) first
    const auto& ps = s2b.rounds[1].pass_list;
    for (std::size_t j = 0; j + 1 < ps.size(); ++j)
        for (std::size_t h = 0; h < 2; ++h) {
            GPUFFT_CHECK_EQ(ps[j].reads[h].host_offset / (16 * 128), std::int64_t(j));
            GPUFFT_CHECK_EQ(ps[j].moves[h].from / (16 * 128), std::int64_t(j + 1));
        }
    // ... with passes of 8 rows (strips narrower than a quarter of the side): both
    // 64x64 squares by tile pairs, then rows moved on the host
    auto s2r = plan_large_fft({ 8192 }, 16, budget_for_pass(1024, 16), true);
    GPUFFT_CHECK_EQ(kinds(s2r), "columns,columns,tile_transpose,permute");
    GPUFFT_CHECK_EQ(tiles(s2r.rounds[2]).blocks, 2);
    GPUFFT_CHECK_EQ(s2r.permute_unit, 64);
    check_coverage(s2r);
    // in place, 75 x 80: element-wise host digit reversal
    GPUFFT_CHECK_EQ(kinds(plan_large_fft({ 6000 }, 16, budget_for_pass(1024, 16), true)),
                    "columns,columns,permute");
    // passes too small for 64-point lines: three rounds of 16
    auto s3 = plan_large_fft({ 4096 }, 16, budget_for_pass(40, 16), false);
    GPUFFT_CHECK_EQ(kinds(s3), "columns,columns,columns,permute");
    GPUFFT_CHECK_EQ(s3.host_permute[1], 16);
    GPUFFT_CHECK(cols(s3.rounds[0]).transposed_write);
    GPUFFT_CHECK_EQ(cols(s3.rounds[1]).tw_div, 16);
    GPUFFT_CHECK_EQ(s3.permute_unit, 16);
    check_coverage(s3);
    auto s3i = plan_large_fft({ 4096 }, 16, budget_for_pass(40, 16), true);
    GPUFFT_CHECK_EQ(kinds(s3i), "columns,columns,columns,permute");
    GPUFFT_CHECK_EQ(s3i.permute_unit, 1);
    check_coverage(s3i);
    // 2-D and 3-D (slabs when Y*X fits a pass, else one more round)
    auto s2d = plan_large_fft({ 48, 60 }, 16, budget_for_pass(300, 16), false);
    GPUFFT_CHECK_EQ(kinds(s2d), "columns,columns");
    GPUFFT_CHECK(!cols(s2d.rounds[0]).transposed_write);
    check_coverage(s2d);
    // many short rows: the Y decomposition (96 = 8 x 12), transfers of whole rows
    auto s2y = plan_large_fft({ 96, 16 }, 16, budget_for_pass(300, 16), false);
    GPUFFT_CHECK_EQ(kinds(s2y), "columns,columns");
    GPUFFT_CHECK(cols(s2y.rounds[0]).transposed_write && cols(s2y.rounds[0]).unit == 16);
    GPUFFT_CHECK_EQ(cols(s2y.rounds[0]).L, 8);
    GPUFFT_CHECK_EQ(cols(s2y.rounds[0]).bc, 32);
    GPUFFT_CHECK(cols(s2y.rounds[1]).trailing && cols(s2y.rounds[1]).trail == 16);
    check_coverage(s2y);
    // in place it keeps columns then rows
    auto s2yi = plan_large_fft({ 96, 16 }, 16, budget_for_pass(300, 16), true);
    GPUFFT_CHECK(!cols(s2yi.rounds[0]).transposed_write);
    check_coverage(s2yi);
    auto s3d = plan_large_fft({ 12, 10, 14 }, 16, budget_for_pass(300, 16), false);
    GPUFFT_CHECK_EQ(kinds(s3d), "columns,columns");
    GPUFFT_CHECK(cols(s3d.rounds[1]).trailing);
    check_coverage(s3d);
    // long Z over small planes: the Z decomposition (96 = 8 x 12), runs of whole planes
    auto s3z = plan_large_fft({ 96, 3, 5 }, 16, budget_for_pass(300, 16), false);
    GPUFFT_CHECK_EQ(kinds(s3z), "columns,columns");
    GPUFFT_CHECK(cols(s3z.rounds[0]).transposed_write && cols(s3z.rounds[0]).unit == 15);
    GPUFFT_CHECK_EQ(cols(s3z.rounds[0]).L, 8);
    GPUFFT_CHECK_EQ(cols(s3z.rounds[0]).bc, 30);
    GPUFFT_CHECK_EQ(cols(s3z.rounds[0]).tw_div, 15);
    GPUFFT_CHECK_EQ(cols(s3z.rounds[1]).L, 12);
    GPUFFT_CHECK(cols(s3z.rounds[1]).trailing && cols(s3z.rounds[1]).trail == 15 &&
                 cols(s3z.rounds[1]).trail_rows == 3);
    check_coverage(s3z);
    // in place it keeps the column rounds
    auto s3zi = plan_large_fft({ 96, 3, 5 }, 16, budget_for_pass(300, 16), true);
    GPUFFT_CHECK(!cols(s3zi.rounds[0]).transposed_write);
    check_coverage(s3zi);
    auto s3d3 = plan_large_fft({ 12, 10, 14 }, 16, budget_for_pass(100, 16), false);
    GPUFFT_CHECK_EQ(kinds(s3d3), "columns,columns,columns");
    check_coverage(s3d3);
    GPUFFT_CHECK(!s3d3.describe().empty());
}

// The ring's depth: two slots where three would leave large column passes with narrow
// rows (the measured case, 2^30 at 1/8 of its 8 GiB), three elsewhere; the same for
// both schedules of a shape, and within the budget.
GPUFFT_TEST(planner_chooses_the_ring_depth)
{
    using detail::choose_ring_slots;
    using detail::plan_large_fft;
    const std::size_t GiB = std::size_t(1) << 30;
    const std::int64_t n30 = std::int64_t(1) << 30, n32 = std::int64_t(1) << 32;
    GPUFFT_CHECK_EQ(choose_ring_slots({ n30 }, 8, GiB), 2);      // rows of 4.5 KiB
    GPUFFT_CHECK_EQ(choose_ring_slots({ n30 }, 8, 4 * GiB), 3);  // rows of 9 KiB
    GPUFFT_CHECK_EQ(choose_ring_slots({ n32 }, 8, 8 * GiB), 3);  // rows of 18 KiB
    GPUFFT_CHECK_EQ(choose_ring_slots({ n30 }, 8, 16 * GiB), 3); // in card
    // narrow rows but small passes: tests' and small transforms' budgets keep three
    GPUFFT_CHECK_EQ(choose_ring_slots({ 4096 }, 16, budget_for_pass(1024, 16)), 3);
    GPUFFT_CHECK_EQ(choose_ring_slots({ 1 << 24 }, 8, 16 << 20), 3);
    for (bool in_place : { false, true }) {
        const auto s = plan_large_fft({ n30 }, 8, GiB, in_place);
        GPUFFT_CHECK_EQ(s.slots, 2);
        GPUFFT_CHECK_EQ(s.pass_elems, std::int64_t(GiB / 8 / 5));
        GPUFFT_CHECK(s.describe().find("a ring of 2") != std::string::npos);
        const auto t = plan_large_fft({ n30 }, 8, GiB, in_place, 3);
        GPUFFT_CHECK_EQ(t.pass_elems, std::int64_t(GiB / 8 / 7));
    }
    GPUFFT_CHECK_THROWS(plan_large_fft({ 4096 }, 16, budget_for_pass(1024, 16), false, 4),
                        std::invalid_argument,
                        "slots");
    // a ring of two runs the same schedules on the CPU
    detail::large_fft_config config;
    config.ring_slots = 2;
    for (const auto& shape : std::vector<std::vector<std::int64_t>>{
             { 4096 }, { 8192 }, { 96, 16 }, { 12, 10, 14 } }) {
        auto p = detail::make_large_fft_plan(
            shape, direction::forward, cpu(budget_for_pass(300, 16, 2)), config);
        GPUFFT_CHECK(p.describe().find("a ring of 2") != std::string::npos);
        GPUFFT_CHECK_LE(check_plan<double>(p, -1), 1e-12);
    }
}

GPUFFT_TEST(host_permutation_by_elements_and_runs)
{
    // digits (k1, k2, k3) over (3, 4, 5) -> k1 + 3 (k2 + 4 k3)
    std::vector<std::complex<double>> a(60);
    for (int i = 0; i < 60; ++i)
        a[i] = { double(i), -double(i) };
    auto b = a;
    detail::permute_digits(b.data(), { 3, 4, 5 }, sizeof(a[0]));
    for (int k1 = 0; k1 < 3; ++k1)
        for (int k2 = 0; k2 < 4; ++k2)
            for (int k3 = 0; k3 < 5; ++k3)
                GPUFFT_CHECK(b[k1 + 3 * (k2 + 4 * k3)] == a[(k1 * 4 + k2) * 5 + k3]);
    // runs of 4 elements over (3, 5): run (i, j) -> run j*3 + i, each run intact
    auto c = a;
    detail::permute_digits(c.data(), { 3, 5 }, sizeof(a[0]), 4);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 5; ++j)
            for (int e = 0; e < 4; ++e)
                GPUFFT_CHECK(c[(j * 3 + i) * 4 + e] == a[(i * 5 + j) * 4 + e]);
}

GPUFFT_TEST(in_place_transpose_all_small_shapes)
{
    // every rows x cols up to 40 x 40 (equal, coprime and common-factor shapes), items of
    // 8, 16 and 24 bytes, 1 and 3 threads, against the out-of-place transpose
    std::mt19937_64 rng(fresh_seed());
    for (std::size_t e : { 8, 16, 24 })
        for (int threads : { 1, 3 })
            for (std::int64_t m = 1; m <= 40; ++m)
                for (std::int64_t n = 1; n <= 40; ++n) {
                    std::vector<unsigned char> a(std::size_t(m * n) * e);
                    for (auto& x : a)
                        x = static_cast<unsigned char>(rng());
                    auto t = a;
                    detail::transpose_in_place(t.data(), m, n, e, threads);
                    bool same = true;
                    for (std::int64_t i = 0; i < m; ++i)
                        for (std::int64_t j = 0; j < n; ++j)
                            same = same && !std::memcmp(&t[std::size_t(j * m + i) * e],
                                                        &a[std::size_t(i * n + j) * e],
                                                        e);
                    if (!same)
                        std::printf(
                            "    transpose %lld x %lld of %zu-byte items, %d threads\n",
                            (long long)m,
                            (long long)n,
                            e,
                            threads);
                    GPUFFT_CHECK(same);
                }
    // items too large for column scratch: the cycle-following path (2 x 3 of 48 MiB)
    const std::size_t big = std::size_t(48) << 20;
    std::vector<unsigned char> a(6 * big);
    for (std::size_t k = 0; k < 6; ++k)
        std::memset(&a[k * big], int(k + 1), big);
    detail::transpose_in_place(a.data(), 2, 3, big, 4);
    for (std::int64_t i = 0; i < 2; ++i)
        for (std::int64_t j = 0; j < 3; ++j) {
            const unsigned char* item = &a[std::size_t(j * 2 + i) * big];
            GPUFFT_CHECK_EQ(int(item[0]), int(i * 3 + j + 1));
            GPUFFT_CHECK_EQ(int(item[big - 1]), int(i * 3 + j + 1));
        }
}

GPUFFT_TEST(threaded_gather_scatter_and_moves)
{
    // above the 1 MiB threading threshold: a long single row and 2-D blocks of various
    // pitches, rows split among 4 threads across blocks; checked element by element
    using cf = std::complex<double>;
    const std::int64_t pitch = 1024, rows = 512;
    std::vector<cf> host(pitch * rows);
    for (std::size_t i = 0; i < host.size(); ++i)
        host[i] = { double(i), -double(i) };
    const std::vector<detail::host_block> blocks{
        { 0, 1, 3 * pitch, 3 * pitch, 0, 0 },             // rows 0-2 as one run
        { 3 * pitch + 5, 200, 300, pitch, 3 * pitch, 0 }, // dense 200 x 300
        { 300 * pitch + 7, 100, 64, pitch, 3 * pitch + 60000, 128 }, // pitched buffer
    };
    std::vector<cf> buf(3 * pitch + 60000 + 100 * 128, cf(-1, -1));
    detail::gather_blocks(host.data(), buf.data(), blocks, sizeof(cf), 4);
    for (const auto& b : blocks)
        for (std::int64_t r = 0; r < b.rows; ++r)
            for (std::int64_t j = 0; j < b.width; ++j)
                GPUFFT_CHECK(buf[b.dev_offset + r * b.dpitch() + j] ==
                             host[b.host_offset + r * b.pitch + j]);
    std::vector<cf> back(host.size(), cf(-1, -1));
    detail::scatter_blocks(buf.data(), back.data(), blocks, sizeof(cf), 4);
    for (const auto& b : blocks)
        for (std::int64_t r = 0; r < b.rows; ++r)
            for (std::int64_t j = 0; j < b.width; ++j)
                GPUFFT_CHECK(back[b.host_offset + r * b.pitch + j] ==
                             host[b.host_offset + r * b.pitch + j]);
    // moves within the array: two 256 x 256 tiles to the right half
    auto moved = host;
    const std::vector<detail::host_move> moves{
        { 0, 512, 256, 256, pitch }, { 256 * pitch, 256 * pitch + 768, 256, 256, pitch }
    };
    detail::move_blocks(moved.data(), moves.data(), moves.size(), sizeof(cf), 4);
    for (const auto& m : moves)
        for (std::int64_t r = 0; r < m.rows; ++r)
            for (std::int64_t j = 0; j < m.width; ++j)
                GPUFFT_CHECK(moved[m.to + r * m.pitch + j] ==
                             host[m.from + r * m.pitch + j]);
}

// The host moves use streaming stores from the first 16-byte boundary on: single
// precision rows starting and ending off that boundary, and nothing else touched.
GPUFFT_TEST(moves_of_any_alignment)
{
    using cf = std::complex<float>;
    const std::int64_t pitch = 1000, rows = 300;
    std::vector<cf> host(pitch * rows);
    for (std::size_t i = 0; i < host.size(); ++i)
        host[i] = { float(i), -float(i) };
    const std::vector<detail::host_move> moves{
        { 1, 150 * pitch + 3, 100, 37, pitch },
        { 500, 150 * pitch + 501, 140, 333, pitch },
        { 7, 290 * pitch + 2, 1, 9, pitch },
    };
    auto want = host;
    for (const auto& m : moves)
        for (std::int64_t r = 0; r < m.rows; ++r)
            for (std::int64_t j = 0; j < m.width; ++j)
                want[m.to + r * m.pitch + j] = host[m.from + r * m.pitch + j];
    for (int threads : { 1, 3 }) {
        auto moved = host;
        detail::move_blocks(
            moved.data(), moves.data(), moves.size(), sizeof(cf), threads);
        GPUFFT_CHECK(moved == want);
    }
}

GPUFFT_TEST(in_card_matches_direct_dft)
{
    for (auto dir : { direction::forward, direction::backward }) {
        large_fft_plan p({ 1000 }, dir, cpu(0)); // default CPU budget: in card
        GPUFFT_CHECK_EQ(p.passes(), 1);
        GPUFFT_CHECK_LE(check_plan<double>(p, int(dir)), 1e-12);
    }
}

GPUFFT_TEST(two_rounds_match_direct_dft)
{
    // square (transposed row round in place; with 256-element passes, tile transpose),
    // 2^13 (in place: transposed row round over two squares; with 1024-element passes,
    // host permutation), small primes
    struct c {
        std::int64_t n, pass;
    };
    for (const auto& t : { c{ 4096, 1024 },
                           c{ 4096, 256 },
                           c{ 8192, 1024 },
                           c{ 8192, 2048 },
                           c{ 6000, 1024 },
                           c{ 2 * 3 * 5 * 7 * 11 * 4, 1024 } }) {
        for (auto dir : { direction::forward, direction::backward }) {
            large_fft_plan p({ t.n }, dir, cpu(budget_for_pass(t.pass, 16)));
            GPUFFT_CHECK_EQ(p.passes(), 2);
            GPUFFT_CHECK_LE(check_plan<double>(p, int(dir)), 1e-12);
        }
    }
}

GPUFFT_TEST(three_rounds_match_direct_dft)
{
    for (std::int64_t n : { 4096, 3000, 2 * 3 * 5 * 7 * 11 }) {
        large_fft_plan p({ n }, direction::forward, cpu(budget_for_pass(40, 16)));
        GPUFFT_CHECK_EQ(p.passes(), 3);
        GPUFFT_CHECK_LE(check_plan<double>(p, -1), 1e-12);
    }
}

GPUFFT_TEST(single_precision_two_rounds)
{
    large_fft_plan p({ 1 << 14 },
                     direction::forward,
                     cpu(budget_for_pass(4096, 8), precision::single));
    GPUFFT_CHECK_EQ(p.passes(), 2);
    GPUFFT_CHECK_LE(check_plan<float>(p, -1), 2e-6);
}

GPUFFT_TEST(two_and_three_dimensions)
{
    struct c {
        std::vector<std::int64_t> shape;
        std::int64_t pass;
        int rounds;
    };
    for (const auto& t : { c{ { 48, 60 }, 300, 2 },
                           c{ { 96, 16 }, 300, 2 }, // Y decomposition out of place
                           c{ { 64, 20 }, 300, 2 },
                           c{ { 12, 10, 14 }, 300, 2 },
                           c{ { 12, 10, 14 }, 100, 3 },
                           c{ { 96, 3, 5 }, 300, 2 }, // Z decomposition out of place
                           c{ { 96, 1, 16 }, 300, 2 },
                           c{ { 6, 5, 9 }, 0, 1 } }) {
        for (auto dir : { direction::forward, direction::backward }) {
            large_fft_plan p(t.shape, dir, cpu(t.pass ? budget_for_pass(t.pass, 16) : 0));
            GPUFFT_CHECK_EQ(p.passes(), t.rounds);
            GPUFFT_CHECK_LE(check_plan<double>(p, int(dir)), 1e-12);
        }
    }
}

// The trace: one debug message per round of each execute, through the plan's log.
GPUFFT_TEST(trace_reports_each_round)
{
    for (bool on : { false, true }) {
        std::vector<std::pair<log_level, std::string>> got;
        auto o = cpu(budget_for_pass(1024, 16));
        o.trace = on;
        o.log = [&](log_level l, const std::string& m) { got.emplace_back(l, m); };
        large_fft_plan p({ 4096 }, direction::forward, o);
        GPUFFT_CHECK_EQ(p.passes(), 2);
        const auto x = random_complex<double>(4096, fresh_seed());
        std::vector<std::complex<double>> y(4096);
        p.execute(x.data(), y.data());
        GPUFFT_CHECK_EQ(got.size(), std::size_t(on ? 2 : 0));
        for (std::size_t i = 0; i < got.size(); ++i) {
            GPUFFT_CHECK(got[i].first == log_level::debug);
            GPUFFT_CHECK_EQ(got[i].second.rfind(
                                "large_fft round " + std::to_string(i + 1) + "/2: ", 0),
                            std::size_t(0));
        }
    }
}

// The CUDA executor's switches by name (the bench's --pass-fft); the CPU executor runs
// the same schedule whatever they say.
GPUFFT_TEST(internal_config)
{
    for (auto f : { detail::pass_fft::four_step,
                    detail::pass_fft::stockham,
                    detail::pass_fft::cufft })
        GPUFFT_CHECK(detail::parse_pass_fft(detail::to_string(f)) == f);
    GPUFFT_CHECK_THROWS(
        detail::parse_pass_fft("fftw"), std::invalid_argument, "pass_fft");
    detail::large_fft_config config;
    config.fft = detail::pass_fft::cufft;
    config.split_copies = false;
    auto p = detail::make_large_fft_plan(
        { 4096 }, direction::forward, cpu(budget_for_pass(1024, 16)), config);
    GPUFFT_CHECK_EQ(p.passes(), 2);
    GPUFFT_CHECK_LE(check_plan<double>(p, -1), 1e-12);
    GPUFFT_CHECK_EQ(detail::plan_stats(p).cufft_execs, 0);
}

GPUFFT_TEST(bad_input_is_refused)
{
    GPUFFT_CHECK_THROWS(
        large_fft_plan({}, direction::forward, cpu(0)), std::invalid_argument, "shape");
    GPUFFT_CHECK_THROWS(large_fft_plan({ 2, 2, 2, 2 }, direction::forward, cpu(0)),
                        std::invalid_argument,
                        "shape");
    GPUFFT_CHECK_THROWS(large_fft_plan({ 0 }, direction::forward, cpu(0)),
                        std::invalid_argument,
                        "shape[0]");
    GPUFFT_CHECK_THROWS(large_fft_plan({ 16, -4 }, direction::forward, cpu(0)),
                        std::invalid_argument,
                        "shape[1]");
    // 2^50 complex doubles: more than any host has
    GPUFFT_CHECK_THROWS(
        large_fft_plan({ std::int64_t(1) << 50 }, direction::forward, cpu(0)),
        std::invalid_argument,
        "bytes of memory");
    GPUFFT_CHECK_THROWS(large_fft_plan({ std::int64_t(1) << 40, std::int64_t(1) << 40 },
                                       direction::forward,
                                       cpu(0)),
                        std::invalid_argument,
                        "64-bit");
    // a prime size cannot be split: it must fit a pass
    GPUFFT_CHECK_THROWS(
        large_fft_plan({ 4099 }, direction::forward, cpu(budget_for_pass(64, 16))),
        std::invalid_argument,
        "memory_budget");
    GPUFFT_CHECK_THROWS(
        large_fft_plan({ 4096 }, direction::forward, cpu(budget_for_pass(8, 16))),
        std::invalid_argument,
        "memory_budget");
    GPUFFT_CHECK_THROWS(
        large_fft_plan({ 512, 8 }, direction::forward, cpu(budget_for_pass(100, 16))),
        std::invalid_argument,
        "memory_budget");

    large_fft_plan p({ 4096 }, direction::forward, cpu(budget_for_pass(1024, 16)));
    auto x = random_complex<double>(4096, fresh_seed());
    std::vector<std::complex<double>> y(4096);
    x[1234] = { 0.0, std::numeric_limits<double>::infinity() };
    GPUFFT_CHECK_THROWS(p.execute(x.data(), y.data()), std::invalid_argument, "NaN");
    x[1234] = { std::numeric_limits<double>::quiet_NaN(), 0.0 };
    GPUFFT_CHECK_THROWS(p.execute(x.data(), x.data()), std::invalid_argument, "NaN");
    std::vector<std::complex<float>> xf(4096);
    GPUFFT_CHECK_THROWS(
        p.execute(xf.data(), xf.data()), std::invalid_argument, "precision");
    GPUFFT_CHECK_THROWS(p.execute(nullptr, y.data()), std::invalid_argument, "null");
    // the plan still works after refusing
    GPUFFT_CHECK_LE(check_plan<double>(p, -1), 1e-12);
}

GPUFFT_TEST_MAIN()
