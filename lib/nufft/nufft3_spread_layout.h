/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// How the CUDA backend's spreading cuts the fine grid into bins and fills their
// shared-memory tiles (nufft3_spread_kernels.cu): plain C++, so the choice is tested on
// any machine.

#ifndef INCLUDED_GPUFFT_NUFFT3_SPREAD_LAYOUT_H
#define INCLUDED_GPUFFT_NUFFT3_SPREAD_LAYOUT_H

#include "nufft/nufft3_params.h"
#include <gnuradio/gpufft/nufft3_plan.h>
#include <cstddef>
#include <cstdint>

namespace gr {
namespace gpufft {
namespace nufft {

struct spread_layout {
    bool gather = false; //!< the gather form; else scatter
    bool direct = false; //!< the direct form (2D), over the gather form's bins
    int direct_from =
        0; //!< else batches of at least this many vectors go direct (0: none)
    int bin[3] = { 1, 1, 1 };     //!< cells per bin and axis (1 past dim)
    std::size_t tile_cells = 0;   //!< cells of one tile: bin + taps - 1 per axis
    std::size_t shared_bytes = 0; //!< shared memory of one block serving one vector
};

/*!
 * Bins and the form of spreading for n_sources on grid g, complex cells of
 * 2 * real_bytes, blocks of at most max_shared bytes of shared memory.
 *
 * Scatter: bins of 1D 1024 cells, 2D 32 x 32, 3D 16 x 16 x 8, the largest axis (the last
 * among equals) halved until the tile fits max_tile_bytes. Gather (2D and 3D, kernels
 * of up to gather_max_taps taps, unless `form` asks for scatter, and where some tile
 * fits max_shared): the square or cubic bin of least modelled cost. Per source the model
 * counts the (cell, source) pairs tested, the tile's cells rounded up to whole passes of
 * the block's threads, plus the tile's flush (a global atomic per cell, worth about ten
 * tests) shared by the sources of one block. A small bin wastes least on cells outside a
 * source's taps, a large one shares its flush among more sources: dense sources take bins
 * of a few cells a side, sparse ones of ten or more. Any side will do (bins need not
 * divide the grid), so the tile can fill whole passes of the threads.
 *
 * Direct (2D, where the gather form would run): regions of direct_side^2 cells find
 * their sources through the gather form's bins, so both forms share them and the choice
 * can be made per execute. `form` direct takes it always; `automatic` for batches of at
 * least direct_min_vectors strength vectors where the sources are sparse (at most
 * direct_max_density per occupied cell). A direct block shares its tests and weights
 * among up to 16 vectors and leaves no tile to add into the grid, but it stages a source
 * once per region its taps reach and tests more pairs: one vector, or dense sources,
 * gather faster.
 */
spread_layout choose_spread_layout(const geometry& g,
                                   std::int64_t n_sources,
                                   nufft_spread form,
                                   std::size_t real_bytes,
                                   std::size_t max_shared);

/*!
 * Strength vectors one gather block serves at a time: 4, 2 or 1, the most of them, up to
 * ntransf, whose tiles fit max_shared; 0 for the scatter form. *shared_bytes: what the
 * block then needs.
 */
//! Whether a batch of ntransf vectors spreads in the direct form.
inline bool spread_direct(const spread_layout& l, int ntransf)
{
    return l.direct || (l.direct_from > 0 && ntransf >= l.direct_from);
}

int gather_vectors(const spread_layout& l,
                   const geometry& g,
                   std::size_t real_bytes,
                   int ntransf,
                   std::size_t max_shared,
                   std::size_t* shared_bytes);

} // namespace nufft
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_NUFFT3_SPREAD_LAYOUT_H */
