/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The CUDA backend's spreading layout (bins and the form of spreading), chosen on the
// host: the bench's cases get the bins measured fastest, every layout fits the shared
// memory it is given, and batches group as many vectors as fit.

#include "nufft/nufft3_cuda_kernels.h"
#include "nufft/nufft3_spread_layout.h"
#include "reference.h"
#include "test_harness.h"
#include <algorithm>
#include <cstdio>
#include <random>

using namespace gr::gpufft;
using namespace gr::gpufft::nufft;
using namespace gpufft_test;

namespace {

constexpr std::size_t h200_shared = 227 * 1024; // a block's opt-in limit on sm_90

geometry grid(int dim, std::int64_t cells, int taps, double sigma = 2)
{
    geometry g;
    g.dim = dim;
    g.sigma = sigma;
    g.kernel.taps = taps;
    for (int a = 0; a < dim; ++a)
        g.axis[a].cells = cells;
    return g;
}

spread_layout layout(const geometry& g,
                     std::int64_t n,
                     std::size_t real_bytes,
                     nufft_spread form = nufft_spread::automatic,
                     std::size_t max_shared = h200_shared)
{
    return choose_spread_layout(g, n, form, real_bytes, max_shared);
}

} // namespace

GPUFFT_TEST(bench_cases_gather_with_the_measured_bins)
{
    // Dense 2^20 sources on 180^2 cells: small bins (few pairs tested outside the taps).
    const auto dense = layout(grid(2, 180, 12), 1 << 20, 8);
    GPUFFT_CHECK(dense.gather);
    GPUFFT_CHECK_EQ(dense.bin[0], 4);
    GPUFFT_CHECK_EQ(dense.bin[1], 4);
    GPUFFT_CHECK_EQ(dense.tile_cells, std::size_t(15 * 15));
    // Sparse 2^20 sources on 4320^2: larger bins share the tile's flush.
    const auto sparse = layout(grid(2, 4320, 12), 1 << 20, 8);
    GPUFFT_CHECK(sparse.gather);
    GPUFFT_CHECK_EQ(sparse.bin[0], 11);
    GPUFFT_CHECK_EQ(sparse.tile_cells, std::size_t(22 * 22));
    // 3-D double, 2^20 sources on 180^3 cells, 13 taps.
    const auto cube = layout(grid(3, 180, 13), 1 << 20, 8);
    GPUFFT_CHECK(cube.gather);
    GPUFFT_CHECK_EQ(cube.bin[2], 4);
    // 3-D single, 1e6 sources on 432^3 cells, 8 taps.
    const auto cube_f = layout(grid(3, 432, 8), 1000000, 4);
    GPUFFT_CHECK(cube_f.gather);
    GPUFFT_CHECK_EQ(cube_f.bin[0], 5);
}

GPUFFT_TEST(scatter_where_gather_does_not_apply)
{
    const auto one = layout(grid(1, 4050000, 8), 10000000, 4);
    GPUFFT_CHECK(!one.gather);
    GPUFFT_CHECK_EQ(one.bin[0], bin_1d);
    const auto asked = layout(grid(2, 4320, 12), 1 << 20, 8, nufft_spread::scatter);
    GPUFFT_CHECK(!asked.gather);
    GPUFFT_CHECK_EQ(asked.bin[0], 32);
    GPUFFT_CHECK_EQ(asked.shared_bytes, std::size_t(43 * 43 * 16));
    // Wider kernels than the gather form takes (the Gaussian's) scatter, with the 3-D
    // bin halved until its tile fits max_tile_bytes.
    const auto wide = layout(grid(3, 200, gather_max_taps + 1), 1000000, 8);
    GPUFFT_CHECK(!wide.gather);
    GPUFFT_CHECK_LE(wide.shared_bytes, max_tile_bytes);
    std::size_t shared = 0;
    GPUFFT_CHECK_EQ(gather_vectors(wide, grid(3, 200, 17), 8, 16, h200_shared, &shared),
                    0);
    GPUFFT_CHECK_EQ(shared, wide.shared_bytes);
}

GPUFFT_TEST(every_layout_fits_its_shared_memory)
{
    const std::uint64_t seed = fresh_seed();
    std::mt19937_64 rng(seed);
    std::printf("  seed %llu\n", (unsigned long long)seed);
    int checked = 0, fallbacks = 0;
    for (int trial = 0; trial < 2000; ++trial) {
        const int dim = 2 + int(rng() % 2);
        const int taps = 2 + int(rng() % 15);
        const std::int64_t cells = 2 * taps + 4 + std::int64_t(rng() % 3000);
        const std::int64_t n = 1 + std::int64_t(rng() % 20000000);
        const std::size_t real = rng() % 2 ? 8 : 4;
        const std::size_t max_shared = (rng() % 2 ? 48 : 227) * 1024;
        const geometry g = grid(dim, dim == 3 ? cells / 8 + 2 * taps : cells, taps);
        const auto l = layout(g, n, real, nufft_spread::automatic, max_shared);
        const std::size_t cap = std::min(max_shared, 2 * max_tile_bytes);
        if (!l.gather) {
            // Only where no side gives a tile that fits and a bin count in bounds.
            bool any = false;
            for (int side = 1; side <= (dim == 2 ? 32 : 16); ++side) {
                std::size_t tile = 1;
                double bins = 1;
                for (int a = 0; a < dim; ++a) {
                    tile *= std::size_t(side + taps - 1);
                    bins *= double((g.axis[a].cells + side - 1) / side);
                }
                any = any || (gather_shared_bytes(dim, taps, real, tile, 1) <= cap &&
                              bins <= max_gather_bins);
            }
            GPUFFT_CHECK(!any);
            ++fallbacks;
            continue;
        }
        GPUFFT_CHECK_LE(1, l.bin[0]);
        GPUFFT_CHECK_LE(l.bin[0], 32);
        GPUFFT_CHECK_EQ(l.bin[0], l.bin[dim - 1]);
        GPUFFT_CHECK_LE(l.shared_bytes, cap);
        for (int ntransf : { 1, 2, 3, 16 }) {
            std::size_t shared = 0;
            const int v = gather_vectors(l, g, real, ntransf, max_shared, &shared);
            GPUFFT_CHECK(v == 1 || v == 2 || v == 4);
            GPUFFT_CHECK_LE(v, std::max(1, ntransf));
            GPUFFT_CHECK_LE(shared, std::min(max_shared, 2 * max_tile_bytes));
            GPUFFT_CHECK_EQ(shared,
                            gather_shared_bytes(dim, taps, real, l.tile_cells, v));
        }
        ++checked;
    }
    std::printf(
        "  %d gather layouts checked, %d fell back to scatter\n", checked, fallbacks);
    GPUFFT_CHECK_EQ(checked + fallbacks, 2000);
    GPUFFT_CHECK(checked > 1500);
}

GPUFFT_TEST(batches_group_what_fits)
{
    const geometry g = grid(2, 4320, 12);
    const auto l = layout(g, 1 << 20, 8);
    std::size_t shared = 0;
    GPUFFT_CHECK_EQ(gather_vectors(l, g, 8, 16, h200_shared, &shared), 4);
    GPUFFT_CHECK_EQ(gather_vectors(l, g, 8, 3, h200_shared, &shared), 2);
    GPUFFT_CHECK_EQ(gather_vectors(l, g, 8, 1, h200_shared, &shared), 1);
    // A 3-D double tile of 16^3 cells (64 KiB): two vectors fit 192 KiB, four do not.
    const geometry c = grid(3, 180, 13);
    const auto lc = layout(c, 1 << 20, 8);
    GPUFFT_CHECK_EQ(lc.tile_cells, std::size_t(16 * 16 * 16));
    GPUFFT_CHECK_EQ(gather_vectors(lc, c, 8, 16, h200_shared, &shared), 2);
    // With 64 KiB a block (sm_75), a 16-tap 3-D double kernel has no gather tile.
    const auto turing =
        layout(grid(3, 180, 16), 1 << 20, 8, nufft_spread::automatic, 64 * 1024);
    GPUFFT_CHECK(!turing.gather);
}

GPUFFT_TEST(direct_form_for_batches_of_sparse_sources)
{
    // The batch bench case: 2^20 sources on 3200^2 cells (sigma 1.75), 13 taps, about
    // 0.31 sources per occupied cell. One vector gathers; 8 or more go direct.
    const geometry big = grid(2, 3200, 13, 1.75);
    const auto l = layout(big, 1 << 20, 8);
    GPUFFT_CHECK(l.gather);
    GPUFFT_CHECK(!l.direct);
    GPUFFT_CHECK_EQ(l.direct_from, direct_min_vectors);
    for (int ntransf : { 1, 2, 4, 7 })
        GPUFFT_CHECK(!spread_direct(l, ntransf));
    for (int ntransf : { 8, 11, 16, 100 })
        GPUFFT_CHECK(spread_direct(l, ntransf));
    // Dense sources (2^20 on 180^2 cells) never go direct under auto; 1e7 on 3200^2
    // (about 3 per cell) neither.
    const auto dense = layout(grid(2, 180, 12), 1 << 20, 8);
    GPUFFT_CHECK_EQ(dense.direct_from, 0);
    GPUFFT_CHECK(!spread_direct(dense, 16));
    GPUFFT_CHECK_EQ(layout(grid(2, 3200, 7, 1.75), 10000000, 4).direct_from, 0);
    // Asked for: always in 2D, with the gather form's bins.
    const auto asked = layout(grid(2, 180, 12), 1 << 20, 8, nufft_spread::direct);
    GPUFFT_CHECK(asked.direct && asked.gather);
    GPUFFT_CHECK(spread_direct(asked, 1));
    GPUFFT_CHECK_EQ(asked.bin[0], dense.bin[0]);
    // Not in 3D, nor where the gather form does not apply: there `direct` is `auto`.
    const auto cube = layout(grid(3, 180, 13), 1 << 20, 8, nufft_spread::direct);
    GPUFFT_CHECK(cube.gather && !cube.direct && cube.direct_from == 0);
    GPUFFT_CHECK(!spread_direct(cube, 16));
    const auto one = layout(grid(1, 4050000, 8), 10000000, 4, nufft_spread::direct);
    GPUFFT_CHECK(!one.gather && !one.direct && !spread_direct(one, 16));
    const auto scatter = layout(big, 1 << 20, 8, nufft_spread::scatter);
    GPUFFT_CHECK(!scatter.gather && !spread_direct(scatter, 16));
    for (int n : { 1, 3, 4, 7, 8, 15, 16, 17 }) {
        const int v = direct_vectors(n);
        GPUFFT_CHECK(v == 1 || v == 2 || v == 4 || v == 8 || v == 16);
        GPUFFT_CHECK_LE(v, n);
        GPUFFT_CHECK(2 * v > std::min(n, 16)); // the largest that fits
    }
}

GPUFFT_TEST_MAIN()
