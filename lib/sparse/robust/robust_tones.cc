/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// From windowed-spectrum coefficients to tones (the CPU backends; the CUDA backend runs
// the same robust_fit_tone() in a kernel), and from tones back to plain-spectrum
// coefficients. The work is O(coefficients found), never O(n).

#include "sparse/common/sparse_common.h"
#include "sparse/robust/robust_backend.h"
#include "sparse/robust/robust_pairs.h"
#include <algorithm>
#include <cmath>
#include <numeric>

namespace gr {
namespace gpufft {
namespace detail {

namespace {

using cd = std::complex<double>;

//! (1/n) sum_t exp(-2 pi i nu t / n): a tone's DFT nu bins away, over its amplitude.
cd dirichlet(double nu, std::int64_t n)
{
    const double N = double(n);
    const double s = std::sin(M_PI * nu / N);
    const double mag = std::fabs(nu) < 1e-9 ? 1.0 : std::sin(M_PI * nu) / (N * s);
    return std::polar(mag, -M_PI * nu * (N - 1) / N);
}

} // namespace

void tones_from_peaks(const robust_consts& c,
                      const std::vector<std::int64_t>& bins,
                      const std::vector<cd>& values,
                      std::vector<sparse_tone>& tones,
                      std::vector<std::int64_t>* peak_bins)
{
    const std::size_t count = bins.size();
    std::vector<std::size_t> order(count);
    std::iota(order.begin(), order.end(), std::size_t(0));
    std::sort(
        order.begin(), order.end(), [&](auto a, auto b) { return bins[a] < bins[b]; });
    std::vector<std::int64_t> bin(count);
    std::vector<cd> y(count);
    for (std::size_t i = 0; i < count; ++i) {
        bin[i] = bins[order[i]];
        y[i] = values[order[i]];
    }
    auto find = [&](std::int64_t b) -> std::ptrdiff_t {
        b %= c.n;
        if (b < 0)
            b += c.n;
        const auto it = std::lower_bound(bin.begin(), bin.end(), b);
        return it != bin.end() && *it == b ? it - bin.begin() : -1;
    };
    const int h = c.lobe;
    double yr[2 * robust_window_terms + 1], yi[2 * robust_window_terms + 1];
    unsigned char present[2 * robust_window_terms + 1];
    for (std::size_t i = 0; i < count; ++i) {
        const double p = std::norm(y[i]);
        bool peak = true;
        for (int j = -h; j <= h && peak; ++j) {
            present[j + h] = 0;
            if (j == 0) {
                present[h] = 1;
                yr[h] = y[i].real();
                yi[h] = y[i].imag();
                continue;
            }
            const auto at = find(bin[i] + j);
            if (at < 0)
                continue;
            const double q = std::norm(y[at]);
            if (q > p || (q == p && j < 0))
                peak = false; // a larger neighbour (ties: the lower bin) is the peak
            present[j + h] = 1;
            yr[j + h] = y[at].real();
            yi[j + h] = y[at].imag();
        }
        if (!peak)
            continue;
        double delta, ar, ai;
        robust_fit_tone(c, yr, yi, present, delta, ar, ai);
        sparse_tone t;
        t.frequency = robust_wrap_frequency(c, double(bin[i]) + delta);
        t.amplitude = cd(ar, ai);
        tones.push_back(t);
        if (peak_bins)
            peak_bins->push_back(bin[i]);
    }
}

void refine_tones_plain(const robust_consts& c,
                        const std::complex<float>* X,
                        double plain_noise,
                        std::vector<sparse_tone>& tones,
                        std::vector<unsigned char>* plain_ok)
{
    const robust_consts pc = robust_plain_consts(c);
    if (plain_ok)
        plain_ok->assign(tones.size(), 0);
    const int h = c.lobe;
    double yr[2 * robust_window_terms + 1], yi[2 * robust_window_terms + 1];
    unsigned char present[2 * robust_window_terms + 1];
    for (std::size_t i = 0; i < tones.size(); ++i) {
        sparse_tone& t = tones[i];
        std::int64_t b0;
        double lo, hi;
        robust_plain_range(c, t.frequency, b0, lo, hi);
        double total = 0;
        for (int j = -h; j <= h; ++j) {
            std::int64_t q = (b0 + j) % c.n;
            q = q < 0 ? q + c.n : q;
            yr[j + h] = X[q].real();
            yi[j + h] = X[q].imag();
            present[j + h] = 1;
            total += yr[j + h] * yr[j + h] + yi[j + h] * yi[j + h];
        }
        double delta, ar, ai;
        const double explained =
            robust_fit_tone(pc, yr, yi, present, delta, ar, ai, lo, hi);
        if (!robust_plain_fit_ok(delta, lo, hi, total, explained, plain_noise))
            continue;
        t.frequency = robust_wrap_frequency(c, double(b0) + delta);
        t.amplitude = cd(ar, ai);
        if (!plain_ok || !robust_pair_enabled(c))
            continue;
        double residual = 0; // over the joint fit's window (robust_pair_hint)
        for (int j = -robust_pair_hint; j <= robust_pair_hint; ++j) {
            std::int64_t q = (b0 + j) % c.n;
            q = q < 0 ? q + c.n : q;
            double mr, mi;
            robust_pair_model(c, q, t.frequency, ar, ai, mr, mi);
            const double er = X[q].real() - mr, ei = X[q].imag() - mi;
            residual += er * er + ei * ei;
        }
        (*plain_ok)[i] = robust_pair_quiet(residual, plain_noise) ? 1 : 0;
    }
}

void resolve_close_tones(const robust_consts& c,
                         const std::complex<float>* X,
                         double plain_noise,
                         double eta,
                         const std::vector<std::int64_t>& peak_bins,
                         const std::vector<unsigned char>& plain_ok,
                         std::vector<sparse_tone>& tones,
                         std::vector<unsigned char>& joint)
{
    const std::size_t count = tones.size();
    joint.assign(count, 0);
    if (!robust_pair_enabled(c) || !(plain_noise > 0))
        return;
    // Tone index by peak bin (the bins are distinct: one peak per lobe).
    std::vector<std::pair<std::int64_t, std::size_t>> by_bin(count);
    for (std::size_t i = 0; i < count; ++i)
        by_bin[i] = { peak_bins[i], i };
    std::sort(by_bin.begin(), by_bin.end());
    const auto find = [&](std::int64_t b) -> long long {
        b %= c.n;
        b = b < 0 ? b + c.n : b;
        const auto it = std::lower_bound(
            by_bin.begin(), by_bin.end(), std::make_pair(b, std::size_t(0)));
        return it != by_bin.end() && it->first == b ? (long long)(it->second) : -1;
    };
    const std::vector<sparse_tone> before = tones; // every cluster reads these
    const double min_power = robust_pair_min_power(c, eta, plain_noise);
    std::vector<unsigned char> dropped(count, 0);
    robust_pair_work w;
    for (std::size_t lead = 0; lead < count; ++lead) {
        long long members[robust_pair_max_tones + 1];
        std::int64_t offset[robust_pair_max_tones + 1];
        const int m = robust_pair_members(peak_bins[lead], find, members, offset);
        if (m <= 0 || (m == 1 && plain_ok[lead]))
            continue;
        // The window's bins, the tones outside the cluster taken out.
        const std::int64_t span = offset[m - 1];
        const int W = robust_pair_window(span);
        const std::int64_t b0 = peak_bins[lead] - robust_pair_margin - 1;
        for (int j = 0; j < W; ++j) {
            std::int64_t q = (b0 + j) % c.n;
            q = q < 0 ? q + c.n : q;
            double pr, pi;
            robust_pair_phase(c.n, double(j), pr, pi);
            const double xr = X[q].real(), xi = X[q].imag();
            w.yr[j] = xr * pr - xi * pi;
            w.yi[j] = xr * pi + xi * pr;
        }
        double leak[robust_pair_max_bins] = {};
        double lr[robust_pair_max_bins] = {}, li[robust_pair_max_bins] = {};
        for (std::int64_t o = -robust_tone_reach; o <= span + robust_tone_reach; ++o) {
            const long long t = find(peak_bins[lead] + o);
            bool member = false;
            for (int i = 0; i < m; ++i)
                member = member || members[i] == t;
            if (t < 0 || member)
                continue;
            const sparse_tone& u = before[std::size_t(t)];
            robust_pair_subtract(
                c, w, W, b0, u.frequency, u.amplitude.real(), u.amplitude.imag(), lr, li);
        }
        for (int j = 0; j < W; ++j)
            leak[j] = lr[j] * lr[j] + li[j] * li[j];
        if (!robust_pair_leak_ok(leak, W, plain_noise))
            continue;
        double d[robust_pair_max_tones], br[robust_pair_max_basis],
            bi[robust_pair_max_basis];
        for (int i = 0; i < m; ++i)
            d[i] = robust_pair_offset(c, before[std::size_t(members[i])].frequency, b0);
        const int p = robust_pair_fit(
            c, w, W, m, d, br, bi, plain_noise, eta, min_power, serial_lanes());
        if (p == 0)
            continue;
        for (int i = 0; i < p; ++i) {
            double f, ar, ai;
            robust_pair_tone(c, b0, d[i], br[i], bi[i], f, ar, ai);
            sparse_tone t;
            t.frequency = f;
            t.amplitude = cd(ar, ai);
            if (i < m) {
                tones[std::size_t(members[i])] = t;
                joint[std::size_t(members[i])] = 1;
            } else {
                tones.push_back(t);
                joint.push_back(1);
                dropped.push_back(0);
            }
        }
        for (int i = p; i < m; ++i)
            dropped[std::size_t(members[i])] = 1;
    }
    std::size_t kept = 0;
    for (std::size_t i = 0; i < tones.size(); ++i)
        if (!dropped[i]) {
            tones[kept] = tones[i];
            joint[kept] = joint[i];
            ++kept;
        }
    tones.resize(kept);
    joint.resize(kept);
}

void order_tones(double raw_bin_noise, robust_frame& f)
{
    const std::size_t count = f.tones.size();
    f.joint.resize(count, 0);
    if (!f.ordered) {
        // Strongest first, by a precomputed power (std::norm goes through hypot).
        std::vector<std::pair<double, std::size_t>> by_power(count);
        for (std::size_t i = 0; i < count; ++i) {
            const auto a = f.tones[i].amplitude;
            by_power[i] = { a.real() * a.real() + a.imag() * a.imag(), i };
        }
        std::stable_sort(by_power.begin(),
                         by_power.end(),
                         [](const auto& a, const auto& b) { return a.first > b.first; });
        std::vector<sparse_tone> sorted(count);
        std::vector<unsigned char> joint(count);
        for (std::size_t i = 0; i < count; ++i) {
            sorted[i] = f.tones[by_power[i].second];
            sorted[i].snr_db = raw_bin_noise > 0
                                   ? 10.0 * std::log10(by_power[i].first / raw_bin_noise)
                                   : 300.0;
            joint[i] = f.joint[by_power[i].second];
        }
        f.tones.swap(sorted);
        f.joint.swap(joint);
        // near[i]: another tone within robust_tone_reach bins, from the tones sorted
        // by frequency (the leakage test below searches the same way).
        std::vector<std::size_t> by_freq(count);
        std::iota(by_freq.begin(), by_freq.end(), std::size_t(0));
        std::sort(by_freq.begin(), by_freq.end(), [&](std::size_t x, std::size_t y) {
            return f.tones[x].frequency < f.tones[y].frequency;
        });
        f.near.assign(count, 0);
        const double reach = robust_tone_reach;
        for (std::size_t r = 0; r + 1 < count; ++r)
            if (f.tones[by_freq[r + 1]].frequency - f.tones[by_freq[r]].frequency <=
                reach)
                f.near[by_freq[r]] = f.near[by_freq[r + 1]] = 1;
        f.ordered = true;
    }
    f.near.resize(count, 0);
}

void finish_tones(const robust_consts& c, std::int64_t k, robust_frame& f)
{
    std::vector<sparse_tone>& tones = f.tones;
    const std::vector<unsigned char>& vouched = f.joint;
    const std::vector<unsigned char>* near = &f.near;
    // A peak that a stronger tone's window leakage explains (within 10 dB) is that
    // leakage, not a tone: the sidelobes of a strong carrier stand above a low floor.
    // Stronger tones are kept first, so the test runs against kept ones only: each tone
    // looks at the kept ones within `reach` bins through an index by frequency, built
    // once (a sorted insert per kept tone would move O(k^2) entries). With `near`, only
    // the tones it marks can have such a neighbour, and only they are indexed.
    const double reach = robust_tone_reach;
    const std::size_t count = tones.size();
    const auto indexed = [&](std::size_t i) { return !near || (*near)[i]; };
    std::vector<std::size_t> by_freq, at(count, 0);
    for (std::size_t i = 0; i < count; ++i)
        if (indexed(i))
            by_freq.push_back(i);
    std::sort(by_freq.begin(), by_freq.end(), [&](std::size_t a, std::size_t b) {
        return tones[a].frequency < tones[b].frequency;
    });
    for (std::size_t r = 0; r < by_freq.size(); ++r)
        at[by_freq[r]] = r;
    std::vector<char> is_kept(count, 0);
    std::vector<sparse_tone> kept;
    kept.reserve(std::min<std::size_t>(count, std::size_t(std::max<std::int64_t>(k, 0))));
    for (std::size_t i = 0; i < count && std::int64_t(kept.size()) < k; ++i) {
        const sparse_tone& t = tones[i];
        double own_power = -1; // computed at the first kept neighbour
        auto leaks_from = [&](std::size_t j) {
            if (!is_kept[j])
                return false;
            double wr, wi;
            if (own_power < 0) {
                robust_window_transform(c, std::round(t.frequency) - t.frequency, wr, wi);
                own_power = std::norm(t.amplitude) * (wr * wr + wi * wi);
            }
            robust_window_transform(
                c, std::round(t.frequency) - tones[j].frequency, wr, wi);
            return own_power < 10.0 * std::norm(tones[j].amplitude) * (wr * wr + wi * wi);
        };
        bool leak = false;
        if (indexed(i) && !vouched[i]) { // a joint fit's tone is no leakage
            const std::size_t m = by_freq.size();
            for (std::size_t r = at[i];
                 !leak && r-- > 0 && tones[by_freq[r]].frequency >= t.frequency - reach;)
                leak = leaks_from(by_freq[r]);
            for (std::size_t r = at[i] + 1;
                 !leak && r < m && tones[by_freq[r]].frequency <= t.frequency + reach;
                 ++r)
                leak = leaks_from(by_freq[r]);
        }
        if (leak)
            continue;
        is_kept[i] = 1;
        kept.push_back(t);
    }
    tones.swap(kept);
}

void tone_coefficients(std::int64_t n,
                       std::int64_t k,
                       double threshold,
                       const std::vector<sparse_tone>& tones,
                       std::vector<std::int64_t>& bins,
                       std::vector<std::complex<float>>& values)
{
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
    keep_top_k_sorted(k, bins, values);
}

} // namespace detail
} // namespace gpufft
} // namespace gr
