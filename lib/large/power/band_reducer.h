/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_POWER_BAND_REDUCER_H
#define INCLUDED_GPUFFT_POWER_BAND_REDUCER_H

#include <complex>
#include <cstdint>

namespace gr {
namespace gpufft {
namespace power {

/*!
 * Turns one FFT frame into the power of `output_bins` channels: the DC-centred bins
 * [band_start, band_stop) (numpy's fftshift order: centred bin j holds frequency
 * (j - fft_size/2) * rate / fft_size, integer division), each channel the mean |X|^2 of
 * `decimation()` adjacent bins. Only the band is read, so a narrow sub-band of a huge
 * frame costs little.
 */
class band_reducer
{
public:
    //! band_stop == 0 means fft_size (the whole band). Throws std::invalid_argument
    //! naming the parameter and its valid range.
    band_reducer(std::int64_t fft_size,
                 std::int64_t band_start,
                 std::int64_t band_stop,
                 std::int64_t output_bins);

    std::int64_t fft_size() const { return d_n; }
    std::int64_t band_start() const { return d_start; }
    std::int64_t band_stop() const { return d_stop; }
    std::int64_t output_bins() const { return d_bins; }
    //! FFT bins averaged into one output channel.
    std::int64_t decimation() const { return d_decim; }

    //! The FFT (natural order) index of DC-centred bin j.
    std::int64_t fft_bin(std::int64_t centred) const;
    //! Centre of output channel c, in FFT bins from DC (may be fractional).
    double channel_centre_bins(std::int64_t c) const;

    /*!
     * channels[c] = scale * mean |X|^2 over channel c, for c < output_bins(), computed
     * in double. `spectrum` is the natural-order FFT of a frame.
     */
    void reduce(const std::complex<float>* spectrum,
                double scale,
                double* channels,
                int threads) const;

private:
    double power_sum(const std::complex<float>* x,
                     std::int64_t centred_begin,
                     std::int64_t centred_end) const;

    std::int64_t d_n, d_start, d_stop, d_bins, d_decim;
};

} // namespace power
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_POWER_BAND_REDUCER_H */
