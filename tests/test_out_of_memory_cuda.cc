/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Running out of GPU memory in every engine: the test holds all but a little of the
// card, then asks each engine for more than is left. Each must throw a memory_error
// that names the engine, the allocation's size and the device's free memory (not a bare
// "cudaMalloc failed", not a crash), and the device must stay usable afterwards.

#include "core/memory_error.h"
#include "gpu_skip.h"
#include "reference.h"
#include "stream/engine_failure.h"
#include "stream/sparse_frame_analyzer.h"
#include "stream/spectrometer_setup.h"
#include "test_harness.h"
#include <gnuradio/gpufft/dense_fft_plan.h>
#include <gnuradio/gpufft/device.h>
#include <gnuradio/gpufft/large_fft_plan.h>
#include <gnuradio/gpufft/nufft3_plan.h>
#include <gnuradio/gpufft/sparse_fft_plan.h>
#include <gnuradio/gpufft/spectrum_integrator.h>
#include <algorithm>
#include <cstdio>
#include <random>

#ifdef GPUFFT_HAVE_CUDA
#include "cuda/cuda_resources.h"
#endif

using namespace gr::gpufft;
using namespace gpufft_test;

namespace {

#ifdef GPUFFT_HAVE_CUDA
// Holds all of device 0's free memory but `leave` bytes for its lifetime.
class card_hog
{
public:
    explicit card_hog(std::size_t leave)
    {
        cuda::device_guard g(0);
        std::size_t free_b = 0, total_b = 0;
        GPUFFT_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
        // Free memory is allocated in pages; step down until the driver agrees.
        for (std::size_t want = free_b > leave ? free_b - leave : 0; want > (1u << 26);
             want -= std::size_t(1) << 24) {
            try {
                d_hold.allocate(want, "the test's hog");
                break;
            } catch (const detail::memory_error&) {
            }
        }
        GPUFFT_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
        std::printf("  holding %.1f GiB; %.0f MiB left free of %.1f GiB\n",
                    double(d_hold.bytes()) / double(1ull << 30),
                    double(free_b) / double(1ull << 20),
                    double(total_b) / double(1ull << 30));
        d_total = total_b;
    }
    std::size_t total() const { return d_total; }

private:
    cuda::device_buffer<char> d_hold;
    std::size_t d_total = 0;
};
#endif

// What is left to the engines while the card is held: the CUDA context's own needs
// (cuFFT's module, the engines' small buffers) fit; the engines' big buffers do not.
constexpr std::size_t left_free = std::size_t(192) << 20;

template <typename F>
void expect_out_of_memory(const char* engine, F&& f)
{
    try {
        f();
    } catch (const detail::memory_error& e) {
        const std::string m = e.what();
        std::printf("  %s -> %s\n", engine, m.c_str());
        GPUFFT_CHECK(m.find(engine) != std::string::npos);
        GPUFFT_CHECK(m.find("out of GPU memory") != std::string::npos);
        GPUFFT_CHECK(m.find("free of") != std::string::npos);
        return;
    } catch (const std::exception& e) {
        GPUFFT_FAIL(engine << ": threw something other than a memory_error: "
                           << e.what());
    }
    GPUFFT_FAIL(engine << ": no error although the card was held");
}

} // namespace

GPUFFT_TEST(dense_out_of_memory_then_usable)
{
    require_gpu();
#ifdef GPUFFT_HAVE_CUDA
    const std::int64_t n = std::int64_t(1) << 26; // 512 MiB a buffer
    dense_fft_options o;
    o.backend = backend::cuda;
    std::vector<std::complex<float>> x = random_complex<float>(std::size_t(n), 1);
    std::vector<std::complex<float>> y(std::size_t(n), poison<float>());
    {
        card_hog hog(left_free);
        expect_out_of_memory("dense_fft_plan", [&] {
            dense_fft_plan p(n, 1, direction::forward, o);
            p.execute(x.data(), y.data());
        });
    }
    // Released: the same plan now runs, so the failure left nothing sticky behind.
    dense_fft_plan p(n, 1, direction::forward, o);
    p.execute(x.data(), y.data());
    GPUFFT_CHECK(std::isfinite(y[0].real()) &&
                 std::isfinite(y[std::size_t(n) - 1].imag()));
#endif
}

GPUFFT_TEST(sparse_out_of_memory)
{
    require_gpu();
#ifdef GPUFFT_HAVE_CUDA
    const std::int64_t n = std::int64_t(1) << 27; // the dense paths hold 2 GiB
    const auto x = random_complex<float>(std::size_t(n), fresh_seed());
    card_hog hog(left_free);
    for (auto mode : { sparse_fft_mode::exact, sparse_fft_mode::robust }) {
        sparse_fft_options o;
        o.backend = backend::cuda;
        o.mode = mode;
        o.force_dense = true;
        expect_out_of_memory("sparse_fft_plan", [&] {
            sparse_fft_plan p(n, 100, o);
            std::vector<std::int64_t> bins;
            std::vector<std::complex<float>> values;
            p.execute(x.data(), bins, values);
        });
    }
#endif
}

GPUFFT_TEST(nufft3_out_of_memory_in_set_points)
{
    require_gpu();
#ifdef GPUFFT_HAVE_CUDA
    // Sources and targets spread over +-1e4: a fine grid of some 1e8 cells (over a GiB
    // of complex128) needs far more than is left; memory_budget (the card) lets the
    // plan try. method grid: under automatic the plan takes the direct sum where no
    // grid fits, which needs no such memory.
    const std::size_t m = 4096;
    std::mt19937_64 rng(fresh_seed());
    std::uniform_real_distribution<double> u(-1e4, 1e4);
    std::vector<double> x(m), s(m);
    for (auto& v : x)
        v = u(rng);
    for (auto& v : s)
        v = u(rng);
    card_hog hog(left_free);
    nufft3_options o;
    o.backend = backend::cuda;
    o.memory_budget = hog.total();
    o.method = nufft_method::grid;
    expect_out_of_memory("nufft3_plan", [&] {
        nufft3_plan p(1, 1e-6, o);
        p.set_points(std::int64_t(m), x.data(), std::int64_t(m), s.data());
        std::vector<std::complex<double>> c(m, { 1.0, 0.0 }), F(m);
        p.execute(c.data(), F.data());
    });
#endif
}

GPUFFT_TEST(large_fft_out_of_memory)
{
    require_gpu();
#ifdef GPUFFT_HAVE_CUDA
    const std::int64_t n = std::int64_t(1) << 28;
    card_hog hog(left_free);
    large_fft_options o;
    o.backend = backend::cuda;
    o.memory_budget = hog.total() / 2; // allowed (below the card), not there to take
    expect_out_of_memory("large_fft_plan", [&] {
        large_fft_plan p({ n }, direction::forward, o);
        std::vector<std::complex<float>> x(std::size_t(n), { 1.f, 0.f });
        p.execute(x.data(), x.data());
    });
#endif
}

GPUFFT_TEST(spectrum_integrator_out_of_memory)
{
    require_gpu();
#ifdef GPUFFT_HAVE_CUDA
    const std::int64_t n = std::int64_t(1) << 28;
    card_hog hog(left_free);
    spectrum_integrator_options o;
    o.backend = backend::cuda;
    o.memory_budget = hog.total() / 2;
    expect_out_of_memory("spectrum_integrator", [&] {
        spectrum_integrator s(n, 0, n, 1024, o);
        std::vector<std::complex<float>> x(std::size_t(n), { 1.f, 0.f });
        s.accumulate(x.data());
    });
#endif
}

// What the blocks do with backend "auto" on a card that cannot hold their engine: one
// warning, and the same work done on the CPU (docs/reliability.md, "Faults inside
// blocks"). The blocks hold exactly these objects: the sparse_fft block its analyzer,
// the NUFFT blocks a plan run through cpu_fallback, the accumulator its integrator.
namespace {
struct warnings {
    std::vector<std::string> lines;
    log_handler handler()
    {
        return [this](log_level l, const std::string& m) {
            if (l == log_level::warning)
                lines.push_back(m);
        };
    }
    bool moved(const char* block) const
    {
        return lines.size() == 1 && lines[0].find(block) != std::string::npos &&
               lines[0].find("out of GPU memory") != std::string::npos &&
               lines[0].find("continues on the CPU") != std::string::npos;
    }
};
} // namespace

GPUFFT_TEST(auto_sparse_block_continues_on_cpu)
{
    require_gpu();
#ifdef GPUFFT_HAVE_CUDA
    // k = n / 64: exact mode takes the dense path (FFT + top-k), 1 GiB on the card.
    const int n = 1 << 26;
    const int k = n / 64;
    const int tones = 8;
    const std::uint64_t seed = fresh_seed();
    std::printf("  seed %llu\n", static_cast<unsigned long long>(seed));
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int> bin(0, n - 1);
    std::vector<std::int64_t> bins;
    while (int(bins.size()) < tones) {
        const int b = bin(rng);
        if (std::find(bins.begin(), bins.end(), b) == bins.end())
            bins.push_back(b);
    }
    // k tones on those bins, made by an inverse FFT on the CPU.
    std::vector<std::complex<float>> X(static_cast<std::size_t>(n), { 0.f, 0.f });
    std::vector<std::complex<float>> x(static_cast<std::size_t>(n), poison<float>());
    for (int j = 0; j < tones; ++j)
        X[std::size_t(bins[j])] = std::polar(1.0f + float(j), float(j));
    dense_fft_options cpu;
    cpu.backend = backend::cpu;
    dense_fft_plan(n, 1, direction::backward, cpu).execute(X.data(), x.data());
    card_hog hog(left_free);
    warnings log;
    stream::sparse_frame_settings s;
    s.fft_size = n;
    s.k = k;
    s.samp_rate = double(n);
    s.display_bins = 64;
    s.backend = "auto";
    s.mode = "exact";
    stream::sparse_frame_analyzer a(s, log.handler());
    GPUFFT_CHECK(a.analyze(x.data(), 0, 0.0, double(n)));
    std::printf("  sparse_fft: backend %s; %s\n",
                a.backend().c_str(),
                log.lines.empty() ? "(no warning)" : log.lines[0].c_str());
    GPUFFT_CHECK(a.backend() == "cpu");
    GPUFFT_CHECK(log.moved("sparse_fft"));
    GPUFFT_CHECK(a.frames_processed() == 1 && a.frames_skipped() == 0);
    const auto& got = a.entries().bins;
    for (std::int64_t b : bins)
        GPUFFT_CHECK(std::find(got.begin(), got.end(), b) != got.end());
#endif
}

GPUFFT_TEST(auto_nufft_blocks_continue_on_cpu)
{
    require_gpu();
#ifdef GPUFFT_HAVE_CUDA
    // A fine grid of ~2e7 cells (over 300 MiB of complex128) cannot be had on the held
    // card; on the CPU it is quick. The plan is made first, as the blocks make theirs.
    // method grid: automatic would take the direct sum on the card, where no grid fits.
    const std::size_t m = 2048;
    const std::uint64_t seed = fresh_seed();
    std::printf("  seed %llu\n", static_cast<unsigned long long>(seed));
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-4e3, 4e3), a(-1.0, 1.0);
    std::vector<double> x(m), s(m);
    std::vector<std::complex<double>> c(m), F(m, poison<double>());
    for (std::size_t j = 0; j < m; ++j) {
        x[j] = u(rng);
        s[j] = u(rng);
        c[j] = { a(rng), a(rng) };
    }
    warnings log;
    stream::cpu_fallback fallback(backend::automatic, "nufft3_spectrum", log.handler());
    const std::size_t total = get_device_info(0).total_memory;
    auto make = [&](backend b) {
        nufft3_options o;
        o.backend = b;
        o.memory_budget = total;
        o.method = nufft_method::grid;
        return nufft3_plan(1, 1e-9, o);
    };
    nufft3_plan p = fallback.make(make);
    GPUFFT_CHECK(p.backend() == backend::cuda);
    card_hog hog(left_free);
    std::string refused;
    GPUFFT_CHECK(fallback.run(
        [&] {
            p.set_points(std::int64_t(m), x.data(), std::int64_t(m), s.data());
            p.execute(c.data(), F.data());
        },
        [&] { p = make(fallback.backend()); },
        refused));
    GPUFFT_CHECK(p.backend() == backend::cpu);
    GPUFFT_CHECK(log.moved("nufft3_spectrum"));
    // Every target written, and right: a direct sum in double on a sample of them.
    double err = 0, ref = 0;
    for (std::size_t k = 0; k < m; ++k) {
        GPUFFT_CHECK(std::isfinite(F[k].real()) && std::isfinite(F[k].imag()));
        if (k % 64)
            continue;
        std::complex<double> d = 0;
        for (std::size_t j = 0; j < m; ++j)
            d += c[j] * std::polar(1.0, -x[j] * s[k]);
        err += std::norm(F[k] - d);
        ref += std::norm(d);
    }
    std::printf("  nufft3 on the CPU after the move: error %.2e\n", std::sqrt(err / ref));
    GPUFFT_CHECK(std::sqrt(err / ref) < 1e-8);
#endif
}

GPUFFT_TEST(auto_accumulator_continues_on_cpu)
{
    require_gpu();
#ifdef GPUFFT_HAVE_CUDA
    const std::int64_t n = std::int64_t(1) << 26;
    card_hog hog(left_free);
    // A budget the card allows but cannot give now, as a user would set it.
    stream::spectrometer_settings settings;
    settings.fft_size = n;
    settings.n_integrations = 2;
    settings.window = "hann";
    settings.samp_rate = 1e6;
    settings.source_name = "";
    settings.memory_budget = hog.total() / 2;
    settings.file_format = "fil";
    auto setup = stream::checked_spectrometer_setup(settings);
    warnings log;
    auto integrator = stream::make_spectrometer_integrator(setup, log.handler());
    std::printf("  accumulator: backend %s; %s\n",
                to_string(integrator->backend()).c_str(),
                log.lines.empty() ? "(no warning)" : log.lines[0].c_str());
    GPUFFT_CHECK(integrator->backend() == backend::cpu);
    GPUFFT_CHECK(!setup.config.pinned);
    GPUFFT_CHECK(log.moved("large_fft_accumulator"));
#endif
}

GPUFFT_TEST(budget_larger_than_the_card_is_refused)
{
    require_gpu();
    const std::size_t total = get_device_info(0).total_memory;
    large_fft_options o;
    o.backend = backend::cuda;
    o.memory_budget = 2 * total;
    GPUFFT_CHECK_THROWS(large_fft_plan({ std::int64_t(1) << 20 }, direction::forward, o),
                        std::invalid_argument,
                        "memory_budget");
    spectrum_integrator_options so;
    so.backend = backend::cuda;
    so.memory_budget = 2 * total;
    GPUFFT_CHECK_THROWS(spectrum_integrator(1 << 20, 0, 1 << 20, 256, so),
                        std::invalid_argument,
                        "memory_budget");
}

GPUFFT_TEST_MAIN()
