/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// gpufft-bench sensing: the sensing plan's detect() against one FFT of the same frame in
// the same run (cuFFT on the same device array; one FFTW execute with the plan's
// threads), on field cases: tones spread 20-80 dB per bin at random fractional bins,
// a strong tone with weak neighbours, a modulated carrier beside tones. Prints, beside
// the time, how many true components were found and how many signals were false.

#include "bench_capture.h"
#include "bench_common.h"
#include "bench_field.h"
#include "bench_pair.h"
#include "core/parallel_for.h"
#include "sensing/sensing_cpu_loops.h"
#include "sparse/robust_checks.h"
#include <gnuradio/gpufft/dense_fft_plan.h>
#include <gnuradio/gpufft/device.h>
#include <gnuradio/gpufft/sensing_plan.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

#ifdef GPUFFT_HAVE_CUDA
#include "cuda/cuda_resources.h"
#include "sparse/common/sparse_signal_cuda.h"
#endif

using namespace gr::gpufft;
using namespace gpufft_bench;
using cf = std::complex<float>;

namespace {

// Components found (a signal's edges, +-1 bin, hold it) and signals that hold none.
void score(const field_case& c, const sensing_result& r, result& row)
{
    int found = 0, false_signals = 0;
    for (const auto& comp : c.components) {
        bool hit = false;
        for (const auto& s : r.signals)
            hit =
                hit || (comp.second >= s.lower_bin - 1 && comp.first <= s.upper_bin + 1);
        found += hit ? 1 : 0;
    }
    for (const auto& s : r.signals) {
        bool real = false;
        for (const auto& comp : c.components)
            real =
                real || (comp.second >= s.lower_bin - 1 && comp.first <= s.upper_bin + 1);
        false_signals += real ? 0 : 1;
    }
    row.errors["components"] = double(c.components.size());
    row.errors["found"] = found;
    row.errors["false"] = false_signals;
    row.errors["signals"] = double(r.signals.size());
}

// --dump FILE: every field of every signal of every frame, floats in hex (%a), so that
// two builds can be compared bit for bit (`diff`): a speed change must give the same
// file. Captures: every frame of each recording (CPU); field cases: one frame a case and
// size on the backend asked for, with the bench's plan options and with the defaults.
std::FILE* dump_file(const options& opt)
{
    static std::FILE* f = nullptr;
    const std::string path = opt.get("dump", "");
    if (f == nullptr && !path.empty()) {
        f = std::fopen(path.c_str(), "w");
        if (f == nullptr)
            throw std::runtime_error("--dump: cannot write " + path);
    }
    return f;
}

void dump_result(std::FILE* f, const std::string& tag, const sensing_result& r)
{
    std::fprintf(
        f,
        "%s signals=%zu truncated=%d floor=%a above=%lld bands=%lld skipped=%lld\n",
        tag.c_str(),
        r.signals.size(),
        int(r.truncated),
        r.noise_floor_dbfs,
        (long long)r.bins_above,
        (long long)r.bands_found,
        (long long)r.tone_fits_skipped);
    for (const auto& s : r.signals)
        std::fprintf(f,
                     "  %lld %lld c=%a lo=%a hi=%a bw=%a pk=%a tot=%a snr=%a fl=%a dc=%d "
                     "nar=%d ref=%d tone=%a amp=%a,%a\n",
                     (long long)s.first_bin,
                     (long long)s.last_bin,
                     s.center_bin,
                     s.lower_bin,
                     s.upper_bin,
                     s.bandwidth_bins,
                     s.peak_power_dbfs,
                     s.total_power_dbfs,
                     s.snr_db,
                     s.floor_dbfs,
                     int(s.dc),
                     int(s.narrow),
                     int(s.tone_refined),
                     s.tone_bin,
                     s.tone_amplitude.real(),
                     s.tone_amplitude.imag());
}

sensing_options plan_options(const options& opt, backend b, std::int64_t n)
{
    sensing_options o;
    o.backend = b;
    o.device_id = opt.device;
    // 2048 at most, n / 4 (the plan's limit) in small frames.
    o.max_signals = int(std::min<std::int64_t>(std::stoi(opt.get("max-signals", "2048")),
                                               std::max<std::int64_t>(1, n / 4)));
    return o;
}

// x_fft: detect() over one FFT, the median of the reps' ratios (each rep times both in
// turn); x_fft_min: the ratio of the two minima, the figure least moved by a busy host.
void put_ratios(result& r, const pair_stats& p)
{
    r.errors["x_fft"] = p.ratio_median;
    r.errors["x_fft_min"] = p.ratio_min;
    r.errors["min_ms"] = p.ours.min_ms;
    r.errors["base_min_ms"] = p.base.min_ms;
}

result make_row(const std::string& be, const std::string& dev, const field_case& c)
{
    result r;
    r.engine = "sensing";
    r.backend = be;
    r.device = dev;
    r.case_name = c.name;
    r.params["n"] = double(c.n);
    return r;
}

// A field case's frame (`got`: through the bench's plan) to the dump, then through a
// plan of the defaults and one of the xdb rule on the same backend.
void dump_case(std::FILE* f,
               const field_case& c,
               sensing_result& got,
               backend b,
               const cf* x,
               memory where,
               int device)
{
    const std::string tag = c.name + " " + std::to_string(c.n);
    dump_result(f, tag, got);
    sensing_options d;
    d.backend = b;
    d.device_id = device;
    // The default cap, held to the plan's n / 4 in frames under 1024 points.
    d.max_signals = int(std::min<std::int64_t>(d.max_signals, c.n / 4));
    sensing_plan defaults(c.n, d);
    defaults.detect(x, got, where);
    dump_result(f, tag + " defaults", got);
    d.bandwidth_rule = bandwidth_rule::xdb;
    sensing_plan xdb(c.n, d);
    xdb.detect(x, got, where);
    dump_result(f, tag + " xdb", got);
}

void bench_cpu(const options& opt, const field_case& c)
{
    const std::string dev =
        "cpu: " + cpu_name() + " x" + std::to_string(detail::hardware_threads());
    const auto x = gpufft_test::noisy_tones_fft(c.n, c.truth.freq, c.truth.amp, 1.0, 7);
    sensing_plan plan(c.n, plan_options(opt, backend::cpu, c.n));
    std::printf("# %s\n", plan.describe().c_str());
    sensing_result got;
    plan.detect(x.data(), got);
    if (std::FILE* f = dump_file(opt)) {
        dump_case(f, c, got, backend::cpu, x.data(), memory::host, opt.device);
        return;
    }
    result r = make_row("cpu", dev, c);
    score(c, got, r);
    dense_fft_options fo;
    fo.backend = backend::cpu;
    fo.threads = c.n < (1 << 18) ? 1 : 0; // as the plan's FFT
    dense_fft_plan fft(c.n, 1, direction::forward, fo);
    // FFTW at its best: 64-byte aligned arrays (its SIMD codelets), out of place.
    detail::sensing_aligned_vector<cf> xa(x.begin(), x.end()), X(x.size());
    const auto p = time_pair([&](int) { plan.detect(x.data(), got); },
                             [&](int) { fft.execute(xa.data(), X.data()); },
                             opt.reps);
    r.time = p.ours;
    r.baseline_name = "fftw";
    r.baseline_ms = p.base.median_ms;
    put_ratios(r, p);
    report(r);
}

#ifdef GPUFFT_HAVE_CUDA
void bench_cuda(const options& opt, const field_case& c)
{
    cuda::device_guard guard(opt.device);
    const std::string dev = device_name(opt.device);
    cuda::device_buffer<cf> x(std::size_t(c.n)), X(std::size_t(c.n));
    detail::make_noisy_tones_device(c.n, c.truth.freq, c.truth.amp, 1.0, 7, x.get());
    GPUFFT_CUDA_CHECK(cudaDeviceSynchronize());
    sensing_plan plan(c.n, plan_options(opt, backend::cuda, c.n));
    std::printf("# %s\n", plan.describe().c_str());
    sensing_result got;
    plan.detect(x.get(), got, memory::device);
    if (std::FILE* f = dump_file(opt)) {
        dump_case(f, c, got, backend::cuda, x.get(), memory::device, opt.device);
        return;
    }
    result r = make_row("cuda", dev, c);
    dense_fft_options fo;
    fo.backend = backend::cuda;
    fo.device_id = opt.device;
    dense_fft_plan fft(c.n, 1, direction::forward, fo);
    cuda::stream s;
    // --input host: the frame in page-locked host memory, as the sparse_fft block stages
    // it; the baseline then copies it to the GPU before its FFT.
    const std::string input = opt.get("input", "device");
    if (input != "device" && input != "host")
        throw std::invalid_argument("--input: must be device or host, not " + input);
    const bool host = input == "host";
    cuda::pinned_buffer<cf> h(host ? std::size_t(c.n) : 0);
    if (host)
        GPUFFT_CUDA_CHECK(cudaMemcpy(
            h.get(), x.get(), sizeof(cf) * std::size_t(c.n), cudaMemcpyDeviceToHost));
    r.labels["input"] = input;
    const auto p = time_pair(
        [&](int) {
            if (host)
                plan.detect(h.get(), got, memory::host);
            else
                plan.detect(x.get(), got, memory::device);
        },
        [&](int) {
            if (host)
                GPUFFT_CUDA_CHECK(cudaMemcpyAsync(x.get(),
                                                  h.get(),
                                                  sizeof(cf) * std::size_t(c.n),
                                                  cudaMemcpyHostToDevice,
                                                  s.get()));
            fft.execute_async(x.get(), X.get(), s.get());
            s.synchronize();
        },
        opt.reps);
    score(c, got, r); // the answer of the path timed (device or host input)
    r.time = p.ours;
    r.baseline_name = "cufft";
    r.baseline_ms = p.base.median_ms;
    put_ratios(r, p);
    report(r);
}
#endif

// Every .sigmf-meta of `dir` through a CPU plan of score_sensing.py's frame size: up to
// 32 frames spread over the recording, each rep timing detect() and one FFTW execute
// (aligned) of every frame in turns; x_fft over the frames' sums.
int bench_captures(const options& opt, const std::string& dir)
{
    std::vector<std::string> metas;
    {
        const std::string list = opt.get("capture-list", "");
        if (!list.empty()) {
            for (std::size_t a = 0; a < list.size();) {
                const std::size_t b = std::min(list.find(',', a), list.size());
                metas.push_back(dir + "/" + list.substr(a, b - a) + ".sigmf-meta");
                a = b + 1;
            }
        } else {
            for (const auto& e : std::filesystem::directory_iterator(dir))
                if (e.path().extension() == ".sigmf-meta")
                    metas.push_back(e.path().string());
            std::sort(metas.begin(), metas.end());
        }
    }
    const std::string dev =
        "cpu: " + cpu_name() + " x" + std::to_string(detail::hardware_threads());
    const bool on_cuda = opt.backend == "cuda";
    if (on_cuda && opt.get("dump", "").empty())
        throw std::invalid_argument("--captures: times the CPU only; --backend cuda "
                                    "goes with --dump FILE");
    for (const auto& meta : metas) {
        const auto c = read_capture(meta);
        const std::int64_t n = capture_fft_size(c);
        const std::int64_t frames =
            std::min<std::int64_t>(32, std::int64_t(c.x.size()) / n);
        std::vector<detail::sensing_aligned_vector<cf>> xs;
        for (std::int64_t f = 0; f < frames; ++f) {
            const std::int64_t start =
                frames > 1 ? f * (std::int64_t(c.x.size()) - n) / (frames - 1) : 0;
            xs.emplace_back(c.x.begin() + start, c.x.begin() + start + n);
        }
        // The plan score_sensing.py makes: default options. With --dump and --backend
        // cuda, every frame through the CUDA backend, to set beside the CPU's dump.
        sensing_options so;
        so.backend = on_cuda ? backend::cuda : backend::cpu;
        so.device_id = opt.device;
        sensing_plan plan(n, so);
        if (std::FILE* f = dump_file(opt)) {
            sensing_result r;
            for (std::int64_t a = 0; a + n <= std::int64_t(c.x.size()); a += n) {
                plan.detect(c.x.data() + a, r);
                dump_result(f, c.name + " " + std::to_string(a / n), r);
            }
            continue;
        }
        dense_fft_options fo;
        fo.backend = backend::cpu;
        fo.threads = n < (1 << 18) ? 1 : 0; // as the plan's FFT
        dense_fft_plan fft(n, 1, direction::forward, fo);
        detail::sensing_aligned_vector<cf> X(static_cast<std::size_t>(n));
        sensing_result got;
        double signals = 0;
        for (const auto& x : xs) {
            plan.detect(x.data(), got);
            signals += double(got.signals.size());
        }
        const auto p = time_pair(
            [&](int) {
                for (const auto& x : xs)
                    plan.detect(x.data(), got);
            },
            [&](int) {
                for (const auto& x : xs)
                    fft.execute(x.data(), X.data());
            },
            opt.reps);
        result r;
        r.engine = "sensing";
        r.backend = "cpu";
        r.device = dev;
        r.case_name = c.name;
        r.params["n"] = double(n);
        r.params["frames"] = double(frames);
        r.time = p.ours;
        r.time.median_ms /= double(frames);
        r.time.min_ms /= double(frames);
        r.time.max_ms /= double(frames);
        r.baseline_name = "fftw";
        r.baseline_ms = p.base.median_ms / double(frames);
        put_ratios(r, p);
        r.errors["min_ms"] = p.ours.min_ms / double(frames);
        r.errors["base_min_ms"] = p.base.min_ms / double(frames);
        r.errors["signals_per_frame"] = signals / double(frames);
        report(r);
    }
    print_table();
    return 0;
}

int bench_sensing(const options& opt)
{
    if (!opt.get("captures", "").empty())
        return bench_captures(opt, opt.get("captures", ""));
    const bool want_cpu = opt.backend == "all" || opt.backend == "cpu";
    const bool want_cuda = opt.backend == "all" || opt.backend == "cuda";
    std::vector<std::string> cases;
    {
        std::string all = opt.get("cases", "spread50,spread1000,neighbours,carrier");
        for (std::size_t a = 0; a < all.size();) {
            const std::size_t b = std::min(all.find(',', a), all.size());
            cases.push_back(all.substr(a, b - a));
            a = b + 1;
        }
    }
    int failures = 0;
    const auto run = [&](std::int64_t n, bool cuda) {
        for (const auto& name : cases) {
            try {
                const auto c = make_field_case(name, n, 12345 + std::uint64_t(n));
#ifdef GPUFFT_HAVE_CUDA
                if (cuda)
                    bench_cuda(opt, c);
#endif
                if (!cuda)
                    bench_cpu(opt, c);
            } catch (const std::exception& e) {
                std::fprintf(stderr,
                             "sensing %s n=%lld: %s\n",
                             name.c_str(),
                             (long long)n,
                             e.what());
                ++failures;
            }
        }
    };
    std::vector<std::int64_t> gpu_sizes = opt.sizes, cpu_sizes = opt.sizes;
    if (opt.sizes.empty()) {
        // Sizes that are not powers of two too (FFTW's and cuFFT's mixed radices and
        // Bluestein for the prime 1000003).
        gpu_sizes = { std::int64_t(1) << 20,       std::int64_t(1) << 24,
                      std::int64_t(1) << 27,       10000000,
                      3 * (std::int64_t(1) << 20), 1000003 };
        cpu_sizes = { std::int64_t(1) << 16,
                      std::int64_t(1) << 20,
                      3 * (std::int64_t(1) << 20),
                      1000003 };
    }
#ifdef GPUFFT_HAVE_CUDA
    if (want_cuda && cuda_available(opt.device))
        for (auto n : gpu_sizes)
            run(n, true);
#endif
    if (want_cpu)
        for (auto n : cpu_sizes)
            run(n, false);
    (void)want_cuda;
    print_table();
    return failures ? 1 : 0;
}

} // namespace

GPUFFT_BENCH_COMMAND(
    sensing,
    "sensing plan (signals per frame) vs one FFT of the frame, field "
    "cases [--sizes 2^20,2^24,2^27,1e7,3*2^20,1000003 (cuda) "
    "2^16,2^20,3*2^20,1000003 (cpu) "
    "--cases spread50,spread1000,neighbours,carrier --max-signals 2048; "
    "--captures DIR [--capture-list a,b]: SigMF recordings, CPU (CUDA with "
    "--dump); "
    "--dump FILE: every signal's fields in hex, no timing; "
    "--input device|host (cuda: the frame in page-locked host "
    "memory, the baseline copying it over first)]",
    bench_sensing);
