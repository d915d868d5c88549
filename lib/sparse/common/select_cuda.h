/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// One order statistic of floats on the device (robust mode's dense-path noise median),
// by radix selection: three histogram passes over the bits of each value's radix key
// (select_key()) from the top, each keeping only the values that share the digits
// chosen so far. It returns the exact element a full sort would put at that rank, at a
// fraction of the sort's cost.

#ifndef INCLUDED_GPUFFT_SELECT_CUDA_H
#define INCLUDED_GPUFFT_SELECT_CUDA_H

#include "core/host_device.h"
#include <cstddef>

namespace gr {
namespace gpufft {
namespace detail {

/*!
 * The radix key of a float's IEEE bit pattern: keys compare as unsigned integers in the
 * order the floats compare, for every float but NaN. A raw bit pattern orders only
 * positive floats: -0 (0x80000000) would rank above +inf and every negative value above
 * every positive one, so the selections histogram these keys, never the raw bits.
 * The sign bit is set for non-negative values and the other bits of negative ones are
 * inverted. -0 gets the key just below +0, so the selected element is always one of the
 * inputs, equal (==) to what std::nth_element returns. A NaN with its sign clear ranks
 * above +inf, one with its sign set below -inf.
 */
GPUFFT_HD constexpr unsigned select_key(unsigned bits)
{
    return bits ^ ((0u - (bits >> 31)) | 0x80000000u);
}

//! The bit pattern whose select_key() is `key`.
GPUFFT_HD constexpr unsigned select_unkey(unsigned key)
{
    return key ^ ((0u - ((key >> 31) ^ 1u)) | 0x80000000u);
}

//! Device words of scratch launch_select_nonneg() needs.
constexpr std::size_t select_scratch_words = 2 + 4096;

/*!
 * *out (device) = the element of rank `rank` (0-based, ascending) of values[0..count),
 * as std::nth_element would place it. Robust mode passes non-negative powers (hence the
 * name), but any float orders correctly, -0 and negative values included; NaNs rank as
 * select_key() says. scratch: select_scratch_words device words. Enqueued on `stream`;
 * graph-capturable.
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
 * launch_select_nonneg() for count <= block_select_max: one thread block, one launch,
 * no scratch. The device function it runs (block_select.cuh) is what
 * robust mode's noise kernel selects its median with.
 */
void launch_block_select_nonneg(
    const float* values, int count, int rank, float* out, void* stream);

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_SELECT_CUDA_H */
