/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The PMTs of the large_fft_accumulator block's `spectrum`, `progress` and `cmd` ports
// (docs/large_fft_accumulator.md).

#ifndef INCLUDED_GPUFFT_LARGE_FFT_ACCUMULATOR_MESSAGES_H
#define INCLUDED_GPUFFT_LARGE_FFT_ACCUMULATOR_MESSAGES_H

#include "stream/spectrometer_runner.h"
#include "stream/spectrum_axes.h"
#include "stream/stream_timeline.h"
#include <gnuradio/gpufft/large_fft_accumulator.h>
#include <gnuradio/logger.h>
#include <pmt/pmt.h>

namespace gr {
namespace gpufft {

//! What a spectrum PDU says besides the spectrum and its axes.
struct spectrum_pdu_flags {
    std::int64_t fft_size = 0;
    bool db = false;
    bool time_from_host = false; //!< no rx_time dated the stream: the host clock did
    bool partial = false;        //!< an unfinished integration at the end of the stream
};

//! The `spectrum` PDU: (metadata dict . f32vector of `out`, the values as output).
pmt::pmt_t spectrum_pdu(const stream::integrated_spectrum& s,
                        const stream::stream_state& at,
                        const stream::spectrum_axes& axes,
                        const spectrum_pdu_flags& flags,
                        const float* out);

//! The `progress` dict.
pmt::pmt_t progress_message(const stream::spectrometer_progress& p);

//! A `cmd` message: n_integrations, mode and output_db through the block's setters
//! (handle_cmd(): unknown keys and refused values are logged, never thrown).
void apply_cmd(large_fft_accumulator& block,
               const pmt::pmt_t& msg,
               const gr::logger_ptr& logger);

} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_LARGE_FFT_ACCUMULATOR_MESSAGES_H */
