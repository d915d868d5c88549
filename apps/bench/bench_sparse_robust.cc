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
// Options: --snr 10, --margin 6, --grid on|off|both (both), --trials 5, --cpu-max 2^22.

#include "bench_common.h"
#include "core/parallel_for.h"
#include "sparse/robust_checks.h"
#include <gnuradio/gpufft/device.h>
#include <gnuradio/gpufft/sparse_fft_plan.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <stdexcept>

#ifdef GPUFFT_HAVE_CUDA
#include "cuda/cuda_resources.h"
#include "sparse/sparse_signal_cuda.h"
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
    r.time = time_host([&](int) { plan.detect(x.data(), got); }, opt.reps);
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
    r.time = time_host(
        [&](int i) { plan.detect(xs[i % rot].get(), got, memory::device); }, opt.reps);
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
    int failures = 0;
    for (auto n : sizes)
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
    "robust sparse FFT on noisy tones vs cuFFT + top-k and FFTW + top-k "
    "[--sizes 2^22,2^27 --k 50,1000 --snr 10 --margin 6 --grid on|off|both "
    "--trials 5 --cpu-max 2^22]",
    bench_sparse_robust);
