/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The sparse_fft block's analysis of frames it converted itself (issue #33 item 3):
// input_type checked and counted in the memory, and a frame handed over as device
// memory to an engine on the CPU (backend "auto" moved it there) analysed from its host
// copy, giving the signals a host frame gives. CPU only: the device frame is never read.

#include "reference.h"
#include "stream/sparse_frame_analyzer.h"
#include "test_harness.h"
#include <cmath>
#include <cstdio>
#include <random>

using namespace gr::gpufft;
using namespace gr::gpufft::stream;
using namespace gpufft_test;
using cf = std::complex<float>;

namespace {

sparse_frame_settings settings(int n, const std::string& input_type = "fc32")
{
    sparse_frame_settings s;
    s.fft_size = n;
    s.k = 8;
    s.samp_rate = 1e6;
    s.display_bins = 64;
    s.backend = "cpu";
    s.min_snr_db = 5;
    s.input_type = input_type;
    return s;
}

// Three tones between bins, 20-30 dB over one bin's noise, in complex noise.
std::vector<cf> tones_in_noise(int n, std::mt19937_64& rng)
{
    std::normal_distribution<double> g(0.0, std::sqrt(0.5));
    std::uniform_real_distribution<double> f(-0.45, 0.45), snr(20, 30), ph(0, 6.283);
    std::vector<std::complex<double>> x(static_cast<std::size_t>(n));
    for (auto& v : x)
        v = { g(rng), g(rng) };
    for (int j = 0; j < 3; ++j) {
        const double fj = f(rng), a = std::sqrt(std::pow(10.0, snr(rng) / 10) / n),
                     p = ph(rng);
        for (int t = 0; t < n; ++t)
            x[std::size_t(t)] += std::polar(a, 2 * std::acos(-1.0) * fj * t + p);
    }
    return std::vector<cf>(x.begin(), x.end());
}

} // namespace

GPUFFT_TEST(input_type_is_checked_and_counted)
{
    GPUFFT_CHECK_THROWS(sparse_frame_analyzer(settings(4096, "cs16"), {}),
                        std::invalid_argument,
                        "input_type");
    // The raw frame (4 or 2 bytes a sample) and the converted one (8) against fc32's 8.
    std::string what;
    const auto fc32 = sparse_block_memory(settings(4096));
    const auto sc16 = sparse_block_memory(settings(4096, "sc16"), backend::cpu, &what);
    const auto cu8 = sparse_block_memory(settings(4096, "cu8"));
    GPUFFT_CHECK_EQ(sc16 - fc32, std::uint64_t(4 * 4096));
    GPUFFT_CHECK_EQ(cu8 - fc32, std::uint64_t(2 * 4096));
    GPUFFT_CHECK(what.find("12 bytes a sample") != std::string::npos);
}

GPUFFT_TEST(device_frame_for_a_cpu_engine_is_read_on_the_host)
{
    const std::uint64_t seed = fresh_seed();
    std::printf("  seed %llu\n", static_cast<unsigned long long>(seed));
    std::mt19937_64 rng(seed);
    const int n = 4096;
    for (int frame = 0; frame < 3; ++frame) {
        const auto x = tones_in_noise(n, rng);
        sparse_frame_analyzer host(settings(n, "sc16"), {});
        sparse_frame_analyzer device(settings(n, "sc16"), {});
        GPUFFT_CHECK(host.analyze(x.data(), 0, 1e8, 1e6));
        int asked = 0;
        // Never dereferenced: the CPU engine must take on_host()'s frame instead.
        const auto* not_host = reinterpret_cast<const cf*>(std::uintptr_t(16));
        GPUFFT_CHECK(device.analyze(not_host, 0, 1e8, 1e6, -1, memory::device, [&] {
            ++asked;
            return x.data();
        }));
        GPUFFT_CHECK_EQ(asked, 1);
        const auto& a = host.result().signals;
        const auto& b = device.result().signals;
        GPUFFT_CHECK(a.size() >= 2); // the tones are there
        GPUFFT_CHECK_EQ(a.size(), b.size());
        for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
            GPUFFT_CHECK_EQ(a[i].center_bin, b[i].center_bin);
            GPUFFT_CHECK_EQ(a[i].peak_power_dbfs, b[i].peak_power_dbfs);
            GPUFFT_CHECK_EQ(a[i].snr_db, b[i].snr_db);
        }
    }
}

GPUFFT_TEST_MAIN()
