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
#include "reference.h"
#include "test_harness.h"
#include <gnuradio/gpufft/dense_fft_plan.h>
#include <gnuradio/gpufft/device.h>
#include <gnuradio/gpufft/large_fft_plan.h>
#include <gnuradio/gpufft/nufft3_plan.h>
#include <gnuradio/gpufft/sparse_fft_plan.h>
#include <gnuradio/gpufft/spectrum_integrator.h>
#include <cstdio>
#include <random>

#ifdef GPUFFT_HAVE_CUDA
#include "cuda/cuda_resources.h"
#endif

using namespace gr::gpufft;
using namespace gpufft_test;

namespace {

void require_gpu()
{
#ifndef GPUFFT_HAVE_CUDA
    GPUFFT_SKIP("built without CUDA");
#endif
    if (!cuda_available(0))
        GPUFFT_SKIP("no usable CUDA device: " + describe_backend(0));
}

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
    // plan try.
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
