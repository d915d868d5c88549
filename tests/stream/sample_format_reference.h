/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Test support: random stored samples of each input type, and their complex values by
// the formula of stream/sample_format.h done number by number in double.

#ifndef INCLUDED_GPUFFT_TEST_SAMPLE_FORMAT_REFERENCE_H
#define INCLUDED_GPUFFT_TEST_SAMPLE_FORMAT_REFERENCE_H

#include "stream/sample_format.h"
#include <complex>
#include <cstring>
#include <random>
#include <vector>

namespace sample_format_reference {

using gr::gpufft::stream::sample_format;
using cf = std::complex<float>;


// n samples of format f as stored bytes, random over the type's whole range.
inline std::vector<unsigned char>
random_raw(sample_format f, std::int64_t n, std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::vector<unsigned char> raw(std::size_t(n) * gr::gpufft::stream::sample_bytes(f));
    if (f == sample_format::fc32) {
        std::normal_distribution<float> g;
        for (std::int64_t i = 0; i < 2 * n; ++i) {
            const float v = g(rng);
            std::memcpy(raw.data() + 4 * i, &v, 4);
        }
    } else {
        for (auto& b : raw)
            b = static_cast<unsigned char>(rng());
    }
    return raw;
}

// The formula of sample_format.h, number by number, in double.
inline std::vector<cf> direct(sample_format f, const std::vector<unsigned char>& raw)
{
    const gr::gpufft::stream::sample_scale s = gr::gpufft::stream::scale_of(f);
    const std::size_t numbers = raw.size() / (gr::gpufft::stream::sample_bytes(f) / 2);
    std::vector<float> v(numbers);
    for (std::size_t i = 0; i < numbers; ++i) {
        double stored = 0;
        switch (f) {
        case sample_format::fc32: {
            float x;
            std::memcpy(&x, raw.data() + 4 * i, 4);
            stored = x;
            break;
        }
        case sample_format::sc16: {
            std::int16_t x;
            std::memcpy(&x, raw.data() + 2 * i, 2);
            stored = x;
            break;
        }
        case sample_format::sc8:
            stored = static_cast<std::int8_t>(raw[i]);
            break;
        case sample_format::cu8:
            stored = raw[i];
            break;
        }
        v[i] = float((stored - s.offset) * s.scale);
    }
    std::vector<cf> out(numbers / 2);
    for (std::size_t i = 0; i < out.size(); ++i)
        out[i] = cf(v[2 * i], v[2 * i + 1]);
    return out;
}

constexpr sample_format all[] = {
    sample_format::fc32, sample_format::sc16, sample_format::sc8, sample_format::cu8
};


} // namespace sample_format_reference

#endif /* INCLUDED_GPUFFT_TEST_SAMPLE_FORMAT_REFERENCE_H */
