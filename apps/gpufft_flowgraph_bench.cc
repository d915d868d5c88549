/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// gpufft-flowgraph-bench: the sample rate a GNU Radio flowgraph sustains through the
// sparse_fft block (or, with --block accumulator, large_fft_accumulator), against GNU
// Radio's own null flowgraph on the same host, in the same run:
//   null:   null_source -> head -> null_sink              (the reference)
//   source: frame_source -> head -> null_sink               (the test signal alone)
//   sparse: frame_source -> head -> sparse_fft -> null_sink (display vectors)
//   accumulator: frame_source -> head -> large_fft_accumulator(n, --integrations,
//           min(n, 2^18) channels, Blackman-Harris, mean) -> first_vector_sink
//   stock (fc32 input): frame_source -> head -> stream_to_vector(n) -> fft_vcc
//           (Blackman-Harris, shifted, 1 thread) -> complex_to_mag_squared(n)
//           [-> integrate_ff(--integrations, n) for the accumulator] -> null_sink:
//           GNU Radio's own blocks doing the same job, as scripts/flowgraph_bench.py
//           runs them on the CPU; its `block_ratio` is the block's rate over this one.
//   frames (fc32 input): frame_source -> head -> stream_to_vector(n) -> null_sink:
//           GNU Radio's buffers alone moving whole n-sample frames, with no work on
//           them: what any block that takes such frames can reach at most.
// frame_source repeats one frame with bulk copies: GNU Radio's vector_source copies item
// by item and tops out near 73% of the null rate on the GPU machine's host, which would
// cap the sparse case below the target whatever the block does.
// The test signal is one frame of an exactly k-sparse spectrum (random bins and complex
// amplitudes, never zeros) repeated; robust mode adds white noise 60 dB under the tones.
// The first frame's answer is checked against the planted bins: exact mode's
// coefficients, robust mode's detected signals (each planted bin inside one).
// The accumulator's first spectrum is checked the same way: every planted bin's channel
// stands 20 dB above the median channel.
// --input-type quantises the frame as a radio delivers it (sc16, sc8, cu8), so the
// null and source cases move the same bytes a sample as the block takes; the block
// then also runs on the fc32 frame in each repetition (case sparse_fc32 or
// accumulator_fc32), and the typed case's `type_ratio` is the median over the
// repetitions of its rate over that fc32 run's (above 1: the integer input is faster).
// --devices 0,1 (accumulator): the block also runs with that `devices` list in each
// repetition (case accumulator_devices; whole frames dealt to the GPUs when a frame
// fits each), against --device alone; its `devices_ratio` is the median over the
// repetitions of the one-device time over the list's (above 1: the list is faster).
// The accumulator's source repeats a period of min(n, 2^20) samples (the planted
// bins land on multiples of n / period), so a 2^30-point frame needs no 2^30-point
// inverse FFT and 8 GiB of test signal, only its 8 MiB period.
// The same run then times the engine alone (cases engine and engine_devices, CUDA
// builds, --devices given): spectrum_integrator on frames already in page-locked host
// memory, accumulate() back to back, on --device and on the list: what the block
// could do if the stream kept up. Where the flowgraph's own rate (case source) is
// below one GPU's engine rate, the stream, not the GPUs, bounds the block.
// --buffer-frames F[,G...]: the source -> head -> block buffers hold F frames (0: GNU
// Radio's default, about 2 frames); each further value G runs the block once more per
// repetition with G-frame buffers (case sparse_buffers<G>), so the default and e.g. a
// 4-frame buffer are measured against the same null flowgraph in one run:
// --buffer-frames 0,4.
// One JSON line per case, then a table.
//
//   gpufft-flowgraph-bench [--block sparse|accumulator] [--n 1048576] [--k 64]
//                          [--samples 2^30] [--reps 3] [--display-bins 1024]
//                          [--integrations 4] [--backend auto] [--device 0]
//                          [--devices 0,1] [--buffer-frames F[,G...]]
//                          [--mode exact|robust]
//                          [--input-type fc32|sc16|sc8|cu8]

#include <gnuradio/blocks/complex_to_mag_squared.h>
#include <gnuradio/blocks/head.h>
#include <gnuradio/blocks/integrate.h>
#include <gnuradio/blocks/message_debug.h>
#include <gnuradio/blocks/null_sink.h>
#include <gnuradio/blocks/null_source.h>
#include <gnuradio/blocks/stream_to_vector.h>
#include <gnuradio/fft/fft_v.h>
#include <gnuradio/fft/window.h>
#include <gnuradio/gpufft/backend.h>
#include <gnuradio/gpufft/dense_fft_plan.h>
#include <gnuradio/gpufft/device.h>
#include <gnuradio/gpufft/large_fft_accumulator.h>
#include <gnuradio/gpufft/sparse_fft.h>
#include <gnuradio/gpufft/spectrum_integrator.h>
#include <gnuradio/io_signature.h>
#include <gnuradio/sync_block.h>
#include <gnuradio/top_block.h>
#include <malloc.h>
#include <pmt/pmt.h>
#include <unistd.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>
#ifdef GPUFFT_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace {

using gr_complex = std::complex<float>;

//! Repeats one frame of `item` -byte items forever, a whole output buffer per memcpy
//! run.
class frame_source : public gr::sync_block
{
public:
    frame_source(std::vector<char> frame, std::size_t item)
        : gr::sync_block("frame_source",
                         gr::io_signature::make(0, 0, 0),
                         gr::io_signature::make(1, 1, int(item))),
          d_frame(std::move(frame)),
          d_item(item),
          d_items(d_frame.size() / item)
    {
    }

    int work(int noutput_items,
             gr_vector_const_void_star&,
             gr_vector_void_star& output_items) override
    {
        auto* out = static_cast<char*>(output_items[0]);
        std::size_t done = 0;
        while (done < static_cast<std::size_t>(noutput_items)) {
            const std::size_t take =
                std::min(static_cast<std::size_t>(noutput_items) - done, d_items - d_pos);
            std::memcpy(
                out + done * d_item, d_frame.data() + d_pos * d_item, take * d_item);
            done += take;
            d_pos = (d_pos + take) % d_items;
        }
        return noutput_items;
    }

private:
    std::vector<char> d_frame;
    std::size_t d_item, d_items, d_pos = 0;
};

//! Keeps a copy of the first vector it is given and drops the rest: the accumulator's
//! first spectrum, checked after the run, without holding every one.
class first_vector_sink : public gr::sync_block
{
public:
    explicit first_vector_sink(std::size_t floats)
        : gr::sync_block("first_vector_sink",
                         gr::io_signature::make(1, 1, int(floats * sizeof(float))),
                         gr::io_signature::make(0, 0, 0)),
          d_floats(floats)
    {
    }

    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star&) override
    {
        if (d_first.empty() && noutput_items > 0) {
            const auto* in = static_cast<const float*>(input_items[0]);
            d_first.assign(in, in + d_floats);
        }
        return noutput_items;
    }

    const std::vector<float>& first() const { return d_first; }

private:
    std::size_t d_floats;
    std::vector<float> d_first;
};

struct options {
    //! The block under test: "sparse" (sparse_fft) or "accumulator"
    //! (large_fft_accumulator).
    std::string block = "sparse";
    //! The accumulator's n_integrations (frames per output spectrum).
    int integrations = 4;
    std::int64_t n = 1 << 20;
    int k = 64;
    std::uint64_t samples = 1ull << 30;
    int reps = 3;
    int display_bins = 1024;
    std::string backend = "auto";
    int device = 0;
    //! Frames the source -> head -> sparse_fft buffers hold (0: GNU Radio's choice,
    //! which sizes them to about two frames, so source and block barely overlap).
    int buffer_frames = 0;
    //! Further buffer sizes in frames, each a case of its own (--buffer-frames F,G).
    std::vector<int> more_buffer_frames;
    //! sparse_fft's mode: "exact" (the frames are exactly sparse) or "robust" (the
    //! sensing path; the frame then carries white noise 60 dB under its peak).
    std::string mode = "exact";
    //! sparse_fft's input_type: "fc32", "sc16", "sc8" or "cu8" (the frame quantised).
    std::string input_type = "fc32";
    //! The accumulator's `devices` for the extra case (empty: no such case).
    std::vector<int> devices;
    //! Samples of the repeated test signal: n (sparse_fft), min(n, 2^20) (accumulator).
    std::int64_t period = 1 << 20;
};

//! "0,1" as {0, 1}.
std::vector<int> parse_devices(const std::string& s)
{
    std::vector<int> d;
    std::size_t at = 0;
    while (at <= s.size()) {
        const std::size_t comma = std::min(s.find(',', at), s.size());
        d.push_back(std::stoi(s.substr(at, comma - at)));
        at = comma + 1;
    }
    return d;
}

std::string devices_text(const std::vector<int>& d)
{
    std::string s;
    for (int v : d)
        s += (s.empty() ? "" : ",") + std::to_string(v);
    return s;
}

//! Bytes of one input item of `type`.
std::size_t item_bytes(const std::string& type)
{
    if (type == "fc32")
        return sizeof(gr_complex);
    if (type == "sc16")
        return 2 * sizeof(std::int16_t);
    if (type == "sc8" || type == "cu8")
        return 2;
    throw std::invalid_argument("--input-type: \"" + type +
                                "\" is not fc32, sc16, sc8 or cu8");
}

//! The frame as `type` items: peak scaled to half of full scale, then quantised as a
//! radio would (recording_source's scaling read backwards).
std::vector<char> as_items(std::vector<gr_complex> x, const std::string& type)
{
    float peak = 0;
    for (auto v : x)
        peak = std::max({ peak, std::abs(v.real()), std::abs(v.imag()) });
    for (auto& v : x)
        v *= 0.5f / peak;
    std::vector<char> out(x.size() * item_bytes(type));
    for (std::size_t i = 0; i < x.size(); ++i) {
        const float re = x[i].real(), im = x[i].imag();
        if (type == "fc32") {
            std::memcpy(out.data() + i * sizeof(gr_complex), &x[i], sizeof(gr_complex));
        } else if (type == "sc16") {
            const std::int16_t v[2] = { std::int16_t(std::lround(re * 32768.f)),
                                        std::int16_t(std::lround(im * 32768.f)) };
            std::memcpy(out.data() + i * sizeof v, v, sizeof v);
        } else if (type == "sc8") {
            out[2 * i] = char(std::lround(re * 128.f));
            out[2 * i + 1] = char(std::lround(im * 128.f));
        } else { // cu8
            out[2 * i] = char(std::uint8_t(std::lround(re * 128.f + 127.5f)));
            out[2 * i + 1] = char(std::uint8_t(std::lround(im * 128.f + 127.5f)));
        }
    }
    return out;
}

//! With --buffer-frames F, the source and head outputs hold F frames, so the source can
//! run ahead while sparse_fft works on a frame.
void set_buffers(const options& o, const gr::block_sptr& src, const gr::block_sptr& head)
{
    if (o.buffer_frames <= 0)
        return;
    const long items = static_cast<long>(o.buffer_frames) * static_cast<long>(o.n);
    src->set_min_output_buffer(items);
    head->set_min_output_buffer(items);
}

std::uint64_t parse_count(const std::string& s)
{
    // "2^30" or a plain integer
    const auto caret = s.find('^');
    if (caret != std::string::npos)
        return static_cast<std::uint64_t>(std::llround(
            std::pow(std::stod(s.substr(0, caret)), std::stod(s.substr(caret + 1)))));
    return std::stoull(s);
}

options parse(int argc, char** argv)
{
    options o;
    for (int i = 1; i < argc; i++) {
        const std::string key = argv[i];
        if (key == "-h" || key == "--help") {
            std::cout
                << "usage: gpufft-flowgraph-bench [--block sparse|accumulator] "
                   "[--n N] [--k K] [--samples S] [--reps R] [--display-bins D] "
                   "[--integrations I] [--backend auto|cpu|cuda] [--device ID] "
                   "[--devices 0,1] [--buffer-frames F[,G...]] [--mode exact|robust] "
                   "[--input-type fc32|sc16|sc8|cu8]\n(N and S accept 2^p)\n";
            std::exit(0);
        }
        if (i + 1 >= argc)
            throw std::invalid_argument(key + ": needs a value");
        const std::string value = argv[++i];
        if (key == "--block")
            o.block = value;
        else if (key == "--integrations")
            o.integrations = std::stoi(value);
        else if (key == "--n")
            o.n = static_cast<std::int64_t>(parse_count(value));
        else if (key == "--k")
            o.k = std::stoi(value);
        else if (key == "--samples")
            o.samples = parse_count(value);
        else if (key == "--reps")
            o.reps = std::stoi(value);
        else if (key == "--display-bins")
            o.display_bins = std::stoi(value);
        else if (key == "--backend")
            o.backend = value;
        else if (key == "--buffer-frames") {
            // F[,G...]: F for the block case, each G a case of its own.
            std::vector<int> f = parse_devices(value);
            o.buffer_frames = f.front();
            o.more_buffer_frames.assign(f.begin() + 1, f.end());
        } else if (key == "--device")
            o.device = std::stoi(value);
        else if (key == "--devices")
            o.devices = parse_devices(value);
        else if (key == "--mode")
            o.mode = value;
        else if (key == "--input-type")
            o.input_type = value;
        else
            throw std::invalid_argument("unknown option " + key);
    }
    if (o.n < 16 || o.n > (1ll << 30))
        throw std::invalid_argument("--n: must be in [16, 2^30]");
    if (o.reps < 1)
        throw std::invalid_argument("--reps: must be >= 1");
    if (o.mode != "exact" && o.mode != "robust")
        throw std::invalid_argument("--mode: must be exact or robust");
    if (o.block != "sparse" && o.block != "accumulator")
        throw std::invalid_argument("--block: must be sparse or accumulator");
    if (o.integrations < 1)
        throw std::invalid_argument("--integrations: must be >= 1");
    for (int f : o.more_buffer_frames)
        if (f < 0 || o.buffer_frames < 0)
            throw std::invalid_argument("--buffer-frames: each must be >= 0");
    item_bytes(o.input_type); // checks the name
    if (!o.devices.empty() && o.block != "accumulator")
        throw std::invalid_argument("--devices: only with --block accumulator");
    o.period = o.block == "accumulator" ? std::min<std::int64_t>(o.n, 1 << 20) : o.n;
    if (o.n % o.period != 0)
        throw std::invalid_argument("--n: above 2^20, the accumulator's n must be a "
                                    "multiple of 2^20 (its test signal repeats 2^20 "
                                    "samples)");
    // Whole frames (the accumulator: whole integrations) only, so every run transforms
    // the same number of frames.
    const std::uint64_t unit =
        std::uint64_t(o.n) * std::uint64_t(o.block == "accumulator" ? o.integrations : 1);
    o.samples = std::max<std::uint64_t>(o.samples / unit, 1) * unit;
    return o;
}

// One period (o.period samples) with k random bins of random complex amplitude
// (magnitudes 0.1 .. 1), built by an inverse FFT so the spectrum is exactly what was
// planted; `bins` gets the planted bins of the n-point frame the period repeats in.
std::vector<gr_complex> sparse_frame(const options& o, std::set<std::int64_t>& bins)
{
    std::mt19937_64 rng(std::random_device{}());
    std::uniform_int_distribution<std::int64_t> pick(0, o.period - 1);
    std::uniform_real_distribution<float> mag(0.1f, 1.0f), phase(0.0f, 6.2831853f);
    std::vector<gr_complex> spec(o.period), x(o.period);
    while (bins.size() < static_cast<size_t>(o.k))
        bins.insert(pick(rng));
    for (auto b : bins)
        spec[b] = std::polar(mag(rng), phase(rng));
    gr::gpufft::dense_fft_options fo;
    fo.backend = gr::gpufft::backend::cpu;
    gr::gpufft::dense_fft_plan inverse(o.period, 1, gr::gpufft::direction::backward, fo);
    inverse.execute(spec.data(), x.data());
    if (o.mode == "robust") { // a floor for the sensing path, 60 dB under the tones
        float peak = 0;
        for (auto v : x)
            peak = std::max(peak, std::abs(v));
        std::normal_distribution<float> noise(0.f, 1e-3f * peak);
        for (auto& v : x)
            v += gr_complex(noise(rng), noise(rng));
    }
    // Repeated n / period times in a frame, bin b of the period is bin b n / period.
    std::set<std::int64_t> scaled;
    for (auto b : bins)
        scaled.insert(b * (o.n / o.period));
    bins = scaled;
    return x; // unnormalized inverse: X[b] = n * amplitude, far above float rounding
}

// Host RSS and the device's used memory in MiB (0 when no GPU): sampled after each run
// of the block from the second on (the first run of every case is the warm-up: plans,
// the stock FFT's, malloc's arenas), so a long run (--samples 2^36) doubles as a soak.
// The RSS is taken after malloc_trim(): memory freed but kept on malloc's free lists is
// not a leak (on the GPU machine's host the RSS after a 2^16 CUDA run stood 130 MiB
// over what it was once trimmed, and flat across 4 runs once trimmed).
double rss_mib()
{
#ifdef __GLIBC__
    malloc_trim(0);
#endif
    long pages = 0, resident = 0;
    if (FILE* f = std::fopen("/proc/self/statm", "r")) {
        if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2)
            resident = 0;
        std::fclose(f);
    }
    return double(resident) * double(sysconf(_SC_PAGESIZE)) / double(1 << 20);
}

double device_used_mib(int device)
{
    if (!gr::gpufft::cuda_available(device))
        return 0;
    const auto d = gr::gpufft::get_device_info(device);
    return double(d.total_memory - d.free_memory) / double(1 << 20);
}

double seconds_to_run(gr::top_block_sptr tb)
{
    const auto t0 = std::chrono::steady_clock::now();
    tb->run();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

struct result {
    std::string name;
    std::string input_type;
    std::vector<double> seconds;
};

//! What a run of the block under test reports.
struct block_run {
    std::string backend, description;
    std::uint64_t frames = 0, skipped = 0;
    int misses = -1; //!< planted bins not found in the first frame or spectrum
};

// Robust mode's check of frame 0: the planted bins that lie inside no detected signal
// (its edges in bins, signed about DC, give or take one bin).
int robust_misses(const pmt::pmt_t& pdu,
                  const std::set<std::int64_t>& planted,
                  std::int64_t n)
{
    const pmt::pmt_t meta = pmt::car(pdu);
    size_t len = 0, len2 = 0;
    const double* lo = pmt::f64vector_elements(
        pmt::dict_ref(meta, pmt::mp("lower_bin"), pmt::PMT_NIL), len);
    const double* hi = pmt::f64vector_elements(
        pmt::dict_ref(meta, pmt::mp("upper_bin"), pmt::PMT_NIL), len2);
    int misses = 0;
    for (auto p : planted) {
        const double b = double(p >= n / 2 ? p - n : p);
        bool found = false;
        for (size_t i = 0; i < std::min(len, len2) && !found; ++i)
            found = b >= lo[i] - 1 && b <= hi[i] + 1;
        misses += found ? 0 : 1;
    }
    return misses;
}

// The accumulator's check of its first spectrum (DC-centred channels of n / bins
// bins): the planted bins whose channel is not 20 dB above the median channel.
int accumulator_misses(const std::vector<float>& spectrum,
                       const std::set<std::int64_t>& planted,
                       std::int64_t n)
{
    if (spectrum.empty())
        return int(planted.size());
    std::vector<float> sorted = spectrum;
    std::nth_element(sorted.begin(), sorted.begin() + sorted.size() / 2, sorted.end());
    const double floor = sorted[sorted.size() / 2];
    const std::int64_t decim = n / std::int64_t(spectrum.size()), half = n / 2;
    int misses = 0;
    for (auto p : planted) {
        // FFT bin p is DC-centred bin p + n/2 (or p - (n - n/2) past the top).
        const std::int64_t j = p < n - half ? p + half : p - (n - half);
        misses += spectrum[std::size_t(j / decim)] > 100 * floor ? 0 : 1;
    }
    return misses;
}

//! frame_source -> head -> GNU Radio's stock chain for the block's job on `frame`
//! (fc32): stream_to_vector -> fft_vcc -> complex_to_mag_squared [-> integrate_ff]
//! -> null_sink, or with `frames_only` stream_to_vector -> null_sink; the seconds of
//! tb.run().
double run_stock(const options& o, const std::vector<char>& frame, bool frames_only)
{
    const std::size_t item = sizeof(gr_complex);
    const unsigned n = static_cast<unsigned>(o.n);
    auto tb = gr::make_top_block("stock");
    auto src = gnuradio::make_block_sptr<frame_source>(frame, item);
    auto head = gr::blocks::head::make(item, o.samples);
    set_buffers(o, src, head);
    auto s2v = gr::blocks::stream_to_vector::make(item, n);
    auto fft = gr::fft::fft_v<gr_complex, true>::make(
        int(n), gr::fft::window::blackman_harris(int(n)), true, 1);
    auto mag = gr::blocks::complex_to_mag_squared::make(n);
    auto sink = gr::blocks::null_sink::make(sizeof(float) * n);
    tb->connect(src, 0, head, 0);
    tb->connect(head, 0, s2v, 0);
    if (frames_only) {
        auto vectors = gr::blocks::null_sink::make(item * n);
        tb->connect(s2v, 0, vectors, 0);
        return seconds_to_run(tb);
    }
    tb->connect(s2v, 0, fft, 0);
    tb->connect(fft, 0, mag, 0);
    if (o.block == "accumulator") {
        auto integ = gr::blocks::integrate_ff::make(o.integrations, n);
        tb->connect(mag, 0, integ, 0);
        tb->connect(integ, 0, sink, 0);
    } else {
        tb->connect(mag, 0, sink, 0);
    }
    return seconds_to_run(tb);
}

//! frame_source -> head -> the block on `frame` (items of `type`); the seconds of
//! tb.run(). Throws what the block's make() throws.
double run_block(const options& o,
                 const std::vector<char>& frame,
                 const std::string& type,
                 const std::set<std::int64_t>& planted,
                 block_run& r,
                 const std::vector<int>& devices = {})
{
    const std::size_t item = item_bytes(type);
    auto tb = gr::make_top_block(o.block);
    auto src = gnuradio::make_block_sptr<frame_source>(frame, item);
    auto head = gr::blocks::head::make(item, o.samples);
    set_buffers(o, src, head);
    tb->connect(src, 0, head, 0);
    if (o.block == "accumulator") {
        const std::int64_t bins = std::min<std::int64_t>(o.n, std::int64_t(1) << 18);
        auto acc = gr::gpufft::large_fft_accumulator::make(o.n,
                                                           o.integrations,
                                                           bins,
                                                           0,
                                                           0,
                                                           0,
                                                           "blackman-harris",
                                                           "mean",
                                                           false,
                                                           1e6,
                                                           0.0,
                                                           "",
                                                           "gpufft",
                                                           o.backend,
                                                           o.device,
                                                           0,
                                                           "auto",
                                                           devices,
                                                           0.0,
                                                           0.0,
                                                           0.0,
                                                           0.0,
                                                           type);
        auto sink = gnuradio::make_block_sptr<first_vector_sink>(std::size_t(bins));
        tb->connect(head, 0, acc, 0);
        tb->connect(acc, 0, sink, 0);
        const double t = seconds_to_run(tb);
        r.backend = acc->backend();
        r.description = acc->describe();
        r.frames = acc->integrations_done() * std::uint64_t(o.integrations);
        r.skipped = acc->frames_skipped();
        r.misses = accumulator_misses(sink->first(), planted, o.n);
        return t;
    }
    auto sfft = gr::gpufft::sparse_fft::make(static_cast<int>(o.n),
                                             o.k,
                                             1e6,
                                             o.display_bins,
                                             0,
                                             o.backend,
                                             o.device,
                                             o.mode,
                                             20.0,
                                             0.01,
                                             0,
                                             "obw99",
                                             1,
                                             type);
    auto sink = gr::blocks::null_sink::make(sizeof(float) * o.display_bins);
    auto msgs = gr::blocks::message_debug::make();
    auto detections = gr::blocks::message_debug::make();
    tb->connect(head, 0, sfft, 0);
    tb->connect(sfft, 0, sink, 0);
    // Each mode's own output, as a flowgraph of that mode takes it: exact mode's
    // coefficients, robust mode's detections PDUs (the deprecated coefficients message
    // is built only for a port with a subscriber).
    if (o.mode == "exact")
        tb->msg_connect(sfft, "coefficients", msgs, "store");
    else
        tb->msg_connect(sfft, "detections", detections, "store");
    const double t = seconds_to_run(tb);
    r.backend = sfft->backend();
    r.description = sfft->describe();
    r.frames = sfft->frames_processed();
    r.skipped = sfft->frames_skipped();
    if (o.mode == "exact" && msgs->num_messages() > 0) {
        const pmt::pmt_t bins =
            pmt::dict_ref(msgs->get_message(0), pmt::mp("bins"), pmt::PMT_NIL);
        size_t len = 0;
        const std::int32_t* b = pmt::s32vector_elements(bins, len);
        std::set<std::int64_t> got(b, b + len);
        r.misses = 0;
        for (auto p : planted)
            r.misses += got.count(p) ? 0 : 1;
    }
    if (o.mode == "robust" && detections->num_messages() > 0)
        r.misses = robust_misses(detections->get_message(0), planted, o.n);
    return t;
}


//! The engine alone on `frames` frames, seconds per frame; 0 without CUDA.
struct engine_run {
    double seconds_per_frame = 0;
    std::string description;
};

#ifdef GPUFFT_HAVE_CUDA
//! Page-locked host memory for any device (the engine's copies at full PCIe rate).
class pinned_bytes
{
public:
    explicit pinned_bytes(std::size_t bytes)
    {
        if (cudaHostAlloc(&d_p, bytes, cudaHostAllocPortable) != cudaSuccess) {
            cudaGetLastError();
            throw std::runtime_error("engine case: cannot page-lock " +
                                     std::to_string(bytes >> 20) + " MiB");
        }
    }
    ~pinned_bytes() { cudaFreeHost(d_p); }
    pinned_bytes(const pinned_bytes&) = delete;
    pinned_bytes& operator=(const pinned_bytes&) = delete;
    char* get() const { return static_cast<char*>(d_p); }

private:
    void* d_p = nullptr;
};

// spectrum_integrator as the block makes it (window, mode, channels), on `devices`
// ({}: --device alone), fed two page-locked frames in turn: a warm-up frame, then
// `frames` frames and a read, timed.
engine_run time_engine(const options& o,
                       const std::vector<char>& period,
                       const std::vector<int>& devices,
                       int frames)
{
    const std::size_t item = item_bytes(o.input_type);
    const std::size_t bytes = std::size_t(o.n) * item;
    pinned_bytes a(bytes), b(bytes);
    for (std::size_t at = 0; at < bytes; at += period.size()) {
        std::memcpy(a.get() + at, period.data(), period.size());
        std::memcpy(b.get() + at, period.data(), period.size());
    }
    gr::gpufft::spectrum_integrator_options io;
    io.backend = gr::gpufft::backend::cuda;
    io.device_id = o.device;
    io.devices = devices;
    io.window = "blackman-harris";
    io.input_type = o.input_type;
    const std::int64_t bins = std::min<std::int64_t>(o.n, std::int64_t(1) << 18);
    gr::gpufft::spectrum_integrator s(o.n, 0, 0, bins, io);
    char* frame[2] = { a.get(), b.get() };
    const auto feed = [&](int f) {
        const bool ok = o.input_type == "fc32"
                            ? s.accumulate(reinterpret_cast<gr_complex*>(frame[f % 2]))
                            : s.accumulate_samples(frame[f % 2]);
        if (!ok)
            throw std::runtime_error("engine case: a finite frame was left out");
    };
    std::vector<float> out(static_cast<std::size_t>(bins));
    feed(0); // warm-up: first touches, the devices' first launches
    s.read(out.data());
    s.reset();
    const auto t0 = std::chrono::steady_clock::now();
    for (int f = 0; f < frames; ++f)
        feed(f);
    s.read(out.data()); // waits for the last frame
    const double t =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return { t / frames, s.describe() };
}
#endif
} // namespace

int main(int argc, char** argv)
{
    options o;
    try {
        o = parse(argc, argv);
    } catch (const std::exception& e) {
        std::cerr << "gpufft-flowgraph-bench: " << e.what() << "\n";
        return 2;
    }
    std::set<std::int64_t> planted;
    const std::size_t item = item_bytes(o.input_type);
    const std::vector<gr_complex> signal = sparse_frame(o, planted);
    const std::vector<char> frame = as_items(signal, o.input_type);
    // An integer input type is measured against the block's fc32 rate in the same run.
    const bool typed = o.input_type != "fc32";
    const std::vector<char> frame_fc32 = typed ? as_items(signal, "fc32") : frame;

    std::vector<result> results{ { "null", o.input_type, {} },
                                 { "source", o.input_type, {} },
                                 { o.block, o.input_type, {} } };
    if (typed)
        results.push_back({ o.block + "_fc32", "fc32", {} });
    const bool listed = !o.devices.empty();
    const std::size_t i_devices = results.size(); // the --devices case, when listed
    if (listed)
        results.push_back({ o.block + "_devices", o.input_type, {} });
    // The cases with further buffer sizes (--buffer-frames F,G).
    const std::size_t i_buffers = results.size();
    for (int f : o.more_buffer_frames)
        results.push_back({ o.block + "_buffers" + std::to_string(f), o.input_type, {} });
    std::vector<block_run> run_buffers(o.more_buffer_frames.size());
    // GNU Radio's stock chain for the same job (fc32 only: it takes complex floats).
    const bool stock = o.input_type == "fc32";
    const std::size_t i_stock = results.size();
    if (stock) {
        results.push_back({ "stock", "fc32", {} });
        results.push_back({ "frames", "fc32", {} });
    }
    block_run run, run_fc32, run_devices;
    // Memory after the first block run (the warm-up) and after the last.
    double rss_first = 0, rss_last = 0, dev_first = 0, dev_last = 0;

    for (int rep = 0; rep < o.reps; rep++) {
        { // null_source -> head -> null_sink
            auto tb = gr::make_top_block("null");
            auto src = gr::blocks::null_source::make(item);
            auto head = gr::blocks::head::make(item, o.samples);
            auto sink = gr::blocks::null_sink::make(item);
            tb->connect(src, 0, head, 0);
            tb->connect(head, 0, sink, 0);
            results[0].seconds.push_back(seconds_to_run(tb));
        }
        { // frame_source -> head -> null_sink
            auto tb = gr::make_top_block("source");
            auto src = gnuradio::make_block_sptr<frame_source>(frame, item);
            auto head = gr::blocks::head::make(item, o.samples);
            auto sink = gr::blocks::null_sink::make(item);
            set_buffers(o, src, head);
            tb->connect(src, 0, head, 0);
            tb->connect(head, 0, sink, 0);
            results[1].seconds.push_back(seconds_to_run(tb));
        }
        try {
            results[2].seconds.push_back(run_block(o, frame, o.input_type, planted, run));
            rss_last = rss_mib();
            dev_last = device_used_mib(o.device);
            if (rep <= 1) {
                rss_first = rss_last;
                dev_first = dev_last;
            }
            if (typed)
                results[3].seconds.push_back(
                    run_block(o, frame_fc32, "fc32", planted, run_fc32));
            if (listed)
                results[i_devices].seconds.push_back(
                    run_block(o, frame, o.input_type, planted, run_devices, o.devices));
            for (std::size_t b = 0; b < o.more_buffer_frames.size(); ++b) {
                options ob = o;
                ob.buffer_frames = o.more_buffer_frames[b];
                results[i_buffers + b].seconds.push_back(
                    run_block(ob, frame, o.input_type, planted, run_buffers[b]));
            }
            if (stock) {
                results[i_stock].seconds.push_back(run_stock(o, frame, false));
                results[i_stock + 1].seconds.push_back(run_stock(o, frame, true));
            }
        } catch (const std::exception& e) {
            std::cerr << "gpufft-flowgraph-bench: " << e.what() << "\n";
            return 2;
        }
    }

    // The engine alone, on one device and on the list, after the flowgraphs (their
    // frames are freed by then).
    engine_run engine_one, engine_list;
    const int engine_frames = 8;
#ifdef GPUFFT_HAVE_CUDA
    if (listed && gr::gpufft::cuda_available(o.device)) {
        try {
            engine_one = time_engine(o, frame, {}, engine_frames);
            engine_list = time_engine(o, frame, o.devices, engine_frames);
        } catch (const std::exception& e) {
            std::cerr << "gpufft-flowgraph-bench: " << e.what() << "\n";
            return 2;
        }
    }
#endif
    const bool engine = engine_one.seconds_per_frame > 0;

    const std::string device = gr::gpufft::describe_backend(o.device);
    const double null_rate = o.samples / median(results[0].seconds);
    // The typed case's rate over the fc32 case's, repetition by repetition.
    double type_ratio = 0;
    if (typed) {
        std::vector<double> ratios;
        for (int rep = 0; rep < o.reps; rep++)
            ratios.push_back(results[3].seconds[std::size_t(rep)] /
                             results[2].seconds[std::size_t(rep)]);
        type_ratio = median(ratios);
    }
    // The one-device time over the list's, repetition by repetition.
    double devices_ratio = 0;
    if (listed) {
        std::vector<double> ratios;
        for (int rep = 0; rep < o.reps; rep++)
            ratios.push_back(results[2].seconds[std::size_t(rep)] /
                             results[i_devices].seconds[std::size_t(rep)]);
        devices_ratio = median(ratios);
    }
    // The block's rate over the stock chain's, repetition by repetition.
    double block_ratio = 0;
    if (stock) {
        std::vector<double> ratios;
        for (int rep = 0; rep < o.reps; rep++)
            ratios.push_back(results[i_stock].seconds[std::size_t(rep)] /
                             results[2].seconds[std::size_t(rep)]);
        block_ratio = median(ratios);
    }
    const std::size_t i_buffers_end = i_buffers + o.more_buffer_frames.size();
    for (std::size_t i = 0; i < results.size(); ++i) {
        const auto& r = results[i];
        const double t = median(r.seconds);
        const double rate = o.samples / t;
        const bool buffers = i >= i_buffers && i < i_buffers_end;
        const block_run* b = i == 2                     ? &run
                             : listed && i == i_devices ? &run_devices
                             : buffers                  ? &run_buffers[i - i_buffers]
                             : typed && i == 3          ? &run_fc32
                                                        : nullptr;
        std::string extra;
        if (b) {
            extra = ", \"frames\": " + std::to_string(b->frames) +
                    ", \"skipped\": " + std::to_string(b->skipped) +
                    ", \"misses_frame0\": " + std::to_string(b->misses);
            if (o.block == "accumulator")
                extra += ", \"integrations\": " + std::to_string(o.integrations);
            extra += ", \"buffer_frames\": " +
                     std::to_string(buffers ? o.more_buffer_frames[i - i_buffers]
                                            : o.buffer_frames);
        }
        if (listed && i == i_devices) {
            char text[128];
            std::snprintf(text,
                          sizeof text,
                          ", \"devices\": \"%s\", \"devices_ratio\": %.3f",
                          devices_text(o.devices).c_str(),
                          devices_ratio);
            extra += text;
        }
        if (stock && (i == i_stock || i == i_stock + 1))
            extra += ", \"buffer_frames\": " + std::to_string(o.buffer_frames);
        if (stock && i == 2) {
            char text[48];
            std::snprintf(text, sizeof text, ", \"block_ratio\": %.3f", block_ratio);
            extra += text;
        }
        if (i == 2) {
            extra += ", \"rss_mib\": [" + std::to_string(rss_first) + ", " +
                     std::to_string(rss_last) + "], \"device_used_mib\": [" +
                     std::to_string(dev_first) + ", " + std::to_string(dev_last) + "]";
            if (typed) {
                char text[96];
                std::snprintf(text,
                              sizeof text,
                              ", \"type_ratio\": %.3f, \"fc32_msps\": %.1f",
                              type_ratio,
                              o.samples / median(results[3].seconds) / 1e6);
                extra += text;
            }
        }
        std::printf(
            "{\"bench\": \"flowgraph\", \"case\": \"%s\", \"n\": %lld, \"k\": %d, "
            "\"samples\": %llu, \"reps\": %d, \"seconds_median\": %.4f, "
            "\"seconds_min\": %.4f, \"seconds_max\": %.4f, \"msps\": %.1f, "
            "\"ratio_to_null\": %.3f, \"mode\": \"%s\", \"input_type\": \"%s\", "
            "\"backend\": \"%s\", \"device\": \"%s\"%s}\n",
            r.name.c_str(),
            static_cast<long long>(o.n),
            o.k,
            static_cast<unsigned long long>(o.samples),
            o.reps,
            t,
            *std::min_element(r.seconds.begin(), r.seconds.end()),
            *std::max_element(r.seconds.begin(), r.seconds.end()),
            rate / 1e6,
            rate / null_rate,
            o.block == "accumulator" ? "mean" : o.mode.c_str(),
            r.input_type.c_str(),
            b ? b->backend.c_str() : "",
            device.c_str(),
            extra.c_str());
    }
    if (engine)
        for (const engine_run* e : { &engine_one, &engine_list })
            std::printf("{\"bench\": \"flowgraph\", \"case\": \"%s\", \"n\": %lld, "
                        "\"frames\": %d, \"ms_per_frame\": %.2f, \"msps\": %.1f, "
                        "\"input_type\": \"%s\", \"devices\": \"%s\", "
                        "\"engine_ratio\": %.3f, \"device\": \"%s\"}\n",
                        e == &engine_one ? "engine" : "engine_devices",
                        static_cast<long long>(o.n),
                        engine_frames,
                        1e3 * e->seconds_per_frame,
                        double(o.n) / e->seconds_per_frame / 1e6,
                        o.input_type.c_str(),
                        e == &engine_one ? std::to_string(o.device).c_str()
                                         : devices_text(o.devices).c_str(),
                        engine_one.seconds_per_frame / e->seconds_per_frame,
                        gr::gpufft::describe_backend(o.device).c_str());
    std::printf("\n%s\n%s: %s\n",
                device.c_str(),
                o.block == "accumulator" ? "large FFT accumulator" : "sparse FFT",
                run.description.c_str());
    if (listed)
        std::printf("with --devices %s: %s\n",
                    devices_text(o.devices).c_str(),
                    run_devices.description.c_str());
    std::printf(
        "%-20s %-5s %12s %10s %12s\n", "case", "type", "median (s)", "MS/s", "vs null");
    for (const auto& r : results) {
        const double t = median(r.seconds);
        std::printf("%-20s %-5s %12.4f %10.1f %11.1f%%\n",
                    r.name.c_str(),
                    r.input_type.c_str(),
                    t,
                    o.samples / t / 1e6,
                    100.0 * (o.samples / t) / null_rate);
    }
    if (stock)
        std::printf("%s over the stock chain (median of %d repetitions): %.3fx\n",
                    o.block.c_str(),
                    o.reps,
                    block_ratio);
    if (typed)
        std::printf("%s rate over fc32 (median of %d repetitions): %.3f\n",
                    o.input_type.c_str(),
                    o.reps,
                    type_ratio);
    if (listed)
        std::printf("devices %s over device %d alone (median of %d repetitions): "
                    "%.3fx\n",
                    devices_text(o.devices).c_str(),
                    o.device,
                    o.reps,
                    devices_ratio);
    if (engine) {
        const double source_rate = o.samples / median(results[1].seconds);
        const double one_rate = double(o.n) / engine_one.seconds_per_frame;
        std::printf("engine alone, %d frames from page-locked memory: device %d %.1f "
                    "ms/frame (%.1f MS/s), devices %s %.1f ms/frame (%.1f MS/s): "
                    "%.3fx\n%s",
                    engine_frames,
                    o.device,
                    1e3 * engine_one.seconds_per_frame,
                    one_rate / 1e6,
                    devices_text(o.devices).c_str(),
                    1e3 * engine_list.seconds_per_frame,
                    double(o.n) / engine_list.seconds_per_frame / 1e6,
                    engine_one.seconds_per_frame / engine_list.seconds_per_frame,
                    engine_list.description.c_str());
        if (source_rate < one_rate)
            std::printf("the flowgraph's source alone (%.1f MS/s) is slower than one "
                        "GPU's engine (%.1f MS/s): the stream bounds the block, not "
                        "the GPUs\n",
                        source_rate / 1e6,
                        one_rate / 1e6);
    }
    // Exact accounting: every frame of the samples went through, none skipped, and the
    // planted bins were found, for the typed run and its fc32 twin.
    const std::uint64_t expected = o.samples / std::uint64_t(o.n);
    bool ok = true;
    std::vector<const block_run*> checked{ &run };
    if (typed)
        checked.push_back(&run_fc32);
    if (listed)
        checked.push_back(&run_devices);
    for (const auto& b : run_buffers)
        checked.push_back(&b);
    for (const block_run* b : checked) {
        std::printf(
            "frames %llu (skipped %llu), planted bins missed in the first %s: %d of %d\n",
            static_cast<unsigned long long>(b->frames),
            static_cast<unsigned long long>(b->skipped),
            o.block == "accumulator" ? "spectrum" : "frame",
            b->misses,
            o.k);
        ok = ok && b->misses == 0 && b->skipped == 0 && b->frames == expected;
        if (b->frames != expected)
            std::printf("FAILED: %llu frames of %llu expected\n",
                        static_cast<unsigned long long>(b->frames),
                        static_cast<unsigned long long>(expected));
    }
    std::printf("memory after %s run %d -> %d: host RSS %.1f -> %.1f MiB, device used "
                "%.1f -> %.1f MiB%s\n",
                o.block.c_str(),
                std::min(o.reps, 2),
                o.reps,
                rss_first,
                rss_last,
                dev_first,
                dev_last,
                o.reps > 2 ? "" : " (not checked: that needs --reps 3 or more)");
    const bool grew =
        o.reps > 2 && (rss_last - rss_first > 64 || dev_last - dev_first > 16);
    if (grew)
        std::printf("FAILED: memory grew between runs\n");
    return ok && !grew ? 0 : 1;
}
