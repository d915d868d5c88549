/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Device inputs filled on the legacy default stream, as a caller's cudaMemcpy, kernel,
// CuPy or torch fill them by default, must be read after that work, although the plans
// run on non-blocking streams. Each case holds the default stream with a 200 ms host
// function, queues the copy of the input behind it, and calls the plan at once: a plan
// that did not wait would read the poisoned buffer. The answers must equal the same
// plan's on host input.

#include "gpu_skip.h"
#include "reference.h"
#include "test_harness.h"
#include <gnuradio/gpufft/dense_fft_plan.h>
#include <gnuradio/gpufft/device.h>
#include <gnuradio/gpufft/nufft3_plan.h>
#include <gnuradio/gpufft/sparse_fft_plan.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <thread>

#ifdef GPUFFT_HAVE_CUDA
#include "cuda/cuda_check.h"
#include "cuda/cuda_resources.h"
#endif

using namespace gr::gpufft;
using namespace gpufft_test;
using cf = std::complex<float>;
using cd = std::complex<double>;

namespace {

#ifdef GPUFFT_HAVE_CUDA
//! A device copy of `host`, poisoned (all bits set: NaN), whose real contents arrive
//! on the legacy default stream 200 ms after this returns.
template <typename T>
class late_upload
{
public:
    explicit late_upload(const std::vector<T>& host)
        : d_dev(host.size(), "the test's input"),
          d_pinned(host.size(), "the test's input")
    {
        std::copy(host.begin(), host.end(), d_pinned.get());
        GPUFFT_CUDA_CHECK(cudaMemset(d_dev.get(), 0xff, d_dev.bytes()));
        GPUFFT_CUDA_CHECK(cudaDeviceSynchronize());
        GPUFFT_CUDA_CHECK(cudaLaunchHostFunc(
            cudaStreamLegacy,
            [](void*) { std::this_thread::sleep_for(std::chrono::milliseconds(200)); },
            nullptr));
        GPUFFT_CUDA_CHECK(cudaMemcpyAsync(d_dev.get(),
                                          d_pinned.get(),
                                          d_dev.bytes(),
                                          cudaMemcpyHostToDevice,
                                          cudaStreamLegacy));
    }
    ~late_upload() { cudaDeviceSynchronize(); }
    T* get() const { return d_dev.get(); }

private:
    cuda::device_buffer<T> d_dev;
    cuda::pinned_buffer<T> d_pinned;
};

template <typename T>
std::vector<T> download(const T* dev, std::size_t n)
{
    std::vector<T> h(n);
    GPUFFT_CUDA_CHECK(cudaMemcpy(h.data(), dev, n * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
}
#endif

//! Tones at random frequencies in noise, or (on_grid) on bins without noise: what
//! robust and exact mode are for.
std::vector<cf> tones(std::int64_t n, int count, bool on_grid, std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> g(0.0, on_grid ? 0.0 : 1e-3);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::vector<double> f(count);
    for (auto& v : f)
        v = on_grid ? std::floor(u(rng) * double(n)) : u(rng) * double(n);
    std::vector<cf> x(static_cast<std::size_t>(n));
    const double pi2 = 2.0 * std::acos(-1.0);
    for (std::int64_t t = 0; t < n; ++t) {
        cd v(g(rng), g(rng));
        for (double fj : f)
            v += std::polar(1.0, pi2 * std::fmod(fj * double(t), double(n)) / double(n));
        x[std::size_t(t)] = cf(v);
    }
    return x;
}

} // namespace

GPUFFT_TEST(dense_waits_for_the_default_stream)
{
    require_gpu();
#ifdef GPUFFT_HAVE_CUDA
    const std::int64_t n = std::int64_t(1) << 20;
    const std::uint64_t seed = fresh_seed();
    std::printf("  seed %llu\n", static_cast<unsigned long long>(seed));
    const auto x = random_complex<float>(std::size_t(n), seed);
    dense_fft_options o;
    o.backend = backend::cuda;
    dense_fft_plan p(n, 1, direction::forward, o);
    std::vector<cf> want(std::size_t(n), poison<float>());
    p.execute(x.data(), want.data());
    late_upload<cf> in(x);
    cuda::device_buffer<cf> out(std::size_t(n), "the test's output");
    p.execute(in.get(), out.get(), memory::device);
    const auto got = download(out.get(), std::size_t(n));
    const double err = rel_l2_error(got.data(), want.data(), std::size_t(n));
    std::printf("  dense: device input against host input %.2e\n", err);
    GPUFFT_CHECK(err < 1e-6);
#endif
}

GPUFFT_TEST(sparse_waits_for_the_default_stream)
{
    require_gpu();
#ifdef GPUFFT_HAVE_CUDA
    const std::int64_t n = std::int64_t(1) << 20;
    const std::uint64_t seed = fresh_seed();
    std::printf("  seed %llu\n", static_cast<unsigned long long>(seed));
    for (auto mode : { sparse_fft_mode::exact, sparse_fft_mode::robust }) {
        const auto x = tones(n, 12, mode == sparse_fft_mode::exact, seed);
        for (bool dense : { false, true }) {
            sparse_fft_options o;
            o.backend = backend::cuda;
            o.mode = mode;
            o.force_dense = dense;
            sparse_fft_plan p(n, 16, o);
            const char* name = mode == sparse_fft_mode::exact ? "exact" : "robust";
            if (mode == sparse_fft_mode::robust) {
                std::vector<sparse_tone> want, got;
                p.detect(x.data(), want);
                late_upload<cf> in(x);
                p.detect(in.get(), got, memory::device);
                std::printf("  %s%s: %zu tones from host input, %zu from device input\n",
                            name,
                            dense ? " dense" : "",
                            want.size(),
                            got.size());
                GPUFFT_CHECK(!want.empty() && got.size() == want.size());
                // Equal but for the order of float atomics (which a sanitizer changes).
                const auto by_freq = [](const sparse_tone& a, const sparse_tone& b) {
                    return a.frequency < b.frequency;
                };
                std::sort(want.begin(), want.end(), by_freq);
                std::sort(got.begin(), got.end(), by_freq);
                for (std::size_t i = 0; i < want.size() && i < got.size(); ++i)
                    GPUFFT_CHECK(std::abs(got[i].frequency - want[i].frequency) < 1e-4 &&
                                 std::abs(got[i].amplitude - want[i].amplitude) <
                                     1e-4 * std::abs(want[i].amplitude));
            } else {
                std::vector<std::int64_t> want_bins, got_bins;
                std::vector<cf> want_values, got_values;
                p.execute(x.data(), want_bins, want_values);
                late_upload<cf> in(x);
                p.execute(in.get(), got_bins, got_values, memory::device);
                std::printf("  %s%s: %zu coefficients from host input, %zu from device\n",
                            name,
                            dense ? " dense" : "",
                            want_bins.size(),
                            got_bins.size());
                GPUFFT_CHECK(!want_bins.empty() && got_bins == want_bins);
                double peak = 0;
                for (const cf& v : want_values)
                    peak = std::max(peak, double(std::abs(v)));
                for (std::size_t i = 0; i < want_values.size() && i < got_values.size();
                     ++i)
                    GPUFFT_CHECK(std::abs(got_values[i] - want_values[i]) < 1e-5 * peak);
            }
        }
    }
#endif
}

GPUFFT_TEST(nufft3_waits_for_the_default_stream)
{
    require_gpu();
#ifdef GPUFFT_HAVE_CUDA
    const std::size_t m = 100000, nt = 20000;
    const std::uint64_t seed = fresh_seed();
    std::printf("  seed %llu\n", static_cast<unsigned long long>(seed));
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::vector<double> x(m), s(nt);
    std::vector<cd> c(m);
    for (auto& v : x)
        v = 3.14 * u(rng);
    for (auto& v : s)
        v = 2000.0 * u(rng);
    for (auto& v : c)
        v = cd(u(rng), u(rng));
    nufft3_options o;
    o.backend = backend::cuda;
    o.precision = precision::double_;
    nufft3_plan p(1, 1e-9, o);
    std::vector<cd> want(nt, poison<double>());
    p.set_points(std::int64_t(m), x.data(), std::int64_t(nt), s.data());
    p.execute(c.data(), want.data());

    // Points, then strengths, each arriving late.
    {
        late_upload<double> dx(x);
        cuda::device_buffer<double> ds(nt, "the test's targets");
        GPUFFT_CUDA_CHECK(
            cudaMemcpy(ds.get(), s.data(), nt * sizeof(double), cudaMemcpyHostToDevice));
        p.set_points(
            std::int64_t(m), dx.get(), std::int64_t(nt), ds.get(), memory::device);
    }
    late_upload<cd> dc(c);
    cuda::device_buffer<cd> dF(nt, "the test's output");
    p.execute(dc.get(), dF.get(), memory::device);
    const auto got = download(dF.get(), nt);
    const double err = rel_l2_error(got.data(), want.data(), nt);
    std::printf("  nufft3: device input against host input %.2e\n", err);
    GPUFFT_CHECK(err < 1e-12);
#endif
}

GPUFFT_TEST_MAIN()
