/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_STREAM_SPECTRUM_AXES_H
#define INCLUDED_GPUFFT_STREAM_SPECTRUM_AXES_H

#include "large/power/band_reducer.h"
#include "stream/spectrometer_pipeline.h"
#include "stream/stream_timeline.h"
#include <cstdint>
#include <vector>

namespace gr {
namespace gpufft {
namespace stream {

//! Where an integrated spectrum's channels and spectra lie (the filterbank header's
//! fch1, foff, tsamp, in Hz and seconds).
struct spectrum_axes {
    double fch1 = 0.0;  //!< centre frequency of channel 0
    double foff = 0.0;  //!< channel spacing (ascending)
    double tsamp = 0.0; //!< seconds between spectra
};

/*!
 * The axes of spectra of `n_integrations` frames of fft_size samples (consecutive frames
 * sharing `overlap`) through `reducer`, at centre frequency `freq` and sample rate
 * `rate`: fch1 = freq + centre of channel 0 (in bins from DC) * rate / fft_size, foff =
 * decimation * rate / fft_size, tsamp = n_integrations * (fft_size - overlap) / rate.
 */
spectrum_axes axes_of(const power::band_reducer& reducer,
                      std::int64_t fft_size,
                      std::int64_t overlap,
                      int n_integrations,
                      double freq,
                      double rate);

/*!
 * When, where and how wide an integrated spectrum is: the stream state of its first
 * frame on `timeline` (the tag rule, docs/stream.md), and its axes from there.
 */
stream_state spectrum_state(const stream_timeline& timeline,
                            const power::band_reducer& reducer,
                            const pipeline_config& config,
                            const integrated_spectrum& s,
                            spectrum_axes& axes);

//! Power as the block outputs it: 10 log10 (of at least 1e-30) with `db`, else as is.
void output_power(const std::vector<float>& power, bool db, float* out);

} // namespace stream
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_STREAM_SPECTRUM_AXES_H */
