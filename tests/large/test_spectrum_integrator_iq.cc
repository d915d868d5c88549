/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// spectrum_integrator's input_type on the CPU (issue #33): accumulate_samples()
// converts on the host there, exactly as the pipeline does, and leaves its input as it
// was; the accumulator's pipeline keeps complex frames when the integrator does not
// convert on the GPU; a bad input_type is named. The GPU side is
// test_spectrum_integrator_iq_cuda.

#include "large/spectrum_integrator_checks.h"
#include "stream/sample_format.h"
#include "stream/spectrometer_pipeline.h"
#include "stream/spectrometer_setup.h"
#include <gnuradio/gpufft/spectrum_integrator.h>
#include <cstdio>
#include <cstring>
#include <random>

using namespace gr::gpufft;
using namespace gpufft_test;
using gr::gpufft::stream::sample_format;

namespace {

spectrum_integrator make_cpu(std::int64_t n, const std::string& input_type)
{
    spectrum_integrator_options o;
    o.backend = backend::cpu;
    o.window = "hann";
    o.threads = 1;
    o.input_type = input_type;
    return spectrum_integrator(n, 0, 0, n / 8, o);
}

} // namespace

GPUFFT_TEST(bad_input_type_is_named)
{
    GPUFFT_CHECK_THROWS(make_cpu(1024, "sc12"), std::invalid_argument, "input_type");
    GPUFFT_CHECK_THROWS(make_cpu(1024, ""), std::invalid_argument, "input_type");
    GPUFFT_CHECK_EQ(make_cpu(1024, "fc32").input_type(), std::string("fc32"));
}

GPUFFT_TEST(host_conversion_equals_converting_first)
{
    const std::uint64_t seed = fresh_seed();
    std::printf("seed %llu\n", (unsigned long long)seed);
    std::mt19937_64 rng(seed);
    const std::int64_t n = 3000; // not a power of two
    for (const char* type : { "fc32", "sc16", "sc8", "cu8" }) {
        const sample_format f = stream::parse_sample_format(type);
        std::vector<unsigned char> raw(std::size_t(n) * stream::sample_bytes(f));
        if (f == sample_format::fc32) {
            const auto x = random_complex<float>(std::size_t(n), rng());
            std::memcpy(raw.data(), x.data(), raw.size());
        } else {
            for (auto& b : raw)
                b = static_cast<unsigned char>(rng());
        }
        const std::vector<unsigned char> kept = raw;
        auto s = make_cpu(n, type);
        GPUFFT_CHECK_EQ(s.input_type(), std::string(type));
        GPUFFT_CHECK(!s.converts_on_device());
        GPUFFT_CHECK(s.accumulate_samples(raw.data()));
        GPUFFT_CHECK(s.accumulate_samples(raw.data()));
        GPUFFT_CHECK(raw == kept); // the input is not touched
        std::vector<float> got(std::size_t(s.output_bins()));
        GPUFFT_CHECK_EQ(s.read(got.data()), std::int64_t(2));

        std::vector<std::complex<float>> x(static_cast<std::size_t>(n));
        auto t = make_cpu(n, "fc32");
        for (int k = 0; k < 2; ++k) {
            stream::convert_samples(f, raw.data(), x.data(), n);
            GPUFFT_CHECK(t.accumulate(x.data()));
        }
        std::vector<float> want(got.size());
        t.read(want.data());
        for (std::size_t c = 0; c < got.size(); ++c)
            if (got[c] != want[c])
                GPUFFT_FAIL(type << " channel " << c << ": " << got[c] << " vs "
                                 << want[c]);
        GPUFFT_CHECK_THROWS(s.accumulate_samples(nullptr), std::invalid_argument, "null");
    }
}

GPUFFT_TEST(cpu_pipeline_keeps_complex_frames)
{
    stream::spectrometer_settings in;
    in.fft_size = 4096;
    in.output_bins = 512;
    in.backend = "cpu";
    in.input_type = "sc8";
    stream::spectrometer_setup s = stream::checked_spectrometer_setup(in);
    auto integrator = stream::make_spectrometer_integrator(s, {});
    GPUFFT_CHECK_EQ(integrator->input_type(), std::string("sc8"));
    GPUFFT_CHECK(!integrator->converts_on_device());
    stream::spectrometer_pipeline p(s.config, integrator);
    GPUFFT_CHECK(!p.raw_frames());
    GPUFFT_CHECK_EQ(stream::describe_spectrometer(s.config, *integrator),
                    std::string("fft_size 4096 (2^12) on the cpu backend, window and "
                                "band reduction on the host, sc8 input converted on "
                                "the host"));
}

GPUFFT_TEST_MAIN()
