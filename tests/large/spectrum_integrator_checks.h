/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// What spectrum_integrator should output, computed independently of it: the window
// from spectral_window::value in double, a double-precision FFTW transform, the
// DC-centred band summed bin by bin.

#ifndef INCLUDED_GPUFFT_TESTS_SPECTRUM_INTEGRATOR_CHECKS_H
#define INCLUDED_GPUFFT_TESTS_SPECTRUM_INTEGRATOR_CHECKS_H

#include "large/power/spectral_window.h"
#include "reference.h"
#include "test_harness.h"
#include <gnuradio/gpufft/dense_fft_plan.h>
#include <gnuradio/gpufft/spectrum_integrator.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace gpufft_test {

using gr::gpufft::integration_mode;

struct band_spec {
    std::int64_t n, start, stop, bins;
    std::string window;
};

//! `frames` frames of n samples: uniform noise in the unit square plus a tone of
//! amplitude `amp` at `bin` (fractional: leaks) cycles per frame.
inline std::vector<std::complex<float>>
tone_frames(std::int64_t n, int frames, double bin, double amp, std::uint64_t seed)
{
    auto x = random_complex<float>(std::size_t(n) * std::size_t(frames), seed);
    const double pi2 = 2 * std::acos(-1.0);
    for (std::size_t t = 0; t < x.size(); ++t) {
        const double ph = pi2 * bin * double(std::int64_t(t) % n) / double(n);
        x[t] += std::complex<float>(std::polar(amp, ph));
    }
    return x;
}

//! Channel powers of one frame, in double: what one accumulate() adds.
inline std::vector<double> frame_power(const std::complex<float>* frame,
                                       const band_spec& b)
{
    using namespace gr::gpufft;
    const power::spectral_window w(power::parse_window(b.window), b.n);
    double wsum = 0;
    std::vector<cd> y(std::size_t(b.n));
    for (std::int64_t i = 0; i < b.n; ++i) {
        const double wi = w.value(i);
        wsum += wi;
        y[std::size_t(i)] = cd(frame[i]) * wi;
    }
    dense_fft_options o;
    o.backend = backend::cpu;
    o.precision = precision::double_;
    dense_fft_plan fft(b.n, 1, direction::forward, o);
    fft.execute(y.data(), y.data());
    const std::int64_t stop = b.stop == 0 ? b.n : b.stop; // 0: to n, as the engine
    const std::int64_t decim = (stop - b.start) / b.bins;
    std::vector<double> p(std::size_t(b.bins));
    for (std::int64_t c = 0; c < b.bins; ++c) {
        double s = 0;
        for (std::int64_t k = 0; k < decim; ++k) {
            const std::int64_t j = b.start + c * decim + k; // DC-centred
            s += std::norm(y[std::size_t(((j - b.n / 2) % b.n + b.n) % b.n)]);
        }
        p[std::size_t(c)] = s / (double(decim) * wsum * wsum);
    }
    return p;
}

//! Mean or max over the frames whose samples are all finite.
inline std::vector<double> integrated_power(const std::vector<std::complex<float>>& x,
                                            int frames,
                                            const band_spec& b,
                                            integration_mode mode)
{
    std::vector<double> acc(std::size_t(b.bins), 0.0);
    int used = 0;
    for (int f = 0; f < frames; ++f) {
        const std::complex<float>* frame = x.data() + std::size_t(f) * std::size_t(b.n);
        if (!all_finite(frame, std::size_t(b.n)))
            continue;
        const auto p = frame_power(frame, b);
        for (std::size_t c = 0; c < acc.size(); ++c)
            acc[c] = used == 0                        ? p[c]
                     : mode == integration_mode::mean ? acc[c] + p[c]
                                                      : std::max(acc[c], p[c]);
        ++used;
    }
    if (mode == integration_mode::mean && used > 0)
        for (double& v : acc)
            v /= used;
    return acc;
}

//! Feeds the frames (a copy: accumulate() overwrites them), checks which were taken,
//! reads into a poisoned vector.
inline std::vector<float> integrate(gr::gpufft::spectrum_integrator& s,
                                    const std::vector<std::complex<float>>& x,
                                    int frames,
                                    std::complex<float>* scratch)
{
    const std::int64_t n = s.fft_size();
    int taken = 0;
    for (int f = 0; f < frames; ++f) {
        const std::complex<float>* frame = x.data() + std::size_t(f) * std::size_t(n);
        std::copy(frame, frame + n, scratch);
        const bool finite = all_finite(frame, std::size_t(n));
        GPUFFT_CHECK_EQ(s.accumulate(scratch), finite);
        taken += finite ? 1 : 0;
        GPUFFT_CHECK_EQ(s.frames(), std::int64_t(taken));
    }
    std::vector<float> out(std::size_t(s.output_bins()),
                           std::numeric_limits<float>::quiet_NaN());
    GPUFFT_CHECK_EQ(s.read(out.data()), std::int64_t(taken));
    return out;
}

/*!
 * Every channel within `rel` of the reference, relative to the channel itself plus a
 * floor of rel * 1e-3 of the peak (single-precision FFT rounding spreads ~1e-7 of
 * the total power into every bin). Returns the worst error relative to the peak.
 */
inline double
check_channels(const std::vector<float>& got, const std::vector<double>& ref, double rel)
{
    GPUFFT_CHECK_EQ(got.size(), ref.size());
    double peak = 0, worst = 0;
    for (double v : ref)
        peak = std::max(peak, v);
    GPUFFT_CHECK(peak > 0);
    for (std::size_t c = 0; c < ref.size(); ++c) {
        if (!std::isfinite(got[c]))
            GPUFFT_FAIL("channel " << c << " not written or not finite: " << got[c]);
        const double err = std::abs(double(got[c]) - ref[c]);
        if (err > rel * ref[c] + rel * 1e-3 * peak)
            GPUFFT_FAIL("channel " << c << ": " << got[c] << " vs reference " << ref[c]);
        worst = std::max(worst, err / peak);
    }
    return worst;
}

} // namespace gpufft_test

#endif /* INCLUDED_GPUFFT_TESTS_SPECTRUM_INTEGRATOR_CHECKS_H */
