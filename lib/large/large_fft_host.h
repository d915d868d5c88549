/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Host-side pieces shared by both backends: threaded block gather/scatter (the staging
// of the paper's blocked buffer), the finite check and the final digit reversal.

#ifndef INCLUDED_GPUFFT_LARGE_FFT_HOST_H
#define INCLUDED_GPUFFT_LARGE_FFT_HOST_H

#include "core/host_memory.h"
#include "large/large_fft_schedule.h"
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gr {
namespace gpufft {
namespace detail {

//! Copies host blocks into a dense buffer (dev_offset positions).
void gather_blocks(const void* host,
                   void* buf,
                   const std::vector<host_block>& blocks,
                   std::size_t elem_bytes,
                   int threads);
//! Copies a dense buffer out to host blocks.
void scatter_blocks(const void* buf,
                    void* host,
                    const std::vector<host_block>& blocks,
                    std::size_t elem_bytes,
                    int threads);

//! Makes the host-to-host moves in order (threads split the rows of each).
void move_blocks(void* host,
                 const host_move* moves,
                 std::size_t count,
                 std::size_t elem_bytes,
                 int threads);

//! True when every real and imaginary part of n complex values is finite.
bool all_finite(const void* data, std::int64_t n, std::size_t elem_bytes, int threads);

/*!
 * In place: the item (run of `unit` consecutive elements) at row-major digit position
 * (k1, ..., kr) over `factors` moves to natural index k1 + N1*(k2 + N2*(...)). As
 * r - 1 in-place transposes ([N1][N2..Nr] -> [N2..Nr][N1], then the same on runs of N1
 * for the remaining digits), on `threads` threads.
 */
void permute_digits(void* data,
                    const std::vector<std::int64_t>& factors,
                    std::size_t elem_bytes,
                    std::int64_t unit = 1,
                    int threads = 1);


} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_LARGE_FFT_HOST_H */
