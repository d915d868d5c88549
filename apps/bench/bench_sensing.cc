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

#include "bench_common.h"
#include "core/parallel_for.h"
#include "sparse/robust_checks.h"
#include <gnuradio/gpufft/dense_fft_plan.h>
#include <gnuradio/gpufft/device.h>
#include <gnuradio/gpufft/sensing_plan.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

#ifdef GPUFFT_HAVE_CUDA
#include "cuda/cuda_resources.h"
#include "sparse/sparse_signal_cuda.h"
#endif

using namespace gr::gpufft;
using namespace gpufft_bench;
using cf = std::complex<float>;

namespace {

// A field case: its components as tones (a carrier is many on-grid tones of random
// amplitude, i.e. band-limited Gaussian noise) and how to score them.
struct field_case {
    std::string name;
    std::int64_t n = 0;
    gpufft_test::tone_truth truth;
    std::vector<std::pair<double, double>> components; //!< [lo, hi] bins, signed
};

double signed_bin(double f, std::int64_t n)
{
    return f >= double(n) / 2 ? f - double(n) : f;
}

std::complex<double> tone_amp(double snr_db, std::int64_t n, std::mt19937_64& rng)
{
    std::uniform_real_distribution<double> u(0, 2 * M_PI);
    return std::polar(std::sqrt(std::pow(10.0, snr_db / 10.0) * double(n)), u(rng));
}

void add_tone(field_case& c, double f, double snr_db, std::mt19937_64& rng)
{
    f = std::fmod(f + double(c.n), double(c.n));
    c.truth.freq.push_back(f);
    c.truth.amp.push_back(tone_amp(snr_db, c.n, rng));
    const double b = signed_bin(f, c.n);
    c.components.push_back({ b, b });
}

field_case make_case(const std::string& name, std::int64_t n, std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    field_case c;
    c.name = name;
    c.n = n;
    c.truth.bin_noise = double(n); // noise variance 1 a sample
    double offsets[8];
    for (double& d : offsets)
        d = u(rng) - 0.5;
    const auto random_bin = [&] {
        return std::floor(u(rng) * double(n) * 0.9 + 0.05 * double(n)) +
               offsets[rng() % 8];
    };
    if (name == "spread50" || name == "spread1000") {
        const int k = name == "spread50" ? 50 : 1000;
        for (int j = 0; j < k; ++j)
            add_tone(c, random_bin(), 20 + 60 * u(rng), rng);
    } else if (name == "neighbours") {
        const double f0 = random_bin();
        add_tone(c, f0, 70, rng);
        for (double d : { 3.0, 10.0, 50.0, 300.0 })
            add_tone(c, f0 + d + 0.3, 35, rng);
    } else if (name == "carrier") {
        // 0.2 % of the band at 30 dB per bin, and 5 tones at 20-60 dB.
        const std::int64_t width = std::max<std::int64_t>(16, n / 500);
        const std::int64_t start = std::int64_t(u(rng) * double(n / 2));
        std::normal_distribution<double> g(0, std::sqrt(0.5 * 1000.0 * double(n)));
        for (std::int64_t b = start; b < start + width; ++b) {
            c.truth.freq.push_back(double(b));
            c.truth.amp.push_back({ g(rng), g(rng) });
        }
        c.components.push_back(
            { signed_bin(double(start), n), signed_bin(double(start + width - 1), n) });
        for (int j = 0; j < 5; ++j)
            add_tone(c, double(n / 2) + random_bin() / 2, 20 + 10 * j, rng);
    } else {
        throw std::invalid_argument("--cases: unknown case " + name);
    }
    return c;
}

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

sensing_options plan_options(const options& opt, backend b)
{
    sensing_options o;
    o.backend = b;
    o.device_id = opt.device;
    o.max_signals = std::stoi(opt.get("max-signals", "2048"));
    return o;
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

void bench_cpu(const options& opt, const field_case& c)
{
    const std::string dev =
        "cpu: " + cpu_name() + " x" + std::to_string(detail::hardware_threads());
    const auto x = gpufft_test::noisy_tones_fft(c.n, c.truth.freq, c.truth.amp, 1.0, 7);
    sensing_plan plan(c.n, plan_options(opt, backend::cpu));
    std::printf("# %s\n", plan.describe().c_str());
    sensing_result got;
    plan.detect(x.data(), got);
    result r = make_row("cpu", dev, c);
    score(c, got, r);
    r.time = time_host([&](int) { plan.detect(x.data(), got); }, opt.reps);
    dense_fft_options fo;
    fo.backend = backend::cpu;
    fo.threads = c.n < (1 << 18) ? 1 : 0; // as the plan's FFT
    dense_fft_plan fft(c.n, 1, direction::forward, fo);
    std::vector<cf> X(x.size());
    r.baseline_name = "fftw";
    r.baseline_ms =
        time_host([&](int) { fft.execute(x.data(), X.data()); }, opt.reps).median_ms;
    r.errors["x_fft"] = r.time.median_ms / r.baseline_ms;
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
    sensing_plan plan(c.n, plan_options(opt, backend::cuda));
    std::printf("# %s\n", plan.describe().c_str());
    sensing_result got;
    plan.detect(x.get(), got, memory::device);
    result r = make_row("cuda", dev, c);
    score(c, got, r);
    r.time = time_host([&](int) { plan.detect(x.get(), got, memory::device); }, opt.reps);
    dense_fft_options fo;
    fo.backend = backend::cuda;
    fo.device_id = opt.device;
    dense_fft_plan fft(c.n, 1, direction::forward, fo);
    cuda::stream s;
    r.baseline_name = "cufft";
    r.baseline_ms = time_host(
                        [&](int) {
                            fft.execute_async(x.get(), X.get(), s.get());
                            s.synchronize();
                        },
                        opt.reps)
                        .median_ms;
    r.errors["x_fft"] = r.time.median_ms / r.baseline_ms;
    report(r);
}
#endif

int bench_sensing(const options& opt)
{
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
                const auto c = make_case(name, n, 12345 + std::uint64_t(n));
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
        gpu_sizes = { std::int64_t(1) << 20,
                      std::int64_t(1) << 24,
                      std::int64_t(1) << 27 };
        cpu_sizes = { std::int64_t(1) << 16, std::int64_t(1) << 20 };
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

GPUFFT_BENCH_COMMAND(sensing,
                     "sensing plan (signals per frame) vs one FFT of the frame, field "
                     "cases [--sizes 2^20,2^24,2^27 (cuda) 2^16,2^20 (cpu) "
                     "--cases spread50,spread1000,neighbours,carrier --max-signals 2048]",
                     bench_sensing);
