/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "stream/spectrum_axes.h"
#include <algorithm>
#include <cmath>

namespace gr {
namespace gpufft {
namespace stream {

stream_state spectrum_state(const stream_timeline& timeline,
                            const power::band_reducer& reducer,
                            const pipeline_config& config,
                            const integrated_spectrum& s,
                            spectrum_axes& axes)
{
    const stream_state at = timeline.frame(s.first_sample, config.fft_size);
    axes = axes_of(
        reducer, config.fft_size, config.overlap, s.n_integrations, at.freq, at.rate);
    return at;
}

spectrum_axes axes_of(const power::band_reducer& reducer,
                      std::int64_t fft_size,
                      std::int64_t overlap,
                      int n_integrations,
                      double freq,
                      double rate)
{
    const double bin_hz = rate / double(fft_size);
    spectrum_axes a;
    a.fch1 = freq + reducer.channel_centre_bins(0) * bin_hz;
    a.foff = double(reducer.decimation()) * bin_hz;
    a.tsamp = double(n_integrations) * double(fft_size - overlap) / rate;
    return a;
}

void output_power(const std::vector<float>& power, bool db, float* out)
{
    if (db)
        for (std::size_t c = 0; c < power.size(); ++c)
            out[c] = 10.0f * std::log10(std::max(power[c], 1e-30f));
    else
        std::copy(power.begin(), power.end(), out);
}

} // namespace stream
} // namespace gpufft
} // namespace gr
