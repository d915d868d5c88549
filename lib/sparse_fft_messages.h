/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The sparse_fft block's messages (docs/sparse_fft_block.md): the `detections` and
// `transmissions` PDUs, and the deprecated `coefficients` dicts.

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

/*!
 * The `detections` PDU of a frame the analyzer transformed: (meta . f32vector), meta
 * with the frame's keys and one vector per signal key (sensing_plan.detect()'s, plus
 * center_hz, lower_hz, upper_hz, bandwidth_hz), the vector 4 floats a signal:
 * center_hz - center_freq, bandwidth_hz, peak_power_dbfs, snr_db.
 */
pmt::pmt_t detections_pdu(std::uint64_t index,
                          std::uint64_t first_sample,
                          const stream::sparse_frame_analyzer& analyzer,
                          const stream::stream_state& at);

/*!
 * The `transmissions` PDU of one transmission: (meta . f32vector [duration_s,
 * bandwidth_hz, peak_power_dbfs, mean_snr_db]); meta holds its keys and, when
 * `has_time`, rx_time of its first sample.
 */
pmt::pmt_t transmission_pdu(const stream::transmission& t,
                            bool has_time,
                            const stream::stream_time& start_time);

} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_SPARSE_FFT_MESSAGES_H */
