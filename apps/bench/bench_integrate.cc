/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// gpufft-bench integrate: one frame of the large-FFT accumulator, |X|^2 integrated on
// the GPU (spectrum_integrator's fused path: upload, window, cuFFT, band power, device
// accumulator) against the host path it replaces (large_fft_plan in card: copy in,
// cuFFT, copy back; then window before and band reduction after on every host core),
// both from the same page-locked frame, in the same run. Time per frame; the pinned
// host->device copy of one frame is printed beside it as the bound of the fused path.

#include "bench_common.h"

#ifdef GPUFFT_HAVE_CUDA
#include "core/parallel_for.h"
#include "cuda/cuda_resources.h"
#include "large/power/integrator_backend.h"
#include <gnuradio/gpufft/device.h>
#include <gnuradio/gpufft/large_fft_plan.h>
#include <gnuradio/gpufft/spectrum_integrator.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>

using namespace gr::gpufft;
using namespace gpufft_bench;

namespace {

using i64 = std::int64_t;
using cf = std::complex<float>;

//! A tone on a bin centre plus uniform noise, cheap enough for 2^28 samples.
void fill(cf* x, i64 n, std::uint64_t seed)
{
    detail::parallel_for(n, detail::hardware_threads(), [&](int, i64 b, i64 e) {
        std::uint64_t s = seed ^ (std::uint64_t(b) * 0x9E3779B97F4A7C15ull);
        const double step = 2 * std::acos(-1.0) * 1234.0 / double(n);
        for (i64 i = b; i < e; ++i) {
            s ^= s << 13, s ^= s >> 7, s ^= s << 17;
            const float re = float(std::int32_t(s)) * 4.656613e-10f;
            const float im = float(std::int32_t(s >> 32)) * 4.656613e-10f;
            const double ph = step * double(i % n);
            x[i] = cf(re + float(2 * std::cos(ph)), im + float(2 * std::sin(ph)));
        }
    });
}

//! Median of `reps` timed accumulate() calls, refilling the frame untimed before each
//! (the host path transforms it in place).
stats time_frames(
    spectrum_integrator& s, cf* frame, const cf* source, i64 n, int reps, bool refill)
{
    std::vector<double> ms;
    for (int r = -1; r < reps; ++r) { // r = -1: warm-up
        if (refill || r == -1)
            std::memcpy(frame, source, std::size_t(n) * sizeof(cf));
        if (r == 0 || r == -1)
            s.reset();
        const auto t0 = std::chrono::steady_clock::now();
        if (!s.accumulate(frame))
            throw std::runtime_error("integrate: a finite frame was reported non-finite");
        const auto t1 = std::chrono::steady_clock::now();
        if (r >= 0)
            ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    stats st;
    st.reps = reps;
    st.median_ms = ms[ms.size() / 2];
    st.min_ms = ms.front();
    st.max_ms = ms.back();
    return st;
}

int bench_integrate(const options& o)
{
    if (!cuda_available(o.device)) {
        std::printf("integrate: no usable CUDA device, nothing to compare\n");
        return 0;
    }
    std::vector<i64> sizes = o.sizes;
    if (sizes.empty())
        sizes = { i64(1) << 24, i64(1) << 26, i64(1) << 28 };
    const std::string window = o.get("window", "hann");
    const i64 want_bins = parse_size(o.get("bins", "2^14"));
    const int reps = std::max(3, o.reps);
    const int threads = detail::hardware_threads();
    cuda::device_guard guard(o.device);

    for (const i64 n : sizes) {
        const i64 bins = std::min(want_bins, n);
        if (n % bins != 0) {
            std::printf("integrate: n=%lld is not a multiple of --bins %lld, skipped\n",
                        (long long)n,
                        (long long)bins);
            continue;
        }
        const std::size_t bytes = std::size_t(n) * sizeof(cf);
        cuda::pinned_buffer<cf> frame(static_cast<std::size_t>(n));
        std::vector<cf> source(static_cast<std::size_t>(n));
        fill(source.data(), n, 0x5eed + std::uint64_t(n));

        // The bound: the pinned copy of one frame to the device.
        double copy_ms = 0;
        {
            cuda::device_buffer<cf> d(static_cast<std::size_t>(n));
            cuda::stream st;
            std::memcpy(frame.get(), source.data(), bytes);
            copy_ms = time_device(
                          [&](int) {
                              GPUFFT_CUDA_CHECK(cudaMemcpyAsync(d.get(),
                                                                frame.get(),
                                                                bytes,
                                                                cudaMemcpyHostToDevice,
                                                                st.get()));
                          },
                          st.get(),
                          reps)
                          .median_ms;
        }

        spectrum_integrator_options io;
        io.backend = backend::cuda;
        io.device_id = o.device;
        io.window = window;
        spectrum_integrator fused(n, 0, n, bins, io);
        if (!fused.on_device()) {
            std::printf("integrate: n=%lld does not fit the device, skipped\n%s",
                        (long long)n,
                        fused.describe().c_str());
            continue;
        }
        const stats t_fused =
            time_frames(fused, frame.get(), source.data(), n, reps, false);
        std::vector<float> got(static_cast<std::size_t>(bins));
        fused.read(got.data());

        stats t_host;
        std::vector<float> want(static_cast<std::size_t>(bins));
        {
            // The accumulator's previous path: the in-card large FFT, host window and
            // reduction (what spectrum_integrator does for frames that do not fit).
            large_fft_options lo;
            lo.backend = backend::cuda;
            lo.device_id = o.device;
            auto plan = std::make_shared<large_fft_plan>(
                std::vector<i64>{ n }, direction::forward, lo);
            spectrum_integrator host(
                detail::make_host_integrator(
                    power::band_reducer(n, 0, n, bins),
                    power::spectral_window(power::parse_window(window), n),
                    [plan](cf* x) { plan->execute(x, x); },
                    threads,
                    backend::cuda,
                    o.device,
                    plan->memory_budget(),
                    "host"),
                integration_mode::mean);
            t_host = time_frames(host, frame.get(), source.data(), n, reps, true);
            host.read(want.data());
        }

        double peak = 0, err = 0;
        for (i64 c = 0; c < bins; ++c)
            peak = std::max(peak, double(want[std::size_t(c)]));
        for (i64 c = 0; c < bins; ++c)
            err = std::max(err,
                           std::abs(double(got[std::size_t(c)]) - want[std::size_t(c)]));

        result r;
        r.engine = "integrate";
        r.backend = "cuda";
        r.device = device_name(o.device);
        r.case_name = "fused " + window;
        r.params["n"] = double(n);
        r.params["bins"] = double(bins);
        r.params["copy_ms"] = copy_ms;
        r.params["copy_GBps"] = double(bytes) / (copy_ms * 1e6);
        r.params["fused_GBps"] = double(bytes) / (t_fused.median_ms * 1e6);
        r.params["host_threads"] = threads;
        r.labels["memory"] = "pinned";
        r.time = t_fused;
        r.baseline_name = "large_fft_plan+host window/reduce";
        r.baseline_ms = t_host.median_ms;
        r.errors["max_err_over_peak_vs_host"] = peak > 0 ? err / peak : 1.0;
        report(r);
        std::printf("n=%lld: fused %.2f ms/frame (%.1f GB/s; pinned copy alone %.2f ms, "
                    "%.1f GB/s), host path %.2f ms/frame, ratio %.2fx\n",
                    (long long)n,
                    t_fused.median_ms,
                    double(bytes) / (t_fused.median_ms * 1e6),
                    copy_ms,
                    double(bytes) / (copy_ms * 1e6),
                    t_host.median_ms,
                    r.ratio());
    }
    print_table();
    return 0;
}

} // namespace

GPUFFT_BENCH_COMMAND(integrate,
                     "|X|^2 integration of one large-FFT accumulator frame: fused on the "
                     "GPU vs large_fft_plan + host window/reduction [--sizes 2^24,2^28] "
                     "[--bins 2^14] [--window hann]",
                     bench_integrate);
#endif
