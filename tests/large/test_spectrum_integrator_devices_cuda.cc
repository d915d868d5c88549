/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// spectrum_integrator with `devices` when a frame fits each device: whole frames dealt
// round robin to the devices, each with its own accumulator, merged at read(). The
// result must be one GPU's: max-hold bit for bit (a max does not depend on the
// order; every channel here is summed in one piece, so no double atomics reorder a
// frame's sums), the mean within the rounding of the merge (the per-device sums are
// added in another order: at most 2 units in the last place of a float). Mean and
// max-hold, several integrations in a row, an odd number of frames (the devices get
// unequal shares), a NaN frame, sizes a power of two and not (and one of two copy
// chunks), complex float and sc16 frames (converted on the device), a frame too large for
// the budget (the large plan's passes instead); each frame over its own device's PCIe
// link and over two at once (its second half relayed through the next device by peer
// copies).
//
// One GPU stands in for two (the internal repeat_devices hook): the `stand_in_*`
// tests, label gpu. With two GPUs or more the `two_gpus_*` tests run on [0, 1] (CTest
// test_spectrum_integrator_multigpu_cuda, label gpu-multi; exit 77 with fewer).

#include "gpu_skip.h"
#include "large/power/integrator_backend.h"
#include "large/spectrum_integrator_checks.h"
#include "stream/sample_format.h"
#include "stream/spectrometer_pipeline.h"
#include <gnuradio/gpufft/device.h>
#include <gnuradio/gpufft/spectrum_integrator.h>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>

using namespace gr::gpufft;
using namespace gpufft_test;
using i64 = std::int64_t;
using gr::gpufft::stream::sample_format;

namespace {

// Whole frames cross their own device's link only (relay false) or, where the
// devices have peer access, two links at once, half through the next device (true).
bool g_relay = true;

spectrum_integrator make(const band_spec& b,
                         std::vector<int> devices,
                         integration_mode mode,
                         const std::string& input = "fc32",
                         std::size_t budget = 0)
{
    spectrum_integrator_options o;
    o.backend = backend::cuda;
    o.window = b.window;
    o.mode = mode;
    o.devices = std::move(devices);
    o.input_type = input;
    o.memory_budget = budget;
    o.threads = 2;
    return spectrum_integrator(
        detail::make_integrator_backend(b.n, b.start, b.stop, b.bins, o, true, g_relay),
        mode);
}

std::string list_text(const std::vector<int>& d)
{
    std::string s;
    for (int v : d)
        s += (s.empty() ? "" : ",") + std::to_string(v);
    return s;
}

// Max-hold: bit for bit. Mean: within 2 units in the last place of a float.
void check_same(const std::vector<float>& got,
                const std::vector<float>& want,
                integration_mode mode,
                const std::string& what)
{
    GPUFFT_CHECK_EQ(got.size(), want.size());
    double worst = 0;
    for (std::size_t c = 0; c < want.size(); ++c) {
        if (!std::isfinite(got[c]))
            GPUFFT_FAIL(what << ": channel " << c << " not finite: " << got[c]);
        if (mode == integration_mode::max_hold) {
            if (std::memcmp(&got[c], &want[c], sizeof(float)) != 0)
                GPUFFT_FAIL(what << ": max-hold channel " << c << ": " << got[c]
                                 << " vs one GPU " << want[c]);
            continue;
        }
        if (want[c] == 0.f) {
            if (got[c] != 0.f)
                GPUFFT_FAIL(what << ": mean channel " << c << ": " << got[c]
                                 << " vs one GPU 0");
            continue;
        }
        const double ulp = std::ldexp(1.0, std::ilogb(std::abs(want[c])) - 23);
        const double err = std::abs(double(got[c]) - double(want[c])) / ulp;
        worst = std::max(worst, err);
        if (err > 2)
            GPUFFT_FAIL(what << ": mean channel " << c << ": " << got[c] << " vs one GPU "
                             << want[c] << " (" << err << " ulp)");
    }
    std::printf("  %s: %s, worst %.1f ulp\n",
                what.c_str(),
                mode == integration_mode::mean ? "mean" : "max-hold",
                worst);
}

//! Integrations of `per` frames each (modes in turn) through `s`; the spectra read.
std::vector<std::vector<float>> run_fc32(spectrum_integrator& s,
                                         const std::vector<std::complex<float>>& x,
                                         int frames,
                                         int per,
                                         const std::vector<integration_mode>& modes)
{
    const i64 n = s.fft_size();
    std::vector<std::complex<float>> scratch(static_cast<std::size_t>(n));
    std::vector<std::vector<float>> out;
    int f = 0;
    for (integration_mode m : modes) {
        s.reset(m);
        int taken = 0;
        for (int k = 0; k < per && f < frames; ++k, ++f) {
            const auto* frame = x.data() + std::size_t(f) * std::size_t(n);
            std::copy(frame, frame + n, scratch.data());
            const bool finite = all_finite(frame, std::size_t(n));
            GPUFFT_CHECK_EQ(s.accumulate(scratch.data()), finite);
            // the caller may reuse its frame at once: poison it
            std::fill(scratch.begin(),
                      scratch.end(),
                      std::complex<float>(std::numeric_limits<float>::quiet_NaN(), 0));
            taken += finite ? 1 : 0;
            GPUFFT_CHECK_EQ(s.frames(), i64(taken));
        }
        std::vector<float> spec(std::size_t(s.output_bins()),
                                std::numeric_limits<float>::quiet_NaN());
        GPUFFT_CHECK_EQ(s.read(spec.data()), i64(taken));
        out.push_back(std::move(spec));
    }
    return out;
}

// One size: `devices` against [device 0] alone, fc32, mean then max-hold then mean,
// with a NaN frame in the first integration; against the double reference too when
// `reference`.
void compare_fc32(const band_spec& b,
                  const std::vector<int>& devices,
                  bool reference,
                  std::uint64_t seed)
{
    const int per = 5, frames = 3 * per;
    auto x = tone_frames(b.n, frames, double(b.n) / 7.3, 0.5, seed);
    x[std::size_t(2) * std::size_t(b.n) + 17] =
        std::complex<float>(std::numeric_limits<float>::quiet_NaN(), 0); // frame 2
    // and one in the second half of frame 7, the half the relay carries
    x[std::size_t(8) * std::size_t(b.n) - 5] =
        std::complex<float>(0, std::numeric_limits<float>::infinity());
    const std::vector<integration_mode> modes{ integration_mode::mean,
                                               integration_mode::max_hold,
                                               integration_mode::mean };
    auto one = make(b, { 0 }, integration_mode::mean);
    auto many = make(b, devices, integration_mode::mean);
    GPUFFT_CHECK(one.on_device() && many.on_device());
    const std::string text = many.describe();
    std::printf("%s", text.c_str());
    if (text.find("whole frames dealt to devices " + list_text(devices)) ==
        std::string::npos)
        GPUFFT_FAIL("describe() does not say whole frames: " << text);
    // One GPU standing in for several always relays when asked to (no peer access
    // needed); distinct GPUs where they have peer access.
    const bool two_links = text.find("crosses two PCIe links") != std::string::npos;
    if (!g_relay && two_links)
        GPUFFT_FAIL("relay switched off, yet: " << text);
    if (g_relay && !two_links && text.find("relay") == std::string::npos)
        GPUFFT_FAIL("describe() does not say why frames are not relayed: " << text);
    if (g_relay && devices[0] == devices[1] && !two_links)
        GPUFFT_FAIL("one GPU standing in for several should relay: " << text);
    const auto want = run_fc32(one, x, frames, per, modes);
    const auto got = run_fc32(many, x, frames, per, modes);
    for (std::size_t i = 0; i < modes.size(); ++i) {
        check_same(got[i],
                   want[i],
                   modes[i],
                   "n " + std::to_string(b.n) + " integration " + std::to_string(i));
        if (reference) {
            std::vector<std::complex<float>> part(
                x.begin() + std::ptrdiff_t(i * per) * b.n,
                x.begin() + std::ptrdiff_t((i + 1) * per) * b.n);
            check_channels(got[i], integrated_power(part, per, b, modes[i]), 1e-4);
        }
    }
}

//! sc16 frames converted on the device: `devices` against device 0 alone.
void compare_sc16(const band_spec& b, const std::vector<int>& devices, std::uint64_t seed)
{
    const int frames = 5;
    std::vector<std::int16_t> raw(std::size_t(2 * b.n * frames));
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int> v(-32768, 32767);
    for (auto& r : raw)
        r = std::int16_t(v(rng));
    for (integration_mode m : { integration_mode::mean, integration_mode::max_hold }) {
        auto one = make(b, { 0 }, m, "sc16");
        auto many = make(b, devices, m, "sc16");
        GPUFFT_CHECK(one.converts_on_device() && many.converts_on_device());
        std::vector<std::vector<float>> spec(2, std::vector<float>(std::size_t(b.bins)));
        spectrum_integrator* both[2] = { &one, &many };
        for (int k = 0; k < 2; ++k) {
            for (int f = 0; f < frames; ++f)
                GPUFFT_CHECK(both[k]->accumulate_samples(
                    raw.data() + std::size_t(2 * b.n) * std::size_t(f)));
            GPUFFT_CHECK_EQ(both[k]->read(spec[std::size_t(k)].data()), i64(frames));
        }
        check_same(spec[1], spec[0], m, "sc16 n " + std::to_string(b.n));
    }
}

// A frame too large for the budget: the large plan's passes, said so.
void too_large_for_budget(const std::vector<int>& devices)
{
    const band_spec b{ i64(1) << 16, 0, 0, 256, "hann" };
    const std::size_t budget = std::size_t(1) << 20; // 1 MiB: the frame is 512 KiB
    auto s = make(b, devices, integration_mode::mean, "fc32", budget);
    GPUFFT_CHECK(!s.on_device());
    const std::string text = s.describe();
    if (text.find("passes of each frame dealt to devices by the large plan") ==
        std::string::npos)
        GPUFFT_FAIL("describe() does not say why: " << text);
}

void compare_pipeline(const std::vector<int>& devices, std::uint64_t seed);

void all_cases(const std::vector<int>& devices, bool relay)
{
    g_relay = relay;
    const auto seed = fresh_seed();
    std::printf("seed %llu, devices %s, relay %s\n",
                (unsigned long long)seed,
                list_text(devices).c_str(),
                relay ? "on" : "off");
    compare_fc32({ i64(1) << 16, 0, 0, 512, "hann" }, devices, true, seed);
    compare_fc32({ 3 * 5 * 7 * 128, 1000, 3 * 5 * 7 * 128 - 1000, 104, "blackman" },
                 devices,
                 true,
                 seed + 1);
    // two copy chunks, not a power of two (no reference: its double FFTs take long)
    compare_fc32(
        { 3 * (i64(1) << 21), 0, 0, 3 * 1024, "none" }, devices, false, seed + 2);
    compare_sc16({ i64(1) << 16, 0, 0, 512, "hann" }, devices, seed + 3);
    compare_sc16({ 3 * 5 * 7 * 128, 0, 0, 105, "none" }, devices, seed + 4);
    compare_pipeline(devices, seed + 5);
    too_large_for_budget(devices);
}

//! The stream in pieces of 8192 samples through the pipeline; every spectrum popped.
std::vector<stream::integrated_spectrum>
run_pipeline(stream::spectrometer_pipeline& p,
             const std::vector<unsigned char>& raw,
             std::size_t sample)
{
    std::vector<stream::integrated_spectrum> out;
    i64 pos = 0;
    const i64 total = i64(raw.size() / sample);
    stream::integrated_spectrum s;
    while (pos < total || p.pending()) {
        const i64 got = p.push(raw.data() + std::size_t(pos) * sample,
                               std::min<i64>(8192, total - pos));
        pos += got;
        if (got == 0)
            p.wait(std::chrono::milliseconds(1));
        while (p.pop(s))
            out.push_back(std::move(s));
    }
    return out;
}

// The accumulator's engine room on `devices` against one GPU: pinned frames, refilled
// as soon as accumulate() returns (while the frame is still being transformed), with
// overlap; fc32 and sc16 (raw frames converted on the device); mean and max-hold.
void compare_pipeline(const std::vector<int>& devices, std::uint64_t seed)
{
    for (sample_format t : { sample_format::fc32, sample_format::sc16 })
        for (integration_mode m :
             { integration_mode::mean, integration_mode::max_hold }) {
            stream::pipeline_config c;
            c.fft_size = 3 * (i64(1) << 14);
            c.overlap = c.fft_size / 3;
            c.window = power::window_type::hann;
            c.n_integrations = 3;
            c.mode = m;
            c.band_stop = c.fft_size;
            c.output_bins = 384;
            c.input = t;
            c.pinned = true;
            const band_spec b{ c.fft_size, 0, c.fft_size, c.output_bins, "hann" };
            const i64 hop = c.fft_size - c.overlap;
            const std::size_t sample = stream::sample_bytes(t);
            // 3 integrations of 3 frames: random bytes (sc16 over its whole range; fc32
            // as random floats, never NaN)
            std::vector<unsigned char> raw(std::size_t(3 * 3 * hop + c.overlap) * sample);
            std::mt19937_64 rng(seed);
            if (t == sample_format::sc16) {
                for (auto& v : raw)
                    v = static_cast<unsigned char>(rng());
            } else {
                std::uniform_real_distribution<float> u(-1.f, 1.f);
                for (std::size_t i = 0; i < raw.size(); i += sizeof(float)) {
                    const float f = u(rng);
                    std::memcpy(&raw[i], &f, sizeof f);
                }
            }
            const std::string type = stream::to_string(t);
            auto one = std::make_shared<spectrum_integrator>(make(b, { 0 }, m, type));
            auto many = std::make_shared<spectrum_integrator>(make(b, devices, m, type));
            stream::spectrometer_pipeline p1(c, one), p2(c, many);
            GPUFFT_CHECK(p2.pinned());
            GPUFFT_CHECK_EQ(p2.raw_frames(), t != sample_format::fc32);
            const auto want = run_pipeline(p1, raw, sample);
            const auto got = run_pipeline(p2, raw, sample);
            GPUFFT_CHECK_EQ(want.size(), std::size_t(3));
            GPUFFT_CHECK_EQ(got.size(), want.size());
            for (std::size_t i = 0; i < got.size(); ++i) {
                GPUFFT_CHECK_EQ(got[i].first_sample, want[i].first_sample);
                GPUFFT_CHECK_EQ(got[i].frames, i64(3));
                check_same(got[i].power,
                           want[i].power,
                           m,
                           "pipeline " + type + " integration " + std::to_string(i));
            }
        }
}

void require_two_gpus()
{
    require_gpu();
    if (cuda_device_count() < 2)
        GPUFFT_SKIP("one CUDA device: the two-GPU cases need two");
}

} // namespace

GPUFFT_TEST(stand_in_whole_frames_match_one_gpu)
{
    require_gpu();
    for (bool relay : { true, false }) {
        all_cases({ 0, 0 }, relay);
        all_cases({ 0, 0, 0 }, relay);
    }
}

GPUFFT_TEST(stand_in_repeats_only_through_the_hook)
{
    require_gpu();
    spectrum_integrator_options o;
    o.backend = backend::cuda;
    o.devices = { 0, 0 };
    GPUFFT_CHECK_THROWS(
        spectrum_integrator(1024, 0, 0, 64, o), std::invalid_argument, "more than once");
}

GPUFFT_TEST(two_gpus_whole_frames_match_one_gpu)
{
    require_two_gpus();
    for (bool relay : { true, false }) {
        all_cases({ 0, 1 }, relay);
        all_cases({ 1, 0 }, relay);
    }
    g_relay = true;
    // the public API takes [0, 1] and says which schedule it chose
    spectrum_integrator_options o;
    o.backend = backend::cuda;
    o.devices = { 0, 1 };
    spectrum_integrator s(i64(1) << 20, 0, 0, 1024, o);
    GPUFFT_CHECK(s.on_device());
    GPUFFT_CHECK(s.describe().find("whole frames dealt to devices 0,1") !=
                 std::string::npos);
}

GPUFFT_TEST_MAIN()
