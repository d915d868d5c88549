/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Frames as a radio gives them, for the sensing tests: white noise at a stated level,
// tones at fractional bins, a QPSK carrier, bursts beside digital silence.

#ifndef INCLUDED_GPUFFT_TEST_SENSING_SIGNALS_H
#define INCLUDED_GPUFFT_TEST_SENSING_SIGNALS_H

#include <cmath>
#include <complex>
#include <cstdint>
#include <random>
#include <vector>

namespace sensing_test {

using cvec = std::vector<std::complex<float>>;

//! Complex white noise of power sigma^2 per sample.
inline void add_noise(cvec& x, double sigma, std::mt19937_64& rng)
{
    std::normal_distribution<double> g(0.0, sigma / std::sqrt(2.0));
    for (auto& v : x)
        v += std::complex<float>(float(g(rng)), float(g(rng)));
}

//! a exp(2 pi i f t / n), f in (signed) fractional bins.
inline void add_tone(cvec& x, double f, std::complex<double> a)
{
    const double n = double(x.size());
    for (std::size_t t = 0; t < x.size(); ++t) {
        const double ph = 2.0 * M_PI * std::fmod(f * double(t), n) / n;
        x[t] += std::complex<float>(a * std::exp(std::complex<double>(0, ph)));
    }
}

/*!
 * A QPSK carrier of power p centred on bin f, `sps` samples a symbol, shaped by a
 * raised-cosine pulse (roll-off 0.35) of 12 symbols under a Blackman taper, so its
 * skirts fall under -60 dBc (occupied bandwidth about 1.3 n / sps bins).
 */
inline std::vector<double> rc_pulse(int sps)
{
    const int span = 12 * sps;
    std::vector<double> h(std::size_t(span + 1));
    for (int i = 0; i <= span; ++i) {
        const double t = double(i - span / 2) / sps;
        const double sinc = t == 0 ? 1.0 : std::sin(M_PI * t) / (M_PI * t);
        const double d = 1.0 - 4.0 * 0.35 * 0.35 * t * t;
        const double rc = std::fabs(d) < 1e-9 ? M_PI / 4 : std::cos(M_PI * 0.35 * t) / d;
        const double taper = 0.42 - 0.5 * std::cos(2 * M_PI * i / span) +
                             0.08 * std::cos(4 * M_PI * i / span);
        h[std::size_t(i)] = sinc * rc * taper;
    }
    return h;
}

inline void add_qpsk(cvec& x, double f, double p, int sps, std::mt19937_64& rng)
{
    const std::size_t n = x.size();
    std::uniform_int_distribution<int> q(0, 3);
    const std::size_t syms = n / std::size_t(sps) + 24;
    std::vector<std::complex<double>> s(syms);
    for (auto& v : s)
        v = std::polar(1.0, M_PI / 4 + M_PI / 2 * q(rng));
    const auto h = rc_pulse(sps);
    const int span = int(h.size()) - 1;
    double e = 0;
    for (double v : h)
        e += v * v;
    const double g = std::sqrt(p * sps / e);
    for (std::size_t t = 0; t < n; ++t) {
        std::complex<double> v = 0;
        for (int i = 0; i <= span; ++i) {
            const std::int64_t k = std::int64_t(t) + span / 2 - i;
            if (k % sps == 0 && k >= -12 * sps)
                v += h[std::size_t(i)] * s[std::size_t((k + 12 * sps) / sps) % syms];
        }
        const double ph = 2.0 * M_PI * std::fmod(f * double(t), double(n)) / double(n);
        x[t] += std::complex<float>(g * v * std::exp(std::complex<double>(0, ph)));
    }
}

/*!
 * An OFDM burst train as a cellular or drone link sends it: symbols of `fft` samples
 * after a cyclic prefix of `cp`, `carriers` subcarriers about bin f (the frame's bins:
 * n / fft apart), QPSK data of total power p, and every `pilot_every`-th subcarrier a
 * pilot of fixed phase `pilot_db` over a data subcarrier. The first symbol starts
 * `start` samples before the frame (a frame falls anywhere in the stream).
 */
inline void add_ofdm(cvec& x,
                     double f,
                     int fft,
                     int cp,
                     int carriers,
                     double p,
                     int pilot_every,
                     double pilot_db,
                     int start,
                     std::mt19937_64& rng)
{
    const std::size_t n = x.size();
    std::uniform_int_distribution<int> q(0, 3);
    std::uniform_real_distribution<double> u(0.0, 2 * M_PI);
    const double a = std::sqrt(p / carriers), boost = std::pow(10.0, pilot_db / 20.0);
    std::vector<double> pilot_phase(static_cast<std::size_t>(carriers));
    for (auto& v : pilot_phase)
        v = u(rng);
    const double spacing = double(n) / fft; // frame bins a subcarrier
    std::vector<std::complex<double>> acc(static_cast<std::size_t>(fft + cp));
    for (std::int64_t s0 = -std::int64_t(start); s0 < std::int64_t(n); s0 += fft + cp) {
        std::fill(acc.begin(), acc.end(), 0.0);
        for (int c = 0; c < carriers; ++c) {
            const std::complex<double> sym =
                c % pilot_every == 0 ? std::polar(a * boost, pilot_phase[std::size_t(c)])
                                     : std::polar(a, M_PI / 4 + M_PI / 2 * q(rng));
            // The prefix repeats the symbol's end: sample j is at tau = j - cp.
            const double k = f / spacing + (c - carriers / 2);
            const std::complex<double> step = std::polar(1.0, 2 * M_PI * k / fft);
            std::complex<double> v = sym * std::polar(1.0, -2 * M_PI * k * cp / fft);
            for (auto& y : acc) {
                y += v;
                v *= step;
            }
        }
        for (std::int64_t j = 0; j < fft + cp; ++j)
            if (s0 + j >= 0 && s0 + j < std::int64_t(n))
                x[std::size_t(s0 + j)] += std::complex<float>(acc[std::size_t(j)]);
    }
}

//! The 99 % occupied bandwidth of add_qpsk's carrier in bins of an n-point frame,
//! from its pulse's spectrum (the carrier's power spectral density).
inline double qpsk_obw99_bins(int sps, std::size_t n)
{
    const auto h = rc_pulse(sps);
    const int K = 8192; // frequencies over [-1/2, 1/2) cycles a sample
    std::vector<double> psd(K, 0.0);
    double total = 0;
    for (int k = 0; k < K; ++k) {
        const double nu = double(k) / K - 0.5;
        std::complex<double> H = 0;
        for (std::size_t i = 0; i < h.size(); ++i)
            H += h[i] * std::exp(std::complex<double>(0, -2 * M_PI * nu * double(i)));
        psd[std::size_t(k)] = std::norm(H);
        total += std::norm(H);
    }
    double cum = 0, lo = 0, hi = 0;
    for (int k = 0; k < K; ++k) {
        const double next = cum + psd[std::size_t(k)];
        if (cum < 0.005 * total && next >= 0.005 * total)
            lo = double(k) / K;
        if (cum < 0.995 * total && next >= 0.995 * total)
            hi = double(k + 1) / K;
        cum = next;
    }
    return (hi - lo) * double(n);
}

//! The tone amplitude whose power over one bin's noise (rectangular window) is snr_db
//! for noise of power sigma^2 per sample in an n-point frame.
inline double amplitude_for(double snr_db, double sigma, std::size_t n)
{
    return sigma * std::sqrt(std::pow(10.0, snr_db / 10.0) / double(n));
}

//! Signed distance of fractional bins on a circle of n.
inline double bin_distance(double a, double b, double n)
{
    double d = std::fmod(a - b, n);
    if (d > n / 2)
        d -= n;
    if (d < -n / 2)
        d += n;
    return std::fabs(d);
}

//! Noise-like spectrum over bins lo..hi (one tone a bin, random complex amplitude),
//! `ratio` times the white floor of sigma per sample: an FM signal's splatter. A full
//! tone a bin: O(n (hi - lo)), for small frames.
inline void
add_band_noise(cvec& x, int lo, int hi, double ratio, double sigma, std::mt19937_64& rng)
{
    std::normal_distribution<double> g(
        0.0, amplitude_for(10 * std::log10(ratio), sigma, x.size()) / std::sqrt(2.0));
    for (int k = lo; k <= hi; ++k)
        add_tone(x, k, { g(rng), g(rng) });
}

} // namespace sensing_test

#endif /* INCLUDED_GPUFFT_TEST_SENSING_SIGNALS_H */
