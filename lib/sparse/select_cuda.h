/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// One order statistic of non-negative floats on the device (robust mode's dense-path
// noise median), by radix selection: three histogram passes over the bits from the top,
// each keeping only the values that share the digits chosen so far. It returns the
// exact element a full sort would put at that rank, at a fraction of the sort's cost.

#ifndef INCLUDED_GPUFFT_SELECT_CUDA_H
#define INCLUDED_GPUFFT_SELECT_CUDA_H

#include <cstddef>

namespace gr {
namespace gpufft {
namespace detail {

//! Device words of scratch launch_select_nonneg() needs.
constexpr std::size_t select_scratch_words = 2 + 4096;

/*!
 * *out (device) = the element of rank `rank` (0-based, ascending) of values[0..count),
 * every value a non-negative float (NaN sorts above infinity, as in a radix sort).
 * scratch: select_scratch_words device words. Enqueued on `stream`; graph-capturable.
 */
void launch_select_nonneg(const float* values,
                          long long count,
                          long long rank,
                          unsigned* scratch,
                          float* out,
                          void* stream);

//! Values launch_block_select_nonneg() takes at most (one block's shared memory).
constexpr int block_select_max = 8192;

/*!
 * launch_select_nonneg() for count <= block_select_max (every value finite): one thread
 * block, one launch, no scratch. The device function it runs (block_select.cuh) is what
 * robust mode's noise kernel selects its median with.
 */
void launch_block_select_nonneg(
    const float* values, int count, int rank, float* out, void* stream);

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_SELECT_CUDA_H */
