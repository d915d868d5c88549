/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "dense_fft_checks.h"
#include "gpu_skip.h"
#include <gnuradio/gpufft/device.h>

#ifdef GPUFFT_HAVE_CUDA
#include "cuda/cuda_resources.h"
#endif

using namespace gr::gpufft;
using namespace gpufft_test;

namespace {
const backend gpu = backend::cuda;

} // namespace

GPUFFT_TEST(host_arrays_sizes)
{
    require_gpu();
    for (std::int64_t n : { 1, 2, 7, 12, 100, 243, 1000, 1024, 1031, 3 * 1024 })
        check_dense<float>(gpu, n, 1, direction::forward, false);
    for (std::int64_t n : { 5, 64, 360, 997, 2048 })
        check_dense<double>(gpu, n, 1, direction::backward, false);
}

GPUFFT_TEST(host_arrays_batched_in_place_strided)
{
    require_gpu();
    check_dense<float>(gpu, 256, 7, direction::forward, false);
    check_dense<double>(gpu, 96, 5, direction::backward, true);
    check_dense<float>(gpu, 128, 4, direction::forward, false, 4, 1);
    check_dense<double>(gpu, 60, 3, direction::backward, true, 3, 1);
}

GPUFFT_TEST(round_trip_large)
{
    require_gpu();
    check_round_trip<float>(gpu, 1 << 20, 2); // pageable host memory, staged in chunks
    check_round_trip<double>(gpu, 3 * 5 * 7 * 1024, 1);
}

GPUFFT_TEST(matches_cpu_backend)
{
    require_gpu();
    const std::int64_t n = 1 << 18;
    const auto x = random_complex<float>(n, fresh_seed());
    std::vector<std::complex<float>> a(n, poison<float>()), b(n, poison<float>());
    dense_fft_options opt;
    opt.backend = backend::cpu;
    dense_fft_plan(n, 1, direction::forward, opt).execute(x.data(), a.data());
    opt.backend = gpu;
    dense_fft_plan(n, 1, direction::forward, opt).execute(x.data(), b.data());
    GPUFFT_CHECK(all_finite(b.data(), n));
    GPUFFT_CHECK_LE(rel_l2_error(b.data(), a.data(), n), 1e-6);
}

#ifdef GPUFFT_HAVE_CUDA
GPUFFT_TEST(device_and_pinned_arrays)
{
    require_gpu();
    const std::int64_t n = 4096, batch = 3;
    dense_fft_options opt;
    opt.backend = gpu;
    dense_fft_plan plan(n, batch, direction::forward, opt);
    const auto x = random_complex<float>(n * batch, fresh_seed());

    // Host reference through the CPU backend, compared element by element below.
    std::vector<std::complex<float>> ref(n * batch);
    opt.backend = backend::cpu;
    dense_fft_plan(n, batch, direction::forward, opt).execute(x.data(), ref.data());

    cuda::device_buffer<std::complex<float>> din(n * batch), dout(n * batch);
    GPUFFT_CUDA_CHECK(
        cudaMemcpy(din.get(), x.data(), din.bytes(), cudaMemcpyHostToDevice));
    GPUFFT_CUDA_CHECK(cudaMemset(dout.get(), 0xff, dout.bytes())); // NaN poison
    plan.execute(din.get(), dout.get(), memory::device);
    std::vector<std::complex<float>> got(n * batch);
    GPUFFT_CUDA_CHECK(
        cudaMemcpy(got.data(), dout.get(), dout.bytes(), cudaMemcpyDeviceToHost));
    GPUFFT_CHECK(all_finite(got.data(), got.size()));
    GPUFFT_CHECK_LE(rel_l2_error(got.data(), ref.data(), got.size()), 1e-6);

    // Input left alone out of place on the device too.
    std::vector<std::complex<float>> back(n * batch);
    GPUFFT_CUDA_CHECK(
        cudaMemcpy(back.data(), din.get(), din.bytes(), cudaMemcpyDeviceToHost));
    GPUFFT_CHECK(back == x);

    // Pinned host memory takes the direct path.
    cuda::pinned_buffer<std::complex<float>> pin(n * batch);
    std::copy(x.begin(), x.end(), pin.get());
    plan.execute(pin.get(), pin.get());
    GPUFFT_CHECK_LE(rel_l2_error(pin.get(), ref.data(), ref.size()), 1e-6);

    // execute_async on a caller's stream.
    cuda::stream s;
    GPUFFT_CUDA_CHECK(cudaMemset(dout.get(), 0xff, dout.bytes()));
    plan.execute_async(din.get(), dout.get(), s.get());
    s.synchronize();
    GPUFFT_CUDA_CHECK(
        cudaMemcpy(got.data(), dout.get(), dout.bytes(), cudaMemcpyDeviceToHost));
    GPUFFT_CHECK_LE(rel_l2_error(got.data(), ref.data(), got.size()), 1e-6);
}
#endif

GPUFFT_TEST(bad_device_id)
{
    require_gpu();
    dense_fft_options opt;
    opt.backend = gpu;
    opt.device_id = cuda_device_count();
    GPUFFT_CHECK_THROWS(dense_fft_plan(16, 1, direction::forward, opt),
                        std::invalid_argument,
                        "device_id");
}

GPUFFT_TEST_MAIN()
