/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The field cases of issue #30, shared by `gpufft-bench sensing` and `sparse_robust`:
// noise of variance 1 a sample (n a bin), and
//   spread<k>:  k tones at random fractional bins, 20-80 dB per bin;
//   neighbours: a 70 dB tone with 35 dB tones 3, 10, 50 and 300 bins away (+0.3 bin);
//   carrier:    a modulated carrier over 0.2 % of the band at 30 dB per bin (on-grid
//               tones of Gaussian amplitude: band-limited noise, the spectrum of QPSK
//               with a flat pulse) and 5 tones at 20-60 dB.

#ifndef INCLUDED_GPUFFT_BENCH_FIELD_H
#define INCLUDED_GPUFFT_BENCH_FIELD_H

#include "sparse/robust_checks.h"
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace gpufft_bench {

struct field_case {
    std::string name;
    std::int64_t n = 0;
    gpufft_test::tone_truth truth; //!< every component (a carrier as its bins)
    gpufft_test::tone_truth tones; //!< the tones alone
    std::vector<std::pair<double, double>> components; //!< [lo, hi] bins, signed
};

inline double field_signed_bin(double f, std::int64_t n)
{
    return f >= double(n) / 2 ? f - double(n) : f;
}

inline void field_add_tone(field_case& c, double f, double snr_db, std::mt19937_64& rng)
{
    std::uniform_real_distribution<double> u(0, 2 * M_PI);
    f = std::fmod(f + double(c.n), double(c.n));
    const auto a =
        std::polar(std::sqrt(std::pow(10.0, snr_db / 10.0) * double(c.n)), u(rng));
    c.truth.freq.push_back(f);
    c.truth.amp.push_back(a);
    c.tones.freq.push_back(f);
    c.tones.amp.push_back(a);
    const double b = field_signed_bin(f, c.n);
    c.components.push_back({ b, b });
}

//! The case `name` (spread50, spread1000, spread<k>, neighbours, carrier) at n.
inline field_case
make_field_case(const std::string& name, std::int64_t n, std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    field_case c;
    c.name = name;
    c.n = n;
    c.truth.bin_noise = c.tones.bin_noise = double(n);
    double offsets[8];
    for (double& d : offsets)
        d = u(rng) - 0.5;
    const auto random_bin = [&] {
        return std::floor(u(rng) * double(n) * 0.9 + 0.05 * double(n)) +
               offsets[rng() % 8];
    };
    if (name.rfind("spread", 0) == 0 && name.size() > 6) {
        const int k = std::stoi(name.substr(6));
        for (int j = 0; j < k; ++j)
            field_add_tone(c, random_bin(), 20 + 60 * u(rng), rng);
    } else if (name == "neighbours") {
        const double f0 = random_bin();
        field_add_tone(c, f0, 70, rng);
        for (double d : { 3.0, 10.0, 50.0, 300.0 })
            field_add_tone(c, f0 + d + 0.3, 35, rng);
    } else if (name == "carrier") {
        const std::int64_t width = std::max<std::int64_t>(16, n / 500);
        const std::int64_t start = std::int64_t(u(rng) * double(n / 2));
        std::normal_distribution<double> g(0, std::sqrt(0.5 * 1000.0 * double(n)));
        for (std::int64_t b = start; b < start + width; ++b) {
            c.truth.freq.push_back(double(b));
            c.truth.amp.push_back({ g(rng), g(rng) });
        }
        c.components.push_back({ field_signed_bin(double(start), n),
                                 field_signed_bin(double(start + width - 1), n) });
        for (int j = 0; j < 5; ++j)
            field_add_tone(c, double(n / 2) + random_bin() / 2, 20 + 10 * j, rng);
    } else {
        throw std::invalid_argument("--cases: unknown case " + name);
    }
    return c;
}

} // namespace gpufft_bench

#endif /* INCLUDED_GPUFFT_BENCH_FIELD_H */
