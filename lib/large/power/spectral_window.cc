/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "core/parallel_for.h"
#include "large/power/spectral_window.h"
#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gr {
namespace gpufft {
namespace power {

namespace {
constexpr double two_pi = 6.283185307179586476925286766559;

//! Samples between exact re-anchorings of the phasor recurrence.
constexpr std::int64_t anchor_every = 4096;

std::complex<double> phasor(std::int64_t i, std::int64_t n)
{
    // Reduce the index modulo n in integers so the angle stays exact for huge frames.
    return std::polar(1.0, two_pi * double(i % n) / double(n));
}
} // namespace

window_type parse_window(const std::string& name)
{
    if (name == "none" || name == "rectangular" || name.empty())
        return window_type::none;
    if (name == "hann" || name == "hanning")
        return window_type::hann;
    if (name == "hamming")
        return window_type::hamming;
    if (name == "blackman")
        return window_type::blackman;
    if (name == "blackman-harris" || name == "blackman_harris" ||
        name == "blackmanharris")
        return window_type::blackman_harris;
    if (name == "flattop")
        return window_type::flattop;
    throw std::invalid_argument("window: '" + name +
                                "' is not one of none, hann, hamming, blackman, "
                                "blackman-harris, flattop");
}

std::string to_string(window_type w)
{
    switch (w) {
    case window_type::none:
        return "none";
    case window_type::hann:
        return "hann";
    case window_type::hamming:
        return "hamming";
    case window_type::blackman:
        return "blackman";
    case window_type::blackman_harris:
        return "blackman-harris";
    case window_type::flattop:
        return "flattop";
    }
    return "?";
}

spectral_window::spectral_window(window_type type, std::int64_t n) : d_type(type), d_n(n)
{
    if (n < 1)
        throw std::invalid_argument("window size must be >= 1");
    std::array<double, 5> a{ 1.0, 0, 0, 0, 0 };
    switch (type) {
    case window_type::none:
        break;
    case window_type::hann:
        a = { 0.5, 0.5, 0, 0, 0 };
        break;
    case window_type::hamming:
        a = { 0.54, 0.46, 0, 0, 0 };
        break;
    case window_type::blackman:
        a = { 0.42, 0.5, 0.08, 0, 0 };
        break;
    case window_type::blackman_harris:
        a = { 0.35875, 0.48829, 0.14128, 0.01168, 0 };
        break;
    case window_type::flattop: // SRS flat top, as in scipy.signal.windows.flattop
        a = { 0.21557895, 0.41663158, 0.277263158, 0.083578947, 0.006947368 };
        break;
    }
    d_terms = 1;
    for (int k = 0; k < 5; ++k) {
        d_a[k] = (k % 2 ? -a[k] : a[k]);
        if (a[k] != 0)
            d_terms = k + 1;
    }
}

double spectral_window::value(std::int64_t i) const
{
    double w = d_a[0];
    for (int k = 1; k < d_terms; ++k)
        w += d_a[k] * std::cos(two_pi * double((i % d_n) * k % d_n) / double(d_n));
    return w;
}

double spectral_window::sum() const
{
    if (d_n <= 2 * d_terms) { // the closed form needs n > 2 * harmonics
        double s = 0;
        for (std::int64_t i = 0; i < d_n; ++i)
            s += value(i);
        return s;
    }
    return double(d_n) * d_a[0];
}

double spectral_window::sum_of_squares() const
{
    if (d_n <= 2 * d_terms) {
        double s = 0;
        for (std::int64_t i = 0; i < d_n; ++i)
            s += value(i) * value(i);
        return s;
    }
    double s = d_a[0] * d_a[0];
    for (int k = 1; k < d_terms; ++k)
        s += 0.5 * d_a[k] * d_a[k];
    return double(d_n) * s;
}

void spectral_window::apply(std::complex<float>* x,
                            std::int64_t begin,
                            std::int64_t end) const
{
    if (is_rectangular())
        return;
    // Rotate (cos t, sin t) by one sample's angle in plain real arithmetic
    // (complex<double> products go through NaN-aware library calls), and get cos(k t)
    // from cos t with the Chebyshev recurrence T_{k+1} = 2 c T_k - T_{k-1}.
    const std::complex<double> step = phasor(1, d_n);
    const double sc = step.real(), ss = step.imag();
    const double a0 = d_a[0], a1 = d_a[1], a2 = d_a[2], a3 = d_a[3], a4 = d_a[4];
    const bool long_window = d_terms > 3;
    for (std::int64_t b = begin; b < end; b += anchor_every) {
        const std::int64_t e = std::min(end, b + anchor_every);
        const std::complex<double> z = phasor(b, d_n);
        double c = z.real(), sn = z.imag();
        for (std::int64_t i = b; i < e; ++i) {
            const double t2 = 2 * c * c - 1;
            double w = a0 + a1 * c + a2 * t2;
            if (long_window) {
                const double t3 = 2 * c * t2 - c;
                w += a3 * t3 + a4 * (2 * c * t3 - t2);
            }
            x[i - begin] *= float(w);
            const double cn = c * sc - sn * ss;
            sn = sn * sc + c * ss;
            c = cn;
        }
    }
}

void spectral_window::apply_frame(std::complex<float>* frame, int threads) const
{
    if (is_rectangular())
        return;
    detail::parallel_for(d_n, threads, [&](int, std::int64_t b, std::int64_t e) {
        apply(frame + b, b, e);
    });
}

} // namespace power
} // namespace gpufft
} // namespace gr
