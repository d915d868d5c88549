/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The blocks' input types: names, the error for an unknown one, and the conversion to
// complex float with VOLK against the formula done directly, on random integers of the
// whole range, lengths off every piece boundary (the GPU's: test_sample_format_cuda).

#include "reference.h"
#include "stream/frame_converter.h"
#include "stream/sample_format.h"
#include "stream/sample_format_reference.h"
#include "test_harness.h"
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

using namespace gr::gpufft::stream;
using cf = std::complex<float>;
using namespace sample_format_reference;


GPUFFT_TEST(names_and_scales)
{
    for (const auto f : all)
        GPUFFT_CHECK(parse_sample_format(to_string(f)) == f);
    GPUFFT_CHECK_EQ(sample_format_names().size(), std::size_t(4));
    GPUFFT_CHECK_EQ(sample_format_names()[0], std::string("fc32"));
    GPUFFT_CHECK_EQ(sample_bytes(sample_format::fc32), std::size_t(8));
    GPUFFT_CHECK_EQ(sample_bytes(sample_format::sc16), std::size_t(4));
    GPUFFT_CHECK_EQ(sample_bytes(sample_format::sc8), std::size_t(2));
    GPUFFT_CHECK_EQ(sample_bytes(sample_format::cu8), std::size_t(2));
    // recording_source's values (SigMF ci16_le, ci8, cu8).
    GPUFFT_CHECK_EQ(scale_of(sample_format::sc16).scale, 1.0 / 32768);
    GPUFFT_CHECK_EQ(scale_of(sample_format::sc8).scale, 1.0 / 128);
    GPUFFT_CHECK_EQ(scale_of(sample_format::cu8).scale, 1.0 / 128);
    GPUFFT_CHECK_EQ(scale_of(sample_format::cu8).offset, 127.5);
}

GPUFFT_TEST(unknown_type_names_input_type)
{
    for (const char* bad : { "", "cs16", "SC16", "fc64", "ci16_le", "complex" })
        GPUFFT_CHECK_THROWS(
            parse_sample_format(bad), std::invalid_argument, "input_type");
}

GPUFFT_TEST(host_conversion_matches_the_formula)
{
    const std::uint64_t seed = gpufft_test::fresh_seed();
    std::printf("  seed %llu\n", static_cast<unsigned long long>(seed));
    // Off the 4096-number piece of cu8 and the 2^20-sample piece of every type.
    for (const std::int64_t n : { 1, 7, 2047, 2048, 2049, 5000, (1 << 20) + 3 }) {
        for (const auto f : all) {
            const auto raw = random_raw(f, n, seed + std::uint64_t(n));
            std::vector<cf> out(std::size_t(n), cf(NAN, NAN));
            convert_samples(f, raw.data(), out.data(), n);
            const auto want = direct(f, raw);
            // Exact: every scaled integer is a float.
            GPUFFT_CHECK(std::memcmp(out.data(), want.data(), out.size() * sizeof(cf)) ==
                         0);
            frame_converter c(f, n);
            const cf* h = c.on_host(raw.data());
            GPUFFT_CHECK(std::memcmp(h, want.data(), out.size() * sizeof(cf)) == 0);
        }
    }
    // The extremes of each type.
    const std::int16_t s16[4] = { -32768, 32767, 0, -1 };
    cf o[2];
    convert_samples(sample_format::sc16, s16, o, 2);
    GPUFFT_CHECK(o[0] == cf(-1.0f, 32767.0f / 32768) && o[1] == cf(0.0f, -1.0f / 32768));
    const unsigned char u8[4] = { 0, 255, 127, 128 };
    convert_samples(sample_format::cu8, u8, o, 2);
    GPUFFT_CHECK(o[0] == cf(-127.5f / 128, 127.5f / 128) &&
                 o[1] == cf(-0.5f / 128, 0.5f / 128));
}

GPUFFT_TEST_MAIN()
