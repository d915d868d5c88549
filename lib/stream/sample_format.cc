/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "stream/sample_format.h"
#include <volk/volk.h>
#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace gr {
namespace gpufft {
namespace stream {

namespace {

struct format_entry {
    sample_format format;
    const char* name;
    std::size_t bytes;
    sample_scale scale;
};

// Full scale 1.0, as GNU Radio's interleaved_*_to_complex blocks (with their default
// scale factor 1 and the usual 1/32768, 1/128) and the SigMF readers make it.
constexpr format_entry formats[] = {
    { sample_format::fc32, "fc32", 8, { 1.0, 0.0 } },
    { sample_format::sc16, "sc16", 4, { 1.0 / 32768, 0.0 } },
    { sample_format::sc8, "sc8", 2, { 1.0 / 128, 0.0 } },
    { sample_format::cu8, "cu8", 2, { 1.0 / 128, 127.5 } },
};

const format_entry& entry(sample_format f)
{
    for (const auto& e : formats)
        if (e.format == f)
            return e;
    throw std::invalid_argument("input_type: unknown sample format");
}

} // namespace

sample_format parse_sample_format(const std::string& name)
{
    for (const auto& e : formats)
        if (name == e.name)
            return e.format;
    throw std::invalid_argument(
        "input_type must be \"fc32\" (complex float), \"sc16\" (2 x int16), \"sc8\" "
        "(2 x int8) or \"cu8\" (2 x uint8, RTL-SDR), got \"" +
        name + "\"");
}

std::string to_string(sample_format f) { return entry(f).name; }

std::vector<std::string> sample_format_names()
{
    std::vector<std::string> names;
    for (const auto& e : formats)
        names.emplace_back(e.name);
    return names;
}

std::size_t sample_bytes(sample_format f) { return entry(f).bytes; }

sample_scale scale_of(sample_format f) { return entry(f).scale; }

namespace {

// One piece of at most 2^20 samples (VOLK counts in unsigned int).
void convert_piece(sample_format f, const void* in, float* o, unsigned int values)
{
    const float inverse = float(1.0 / scale_of(f).scale); // VOLK divides by it
    switch (f) {
    case sample_format::fc32:
        std::memcpy(o, in, std::size_t(values) * sizeof(float));
        return;
    case sample_format::sc16:
        volk_16i_s32f_convert_32f(
            o, static_cast<const std::int16_t*>(in), inverse, values);
        return;
    case sample_format::sc8:
        volk_8i_s32f_convert_32f(o, static_cast<const std::int8_t*>(in), inverse, values);
        return;
    case sample_format::cu8: {
        // (u - 127.5) / 128 = (2u - 255) / 256: an int16 VOLK converts exactly, in
        // pieces that stay in the L1 cache. (Not volk_32f_s32f_add_32f: under
        // VOLK_GENERIC, as GNU Radio's tests run, VOLK 2.5 finds no unaligned
        // implementation of it and loops.)
        constexpr unsigned int piece = 4096;
        std::int16_t doubled[piece];
        const auto* u = static_cast<const std::uint8_t*>(in);
        for (unsigned int done = 0; done < values; done += piece) {
            const unsigned int m = std::min(piece, values - done);
            for (unsigned int i = 0; i < m; ++i)
                doubled[i] = std::int16_t(2 * int(u[done + i]) - 255);
            volk_16i_s32f_convert_32f(o + done, doubled, 2.0f * inverse, m);
        }
        return;
    }
    }
}

} // namespace

void convert_samples(sample_format f,
                     const void* in,
                     std::complex<float>* out,
                     std::int64_t n)
{
    constexpr std::int64_t piece = std::int64_t(1) << 20;
    const std::size_t bytes = sample_bytes(f);
    const auto* src = static_cast<const unsigned char*>(in);
    auto* dst = reinterpret_cast<float*>(out);
    for (std::int64_t done = 0; done < n; done += piece) {
        const std::int64_t m = std::min(piece, n - done);
        convert_piece(
            f, src + std::size_t(done) * bytes, dst + 2 * done, unsigned(2 * m));
    }
}

} // namespace stream
} // namespace gpufft
} // namespace gr
