/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The CPU backend of spectrum sensing: FFTW, then the floor from a sample of the
// windowed spectrum and one pass over it for the threshold. Only the bins of the bands
// are read again (for their sums), never the rest.

#include "sensing_backend.h"
#include <gnuradio/gpufft/dense_fft_plan.h>
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <thread>

namespace gr {
namespace gpufft {
namespace detail {

namespace {


// X[q] of the spectrum in natural order, as sensing_math.h reads bins.
struct spectrum_reader {
    const std::complex<float>* X;
    void operator()(std::int64_t q, float& re, float& im) const
    {
        re = X[q].real();
        im = X[q].imag();
    }
};

class sensing_cpu final : public sensing_backend
{
public:
    sensing_cpu(const sensing_params& p, int threads)
        : d_p(p), d_fft(p.k.n, 1, direction::forward, fft_options(p, threads))
    {
        d_X.resize(std::size_t(d_k.n));
        d_P.resize(std::size_t(d_k.n));
        d_samples.resize(std::size_t(sensing_floor_samples));
        d_bits.resize(std::size_t(sensing_floor_samples));
        d_exps.resize(std::size_t(sensing_floor_samples));
        d_fixed.resize(std::size_t(sensing_floor_samples));
        d_floor.resize(std::size_t(d_k.subbands));
        d_scratch.resize(2 * std::size_t(d_k.subbands));
    }

    bool spectrum(const std::complex<float>* x,
                  memory where,
                  std::vector<double>& floors,
                  std::vector<sensing_run>& runs) override
    {
        if (where != memory::host)
            throw std::invalid_argument(
                "where: the CPU backend takes host arrays only (memory::host)");
        d_fft.execute(x, d_X.data(), memory::host);
        compute_power();
        estimate_floor();
        floors = d_floor;
        return find_runs(runs);
    }

    void bands(std::vector<sensing_band>& bands) override
    {
        const auto power = [this](std::int64_t s) { return d_P[std::size_t(s)]; };
        const auto floor = [this](std::int64_t s) {
            return sensing_floor_at(d_k, d_floor.data(), s);
        };
        const auto windowed = [this](std::int64_t s, double& re, double& im) {
            sensing_windowed_bin(d_k, bin_reader(), s, re, im);
        };
        for (auto& b : bands)
            sensing_band_sums(b, d_k, power, floor, windowed, d_p.rule, d_p.xdb_ratio);
    }

    void gap_levels(const std::vector<sensing_run>& runs,
                    std::int64_t max_gap,
                    std::vector<double>& level) override
    {
        level.assign(runs.empty() ? 0 : runs.size() - 1, 0.0);
        for (std::size_t i = 0; i + 1 < runs.size(); ++i) {
            const std::int64_t a = runs[i].last + 1, b = runs[i + 1].first;
            if (b - a < 1 || b - a > max_gap)
                continue;
            // Each bin over its own floor: a gap of thousands of bins crosses sub-bands
            // whose floors differ (one floor at the gap's centre split the LTE TDD
            // carrier into 136 transmissions, not 78).
            double sum = 0;
            for (std::int64_t s = a; s < b; ++s)
                sum += double(d_P[std::size_t(s)]) /
                       sensing_floor_at(d_k, d_floor.data(), s);
            level[i] = sum / double(b - a);
        }
    }

    std::int64_t memory_bytes() const override
    {
        // The spectrum and its power, plus FFTW's plan (its own copy for unaligned
        // input).
        return d_k.n * std::int64_t(2 * sizeof(std::complex<float>) + sizeof(float));
    }

private:
    static constexpr std::size_t block = 2048;

    static dense_fft_options fft_options(const sensing_params& p, int threads)
    {
        dense_fft_options o;
        o.backend = backend::cpu;
        // Below 2^18 points FFTW's threads cost more than they save.
        o.threads = threads > 0 ? threads : (p.k.n < (1 << 18) ? 1 : 0);
        return o;
    }


    spectrum_reader bin_reader() const { return spectrum_reader{ d_X.data() }; }

    float power_at(std::int64_t s) const { return sensing_power(d_k, bin_reader(), s); }

    // |sum_m c_m X[q - m]|^2 for q = 0..len-1 (X from q = -H to len - 1 + H): the taps a
    // compile-time count, so the loop over q vectorises.
    template <int H>
    static void power_block(const float* X, std::int64_t len, const float* c, float* P)
    {
        for (std::int64_t i = 0; i < len; ++i) {
            float re = 0, im = 0;
            for (int m = -H; m <= H; ++m) {
                re += c[m + H] * X[2 * (i - m)];
                im += c[m + H] * X[2 * (i - m) + 1];
            }
            P[i] = re * re + im * im;
        }
    }

    // The windowed power of every bin into d_P, block by block (the vectorised form
    // away from the spectrum's ends).
    void compute_power()
    {
        const std::int64_t n = d_k.n;
        const int t = d_k.taps / 2;
        const float* X = reinterpret_cast<const float*>(d_X.data());
        float c[sensing_max_taps];
        for (int m = 0; m < d_k.taps; ++m)
            c[m] = float(d_k.c[m]);
        for (std::int64_t s0 = 0; s0 < n; s0 += std::int64_t(block)) {
            const std::int64_t len = std::min<std::int64_t>(std::int64_t(block), n - s0);
            const std::int64_t q0 = sensing_natural(d_k, s0);
            float* P = d_P.data() + s0;
            // Bins whose taps wrap around the spectrum's ends take the general form.
            const std::int64_t lo = std::clamp<std::int64_t>(t - q0, 0, len);
            const std::int64_t hi = std::clamp<std::int64_t>(n - t - q0, lo, len);
            if (t == 3)
                power_block<3>(X + 2 * (q0 + lo), hi - lo, c, P + lo);
            else
                power_block<1>(X + 2 * (q0 + lo), hi - lo, c, P + lo);
            for (std::int64_t i = 0; i < lo; ++i)
                P[i] = power_at(s0 + i);
            for (std::int64_t i = hi; i < len; ++i)
                P[i] = power_at(s0 + i);
        }
    }

    // sensing_log_power() over v[0..m) in place, in steps that vectorise (bit fields as
    // integers, then the polynomial as floats); the same arithmetic, value for value.
    // False when a value is not finite (an exponent of all ones).
    bool log_powers(float* v, std::int64_t m)
    {
        const float lo = float(d_k.floor_min);
        std::uint32_t* u = d_bits.data();
        float* e = d_exps.data();
        std::memcpy(u, v, std::size_t(m) * sizeof(float));
        std::uint32_t bad = 0;
        for (std::int64_t j = 0; j < m; ++j)
            bad |= std::uint32_t((u[j] & 0x7f800000u) == 0x7f800000u);
        if (bad)
            return false;
        for (std::int64_t j = 0; j < m; ++j)
            v[j] = v[j] > lo ? v[j] : lo;
        std::memcpy(u, v, std::size_t(m) * sizeof(float));
        for (std::int64_t j = 0; j < m; ++j) {
            e[j] = float(int((u[j] >> 23) & 0xffu) - 127);
            u[j] = (u[j] & 0x007fffffu) | 0x3f800000u;
        }
        std::memcpy(v, u, std::size_t(m) * sizeof(float));
        for (std::int64_t j = 0; j < m; ++j) {
            const float t = (v[j] - 1.0f) / (v[j] + 1.0f), t2 = t * t;
            const float ln_m =
                2.0f * t *
                (1.0f +
                 t2 * (1.0f / 3 + t2 * (1.0f / 5 + t2 * (1.0f / 7 + t2 * (1.0f / 9)))));
            v[j] = e[j] * 0.69314718f + ln_m;
        }
        return true;
    }

    void estimate_floor()
    {
        float* v = d_samples.data();
        for (int i = 0; i < d_k.subbands; ++i) {
            std::int64_t first, count;
            sensing_subband(d_k, i, first, count);
            const std::int64_t m = sensing_sample_count(d_k, i);
            const float* P = d_P.data() + first;
            for (std::int64_t j = 0; j < m; ++j)
                v[j] = P[j * d_k.stride];
            if (!log_powers(v, m))
                throw_non_finite_frame();
            // The logs in fixed point (2^-16 nepers): integer sums are exact and their
            // loops vectorise, so each censoring pass is one cheap sweep.
            std::int32_t* iv = d_fixed.data();
            for (std::int64_t j = 0; j < m; ++j)
                iv[j] = std::int32_t(v[j] * 65536.0f);
            double f = 0;
            for (int pass = 0; pass <= sensing_floor_passes; ++pass) {
                const std::int32_t cut =
                    f > 0 ? std::int32_t(float(std::log(d_k.cut * f)) * 65536.0f)
                          : INT32_MAX;
                std::int64_t total = 0, count = 0;
                for (std::int64_t j0 = 0; j0 < m; j0 += 256) {
                    const std::int64_t j1 = std::min<std::int64_t>(m, j0 + 256);
                    std::int32_t sum = 0, cnt = 0; // |sum| < 256 x 2^23: no overflow
                    for (std::int64_t j = j0; j < j1; ++j) {
                        const std::int32_t in = -std::int32_t(iv[j] < cut);
                        sum += iv[j] & in;
                        cnt += in & 1;
                    }
                    total += sum;
                    count += cnt;
                }
                f = sensing_floor_step(d_k, double(total) / 65536.0, double(count), f);
            }
            d_floor[std::size_t(i)] = f;
        }
        sensing_open_floor(d_k, d_floor.data(), d_scratch.data());
    }

    // The threshold pass over d_P; a bin is checked against its own threshold only where
    // it beats the block's lowest one.
    bool find_runs(std::vector<sensing_run>& runs)
    {
        runs.clear();
        const std::int64_t n = d_k.n;
        std::int64_t open_first = -1, open_last = -2;
        bool complete = true;
        for (std::int64_t s0 = 0; s0 < n && complete; s0 += std::int64_t(block)) {
            const std::int64_t len = std::min<std::int64_t>(std::int64_t(block), n - s0);
            const float* P = d_P.data() + s0;
            // The floor is linear between sub-band centres: its least value over the
            // block is at an end or at a centre inside it.
            double fmin = std::min(sensing_floor_at(d_k, d_floor.data(), s0),
                                   sensing_floor_at(d_k, d_floor.data(), s0 + len - 1));
            for (int i = 0; i < d_k.subbands; ++i) {
                const std::int64_t centre =
                    std::int64_t(i) * d_k.sub_bins + d_k.sub_bins / 2;
                if (centre >= s0 && centre < s0 + len)
                    fmin = std::min(fmin, d_floor[std::size_t(i)]);
            }
            const float low = float(d_k.eta * fmin);
            // Most blocks hold nothing above even the lowest threshold: a count that
            // vectorises says so without a branch per bin.
            int candidates = 0;
            for (std::int64_t i = 0; i < len; ++i)
                candidates += P[i] > low ? 1 : 0;
            if (candidates == 0)
                continue;
            for (std::int64_t i = 0; i < len; ++i) {
                if (!(P[i] > low))
                    continue;
                const std::int64_t s = s0 + i;
                if (!sensing_above(d_k, d_floor.data(), s, P[i]))
                    continue;
                if (s == open_last + 1) {
                    open_last = s;
                    continue;
                }
                if (open_first >= 0) {
                    if (std::int64_t(runs.size()) == sensing_max_runs) {
                        complete = false;
                        break;
                    }
                    runs.push_back({ open_first, open_last });
                }
                open_first = open_last = s;
            }
        }
        if (open_first >= 0 && complete) {
            if (std::int64_t(runs.size()) == sensing_max_runs)
                complete = false;
            else
                runs.push_back({ open_first, open_last });
        }
        return complete;
    }

    const sensing_params d_p;
    const sensing_consts& d_k = d_p.k;
    dense_fft_plan d_fft;
    std::vector<std::complex<float>> d_X;
    std::vector<float> d_P; // windowed power, shifted order
    std::vector<float> d_samples, d_exps;
    std::vector<std::uint32_t> d_bits;
    std::vector<std::int32_t> d_fixed;
    std::vector<double> d_floor, d_scratch;
};

} // namespace

std::unique_ptr<sensing_backend> make_sensing_cpu(const sensing_params& p, int threads)
{
    return std::make_unique<sensing_cpu>(p, threads);
}

} // namespace detail
} // namespace gpufft
} // namespace gr
