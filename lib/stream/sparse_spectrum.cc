/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "core/parallel_for.h"
#include "stream/sparse_spectrum.h"
#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>

namespace gr {
namespace gpufft {
namespace sparse_output {

bool all_finite(const std::complex<float>* x, std::size_t n)
{
    // The standard lets a complex<float> array be read as float pairs. !(|v| <= max)
    // is true for NaN and infinities alike, and unlike std::isfinite it vectorizes.
    // One core checks ~2 G samples/s: a quarter of a 2^20-sample frame's time budget at
    // GNU Radio's null-flowgraph rate, so large frames are split over a few threads.
    const float* f = reinterpret_cast<const float*>(x);
    std::atomic<bool> bad{ false };
    detail::parallel_for(
        static_cast<std::int64_t>(2 * n),
        4,
        [&](int, std::int64_t begin, std::int64_t end) {
            int part_bad = 0;
            for (std::int64_t i = begin; i < end; i++)
                part_bad |= !(std::fabs(f[i]) <= std::numeric_limits<float>::max());
            if (part_bad)
                bad = true;
        },
        std::int64_t(1) << 19);
    return !bad;
}

float power_db(std::complex<double> value, std::int64_t n)
{
    const double mag = std::abs(value) / static_cast<double>(n);
    // log10(0) is -inf; clamp to a value a plot can show.
    return static_cast<float>(20.0 * std::log10(std::max(mag, 1e-30)));
}

float power_db(std::complex<float> value, std::int64_t n)
{
    return power_db(std::complex<double>(value), n);
}

std::int64_t nearest_bin(double f, std::int64_t n)
{
    // f in [0, n) rounds to [0, n]; n is bin 0. fmod guards values outside [0, n).
    double r = std::fmod(std::floor(f + 0.5), static_cast<double>(n));
    if (r < 0)
        r += static_cast<double>(n);
    return static_cast<std::int64_t>(r);
}

double noise_floor_db(double floor, std::int64_t n)
{
    const double nn = static_cast<double>(n) * static_cast<double>(n);
    return 10.0 * std::log10(std::max(floor / nn, 1e-30));
}

void frame_entries::reserve(std::size_t count)
{
    bins.reserve(count);
    values.reserve(count);
    bins32.reserve(count);
    freqs.reserve(count);
    power_db.reserve(count);
    snr_db.reserve(count);
}

namespace {

void resize_entries(frame_entries& e, std::size_t count)
{
    e.bins.resize(count);
    e.values.resize(count);
    e.bins32.resize(count);
    e.freqs.resize(count);
    e.power_db.resize(count);
    e.snr_db.resize(count);
}

} // namespace

void entries_from_tones(std::int64_t n,
                        double center_freq,
                        double rate,
                        std::vector<sparse_tone>& tones,
                        frame_entries& e)
{
    std::sort(tones.begin(), tones.end(), [n](const auto& a, const auto& b) {
        const std::int64_t ba = nearest_bin(a.frequency, n);
        const std::int64_t bb = nearest_bin(b.frequency, n);
        return ba != bb ? ba < bb : a.frequency < b.frequency;
    });
    const std::size_t count = tones.size();
    resize_entries(e, count);
    const double bin_hz = rate / static_cast<double>(n);
    for (std::size_t i = 0; i < count; i++) {
        const sparse_tone& t = tones[i];
        e.bins[i] = nearest_bin(t.frequency, n);
        e.bins32[i] = static_cast<std::int32_t>(e.bins[i]); // n is an int
        e.values[i] = std::complex<float>(static_cast<float>(t.amplitude.real()),
                                          static_cast<float>(t.amplitude.imag()));
        e.freqs[i] = center_freq + signed_frequency(t.frequency, n) * bin_hz;
        e.power_db[i] = power_db(t.amplitude, n);
        e.snr_db[i] = static_cast<float>(t.snr_db);
    }
}

void entries_from_coefficients(std::int64_t n,
                               double center_freq,
                               double rate,
                               frame_entries& e)
{
    const std::size_t count = e.bins.size();
    e.bins32.resize(count);
    e.freqs.resize(count);
    e.power_db.resize(count);
    e.snr_db.assign(count, std::numeric_limits<float>::quiet_NaN());
    for (std::size_t i = 0; i < count; i++) {
        e.bins32[i] = static_cast<std::int32_t>(e.bins[i]); // n is an int
        e.freqs[i] = center_freq + static_cast<double>(signed_bin(e.bins[i], n)) * rate /
                                       static_cast<double>(n);
        e.power_db[i] = power_db(e.values[i], n);
    }
}

void display_spectrum(std::int64_t n,
                      const std::int64_t* bins,
                      const std::complex<float>* values,
                      std::size_t count,
                      float* display,
                      int display_bins,
                      float floor_db)
{
    std::fill(display, display + display_bins, floor_db);
    for (std::size_t i = 0; i < count; i++) {
        const std::int64_t j = shifted_bin(bins[i], n);
        // j < 2^31 and display_bins <= 2^16: the product fits in 64 bits.
        const std::int64_t d = j * display_bins / n;
        display[d] = std::max(display[d], power_db(values[i], n));
    }
}

} // namespace sparse_output
} // namespace gpufft
} // namespace gr
