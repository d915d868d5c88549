/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The sparse FFT's cases that only mean something on the CPU backend: device frames
// refused and a CUDA plan where no device is usable. The cases every backend passes are
// in test_sparse_fft_backends.cc (exact mode) and test_sparse_robust_backends.cc.

#include "sparse/sparse_checks.h"
#include <gnuradio/gpufft/device.h>

using namespace gr::gpufft;
using namespace gpufft_test;

GPUFFT_TEST(device_frames_need_the_cuda_backend)
{
    for (auto mode : { sparse_fft_mode::exact, sparse_fft_mode::robust }) {
        sparse_fft_options o;
        o.mode = mode;
        o.backend = backend::cpu;
        o.log = [](log_level, const std::string&) {}; // robust mode: "dense FFT + ..."
        const std::int64_t n = 1 << 16;
        sparse_fft_plan plan(n, 10, o);
        const std::vector<cf> x = sparse_signal(n, sparse_bins(n, 10, 7), 7);
        std::vector<std::int64_t> bins;
        std::vector<cf> values;
        std::vector<sparse_tone> tones;
        GPUFFT_CHECK_THROWS(plan.execute(x.data(), bins, values, memory::device),
                            std::invalid_argument,
                            "where");
        GPUFFT_CHECK_THROWS(
            plan.detect(x.data(), tones, memory::device), std::invalid_argument, "where");
    }
}

GPUFFT_TEST(unusable_device_is_reported)
{
    sparse_fft_options o;
    o.mode = sparse_fft_mode::exact;
    o.backend = backend::cuda;
    if (cuda_device_count() == 0) {
        GPUFFT_CHECK_THROWS(
            sparse_fft_plan(1 << 20, 10, o), std::runtime_error, "backend");
    } else {
        o.device_id = cuda_device_count() + 3;
        GPUFFT_CHECK_THROWS(
            sparse_fft_plan(1 << 20, 10, o), std::invalid_argument, "device");
    }
}

GPUFFT_TEST_MAIN()
