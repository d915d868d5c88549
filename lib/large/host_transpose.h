/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// In-place transposition of a host matrix, for the large FFT's host permutations (the
// schedules whose last transpose the card cannot do in place).

#ifndef INCLUDED_GPUFFT_LARGE_HOST_TRANSPOSE_H
#define INCLUDED_GPUFFT_LARGE_HOST_TRANSPOSE_H

#include <cstddef>
#include <cstdint>

namespace gr {
namespace gpufft {
namespace detail {

/*!
 * Turns the row-major `rows` x `cols` matrix of `elem_bytes`-byte items at `data` into
 * its row-major `cols` x `rows` transpose, in place. Catanzaro, Keller and Garland's
 * decomposition (PPoPP 2014): with c = gcd(rows, cols), a rotation of each column, a
 * permutation within each row, and a permutation within each column, the last split into
 * a rotation of each column and one permutation of whole rows. Every step is parallel
 * over rows or column blocks with scratch of one row or `rows` x a few items per thread
 * (at most 64 MiB); where one row or one column alone would pass that (a few huge items)
 * it follows the permutation's cycles instead, one item per memcpy.
 */
void transpose_in_place(void* data,
                        std::int64_t rows,
                        std::int64_t cols,
                        std::size_t elem_bytes,
                        int threads);

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_LARGE_HOST_TRANSPOSE_H */
