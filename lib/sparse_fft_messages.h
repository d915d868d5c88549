/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The PMT dicts of the sparse_fft block's `coefficients` port (docs/sparse_fft_block.md).

#ifndef INCLUDED_GPUFFT_SPARSE_FFT_MESSAGES_H
#define INCLUDED_GPUFFT_SPARSE_FFT_MESSAGES_H

#include "stream/sparse_frame_analyzer.h"
#include "stream/stream_timeline.h"
#include <pmt/pmt.h>
#include <cstdint>
#include <string>

namespace gr {
namespace gpufft {

//! The dict of a frame the analyzer transformed; `at` is the frame's stream state.
pmt::pmt_t coefficients_message(std::uint64_t index,
                                std::uint64_t offset,
                                const stream::sparse_frame_analyzer& analyzer,
                                const stream::stream_state& at);

//! The dict of a skipped frame: frame, offset, error, and empty bins, freqs, values.
pmt::pmt_t
skipped_frame_message(std::uint64_t index, std::uint64_t offset, const std::string& why);

} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_SPARSE_FFT_MESSAGES_H */
