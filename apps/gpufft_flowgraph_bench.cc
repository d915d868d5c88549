/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// gpufft-flowgraph-bench: the sample rate a GNU Radio flowgraph sustains through the
// sparse_fft block, against GNU Radio's own null flowgraph on the same host, in the
// same run:
//   null:   null_source -> head -> null_sink              (the reference)
//   source: frame_source -> head -> null_sink               (the test signal alone)
//   sparse: frame_source -> head -> sparse_fft -> null_sink (display vectors)
// frame_source repeats one frame with bulk copies: GNU Radio's vector_source copies item
// by item and tops out near 73% of the null rate on the GPU machine's host, which would
// cap the sparse case below the target whatever the block does.
// The test signal is one frame of an exactly k-sparse spectrum (random bins and complex
// amplitudes, never zeros) repeated; robust mode adds white noise 60 dB under the tones.
// The first frame's answer is checked against the planted bins: exact mode's
// coefficients, robust mode's detected signals (each planted bin inside one).
// --input-type quantises the frame as a radio delivers it (sc16, sc8, cu8), so the
// null and source cases move the same bytes a sample as the block takes. One JSON line
// per case, then a table.
//
//   gpufft-flowgraph-bench [--n 1048576] [--k 64] [--samples 2^30] [--reps 3]
//                          [--display-bins 1024] [--backend auto] [--device 0]
//                          [--buffer-frames F] [--mode exact|robust]
//                          [--input-type fc32|sc16|sc8|cu8]

#include <gnuradio/blocks/head.h>
#include <gnuradio/blocks/message_debug.h>
#include <gnuradio/blocks/null_sink.h>
#include <gnuradio/blocks/null_source.h>
#include <gnuradio/gpufft/backend.h>
#include <gnuradio/gpufft/dense_fft_plan.h>
#include <gnuradio/gpufft/device.h>
#include <gnuradio/gpufft/sparse_fft.h>
#include <gnuradio/io_signature.h>
#include <gnuradio/sync_block.h>
#include <gnuradio/top_block.h>
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

struct options {
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
    //! sparse_fft's mode: "exact" (the frames are exactly sparse) or "robust" (the
    //! sensing path; the frame then carries white noise 60 dB under its peak).
    std::string mode = "exact";
    //! sparse_fft's input_type: "fc32", "sc16", "sc8" or "cu8" (the frame quantised).
    std::string input_type = "fc32";
};

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
            std::cout << "usage: gpufft-flowgraph-bench [--n N] [--k K] [--samples S] "
                         "[--reps R] [--display-bins D] [--backend auto|cpu|cuda] "
                         "[--device ID] [--buffer-frames F] [--mode exact|robust] "
                         "[--input-type fc32|sc16|sc8|cu8]\n(N and S accept 2^p)\n";
            std::exit(0);
        }
        if (i + 1 >= argc)
            throw std::invalid_argument(key + ": needs a value");
        const std::string value = argv[++i];
        if (key == "--n")
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
        else if (key == "--buffer-frames")
            o.buffer_frames = std::stoi(value);
        else if (key == "--device")
            o.device = std::stoi(value);
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
    item_bytes(o.input_type); // checks the name
    // Whole frames only, so every run transforms the same number of frames.
    o.samples = std::max<std::uint64_t>(o.samples / o.n, 1) * o.n;
    return o;
}

// One frame with k random bins of random complex amplitude (magnitudes 0.1 .. 1),
// built by an inverse FFT so the spectrum is exactly what was planted.
std::vector<gr_complex> sparse_frame(const options& o, std::set<std::int64_t>& bins)
{
    std::mt19937_64 rng(std::random_device{}());
    std::uniform_int_distribution<std::int64_t> pick(0, o.n - 1);
    std::uniform_real_distribution<float> mag(0.1f, 1.0f), phase(0.0f, 6.2831853f);
    std::vector<gr_complex> spec(o.n), x(o.n);
    while (bins.size() < static_cast<size_t>(o.k))
        bins.insert(pick(rng));
    for (auto b : bins)
        spec[b] = std::polar(mag(rng), phase(rng));
    gr::gpufft::dense_fft_options fo;
    fo.backend = gr::gpufft::backend::cpu;
    gr::gpufft::dense_fft_plan inverse(o.n, 1, gr::gpufft::direction::backward, fo);
    inverse.execute(spec.data(), x.data());
    if (o.mode == "robust") { // a floor for the sensing path, 60 dB under the tones
        float peak = 0;
        for (auto v : x)
            peak = std::max(peak, std::abs(v));
        std::normal_distribution<float> noise(0.f, 1e-3f * peak);
        for (auto& v : x)
            v += gr_complex(noise(rng), noise(rng));
    }
    return x; // unnormalized inverse: X[b] = n * amplitude, far above float rounding
}

// Host RSS and the device's used memory in MiB (0 when no GPU): sampled around each
// sparse run, so a long run (--samples 2^36) doubles as a soak of the block.
double rss_mib()
{
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
    std::vector<double> seconds;
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
    const std::vector<char> frame = as_items(sparse_frame(o, planted), o.input_type);

    std::vector<result> results{ { "null", {} }, { "source", {} }, { "sparse", {} } };
    std::string backend_used, description;
    std::uint64_t frames_done = 0, skipped = 0;
    // Memory after the first sparse run (the warm-up) and after the last.
    double rss_first = 0, rss_last = 0, dev_first = 0, dev_last = 0;
    int misses = -1;

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
        { // frame_source -> head -> sparse_fft -> null_sink
            auto tb = gr::make_top_block("sparse");
            auto src = gnuradio::make_block_sptr<frame_source>(frame, item);
            auto head = gr::blocks::head::make(item, o.samples);
            set_buffers(o, src, head);
            gr::gpufft::sparse_fft::sptr sfft;
            try {
                sfft = gr::gpufft::sparse_fft::make(static_cast<int>(o.n),
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
                                                    o.input_type);
            } catch (const std::exception& e) {
                std::cerr << "gpufft-flowgraph-bench: " << e.what() << "\n";
                return 2;
            }
            auto sink = gr::blocks::null_sink::make(sizeof(float) * o.display_bins);
            auto msgs = gr::blocks::message_debug::make();
            auto detections = gr::blocks::message_debug::make();
            tb->connect(src, 0, head, 0);
            tb->connect(head, 0, sfft, 0);
            tb->connect(sfft, 0, sink, 0);
            tb->msg_connect(sfft, "coefficients", msgs, "store");
            tb->msg_connect(sfft, "detections", detections, "store");
            results[2].seconds.push_back(seconds_to_run(tb));
            rss_last = rss_mib();
            dev_last = device_used_mib(o.device);
            if (rep == 0) {
                rss_first = rss_last;
                dev_first = dev_last;
            }
            backend_used = sfft->backend();
            description = sfft->describe();
            frames_done = sfft->frames_processed();
            skipped = sfft->frames_skipped();
            if (o.mode == "exact" && msgs->num_messages() > 0) {
                const pmt::pmt_t bins =
                    pmt::dict_ref(msgs->get_message(0), pmt::mp("bins"), pmt::PMT_NIL);
                size_t len = 0;
                const std::int32_t* b = pmt::s32vector_elements(bins, len);
                std::set<std::int64_t> got(b, b + len);
                misses = 0;
                for (auto p : planted)
                    misses += got.count(p) ? 0 : 1;
            }
            if (o.mode == "robust" && detections->num_messages() > 0)
                misses = robust_misses(detections->get_message(0), planted, o.n);
        }
    }

    const std::string device = gr::gpufft::describe_backend(o.device);
    const double null_rate = o.samples / median(results[0].seconds);
    for (const auto& r : results) {
        const double t = median(r.seconds);
        const double rate = o.samples / t;
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
            o.mode.c_str(),
            o.input_type.c_str(),
            r.name == "sparse" ? backend_used.c_str() : "",
            device.c_str(),
            r.name == "sparse"
                ? (", \"frames\": " + std::to_string(frames_done) +
                   ", \"skipped\": " + std::to_string(skipped) +
                   ", \"misses_frame0\": " + std::to_string(misses) + ", \"rss_mib\": [" +
                   std::to_string(rss_first) + ", " + std::to_string(rss_last) +
                   "], \"device_used_mib\": [" + std::to_string(dev_first) + ", " +
                   std::to_string(dev_last) + "]")
                      .c_str()
                : "");
    }
    std::printf("\n%s\nsparse FFT: %s\n", device.c_str(), description.c_str());
    std::printf("%-8s %12s %10s %12s\n", "case", "median (s)", "MS/s", "vs null");
    for (const auto& r : results) {
        const double t = median(r.seconds);
        std::printf("%-8s %12.4f %10.1f %11.1f%%\n",
                    r.name.c_str(),
                    t,
                    o.samples / t / 1e6,
                    100.0 * (o.samples / t) / null_rate);
    }
    std::printf(
        "frames %llu (skipped %llu), planted coefficients missed in frame 0: %d of "
        "%d\n",
        static_cast<unsigned long long>(frames_done),
        static_cast<unsigned long long>(skipped),
        misses,
        o.k);
    // Exact accounting: every frame of the samples went through, none skipped.
    const std::uint64_t expected = o.samples / std::uint64_t(o.n);
    std::printf("memory after sparse run 1 -> %d: host RSS %.1f -> %.1f MiB, device used "
                "%.1f -> %.1f MiB\n",
                o.reps,
                rss_first,
                rss_last,
                dev_first,
                dev_last);
    const bool grew =
        o.reps > 1 && (rss_last - rss_first > 64 || dev_last - dev_first > 16);
    if (frames_done != expected || grew)
        std::printf("FAILED: %llu frames of %llu expected%s\n",
                    static_cast<unsigned long long>(frames_done),
                    static_cast<unsigned long long>(expected),
                    grew ? "; memory grew between runs" : "");
    return misses == 0 && skipped == 0 && frames_done == expected && !grew ? 0 : 1;
}
