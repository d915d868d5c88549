/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// SigMF recordings for `gpufft-bench sensing --captures DIR`: the samples as complex
// floats (cf32_le, ci16_le, ci8, cu8; each integer type scaled to about [-1, 1]) and
// the frame size scripts/score_sensing.py picks for them (the power of two nearest 2 ms
// of samples, 1024 to 65536, halved until the recording holds 8 frames).

#ifndef INCLUDED_GPUFFT_BENCH_CAPTURE_H
#define INCLUDED_GPUFFT_BENCH_CAPTURE_H

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpufft_bench {

struct capture {
    std::string name;
    double rate = 0;
    std::vector<std::complex<float>> x;
};

//! The value of "key": in a SigMF meta file's text (its first occurrence), unquoted.
inline std::string sigmf_value(const std::string& text, const std::string& key)
{
    const auto k = text.find("\"" + key + "\"");
    if (k == std::string::npos)
        return {};
    auto v = text.find(':', k + key.size() + 2); // past the key (which holds a ':')
    if (v == std::string::npos)
        return {};
    ++v;
    while (v < text.size() && (text[v] == ' ' || text[v] == '"'))
        ++v;
    auto e = v;
    while (e < text.size() && text[e] != '"' && text[e] != ',' && text[e] != '}' &&
           text[e] != '\n')
        ++e;
    return text.substr(v, e - v);
}

//! Reads `meta` (a .sigmf-meta path) and its data file; std::runtime_error if it cannot.
inline capture read_capture(const std::string& meta)
{
    std::ifstream m(meta);
    if (!m)
        throw std::runtime_error("--captures: cannot read " + meta);
    const std::string text((std::istreambuf_iterator<char>(m)),
                           std::istreambuf_iterator<char>());
    capture c;
    const auto slash = meta.find_last_of('/');
    c.name = meta.substr(slash == std::string::npos ? 0 : slash + 1);
    c.name = c.name.substr(0, c.name.size() - std::strlen(".sigmf-meta"));
    c.rate = std::stod(sigmf_value(text, "core:sample_rate"));
    const std::string type = sigmf_value(text, "core:datatype");
    const std::string data_path = meta.substr(0, meta.size() - 4) + "data";
    std::ifstream d(data_path, std::ios::binary);
    const std::vector<char> raw((std::istreambuf_iterator<char>(d)),
                                std::istreambuf_iterator<char>());
    const auto put = [&](double re, double im, double scale) {
        c.x.emplace_back(float(re * scale), float(im * scale));
    };
    if (type == "cf32_le" || type == "cf32") {
        c.x.resize(raw.size() / 8);
        std::memcpy(c.x.data(), raw.data(), c.x.size() * 8);
    } else if (type == "ci16_le" || type == "ci16") {
        for (std::size_t i = 0; i + 3 < raw.size(); i += 4) {
            std::int16_t v[2];
            std::memcpy(v, raw.data() + i, 4);
            put(v[0], v[1], 1.0 / 32768);
        }
    } else if (type == "ci8") {
        for (std::size_t i = 0; i + 1 < raw.size(); i += 2)
            put(std::int8_t(raw[i]), std::int8_t(raw[i + 1]), 1.0 / 128);
    } else if (type == "cu8") {
        for (std::size_t i = 0; i + 1 < raw.size(); i += 2)
            put(double(std::uint8_t(raw[i])) - 127.5,
                double(std::uint8_t(raw[i + 1])) - 127.5,
                1.0 / 128);
    } else {
        throw std::runtime_error("--captures: " + c.name + ": datatype " + type +
                                 " not read (cf32_le, ci16_le, ci8, cu8)");
    }
    return c;
}

//! scripts/score_sensing.py's auto_fft_size.
inline std::int64_t capture_fft_size(const capture& c)
{
    // Python's round() rounds halves to even, as nearbyint does by default.
    const double e = std::nearbyint(std::log2(std::max(1024.0, c.rate * 0.002)));
    std::int64_t n = std::int64_t(1) << int(std::min(e, 16.0));
    n = std::max<std::int64_t>(n, 1024);
    while (n > 1024 && std::int64_t(c.x.size()) / n < 8)
        n /= 2;
    return n;
}

} // namespace gpufft_bench

#endif /* INCLUDED_GPUFFT_BENCH_CAPTURE_H */
