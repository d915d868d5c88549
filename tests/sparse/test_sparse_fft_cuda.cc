/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Exact mode on the CUDA backend, what only the GPU has: host frames through each
// transfer (gather, full copy, pinned memory), the GPU against the CPU with the same
// permutations (phase and voting location, device input replayed through the graph), and
// frames of 2^26 and 2^27 samples built on the device. The cases every backend passes
// are in test_sparse_fft_backends.cc, which runs them here with host and device frames.

#include "gpu_skip.h"
#include "sparse/sparse_checks.h"
#include <gnuradio/gpufft/device.h>
#include <limits>
#include <map>
#include <string>
#include <utility>

#ifdef GPUFFT_HAVE_CUDA
#include "cuda/cuda_resources.h"
#include "sparse/common/sparse_signal_cuda.h"
#endif

using namespace gr::gpufft;
using namespace gpufft_test;

#ifdef GPUFFT_HAVE_CUDA

namespace {

sparse_fft_options cuda_options(std::uint64_t seed = 0,
                                sparse_fft_transfer t = sparse_fft_transfer::automatic)
{
    sparse_fft_options o;
    o.mode = sparse_fft_mode::exact;
    o.backend = backend::cuda;
    o.seed = seed;
    o.transfer = t;
    return o;
}

//! Trials on exactly k-sparse signals built on the device (no host reference at these
//! sizes), checked against the values the signal was made from.
void large_trials(std::int64_t n, std::int64_t k, int trials)
{
    gr::gpufft::cuda::device_buffer<std::complex<float>> d(n);
    sparse_fft_plan plan(n, k, cuda_options());
    std::printf("  %s\n", plan.describe().c_str());
    int total_misses = 0, flagged = 0;
    double worst = 0;
    for (int trial = 0; trial < trials; ++trial) {
        const std::uint64_t seed = fresh_seed();
        const auto truth = sparse_bins(n, k, seed);
        std::mt19937_64 rng(seed);
        std::uniform_real_distribution<double> mag(0.1, 1.0), ph(0, 2 * M_PI);
        std::vector<cf> vals(k);
        for (auto& v : vals)
            v = cf(std::polar(mag(rng), ph(rng)) * double(n));
        gr::gpufft::detail::make_sparse_signal_device(n, truth, vals, d.get());
        std::vector<std::int64_t> bins;
        std::vector<cf> values;
        plan.execute(d.get(), bins, values, memory::device);
        std::vector<cd> X; // sparse reference: map bins -> values
        double peak = 0;
        for (auto v : vals)
            peak = std::max(peak, double(std::abs(v)));
        std::map<std::int64_t, cf> ref;
        for (int i = 0; i < k; ++i)
            ref[truth[i]] = vals[i];
        int misses = 0;
        for (auto f : truth)
            misses += std::binary_search(bins.begin(), bins.end(), f) ? 0 : 1;
        for (std::size_t i = 0; i < bins.size(); ++i) {
            auto it = ref.find(bins[i]);
            const cf want = it == ref.end() ? cf(0, 0) : it->second;
            worst = std::max(worst, double(std::abs(values[i] - want)) / peak);
        }
        total_misses += misses;
        flagged += plan.not_sparse() ? 1 : 0;
    }
    std::printf("  %d trials: %d misses, worst error %.3g, %d flagged not sparse\n",
                trials,
                total_misses,
                worst,
                flagged);
    GPUFFT_CHECK_EQ(total_misses, 0);
    GPUFFT_CHECK_LE(worst, 1e-5);
    GPUFFT_CHECK_EQ(flagged, 0);
}

} // namespace

GPUFFT_TEST(host_input_every_transfer)
{
    require_gpu();
    for (auto t : { sparse_fft_transfer::automatic,
                    sparse_fft_transfer::gather,
                    sparse_fft_transfer::full_copy }) {
        sparse_fft_plan plan(1 << 21, 100, cuda_options(0, t));
        check_sparse(plan, 100, fresh_seed()); // pageable host memory
        check_sparse(plan, 100, fresh_seed());
        std::printf("  %s\n", plan.describe().c_str());
    }
    // Pinned host memory.
    const std::int64_t n = 1 << 21;
    const std::uint64_t seed = fresh_seed();
    const auto truth = sparse_bins(n, 80, seed);
    const auto x = sparse_signal(n, truth, seed);
    gr::gpufft::cuda::pinned_buffer<cf> px(n);
    std::copy(x.begin(), x.end(), px.get());
    sparse_fft_plan plan(n, 80, cuda_options());
    std::vector<std::int64_t> bins;
    std::vector<cf> values;
    plan.execute(px.get(), bins, values);
    const auto s = score(dense_reference(x), truth, bins, values);
    GPUFFT_CHECK_EQ(s.misses, 0);
    GPUFFT_CHECK_LE(s.max_error, 1e-5);
}

GPUFFT_TEST(same_permutations_as_cpu)
{
    require_gpu();
    const std::int64_t n = 1 << 22;
    const std::uint64_t seed = fresh_seed();
    const auto truth = sparse_bins(n, 300, seed);
    const auto x = sparse_signal(n, truth, seed);
    sparse_fft_options oc = cuda_options(seed);
    oc.backend = backend::cpu;
    sparse_fft_plan cpu(n, 300, oc), gpu(n, 300, cuda_options(seed));
    GPUFFT_CHECK_EQ(cpu.describe().substr(0, 60), gpu.describe().substr(0, 60));
    std::vector<std::int64_t> bc, bg;
    std::vector<cf> vc, vg;
    cpu.execute(x.data(), bc, vc);
    gpu.execute(x.data(), bg, vg);
    GPUFFT_CHECK(bc == bg);
    GPUFFT_CHECK_EQ(bc.size(), vc.size());
    double peak = 0;
    for (auto v : vc)
        peak = std::max(peak, double(std::abs(v)));
    for (std::size_t i = 0; i < bc.size() && i < bg.size(); ++i)
        GPUFFT_CHECK_LE(std::abs(vc[i] - vg[i]) / peak, 2e-6);
}

GPUFFT_TEST(voting_same_as_cpu_and_reference)
{
    // The voting location on the GPU against the CPU's with the same seed, and both
    // against the FFTW double reference; host input (both transfers are timed on the
    // first call) and device input twice (graph replay: the vote maps must come back
    // clear).
    require_gpu();
    for (std::int64_t n : { std::int64_t(1) << 20, std::int64_t(1) << 24 }) {
        for (std::int64_t k : { 50, 200 }) {
            const std::uint64_t seed = fresh_seed();
            const auto truth = sparse_bins(n, k, seed);
            const auto x = sparse_signal(n, truth, seed);
            const auto X = dense_reference(x);
            sparse_fft_options og = cuda_options(seed);
            og.location = sparse_fft_location::voting;
            sparse_fft_options oc = og;
            oc.backend = backend::cpu;
            sparse_fft_plan cpu(n, k, oc), gpu(n, k, og);
            GPUFFT_CHECK(!gpu.dense_fallback());
            GPUFFT_CHECK(gpu.describe().find("location=voting") != std::string::npos);
            GPUFFT_CHECK_EQ(cpu.describe().substr(0, 60), gpu.describe().substr(0, 60));
            std::printf("  %s\n", gpu.describe().c_str());
            std::vector<std::int64_t> bc, bg;
            std::vector<cf> vc, vg;
            cpu.execute(x.data(), bc, vc);
            gr::gpufft::cuda::device_buffer<cf> d(n);
            GPUFFT_CUDA_CHECK(
                cudaMemcpy(d.get(), x.data(), n * sizeof(cf), cudaMemcpyHostToDevice));
            // A pageable cudaMemcpy may return before its data lands, and the plan works
            // on a
            // stream of its own that does not wait for it.
            GPUFFT_CUDA_CHECK(cudaDeviceSynchronize());
            for (int call = 0; call < 3; ++call) {
                bg.assign(3, -1);
                vg.assign(5, poison<float>());
                if (call == 0)
                    gpu.execute(x.data(), bg, vg);
                else
                    gpu.execute(d.get(), bg, vg, memory::device);
                const sparse_score sg = score(X, truth, bg, vg);
                GPUFFT_CHECK_EQ(sg.misses, 0);
                GPUFFT_CHECK_LE(sg.max_error, 1e-5);
                GPUFFT_CHECK(bc == bg);
                GPUFFT_CHECK_EQ(bc.size(), vc.size());
                double peak = 0;
                for (auto v : vc)
                    peak = std::max(peak, double(std::abs(v)));
                for (std::size_t i = 0; i < bc.size() && i < bg.size(); ++i)
                    GPUFFT_CHECK_LE(std::abs(vc[i] - vg[i]) / peak, 2e-6);
            }
            const sparse_score sc = score(X, truth, bc, vc);
            GPUFFT_CHECK_EQ(sc.misses, 0);
            GPUFFT_CHECK_LE(sc.max_error, 1e-5);
        }
    }
}

GPUFFT_TEST(large_device_signal_trials)
{
    // 2^26 and 2^27 samples built on the device (no host reference at these sizes): the
    // answer is checked against the values the signal was made from, and the frames
    // (exactly sparse) must not be flagged.
    require_gpu();
    for (const std::int64_t n : { std::int64_t(1) << 26, std::int64_t(1) << 27 })
        large_trials(n, 1000, n == (std::int64_t(1) << 26) ? 10 : 5);
}

// Non-finite host frames through each transfer (the backends test runs the automatic
// one): the gather reads only the samples the algorithm needs, the full copy all.
GPUFFT_TEST(non_finite_host_frames_every_transfer)
{
    require_gpu();
    const std::int64_t n = 1 << 20;
    std::vector<cf> x(n, cf(std::numeric_limits<float>::quiet_NaN(), 0.f));
    for (auto t : { sparse_fft_transfer::gather, sparse_fft_transfer::full_copy }) {
        sparse_fft_plan plan(n, 10, cuda_options(0, t));
        std::vector<std::int64_t> bins;
        std::vector<cf> values;
        GPUFFT_CHECK_THROWS(
            plan.execute(x.data(), bins, values), std::invalid_argument, "x");
        // The plan still works after a rejected frame.
        check_sparse(plan, 10, fresh_seed());
    }
}

#else

GPUFFT_TEST(cuda_backend) { GPUFFT_SKIP("gr-gpufft was built without CUDA"); }

#endif

GPUFFT_TEST_MAIN()
