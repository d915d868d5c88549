/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "nufft/nufft3_cuda_kernels.h"
#include "nufft/nufft3_spread_layout.h"
#include <algorithm>
#include <cmath>

namespace gr {
namespace gpufft {
namespace nufft {

namespace {

std::size_t tile_cells(int dim, const int* bin, int taps)
{
    std::size_t cells = 1;
    for (int a = 0; a < dim; ++a)
        cells *= std::size_t(bin[a] + taps - 1);
    return cells;
}

//! Sources per cell of the part of the grid they occupy: about M / sigma cells of an
//! axis of M (plus the taps).
double source_density(const geometry& g, std::int64_t n_sources)
{
    double occupied = 1;
    for (int a = 0; a < g.dim; ++a) {
        const double M = double(g.axis[a].cells);
        occupied *= std::min(M, M / g.sigma + g.kernel.taps);
    }
    return double(n_sources) / occupied;
}

//! The gather form's bin side (choose_spread_layout's model); 0 when no tile fits.
int gather_side(const geometry& g,
                std::int64_t n_sources,
                std::size_t real_bytes,
                std::size_t max_shared)
{
    const int dim = g.dim, W = g.kernel.taps;
    const double density = source_density(g, n_sources);
    const double flush_tests = 10;
    int best = 0;
    double best_cost = 0;
    for (int side = 1; side <= (dim == 2 ? 32 : 16); ++side) {
        const double tile = std::pow(double(side + W - 1), dim);
        const std::size_t bytes =
            gather_shared_bytes(dim, W, real_bytes, std::size_t(tile), 1);
        double bins = 1;
        for (int a = 0; a < dim; ++a)
            bins *= std::ceil(double(g.axis[a].cells) / side);
        if (bytes > max_shared || bins > max_gather_bins)
            continue;
        const double passes = std::ceil(tile / threads_per_block) * threads_per_block;
        const double per_block = std::max(
            1.0, std::min(density * std::pow(double(side), dim), double(max_subproblem)));
        const double cost = passes * (1 + flush_tests / per_block);
        if (best == 0 || cost < best_cost) {
            best = side;
            best_cost = cost;
        }
    }
    return best;
}

} // namespace

spread_layout choose_spread_layout(const geometry& g,
                                   std::int64_t n_sources,
                                   nufft_spread form,
                                   std::size_t real_bytes,
                                   std::size_t max_shared)
{
    const int dim = g.dim, W = g.kernel.taps;
    spread_layout l;
    int* b = l.bin;
    if (dim == 1)
        b[0] = bin_1d;
    else if (dim == 2)
        b[0] = b[1] = 32;
    else
        b[0] = b[1] = 16, b[2] = 8;
    while (dim > 1 && tile_cells(dim, b, W) * 2 * real_bytes > max_tile_bytes) {
        int widest = 0;
        for (int a = 1; a < dim; ++a)
            if (b[a] >= b[widest])
                widest = a;
        if (b[widest] == 1)
            break;
        b[widest] /= 2;
    }
    if (dim >= 2 && W <= gather_max_taps && form != nufft_spread::scatter) {
        // No side fits where a block's shared memory is small (64 KiB on sm_75) and
        // the kernel wide: the scatter form's smaller tile may still.
        const int side = gather_side(
            g, n_sources, real_bytes, std::min(max_shared, 2 * max_tile_bytes));
        l.gather = side > 0;
        for (int a = 0; l.gather && a < dim; ++a)
            b[a] = side;
        if (l.gather && dim == 2) {
            l.direct = form == nufft_spread::direct;
            if (form == nufft_spread::automatic &&
                source_density(g, n_sources) <= direct_max_density)
                l.direct_from = direct_min_vectors;
        }
    }
    l.tile_cells = tile_cells(dim, b, W);
    l.shared_bytes = l.gather ? gather_shared_bytes(dim, W, real_bytes, l.tile_cells, 1)
                              : l.tile_cells * 2 * real_bytes;
    return l;
}

int gather_vectors(const spread_layout& l,
                   const geometry& g,
                   std::size_t real_bytes,
                   int ntransf,
                   std::size_t max_shared,
                   std::size_t* shared_bytes)
{
    *shared_bytes = l.shared_bytes;
    if (!l.gather)
        return 0;
    const std::size_t cap = std::min(max_shared, 2 * max_tile_bytes);
    for (int v : { 4, 2 }) {
        const std::size_t bytes =
            gather_shared_bytes(g.dim, g.kernel.taps, real_bytes, l.tile_cells, v);
        if (v <= ntransf && bytes <= cap) {
            *shared_bytes = bytes;
            return v;
        }
    }
    return 1;
}

} // namespace nufft
} // namespace gpufft
} // namespace gr
