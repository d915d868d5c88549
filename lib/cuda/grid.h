/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Grid size for the grid-stride kernels of the engines.

#ifndef INCLUDED_GPUFFT_CUDA_GRID_H
#define INCLUDED_GPUFFT_CUDA_GRID_H

#include <algorithm>
#include <cstdint>

namespace gr {
namespace gpufft {
namespace cuda {

//! Blocks for `items` work items, `per_block` per block: enough resident blocks to fill
//! any current GPU (132 SMs x 32), the kernels' loops stride over the rest; at least 1.
inline int grid_blocks(std::int64_t items, std::int64_t per_block)
{
    constexpr std::int64_t max_blocks = 132 * 32;
    return int(std::max<std::int64_t>(
        1, std::min<std::int64_t>((items + per_block - 1) / per_block, max_blocks)));
}

} // namespace cuda
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_CUDA_GRID_H */
