/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Integer I/Q (sc16, sc8, cu8) on the fused GPU path: the raw frame is copied to the
// device and converted there by the window kernel (issue #33). Its integration must
// equal the same frames converted on the host first (VOLK) and fed as complex float to
// the same GPU path (the conversion is exact, so within the order of the device's
// double atomics), and the CPU backend and a double reference within single-precision
// FFT rounding: at powers of two and not, a frame of two upload chunks, with and
// without a window, mean and max-hold; and in the accumulator's pipeline, with overlap,
// raw page-locked frames against complex ones. Skips without a GPU.

#include "gpu_skip.h"
#include "large/spectrum_integrator_checks.h"
#include "stream/sample_format.h"
#include "stream/spectrometer_pipeline.h"
#include <gnuradio/gpufft/spectrum_integrator.h>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>

using namespace gr::gpufft;
using namespace gpufft_test;
using gr::gpufft::stream::sample_format;

namespace {

const sample_format integer_types[] = { sample_format::sc16,
                                        sample_format::sc8,
                                        sample_format::cu8 };

//! `samples` random integer samples of `f` over its whole range, as raw bytes.
std::vector<unsigned char>
random_raw(sample_format f, std::int64_t samples, std::uint64_t seed)
{
    std::vector<unsigned char> raw(std::size_t(samples) *
                                   gr::gpufft::stream::sample_bytes(f));
    std::mt19937_64 rng(seed);
    if (f == sample_format::sc16) {
        std::uniform_int_distribution<int> v(-32768, 32767);
        for (std::size_t i = 0; i < raw.size(); i += 2) {
            const auto x = std::int16_t(v(rng));
            std::memcpy(&raw[i], &x, 2);
        }
    } else {
        std::uniform_int_distribution<int> v(0, 255);
        for (auto& b : raw)
            b = static_cast<unsigned char>(v(rng));
    }
    return raw;
}

//! The raw samples as complex float, converted on the host (VOLK).
std::vector<std::complex<float>> on_host(sample_format f,
                                         const std::vector<unsigned char>& raw)
{
    const std::int64_t n = std::int64_t(raw.size() / gr::gpufft::stream::sample_bytes(f));
    std::vector<std::complex<float>> x(static_cast<std::size_t>(n));
    gr::gpufft::stream::convert_samples(f, raw.data(), x.data(), n);
    return x;
}

spectrum_integrator
make(const band_spec& b, integration_mode mode, backend be, sample_format input)
{
    spectrum_integrator_options o;
    o.backend = be;
    o.window = b.window;
    o.mode = mode;
    o.input_type = gr::gpufft::stream::to_string(input);
    return spectrum_integrator(b.n, b.start, b.stop, b.bins, o);
}

//! Raw frames through accumulate_samples() (from page-locked memory).
std::vector<float>
integrate_raw(spectrum_integrator& s, const std::vector<unsigned char>& raw, int frames)
{
    const std::size_t bytes = raw.size() / std::size_t(frames);
    gr::gpufft::stream::host_frame pinned(
        std::int64_t(bytes / 8 + 1), true, s.device_id());
    for (int f = 0; f < frames; ++f) {
        std::memcpy(pinned.data(), raw.data() + std::size_t(f) * bytes, bytes);
        GPUFFT_CHECK(s.accumulate_samples(pinned.data()));
        GPUFFT_CHECK_EQ(s.frames(), std::int64_t(f + 1));
    }
    std::vector<float> out(std::size_t(s.output_bins()),
                           std::numeric_limits<float>::quiet_NaN());
    GPUFFT_CHECK_EQ(s.read(out.data()), std::int64_t(frames));
    return out;
}

void compare(sample_format t, const band_spec& b, integration_mode mode, int frames)
{
    const std::uint64_t seed = fresh_seed();
    const std::string name = gr::gpufft::stream::to_string(t);
    std::printf("%s, n %lld, %s window, %s: seed %llu\n",
                name.c_str(),
                (long long)b.n,
                b.window.c_str(),
                to_string(mode).c_str(),
                (unsigned long long)seed);
    const auto raw = random_raw(t, b.n * frames, seed);
    const auto x = on_host(t, raw);

    auto gpu = make(b, mode, backend::cuda, t);
    std::printf("  %s", gpu.describe().c_str());
    GPUFFT_CHECK(gpu.on_device());
    GPUFFT_CHECK(gpu.converts_on_device());
    GPUFFT_CHECK_EQ(gpu.input_type(), name);
    const auto got = integrate_raw(gpu, raw, frames);

    // The same GPU path fed the host's conversion: the conversion is exact, so only the
    // order of the band power's double atomics may differ.
    auto gpu_fc32 = make(b, mode, backend::cuda, sample_format::fc32);
    GPUFFT_CHECK(!gpu_fc32.converts_on_device());
    std::vector<std::complex<float>> scratch(std::size_t(b.n));
    const auto same = integrate(gpu_fc32, x, frames, scratch.data());
    const double e_same =
        check_channels(got, std::vector<double>(same.begin(), same.end()), 1e-6);

    // The CPU backend (host conversion inside accumulate_samples) and the reference.
    auto cpu = make(b, mode, backend::cpu, t);
    GPUFFT_CHECK(!cpu.converts_on_device());
    const auto host = integrate_raw(cpu, raw, frames);
    const double e_cpu =
        check_channels(got, std::vector<double>(host.begin(), host.end()), 1e-4);
    const double e_ref = check_channels(got, integrated_power(x, frames, b, mode), 1e-4);
    std::printf("  max error / peak: %.2e vs host conversion on the GPU, %.2e vs CPU "
                "backend, %.2e vs double reference\n",
                e_same,
                e_cpu,
                e_ref);
}

} // namespace

GPUFFT_TEST(integer_frames_match_host_conversion_power_of_two)
{
    require_gpu();
    const std::int64_t n = std::int64_t(1) << 16;
    for (sample_format t : integer_types) {
        compare(t, { n, 0, n, n / 16, "hann" }, integration_mode::mean, 4);
        compare(t, { n, n / 4, n - n / 4, n / 2, "none" }, integration_mode::max_hold, 3);
    }
}

GPUFFT_TEST(integer_frames_match_host_conversion_not_a_power_of_two)
{
    require_gpu();
    const std::int64_t n = 100000; // 2^5 5^5
    for (sample_format t : integer_types) {
        compare(t, { n, 0, n, 1000, "blackman-harris" }, integration_mode::mean, 3);
        compare(t, { n, 10, n - 10, 4999, "flattop" }, integration_mode::max_hold, 3);
    }
}

GPUFFT_TEST(integer_frame_of_two_upload_chunks)
{
    require_gpu();
    // 5 * 2^20 + 3 * 2^10: past the 2^22-sample upload chunk (the second chunk's raw
    // and complex offsets differ), and not a power of two.
    const std::int64_t n = 5 * (std::int64_t(1) << 20) + 3 * (std::int64_t(1) << 10);
    for (sample_format t : integer_types)
        compare(t, { n, 0, n, 1024, "hann" }, integration_mode::mean, 2);
}

namespace {

using namespace gr::gpufft::stream;

//! Pushes the raw stream in pieces of 8192 samples, pops every spectrum.
std::vector<integrated_spectrum>
run(spectrometer_pipeline& p, const std::vector<unsigned char>& raw, std::size_t sample)
{
    std::vector<integrated_spectrum> out;
    std::int64_t pos = 0;
    const std::int64_t total = std::int64_t(raw.size() / sample);
    integrated_spectrum s;
    while (pos < total || p.pending()) {
        const std::int64_t got = p.push(raw.data() + std::size_t(pos) * sample,
                                        std::min<std::int64_t>(8192, total - pos));
        pos += got;
        if (got == 0)
            p.wait(std::chrono::milliseconds(1));
        while (p.pop(s))
            out.push_back(std::move(s));
    }
    return out;
}

std::shared_ptr<spectrum_integrator>
pipeline_integrator(const pipeline_config& c, backend be, sample_format input)
{
    spectrum_integrator_options o;
    o.backend = be;
    o.window = to_string(c.window);
    o.mode = c.mode;
    o.input_type = to_string(input);
    return std::make_shared<spectrum_integrator>(
        c.fft_size, c.band_start, c.band_stop, c.output_bins, o);
}

} // namespace

GPUFFT_TEST(pipeline_raw_frames_match_host_converted_frames)
{
    require_gpu();
    for (sample_format t : integer_types) {
        const std::uint64_t seed = fresh_seed();
        std::printf(
            "%s pipeline: seed %llu\n", to_string(t).c_str(), (unsigned long long)seed);
        pipeline_config c;
        c.fft_size = 3 * (std::int64_t(1) << 14) + 5 * 7; // not a power of two
        c.overlap = c.fft_size / 3;
        c.window = window_type::hann;
        c.n_integrations = 3;
        c.band_start = 0;
        c.band_stop = c.fft_size;
        c.output_bins = c.fft_size;
        c.input = t;
        c.pinned = true;
        const std::int64_t hop = c.fft_size - c.overlap;
        const std::size_t sample = sample_bytes(t);
        const auto raw = random_raw(t, 2 * 3 * hop + c.overlap, seed);

        // Raw frames, converted on the GPU.
        spectrometer_pipeline gpu(c, pipeline_integrator(c, backend::cuda, t));
        GPUFFT_CHECK(gpu.raw_frames());
        GPUFFT_CHECK(gpu.pinned());
        const auto got = run(gpu, raw, sample);
        // Complex frames converted on the host, on the same GPU path.
        spectrometer_pipeline host(
            c, pipeline_integrator(c, backend::cuda, sample_format::fc32));
        GPUFFT_CHECK(!host.raw_frames());
        const auto ref = run(host, raw, sample);
        // And on the CPU backend.
        pipeline_config cc = c;
        cc.pinned = false;
        spectrometer_pipeline cpu(cc, pipeline_integrator(cc, backend::cpu, t));
        GPUFFT_CHECK(!cpu.raw_frames());
        const auto on_cpu = run(cpu, raw, sample);

        GPUFFT_CHECK_EQ(got.size(), std::size_t(2));
        GPUFFT_CHECK_EQ(ref.size(), got.size());
        GPUFFT_CHECK_EQ(on_cpu.size(), got.size());
        for (std::size_t i = 0; i < got.size(); ++i) {
            GPUFFT_CHECK_EQ(got[i].first_sample, ref[i].first_sample);
            GPUFFT_CHECK_EQ(got[i].frames, 3);
            const auto& r = ref[i].power;
            const auto& h = on_cpu[i].power;
            check_channels(got[i].power, std::vector<double>(r.begin(), r.end()), 1e-6);
            check_channels(got[i].power, std::vector<double>(h.begin(), h.end()), 1e-4);
        }
    }
}

GPUFFT_TEST_MAIN()
