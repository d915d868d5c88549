/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The peer exchange's kernel behind a plain C++ launcher (peer_exchange.h).

#ifndef INCLUDED_GPUFFT_LARGE_PEER_KERNELS_H
#define INCLUDED_GPUFFT_LARGE_PEER_KERNELS_H

#include <cstdint>

namespace gr {
namespace gpufft {
namespace detail {

/*!
 * In place on a slab of `parts` slots of [s1][s2] (complex<float> or, with dbl,
 * complex<double>): element (i, j) of every slot through segment_butterfly
 * (peer_exchange_math.h). sign: -1 forward, +1 backward.
 */
void launch_segment_butterfly(void* slab,
                              bool dbl,
                              int parts,
                              std::int64_t s1,
                              std::int64_t s2,
                              int sign,
                              void* stream);

/*!
 * out[c][r] = in[r * pitch + c] for r < rows, c < cols: a column block of a pitched
 * matrix transposed into a contiguous [cols][rows] (so each output row is a long run).
 */
void launch_pitched_transpose(const void* in,
                              std::int64_t pitch,
                              void* out,
                              bool dbl,
                              std::int64_t rows,
                              std::int64_t cols,
                              void* stream);

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_LARGE_PEER_KERNELS_H */
