/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "dense_fft_checks.h"

using namespace gr::gpufft;
using namespace gpufft_test;

namespace {
const backend cpu = backend::cpu;
}

GPUFFT_TEST(forward_float_sizes)
{
    // Powers of two, small primes, a large prime and mixed radices.
    for (std::int64_t n : { 1, 2, 8, 7, 12, 100, 243, 1000, 1024, 1031, 3 * 1024 })
        check_dense<float>(cpu, n, 1, direction::forward, false);
}

GPUFFT_TEST(backward_double_sizes)
{
    for (std::int64_t n : { 1, 5, 64, 360, 997, 2048 })
        check_dense<double>(cpu, n, 1, direction::backward, false);
}

GPUFFT_TEST(batched_float_and_double)
{
    check_dense<float>(cpu, 256, 7, direction::forward, false);
    check_dense<double>(cpu, 96, 5, direction::backward, false);
}

GPUFFT_TEST(in_place)
{
    check_dense<float>(cpu, 512, 3, direction::forward, true);
    check_dense<double>(cpu, 300, 2, direction::forward, true);
}

GPUFFT_TEST(strided_interleaved_transforms)
{
    // Four interleaved transforms: the column FFTs of a large-FFT pass look like this.
    check_dense<float>(
        cpu, 128, 4, direction::forward, false, /*stride=*/4, /*distance=*/1);
    check_dense<double>(cpu, 60, 3, direction::backward, true, 3, 1);
}

GPUFFT_TEST(round_trip)
{
    check_round_trip<float>(cpu, 4096, 3);
    check_round_trip<double>(cpu, 1 << 16, 1); // large enough to use FFTW's threads
}

GPUFFT_TEST(bad_input_is_rejected)
{
    dense_fft_options opt;
    opt.backend = cpu;
    GPUFFT_CHECK_THROWS(
        dense_fft_plan(0, 1, direction::forward, opt), std::invalid_argument, "n: 0");
    GPUFFT_CHECK_THROWS(
        dense_fft_plan(-4, 1, direction::forward, opt), std::invalid_argument, "n: -4");
    GPUFFT_CHECK_THROWS(
        dense_fft_plan(16, 0, direction::forward, opt), std::invalid_argument, "batch");
    opt.stride = 0;
    GPUFFT_CHECK_THROWS(
        dense_fft_plan(16, 1, direction::forward, opt), std::invalid_argument, "stride");
    opt.stride = 1;
    opt.threads = -1;
    GPUFFT_CHECK_THROWS(
        dense_fft_plan(16, 1, direction::forward, opt), std::invalid_argument, "threads");
    opt.threads = 0;

    dense_fft_plan plan(16, 1, direction::forward, opt); // single precision
    std::vector<std::complex<double>> d(16);
    GPUFFT_CHECK_THROWS(
        plan.execute(d.data(), d.data()), std::invalid_argument, "precision");
    std::vector<std::complex<float>> f(16);
    GPUFFT_CHECK_THROWS(plan.execute(f.data(), f.data(), memory::device),
                        std::invalid_argument,
                        "memory");
    GPUFFT_CHECK_THROWS(
        plan.execute(static_cast<std::complex<float>*>(nullptr), f.data()),
        std::invalid_argument,
        "null");
}

GPUFFT_TEST_MAIN()
