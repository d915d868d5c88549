/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "core/parallel_for.h"
#include "large/power/band_reducer.h"
#include <stdexcept>
#include <string>
#include <vector>

namespace gr {
namespace gpufft {
namespace power {

namespace {
inline double norm2(std::complex<float> v)
{
    const double re = v.real(), im = v.imag();
    return re * re + im * im;
}

double norm_sum(const std::complex<float>* x, std::int64_t begin, std::int64_t end)
{
    // Four partial sums let the compiler vectorise; double keeps 2^30-term sums exact
    // to ~1e-10.
    double s[4] = { 0, 0, 0, 0 };
    std::int64_t i = begin;
    for (; i + 4 <= end; i += 4)
        for (int k = 0; k < 4; ++k)
            s[k] += norm2(x[i + k]);
    for (; i < end; ++i)
        s[0] += norm2(x[i]);
    return (s[0] + s[1]) + (s[2] + s[3]);
}
} // namespace

band_reducer::band_reducer(std::int64_t fft_size,
                           std::int64_t band_start,
                           std::int64_t band_stop,
                           std::int64_t output_bins)
    : d_n(fft_size),
      d_start(band_start),
      d_stop(band_stop == 0 ? fft_size : band_stop),
      d_bins(output_bins),
      d_decim(1)
{
    const std::string n = std::to_string(fft_size);
    if (fft_size < 1)
        throw std::invalid_argument("fft_size must be >= 1, got " + n);
    if (band_start < 0 || band_start >= fft_size)
        throw std::invalid_argument("band_start must be in [0, fft_size) = [0, " + n +
                                    "), got " + std::to_string(band_start));
    if (d_stop <= d_start || d_stop > fft_size)
        throw std::invalid_argument(
            "band_stop must be in (band_start, fft_size] = (" + std::to_string(d_start) +
            ", " + n + "] (0 means fft_size), got " + std::to_string(band_stop));
    const std::int64_t width = d_stop - d_start;
    if (output_bins < 1 || output_bins > width || width % output_bins != 0)
        throw std::invalid_argument(
            "output_bins must divide the band width band_stop - band_start = " +
            std::to_string(width) + " (1 <= output_bins <= " + std::to_string(width) +
            "), got " + std::to_string(output_bins));
    d_decim = width / output_bins;
}

std::int64_t band_reducer::fft_bin(std::int64_t centred) const
{
    const std::int64_t half = d_n / 2;
    return centred >= half ? centred - half : centred + (d_n - half);
}

double band_reducer::channel_centre_bins(std::int64_t c) const
{
    return double(d_start + c * d_decim) + 0.5 * double(d_decim - 1) - double(d_n / 2);
}

double band_reducer::power_sum(const std::complex<float>* x,
                               std::int64_t centred_begin,
                               std::int64_t centred_end) const
{
    // Centred bins below n/2 are the negative frequencies at the top of the FFT output;
    // a channel straddling DC reads two contiguous runs.
    const std::int64_t half = d_n / 2;
    double s = 0;
    if (centred_begin < half) {
        const std::int64_t e = std::min(centred_end, half);
        s += norm_sum(x, fft_bin(centred_begin), fft_bin(e - 1) + 1);
    }
    if (centred_end > half) {
        const std::int64_t b = std::max(centred_begin, half);
        s += norm_sum(x, fft_bin(b), fft_bin(centred_end - 1) + 1);
    }
    return s;
}

void band_reducer::reduce(const std::complex<float>* spectrum,
                          double scale,
                          double* channels,
                          int threads) const
{
    const double per_bin = scale / double(d_decim);
    constexpr std::int64_t grain = std::int64_t(1) << 18; // bins per thread, at least
    // Fewer channels than threads (a 2^32-point frame squeezed into a few channels):
    // split each channel into pieces so every core still sums its share.
    const std::int64_t pieces =
        d_bins >= threads ? 1
                          : std::max<std::int64_t>(
                                1,
                                std::min<std::int64_t>((threads + d_bins - 1) / d_bins,
                                                       d_decim / grain));
    if (pieces == 1) {
        detail::parallel_for(
            d_bins,
            threads,
            [&](int, std::int64_t cb, std::int64_t ce) {
                for (std::int64_t c = cb; c < ce; ++c) {
                    const std::int64_t j = d_start + c * d_decim;
                    channels[c] = per_bin * power_sum(spectrum, j, j + d_decim);
                }
            },
            std::max<std::int64_t>(1, grain / d_decim));
        return;
    }
    std::vector<double> partial(std::size_t(d_bins * pieces));
    detail::parallel_for(
        d_bins * pieces,
        threads,
        [&](int, std::int64_t b, std::int64_t e) {
            for (std::int64_t item = b; item < e; ++item) {
                const std::int64_t c = item / pieces, p = item % pieces;
                const std::int64_t j = d_start + c * d_decim;
                partial[std::size_t(item)] = power_sum(
                    spectrum, j + d_decim * p / pieces, j + d_decim * (p + 1) / pieces);
            }
        },
        1);
    for (std::int64_t c = 0; c < d_bins; ++c) {
        double sum = 0;
        for (std::int64_t p = 0; p < pieces; ++p)
            sum += partial[std::size_t(c * pieces + p)];
        channels[c] = per_bin * sum;
    }
}

} // namespace power
} // namespace gpufft
} // namespace gr
