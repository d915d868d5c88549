/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// gpufft-bench sparse-robust: robust mode on noisy captures against a dense FFT + top-k
// in the same run.
//   Signal: k equal-amplitude tones at random bins (on-grid) or at random bins plus one
//   of 16 random fractional offsets (off-grid), random phases, white noise at a total
//   SNR (signal power over noise power over the frame, as the sFFT papers) of --snr dB;
//   each tone then stands snr + 10 log10(n / k) dB over the noise of one bin.
//   The plan is asked for min_snr_db = that per-bin SNR - --margin dB (default 6).
//   CUDA: device-resident input, detect() against cuFFT + radix-select top-k.
//   CPU: detect() against FFTW (all threads) + top-k.
// Every case runs --trials fresh signals and prints the fraction of tones recovered
// (within 0.5 bin), false tones per frame and the median relative amplitude error.
//
// The field cases (bench_field.h: spread<k> with tones 20-80 dB per bin, neighbours,
// carrier, and spread100 at sizes that are not powers of two) ask for min_snr_db =
// --field-min-snr (20): the floor a radio user sets, which takes the dense path.
//
// Beside the baseline (the FFT + top-k), every row gives x_fft: detect() over one FFT
// of the frame alone (FFTW with the same threads on aligned arrays; cuFFT on the same
// device array), timed in turns with it (the median of the reps' ratios; x_fft_min the
// ratio of the minima).
//
// Options: --snr 10, --margin 6, --grid on|off|both (both), --trials 5, --cpu-max 2^22,
// --cases grid,spread,neighbours,carrier,odd (all), --field-min-snr 20,
// --odd-sizes 1e7,3*2^20,1000003.

#include "bench_common.h"
#include "bench_field.h"
#include "bench_pair.h"
#include "core/parallel_for.h"
#include "sensing/sensing_cpu_loops.h"
#include "sparse/robust_checks.h"
#include <gnuradio/gpufft/dense_fft_plan.h>
#include <gnuradio/gpufft/device.h>
#include <gnuradio/gpufft/sparse_fft_plan.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <stdexcept>

#ifdef GPUFFT_HAVE_CUDA
#include "cuda/cuda_resources.h"
#include "sparse/common/sparse_signal_cuda.h"
#endif

using namespace gr::gpufft;
using namespace gpufft_bench;
using cf = std::complex<float>;

namespace {

struct signal_case {
    std::int64_t n = 0, k = 0;
    bool off_grid = false;
    double snr_total_db = 10;
    double noise_var = 0; //!< per sample
    double per_bin_db = 0;
};

//! k equal-amplitude tones (|a| = 1): random bins, one of 16 random offsets off-grid.
gpufft_test::tone_truth make_tones(const signal_case& c, std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    double offsets[16];
    for (double& d : offsets)
        d = c.off_grid ? u(rng) - 0.5 : 0.0;
    gpufft_test::tone_truth t;
    for (std::int64_t j = 0; j < c.k; ++j) {
        const double m = std::floor(u(rng) * double(c.n));
        double f = m + offsets[rng() % 16];
        f = std::fmod(f + double(c.n), double(c.n));
        t.freq.push_back(f);
        t.amp.push_back(std::polar(double(c.n), 2 * M_PI * u(rng)));
    }
    t.bin_noise = c.noise_var * double(c.n);
    return t;
}

struct tally {
    std::int64_t tones = 0, found = 0, false_tones = 0, frames = 0;
    std::vector<double> rel_errors;
    void add(std::int64_t n,
             const gpufft_test::tone_truth& t,
             const std::vector<sparse_tone>& got)
    {
        const auto s = gpufft_test::score_tones(n, t, got);
        tones += std::int64_t(t.freq.size());
        found += s.found;
        false_tones += s.false_tones;
        ++frames;
        // Relative amplitude error of the matched tones.
        for (std::size_t j = 0; j < t.freq.size(); ++j) {
            double best = 0.5;
            int at = -1;
            for (std::size_t i = 0; i < got.size(); ++i) {
                double d = std::fabs(got[i].frequency - t.freq[j]);
                d = std::min(d, double(n) - d);
                if (d <= best) {
                    best = d;
                    at = int(i);
                }
            }
            if (at >= 0)
                rel_errors.push_back(std::abs(got[at].amplitude - t.amp[j]) /
                                     std::abs(t.amp[j]));
        }
    }
    void write(result& r) const
    {
        r.errors["recovered"] = tones ? double(found) / double(tones) : 0;
        r.errors["false_per_frame"] = frames ? double(false_tones) / double(frames) : 0;
        auto e = rel_errors;
        double med = 0;
        if (!e.empty()) {
            std::nth_element(e.begin(), e.begin() + e.size() / 2, e.end());
            med = e[e.size() / 2];
        }
        r.errors["median_rel_amp_error"] = med;
        r.errors["trials"] = double(frames);
    }
};

result make_row(const std::string& backend_name,
                const std::string& device,
                const signal_case& c,
                const sparse_fft_plan& plan)
{
    result r;
    r.engine = "sparse-robust";
    r.backend = backend_name;
    r.device = device;
    r.case_name = c.off_grid ? "off-grid" : "on-grid";
    r.params["n"] = double(c.n);
    r.params["k"] = double(c.k);
    r.params["snr_total_db"] = c.snr_total_db;
    r.params["per_bin_snr_db"] = c.per_bin_db;
    r.params["samples_read"] = double(plan.samples_read());
    r.labels["path"] = plan.dense_fallback() ? "dense" : "sparse";
    return r;
}

sparse_fft_options robust_options(const options& opt, const signal_case& c, backend b)
{
    sparse_fft_options o;
    o.mode = sparse_fft_mode::robust;
    o.backend = b;
    o.device_id = opt.device;
    o.min_snr_db =
        std::clamp(c.per_bin_db - std::stod(opt.get("margin", "6")), 0.0, 200.0);
    return o;
}

sparse_fft_options dense_topk_options(const options& opt, backend b)
{
    sparse_fft_options o;
    o.mode = sparse_fft_mode::exact;
    o.backend = b;
    o.device_id = opt.device;
    o.force_dense = true;
    return o;
}

// x_fft and x_fft_min of a row (see the header).
void put_fft_ratios(result& r, const pair_stats& p)
{
    r.errors["x_fft"] = p.ratio_median;
    r.errors["x_fft_min"] = p.ratio_min;
    r.errors["fft_ms"] = p.base.median_ms;
}

// detect() against one FFTW execute of the frame (all threads, as the plan's dense
// path; 64-byte aligned arrays, FFTW's SIMD codelets).
pair_stats against_fftw(const options& opt,
                        sparse_fft_plan& plan,
                        const std::vector<cf>& x,
                        std::vector<sparse_tone>& got)
{
    dense_fft_options fo;
    fo.backend = backend::cpu;
    dense_fft_plan fft(std::int64_t(x.size()), 1, direction::forward, fo);
    detail::sensing_aligned_vector<cf> xa(x.begin(), x.end()), X(x.size());
    return time_pair([&](int) { plan.detect(x.data(), got); },
                     [&](int) { fft.execute(xa.data(), X.data()); },
                     opt.reps);
}

void bench_cpu(const options& opt, const signal_case& c, int trials)
{
    const std::string dev =
        "cpu: " + cpu_name() + " x" + std::to_string(detail::hardware_threads());
    sparse_fft_plan plan(c.n, c.k, robust_options(opt, c, backend::cpu));
    sparse_fft_plan dense(c.n, c.k, dense_topk_options(opt, backend::cpu));
    std::printf("# %s\n", plan.describe().c_str());
    tally ours;
    std::vector<sparse_tone> got;
    std::vector<cf> x;
    for (int i = 0; i < trials; ++i) {
        const std::uint64_t seed = gpufft_test::fresh_seed();
        const auto t = make_tones(c, seed);
        x = gpufft_test::noisy_tones_fft(c.n, t.freq, t.amp, c.noise_var, seed);
        plan.detect(x.data(), got);
        ours.add(c.n, t, got);
    }
    result r = make_row("cpu", dev, c, plan);
    const auto p = against_fftw(opt, plan, x, got);
    r.time = p.ours;
    put_fft_ratios(r, p);
    std::vector<std::int64_t> bins;
    std::vector<cf> vals;
    r.baseline_name = "fftw-threads+topk";
    r.baseline_ms = time_host([&](int) { dense.execute(x.data(), bins, vals); },
                              std::min(opt.reps, 5),
                              1)
                        .median_ms;
    ours.write(r);
    report(r);
}

#ifdef GPUFFT_HAVE_CUDA
// detect() against cuFFT alone on the same device array, to the stream's end.
template <typename Frame>
pair_stats against_cufft(const options& opt,
                         sparse_fft_plan& plan,
                         std::int64_t n,
                         const Frame& frame,
                         std::vector<sparse_tone>& got)
{
    dense_fft_options fo;
    fo.backend = backend::cuda;
    fo.device_id = opt.device;
    dense_fft_plan fft(n, 1, direction::forward, fo);
    cuda::device_buffer<cf> X(static_cast<std::size_t>(n));
    cuda::stream s;
    return time_pair([&](int i) { plan.detect(frame(i), got, memory::device); },
                     [&](int i) {
                         fft.execute_async(frame(i), X.get(), s.get());
                         s.synchronize();
                     },
                     opt.reps);
}

void bench_cuda(const options& opt, const signal_case& c, int trials)
{
    cuda::device_guard guard(opt.device);
    const std::string dev = device_name(opt.device);
    sparse_fft_plan plan(c.n, c.k, robust_options(opt, c, backend::cuda));
    sparse_fft_plan dense(c.n, c.k, dense_topk_options(opt, backend::cuda));
    std::printf("# %s\n", plan.describe().c_str());
    const int rot = c.n <= (std::int64_t(1) << 28) ? 3 : 2;
    std::vector<cuda::device_buffer<cf>> xs;
    tally ours;
    std::vector<sparse_tone> got;
    for (int i = 0; i < std::max(trials, rot); ++i) {
        const std::uint64_t seed = gpufft_test::fresh_seed();
        const auto t = make_tones(c, seed);
        if (int(xs.size()) < rot)
            xs.emplace_back(std::size_t(c.n));
        cf* x = xs[std::min<std::size_t>(i, xs.size() - 1)].get();
        detail::make_noisy_tones_device(c.n, t.freq, t.amp, c.noise_var, seed, x);
        if (i < trials) {
            plan.detect(x, got, memory::device);
            ours.add(c.n, t, got);
        }
    }
    result r = make_row("cuda", dev, c, plan);
    const auto p = against_cufft(
        opt, plan, c.n, [&](int i) { return xs[i % rot].get(); }, got);
    r.time = p.ours;
    put_fft_ratios(r, p);
    std::vector<std::int64_t> bins;
    std::vector<cf> vals;
    r.baseline_name = "cufft+topk";
    r.baseline_ms =
        time_host(
            [&](int i) { dense.execute(xs[i % rot].get(), bins, vals, memory::device); },
            opt.reps)
            .median_ms;
    ours.write(r);
    report(r);
}
#endif

// A field case's row: the tones found of its tones (a carrier's bins are not tones to
// find, nor false ones), false tones against every component, tones returned.
result field_row(const std::string& be,
                 const std::string& dev,
                 const field_case& f,
                 const sparse_fft_plan& plan,
                 const sparse_fft_options& o,
                 const std::vector<sparse_tone>& got)
{
    result r;
    r.engine = "sparse-robust";
    r.backend = be;
    r.device = dev;
    r.case_name = f.name;
    r.params["n"] = double(f.n);
    r.params["k"] = double(plan.k());
    r.params["min_snr_db"] = o.min_snr_db;
    r.labels["path"] = plan.dense_fallback() ? "dense" : "sparse";
    const auto tones = gpufft_test::score_tones(f.n, f.tones, got);
    const auto all = gpufft_test::score_tones(f.n, f.truth, got);
    r.errors["tones"] = double(f.tones.freq.size());
    r.errors["found"] = tones.found;
    r.errors["false"] = all.false_tones;
    r.errors["returned"] = double(got.size());
    return r;
}

sparse_fft_options field_options(const options& opt, backend b)
{
    sparse_fft_options o;
    o.mode = sparse_fft_mode::robust;
    o.backend = b;
    o.device_id = opt.device;
    o.min_snr_db = std::stod(opt.get("field-min-snr", "20"));
    return o;
}

// k: room for twice every component of the case (a carrier's bins come back as tones:
// a k of the tones alone filled up with them and cut tones off), 64 at least, n / 4 at
// most.
std::int64_t field_k(const field_case& f)
{
    return std::min<std::int64_t>(
        f.n / 4, std::max<std::int64_t>(64, 2 * std::int64_t(f.truth.freq.size())));
}

void bench_field_cpu(const options& opt, const field_case& f)
{
    const std::string dev =
        "cpu: " + cpu_name() + " x" + std::to_string(detail::hardware_threads());
    const auto o = field_options(opt, backend::cpu);
    sparse_fft_plan plan(f.n, field_k(f), o);
    sparse_fft_plan dense(f.n, field_k(f), dense_topk_options(opt, backend::cpu));
    std::printf("# %s: %s\n", f.name.c_str(), plan.describe().c_str());
    const auto x = gpufft_test::noisy_tones_fft(
        f.n, f.truth.freq, f.truth.amp, 1.0, gpufft_test::fresh_seed());
    std::vector<sparse_tone> got;
    plan.detect(x.data(), got);
    result r = field_row("cpu", dev, f, plan, o, got);
    const auto p = against_fftw(opt, plan, x, got);
    r.time = p.ours;
    put_fft_ratios(r, p);
    std::vector<std::int64_t> bins;
    std::vector<cf> vals;
    r.baseline_name = "fftw-threads+topk";
    r.baseline_ms = time_host([&](int) { dense.execute(x.data(), bins, vals); },
                              std::min(opt.reps, 5),
                              1)
                        .median_ms;
    report(r);
}

#ifdef GPUFFT_HAVE_CUDA
void bench_field_cuda(const options& opt, const field_case& f)
{
    cuda::device_guard guard(opt.device);
    const auto o = field_options(opt, backend::cuda);
    sparse_fft_plan plan(f.n, field_k(f), o);
    sparse_fft_plan dense(f.n, field_k(f), dense_topk_options(opt, backend::cuda));
    std::printf("# %s: %s\n", f.name.c_str(), plan.describe().c_str());
    cuda::device_buffer<cf> x(std::size_t(f.n));
    detail::make_noisy_tones_device(
        f.n, f.truth.freq, f.truth.amp, 1.0, gpufft_test::fresh_seed(), x.get());
    GPUFFT_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<sparse_tone> got;
    plan.detect(x.get(), got, memory::device);
    result r = field_row("cuda", device_name(opt.device), f, plan, o, got);
    const auto p = against_cufft(
        opt, plan, f.n, [&](int) { return x.get(); }, got);
    r.time = p.ours;
    put_fft_ratios(r, p);
    std::vector<std::int64_t> bins;
    std::vector<cf> vals;
    r.baseline_name = "cufft+topk";
    r.baseline_ms =
        time_host([&](int) { dense.execute(x.get(), bins, vals, memory::device); },
                  opt.reps)
            .median_ms;
    report(r);
}
#endif

std::vector<std::string> split_list(const std::string& all)
{
    std::vector<std::string> v;
    for (std::size_t a = 0; a < all.size();) {
        const std::size_t b = std::min(all.find(',', a), all.size());
        v.push_back(all.substr(a, b - a));
        a = b + 1;
    }
    return v;
}

int bench_sparse_robust(const options& opt)
{
    std::vector<std::int64_t> sizes = opt.sizes;
    if (sizes.empty())
        sizes = { std::int64_t(1) << 22, std::int64_t(1) << 27 };
    std::vector<std::int64_t> ks = opt.ks;
    if (ks.empty())
        ks = { 50, 1000 };
    const int trials = std::stoi(opt.get("trials", "5"));
    const double snr = std::stod(opt.get("snr", "10"));
    const std::string grid = opt.get("grid", "both");
    if (grid != "on" && grid != "off" && grid != "both")
        throw std::invalid_argument("--grid: must be on, off or both");
    const std::int64_t cpu_max = parse_size(opt.get("cpu-max", "2^22"));
    const bool want_cpu = opt.backend == "all" || opt.backend == "cpu";
    const bool want_cuda = opt.backend == "all" || opt.backend == "cuda";
    const auto cases = split_list(opt.get("cases", "grid,spread,neighbours,carrier,odd"));
    const auto wanted = [&](const std::string& c) {
        return std::find(cases.begin(), cases.end(), c) != cases.end();
    };
    for (const auto& c : cases)
        if (c != "grid" && c != "spread" && c != "neighbours" && c != "carrier" &&
            c != "odd")
            throw std::invalid_argument(
                "--cases: grid, spread, neighbours, carrier or odd, not " + c);
    int failures = 0;
    // One field case on each backend asked for (the CPU up to --cpu-max).
    const auto field = [&](const std::string& name, std::int64_t n) {
        try {
            const auto f = make_field_case(name, n, gpufft_test::fresh_seed());
#ifdef GPUFFT_HAVE_CUDA
            if (want_cuda && cuda_available(opt.device))
                bench_field_cuda(opt, f);
#endif
            if (want_cpu && n <= cpu_max)
                bench_field_cpu(opt, f);
        } catch (const std::exception& e) {
            std::fprintf(stderr,
                         "sparse-robust %s n=%lld: %s\n",
                         name.c_str(),
                         (long long)n,
                         e.what());
            ++failures;
        }
    };
    for (auto n : sizes) {
        if (wanted("spread"))
            for (auto k : ks)
                if (4 * k <= n)
                    field("spread" + std::to_string(k), n);
        if (wanted("neighbours"))
            field("neighbours", n);
        if (wanted("carrier"))
            field("carrier", n);
    }
    if (wanted("odd"))
        for (const auto& s : split_list(opt.get("odd-sizes", "1e7,3*2^20,1000003")))
            field("spread100", parse_size(s));
    for (auto n : wanted("grid") ? sizes : std::vector<std::int64_t>{})
        for (auto k : ks)
            for (const bool off : { false, true }) {
                if ((off && grid == "on") || (!off && grid == "off") || 4 * k > n)
                    continue;
                signal_case c;
                c.n = n;
                c.k = k;
                c.off_grid = off;
                c.snr_total_db = snr;
                c.noise_var = double(k) / std::pow(10.0, snr / 10.0);
                c.per_bin_db = snr + 10.0 * std::log10(double(n) / double(k));
                try {
#ifdef GPUFFT_HAVE_CUDA
                    if (want_cuda && cuda_available(opt.device))
                        bench_cuda(opt, c, trials);
#endif
                    if (want_cpu && n <= cpu_max)
                        bench_cpu(opt, c, std::min(trials, 3));
                } catch (const std::exception& e) {
                    std::fprintf(stderr,
                                 "sparse-robust n=%lld k=%lld: %s\n",
                                 (long long)n,
                                 (long long)k,
                                 e.what());
                    ++failures;
                }
            }
    (void)want_cuda;
    print_table();
    return failures ? 1 : 0;
}

} // namespace

GPUFFT_BENCH_COMMAND(
    sparse_robust,
    "robust sparse FFT on noisy tones and field cases vs cuFFT (+ top-k) and FFTW "
    "(+ top-k) [--sizes 2^22,2^27 --k 50,1000 --snr 10 --margin 6 --grid on|off|both "
    "--trials 5 --cpu-max 2^22 --cases grid,spread,neighbours,carrier,odd "
    "--field-min-snr 20 --odd-sizes 1e7,3*2^20,1000003]",
    bench_sparse_robust);
