/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "sparse/common/sparse_common.h"
#include "sparse/robust/robust_check.h"
#include <algorithm>
#include <cmath>

namespace gr {
namespace gpufft {
namespace detail {

namespace {

// 8 periodograms of at least 512 samples: 512 bins' median of 8 averages scatters by
// ~2% (0.1 dB), and 8 points in time follow a frame whose power changes as the dense
// FFT's average does, for 4096 samples read at small k (a fifth of the sparse path's at
// n = 65536, k = 4). A tone's Blackman-Harris main lobe covers 8 bins, so k tones need
// 64 k bins to leave 7/8 of them to the floor: at n = 2^22, k = 50 the probe reads
// 8 x 4096 samples, 6% of the sparse path's 516117.
constexpr std::int64_t probe_segments = 8;
constexpr std::int64_t probe_length = 512;
constexpr std::int64_t probe_bins_per_tone = 64;

std::int64_t probe_length_for(std::int64_t n, std::int64_t k)
{
    std::int64_t L = probe_length;
    while (L < probe_bins_per_tone * k)
        L *= 2;
    return std::max<std::int64_t>(16,
                                  std::min<std::int64_t>(L, n / (4 * probe_segments)));
}

dense_fft_options probe_options(std::int64_t samples)
{
    dense_fft_options o;
    o.backend = backend::cpu;
    // 8 x 512 points: threads cost more than they save; 8 x 65536 (k = 1000) pay.
    o.threads = samples < (std::int64_t(1) << 17) ? 1 : 0;
    return o;
}

// Median of Gamma(s, 1) / s: the median of the mean of s exponential variables of
// mean 1 (s = 1: ln 2). P(s, x) = 1 - exp(-x) sum_{j<s} x^j / j! for integer s.
double gamma_median_over_shape(std::int64_t s)
{
    double lo = 0, hi = 4.0 * double(s) + 10.0;
    for (int it = 0; it < 200; ++it) {
        const double x = 0.5 * (lo + hi);
        double term = 1, sum = 0;
        for (std::int64_t j = 0; j < s; ++j) {
            sum += term;
            term *= x / double(j + 1);
        }
        const double p = 1.0 - std::exp(-x) * sum;
        (p < 0.5 ? lo : hi) = x;
    }
    return 0.5 * (lo + hi) / double(s);
}

} // namespace

robust_check
robust_verdict(double raw_floor, double probe_floor, int unexplained_loops, int loops)
{
    if (probe_floor > 0 && raw_floor > robust_floor_excess * probe_floor)
        return robust_check::floor;
    if (2 * unexplained_loops > loops)
        return robust_check::residual;
    return robust_check::passed;
}

const char* to_string(robust_check c)
{
    switch (c) {
    case robust_check::floor:
        return "floor";
    case robust_check::residual:
        return "residual";
    default:
        return "passed";
    }
}

robust_floor_probe::robust_floor_probe(std::int64_t n, std::int64_t k)
    : d_n(n),
      d_segments(probe_segments),
      d_length(probe_length_for(n, k)),
      d_fft(
          d_length, d_segments, direction::forward, probe_options(d_segments * d_length)),
      d_in(std::size_t(d_segments * d_length)),
      d_out(d_in.size()),
      d_power(std::size_t(d_length))
{
    // 4-term Blackman-Harris, as robust mode's own window: its -92 dB sidelobes keep a
    // carrier 90 dB over the floor inside its own few bins.
    const double a[4] = { 0.35875, 0.48829, 0.14128, 0.01168 };
    d_window.resize(std::size_t(d_length));
    double power = 0;
    for (std::int64_t t = 0; t < d_length; ++t) {
        const double u = 2.0 * M_PI * double(t) / double(d_length);
        const double w =
            a[0] - a[1] * std::cos(u) + a[2] * std::cos(2 * u) - a[3] * std::cos(3 * u);
        d_window[std::size_t(t)] = float(w);
        power += w * w;
    }
    // White noise of variance s2 gives an averaged bin of mean s2 x sum w^2, whose
    // median is that x gamma_median_over_shape(segments); the floor per bin of an
    // n-point FFT is s2 n.
    d_scale = double(n) / (power * gamma_median_over_shape(d_segments));
}

std::int64_t robust_floor_probe::start(std::int64_t s) const
{
    return d_segments > 1 ? s * (d_n - d_length) / (d_segments - 1) : 0;
}

double robust_floor_probe::floor(const std::complex<float>* x)
{
    for (std::int64_t s = 0; s < d_segments; ++s)
        std::copy(x + start(s),
                  x + start(s) + d_length,
                  d_in.begin() + std::ptrdiff_t(s * d_length));
    return floor_of_segments(d_in.data());
}

double robust_floor_probe::floor_of_segments(const std::complex<float>* segments)
{
    const std::size_t L = std::size_t(d_length);
    for (std::size_t i = 0; i < d_in.size(); ++i) {
        const std::complex<float> v = segments[i];
        if (!std::isfinite(v.real()) || !std::isfinite(v.imag()))
            throw_non_finite();
        d_in[i] = v * d_window[i % L];
    }
    d_fft.execute(d_in.data(), d_out.data());
    std::fill(d_power.begin(), d_power.end(), 0.0f);
    for (std::size_t i = 0; i < d_out.size(); ++i)
        d_power[i % L] += std::norm(d_out[i]);
    return floor_of_power(d_power.data());
}

double robust_floor_probe::floor_of_power(float* power) const
{
    float* mid = power + d_length / 2;
    std::nth_element(power, mid, power + d_length);
    return floor_of_median(*mid);
}

double robust_floor_probe::floor_of_median(float median) const
{
    return double(median) / double(d_segments) * d_scale;
}

} // namespace detail
} // namespace gpufft
} // namespace gr
