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

/*!
 * The Cramer-Rao bound of two tones a_1, a_2 (n a_i = amps[i]) at f_1, f_2 (bins) in an
 * n-sample frame with complex white noise of variance noise_var per sample: the
 * standard deviation of each tone's frequency (bins) and of its |a| over |a|, from the
 * 6 x 6 Fisher information of (f_i, Re a_i, Im a_i).
 */
inline void pair_crb(std::int64_t n,
                     const double f[2],
                     const std::complex<double> amps[2],
                     double noise_var,
                     double sigma_f[2],
                     double sigma_rel[2])
{
    using cd = std::complex<double>;
    const double N = double(n);
    const cd a[2] = { amps[0] / N, amps[1] / N };
    // Sum_t t^m exp(2 pi i (f_k - f_i) t / n), m = 0..2, for k - i = -1, 0, 1.
    cd sum[3][3] = {};
    for (std::int64_t t = 0; t < n; ++t) {
        const double tt = double(t);
        const cd e = std::polar(1.0, 2 * M_PI * (f[1] - f[0]) * tt / N);
        const cd es[3] = { std::conj(e), 1.0, e };
        for (int d = 0; d < 3; ++d) {
            sum[d][0] += es[d];
            sum[d][1] += tt * es[d];
            sum[d][2] += tt * tt * es[d];
        }
    }
    const double w = 2 * M_PI / N;
    // Columns of dx/dtheta: f_i -> a_i (i w t) e_i, Re a_i -> e_i, Im a_i -> i e_i;
    // each is c t^m e_i: (coefficient, power of t, tone).
    struct col {
        cd c;
        int m, tone;
    } cols[6];
    for (int i = 0; i < 2; ++i) {
        cols[3 * i] = { a[i] * cd(0, w), 1, i };
        cols[3 * i + 1] = { cd(1, 0), 0, i };
        cols[3 * i + 2] = { cd(0, 1), 0, i };
    }
    double F[6][6], C[6][12];
    for (int r = 0; r < 6; ++r)
        for (int q = 0; q < 6; ++q) {
            const cd v = std::conj(cols[r].c) * cols[q].c *
                         sum[cols[q].tone - cols[r].tone + 1][cols[r].m + cols[q].m];
            F[r][q] = 2.0 / noise_var * v.real();
        }
    for (int r = 0; r < 6; ++r)
        for (int q = 0; q < 12; ++q)
            C[r][q] = q < 6 ? F[r][q] : (q - 6 == r ? 1.0 : 0.0);
    for (int c = 0; c < 6; ++c) { // Gauss-Jordan with partial pivoting
        int piv = c;
        for (int r = c + 1; r < 6; ++r)
            if (std::fabs(C[r][c]) > std::fabs(C[piv][c]))
                piv = r;
        for (int q = 0; q < 12; ++q)
            std::swap(C[c][q], C[piv][q]);
        const double d = C[c][c];
        for (int q = 0; q < 12; ++q)
            C[c][q] /= d;
        for (int r = 0; r < 6; ++r)
            if (r != c) {
                const double m = C[r][c];
                for (int q = 0; q < 12; ++q)
                    C[r][q] -= m * C[c][q];
            }
    }
    for (int i = 0; i < 2; ++i) {
        sigma_f[i] = std::sqrt(C[3 * i][6 + 3 * i]);
        const double ur = a[i].real() / std::abs(a[i]), ui = a[i].imag() / std::abs(a[i]);
        const int R = 3 * i + 1, I = 3 * i + 2;
        const double var =
            ur * ur * C[R][6 + R] + 2 * ur * ui * C[R][6 + I] + ui * ui * C[I][6 + I];
        sigma_rel[i] = std::sqrt(var) / std::abs(a[i]);
    }
}

/*!
 * A frame of `pairs` close pairs, one every n / pairs bins: separation uniform in
 * [min_sep, max_sep] bins, random fractional offsets and phases; the weaker tone at a
 * per-bin SNR uniform in [weak_lo_db, weak_hi_db], the stronger up to spread_db above
 * it; unit complex noise per sample. truth holds the tones (pair by pair), sigma_f and
 * sigma_rel each tone's Cramer-Rao bound (pair_crb()).
 */
inline std::vector<std::complex<float>> close_pairs(std::int64_t n,
                                                    int pairs,
                                                    double min_sep,
                                                    double max_sep,
                                                    double weak_lo_db,
                                                    double weak_hi_db,
                                                    double spread_db,
                                                    std::uint64_t seed,
                                                    tone_truth& truth,
                                                    std::vector<double>& sigma_f,
                                                    std::vector<double>& sigma_rel)
{
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    truth = tone_truth{};
    sigma_f.clear();
    sigma_rel.clear();
    const double noise_var = 1.0;
    for (int p = 0; p < pairs; ++p) {
        const double sep = min_sep + (max_sep - min_sep) * u(rng);
        const double f0 = double(n) / pairs * (p + 0.25 + 0.5 * u(rng));
        const double f[2] = { f0, f0 + sep };
        const double weak = weak_lo_db + (weak_hi_db - weak_lo_db) * u(rng);
        const double db[2] = { weak + spread_db * u(rng), weak };
        const int order = u(rng) < 0.5 ? 0 : 1; // which of the two is the stronger
        std::complex<double> amps[2];
        for (int i = 0; i < 2; ++i) {
            const double snr = std::pow(10.0, db[i ^ order] / 10); // n |a|^2 / var
            amps[i] =
                std::polar(std::sqrt(snr * noise_var * double(n)), 2 * M_PI * u(rng));
        }
        double sf[2], sr[2];
        pair_crb(n, f, amps, noise_var, sf, sr);
        for (int i = 0; i < 2; ++i) {
            truth.freq.push_back(f[i]);
            truth.amp.push_back(amps[i]);
            sigma_f.push_back(sf[i]);
            sigma_rel.push_back(sr[i]);
        }
    }
    truth.bin_noise = noise_var * double(n);
    return noisy_tones_fft(
        n, truth.freq, truth.amp, noise_var, seed ^ 0x9e3779b97f4a7c15ull);
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
