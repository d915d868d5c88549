/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// From the windowed-spectrum coefficients a robust backend found to tones (fractional
// frequency, amplitude, SNR), and from tones back to plain-spectrum coefficients. Runs on
// the host for both backends: its work is O(coefficients found), never O(n).

#include "robust_backend.h"
#include "sparse_backend.h"
#include <algorithm>
#include <cmath>
#include <numeric>

namespace gr {
namespace gpufft {
namespace detail {

namespace {

using cd = std::complex<double>;

//! (1/n) sum_t exp(-2 pi i nu t / n): the transform of one sample block.
cd dirichlet(double nu, std::int64_t n)
{
    const double N = double(n);
    const double s = std::sin(M_PI * nu / N);
    const double mag = std::fabs(s) < 1e-300 ? 1.0 : std::sin(M_PI * nu) / (N * s);
    return std::polar(mag, -M_PI * nu * (N - 1) / N);
}

//! Half-width of the main lobe, in bins.
int lobe_half_width(sparse_fft_window w)
{
    switch (w) {
    case sparse_fft_window::blackman_harris:
        return 3;
    case sparse_fft_window::hann:
        return 2;
    default:
        return 0;
    }
}

//! Circular distance from bin a to bin b in (-n/2, n/2].
std::int64_t circular(std::int64_t a, std::int64_t b, std::int64_t n)
{
    std::int64_t d = (a - b) % n;
    if (d > n / 2)
        d -= n;
    else if (d <= -n / 2)
        d += n;
    return d;
}

} // namespace

cd window_transform(const sparse_params& p, double nu)
{
    const std::int64_t n = p.c.n;
    if (p.window_kind == sparse_fft_window::none || p.rc.window_terms == 0)
        return dirichlet(nu, n);
    cd w = 0;
    for (int m = -(robust_window_terms - 1); m < robust_window_terms; ++m) {
        const double c = p.window_c[m + robust_window_terms - 1];
        if (c != 0)
            w += c * dirichlet(nu - m, n);
    }
    return w;
}

void group_tones(const sparse_params& p,
                 const robust_frame& f,
                 std::vector<sparse_tone>& tones)
{
    tones.clear();
    const std::int64_t n = p.c.n;
    const std::size_t count = f.bins.size();
    if (!count)
        return;
    std::vector<std::size_t> order(count);
    std::iota(order.begin(), order.end(), std::size_t(0));
    std::sort(order.begin(), order.end(), [&](auto a, auto b) {
        return f.bins[a] < f.bins[b];
    });
    std::vector<std::int64_t> bin(count);
    std::vector<cd> y(count);
    for (std::size_t i = 0; i < count; ++i) {
        bin[i] = f.bins[order[i]];
        y[i] = f.values[order[i]];
    }
    std::vector<char> used(count, 0);
    const int h = lobe_half_width(p.window_kind);
    const int reach = h + 8; // the model is taken out this far
    const double threshold = p.eta * f.value_noise;
    const double raw_noise = f.bin_noise / p.window_power;

    // Index of the coefficient at bin b, or -1 (bins ascending, circular).
    auto find = [&](std::int64_t b) -> std::ptrdiff_t {
        b %= n;
        if (b < 0)
            b += n;
        const auto it = std::lower_bound(bin.begin(), bin.end(), b);
        return it != bin.end() && *it == b ? it - bin.begin() : -1;
    };

    while (std::int64_t(tones.size()) < p.k) {
        std::ptrdiff_t peak = -1;
        double best = threshold;
        for (std::size_t i = 0; i < count; ++i)
            if (!used[i] && std::norm(y[i]) > best) {
                best = std::norm(y[i]);
                peak = std::ptrdiff_t(i);
            }
        if (peak < 0)
            break;
        const std::int64_t m = bin[peak];
        // The lobe's coefficients that were found (the others are unknown, not zero).
        std::vector<std::pair<int, cd>> lobe;
        for (int j = -h; j <= h; ++j) {
            const auto at = find(m + j);
            if (at >= 0)
                lobe.emplace_back(j, y[at]);
        }
        // Fit: the offset delta in [-0.5, 0.5] that explains the most of the lobe's
        // energy, A by least squares at that offset.
        auto fit = [&](double delta, cd& A) {
            cd num = 0;
            double den = 0;
            for (const auto& [j, v] : lobe) {
                const cd w = window_transform(p, double(j) - delta);
                num += v * std::conj(w);
                den += std::norm(w);
            }
            A = den > 0 ? num / den : cd(0);
            return den > 0 ? std::norm(num) / den : 0.0;
        };
        double delta = 0;
        cd A;
        if (lobe.size() > 1) {
            double lo = -0.5, hi = 0.5, bestv = -1;
            for (int i = 0; i <= 20; ++i) {
                const double d = -0.5 + 0.05 * i;
                const double v = fit(d, A);
                if (v > bestv) {
                    bestv = v;
                    delta = d;
                }
            }
            lo = std::max(-0.5, delta - 0.05);
            hi = std::min(0.5, delta + 0.05);
            const double g = 0.5 * (std::sqrt(5.0) - 1.0);
            double a = hi - g * (hi - lo), b = lo + g * (hi - lo);
            double fa = fit(a, A), fb = fit(b, A);
            for (int it = 0; it < 40; ++it) {
                if (fa > fb) {
                    hi = b;
                    b = a;
                    fb = fa;
                    a = hi - g * (hi - lo);
                    fa = fit(a, A);
                } else {
                    lo = a;
                    a = b;
                    fa = fb;
                    b = lo + g * (hi - lo);
                    fb = fit(b, A);
                }
            }
            delta = 0.5 * (lo + hi);
        }
        fit(delta, A);
        // Take the tone's model out of the coefficients around it; the lobe is its.
        for (int j = -reach; j <= reach; ++j) {
            const auto at = find(m + j);
            if (at < 0)
                continue;
            y[at] -= A * window_transform(p, double(j) - delta);
            if (std::abs(j) <= h)
                used[at] = 1;
        }
        used[peak] = 1;
        sparse_tone t;
        t.frequency = double(m) + delta;
        if (t.frequency < 0)
            t.frequency += double(n);
        else if (t.frequency >= double(n))
            t.frequency -= double(n);
        t.amplitude = A;
        t.snr_db = raw_noise > 0 ? 10.0 * std::log10(std::norm(A) / raw_noise) : 300.0;
        tones.push_back(t);
    }
    std::sort(tones.begin(), tones.end(), [](const auto& a, const auto& b) {
        return std::norm(a.amplitude) > std::norm(b.amplitude);
    });
    (void)circular;
}

void tone_coefficients(const sparse_params& p,
                       const std::vector<sparse_tone>& tones,
                       double raw_bin_noise,
                       std::vector<std::int64_t>& bins,
                       std::vector<std::complex<float>>& values)
{
    const std::int64_t n = p.c.n;
    const double threshold = p.eta * raw_bin_noise;
    const int reach = int(std::min<std::int64_t>(32, n / 2 - 1));
    std::vector<std::pair<std::int64_t, cd>> all;
    for (const auto& t : tones) {
        const std::int64_t m = std::int64_t(std::floor(t.frequency + 0.5));
        for (int j = -reach; j <= reach; ++j) {
            const cd v = t.amplitude * dirichlet(double(m + j) - t.frequency, n);
            if (j != 0 && !(std::norm(v) > threshold))
                continue;
            std::int64_t b = (m + j) % n;
            if (b < 0)
                b += n;
            all.emplace_back(b, v);
        }
    }
    // Tones closer than the reach add up in the bins they share.
    std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) {
        return a.first < b.first;
    });
    bins.clear();
    values.clear();
    for (std::size_t i = 0; i < all.size();) {
        cd v = 0;
        const std::int64_t b = all[i].first;
        for (; i < all.size() && all[i].first == b; ++i)
            v += all[i].second;
        bins.push_back(b);
        values.emplace_back(float(v.real()), float(v.imag()));
    }
    keep_top_k_sorted(p.k, bins, values);
}

} // namespace detail
} // namespace gpufft
} // namespace gr
