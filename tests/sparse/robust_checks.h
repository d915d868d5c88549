/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Shared pieces of the robust-mode tests: tones at random fractional bins in white noise
// at a stated per-bin SNR (generated in double, exact phase), and a score of a plan's
// detected tones against the truth.

#ifndef INCLUDED_GPUFFT_TEST_ROBUST_CHECKS_H
#define INCLUDED_GPUFFT_TEST_ROBUST_CHECKS_H

#include "reference.h"
#include "test_harness.h"
#include <gnuradio/gpufft/dense_fft_plan.h>
#include <gnuradio/gpufft/sparse_fft_plan.h>
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <random>
#include <vector>

namespace gpufft_test {

struct tone_truth {
    std::vector<double> freq;              //!< fractional bins
    std::vector<std::complex<double>> amp; //!< n a
    double bin_noise = 0; //!< noise power per bin (rectangular n-point FFT)
};

/*!
 * x[t] = sum_j a_j exp(2 pi i f_j t / n) + white noise. Tones: random frequencies at
 * least `spacing` bins apart, a random fractional offset when off_grid, random phases,
 * |a_j| spread over `spread_db` below 1; per_bin_snr_db is that of the strongest tone
 * (n |a|^2 / noise variance); < -200 means no noise.
 */
inline std::vector<std::complex<float>> noisy_tones(std::int64_t n,
                                                    int tones,
                                                    bool off_grid,
                                                    double per_bin_snr_db,
                                                    double spread_db,
                                                    std::uint64_t seed,
                                                    tone_truth& t,
                                                    double spacing = 12)
{
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    t = tone_truth{};
    while (int(t.freq.size()) < tones) {
        double f = std::floor(u(rng) * double(n));
        if (off_grid)
            f += u(rng) - 0.5;
        f = std::fmod(f + double(n), double(n));
        bool ok = true;
        for (double g : t.freq) {
            double d = std::fabs(f - g);
            d = std::min(d, double(n) - d);
            ok = ok && d >= spacing;
        }
        if (ok)
            t.freq.push_back(f);
    }
    std::vector<std::complex<double>> x(n, 0.0);
    for (int j = 0; j < tones; ++j) {
        const double mag = std::pow(10.0, -spread_db * u(rng) / 20.0);
        const std::complex<double> a = std::polar(mag, 2 * M_PI * u(rng));
        t.amp.push_back(a * double(n));
        // Exact phase per sample: f = m + d, turns = ((m t) mod n + d t) / n.
        const std::int64_t m = std::int64_t(std::floor(t.freq[j]));
        const double d = t.freq[j] - double(m);
        for (std::int64_t s = 0; s < n; ++s) {
            const double turns =
                (double(std::uint64_t(m) * std::uint64_t(s) % std::uint64_t(n)) +
                 d * double(s)) /
                double(n);
            x[s] += a * std::polar(1.0, 2 * M_PI * turns);
        }
    }
    std::vector<std::complex<float>> out(n);
    std::normal_distribution<double> g(0, 1);
    const double var =
        per_bin_snr_db < -200 ? 0 : double(n) / std::pow(10.0, per_bin_snr_db / 10);
    t.bin_noise = var * double(n);
    const double s = std::sqrt(var / 2);
    for (std::int64_t i = 0; i < n; ++i)
        out[i] = std::complex<float>(x[i] + std::complex<double>(s * g(rng), s * g(rng)));
    return out;
}

/*!
 * x[t] = sum_j (amps[j] / n) exp(2 pi i freqs[j] t / n) + complex Gaussian noise of
 * variance noise_var per sample, on the host: the tones that share a fractional offset
 * by one inverse FFT (FFTW), then shifted by that offset in time. Offsets from a few
 * values keep it fast (one FFT each); the device twin is make_noisy_tones_device.
 */
inline std::vector<std::complex<float>>
noisy_tones_fft(std::int64_t n,
                const std::vector<double>& freqs,
                const std::vector<std::complex<double>>& amps,
                double noise_var,
                std::uint64_t seed)
{
    std::vector<std::complex<float>> x(n);
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> g(0, float(std::sqrt(noise_var / 2)));
    for (auto& v : x)
        v = std::complex<float>(g(rng), g(rng));
    std::vector<std::pair<double, std::size_t>> order;
    for (std::size_t j = 0; j < freqs.size(); ++j)
        order.emplace_back(freqs[j] - std::floor(freqs[j]), j);
    std::sort(order.begin(), order.end());
    gr::gpufft::dense_fft_options o;
    o.backend = gr::gpufft::backend::cpu;
    gr::gpufft::dense_fft_plan inv(n, 1, gr::gpufft::direction::backward, o);
    std::vector<std::complex<float>> X(n), y(n);
    for (std::size_t a = 0; a < order.size();) {
        std::fill(X.begin(), X.end(), std::complex<float>(0, 0));
        std::size_t b = a;
        for (; b < order.size() && order[b].first == order[a].first; ++b) {
            const std::size_t j = order[b].second;
            X[std::int64_t(std::floor(freqs[j])) % n] +=
                std::complex<float>(amps[j] / double(n));
        }
        inv.execute(X.data(), y.data());
        const double d = order[a].first;
        for (std::int64_t t = 0; t < n; ++t)
            x[t] += std::complex<float>(
                std::complex<double>(y[t]) *
                std::polar(1.0, 2 * M_PI * d * double(t) / double(n)));
        a = b;
    }
    return x;
}

struct tone_score {
    int found = 0, missed = 0, false_tones = 0;
    double max_freq_error = 0;   //!< bins
    double max_amp_error_db = 0; //!< |20 log10 |A_est / A_true||
    double max_snr_error_db = 0; //!< against the true per-bin SNR
};

//! Matches each true tone to the nearest detected one within 0.5 bin.
inline tone_score score_tones(std::int64_t n,
                              const tone_truth& t,
                              const std::vector<gr::gpufft::sparse_tone>& got)
{
    tone_score s;
    std::vector<char> used(got.size(), 0);
    for (std::size_t j = 0; j < t.freq.size(); ++j) {
        int best = -1;
        double bd = 0.5;
        for (std::size_t i = 0; i < got.size(); ++i) {
            double d = std::fabs(got[i].frequency - t.freq[j]);
            d = std::min(d, double(n) - d);
            if (d <= bd && !used[i]) {
                bd = d;
                best = int(i);
            }
        }
        if (best < 0) {
            ++s.missed;
            continue;
        }
        used[best] = 1;
        ++s.found;
        s.max_freq_error = std::max(s.max_freq_error, bd);
        const double ratio = std::abs(got[best].amplitude) / std::abs(t.amp[j]);
        s.max_amp_error_db =
            std::max(s.max_amp_error_db, std::fabs(20 * std::log10(ratio)));
        if (t.bin_noise > 0) {
            const double snr = 10 * std::log10(std::norm(t.amp[j]) / t.bin_noise);
            s.max_snr_error_db =
                std::max(s.max_snr_error_db, std::fabs(got[best].snr_db - snr));
        }
    }
    for (char u : used)
        s.false_tones += u ? 0 : 1;
    return s;
}

inline void print_score(const char* what, std::uint64_t seed, const tone_score& s)
{
    std::printf("  %s seed=%llu: found %d, missed %d, false %d, max |df| %.4f bin, max "
                "|dA| %.3f dB, max |dSNR| %.2f dB\n",
                what,
                (unsigned long long)seed,
                s.found,
                s.missed,
                s.false_tones,
                s.max_freq_error,
                s.max_amp_error_db,
                s.max_snr_error_db);
}

} // namespace gpufft_test

#endif /* INCLUDED_GPUFFT_TEST_ROBUST_CHECKS_H */
