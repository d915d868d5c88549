/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Integer I/Q converted on the GPU (frame_converter::on_device, the kernel of
// lib/cuda/sample_convert_kernels.cu) against the formula done directly: bit for bit,
// as on the host. Skips without a GPU.

#include "gpu_skip.h"
#include "reference.h"
#include "stream/frame_converter.h"
#include "stream/sample_format_reference.h"
#include "test_harness.h"
#include <gnuradio/gpufft/device.h>
#include <cstdio>
#include <cstring>
#include <vector>
#ifdef GPUFFT_HAVE_CUDA
#include <cuda_runtime.h>
#endif

using namespace gr::gpufft::stream;
using namespace sample_format_reference;

GPUFFT_TEST(device_conversion_matches_the_host)
{
    gpufft_test::require_gpu();
#ifdef GPUFFT_HAVE_CUDA
    const std::uint64_t seed = gpufft_test::fresh_seed();
    std::printf("  seed %llu\n", static_cast<unsigned long long>(seed));
    for (const std::int64_t n : { 1, 4097, (1 << 20) + 3 }) {
        for (const auto f :
             { sample_format::sc16, sample_format::sc8, sample_format::cu8 }) {
            const auto raw = random_raw(f, n, seed + std::uint64_t(n));
            frame_converter c(f, n);
            const cf* d = c.on_device(raw.data(), gr::gpufft::resolve_device_id(0));
            std::vector<cf> back(static_cast<std::size_t>(n));
            GPUFFT_CHECK(cudaMemcpy(back.data(),
                                    d,
                                    back.size() * sizeof(cf),
                                    cudaMemcpyDeviceToHost) == cudaSuccess);
            const auto want = direct(f, raw);
            GPUFFT_CHECK(
                std::memcmp(back.data(), want.data(), back.size() * sizeof(cf)) == 0);
        }
    }
    frame_converter fc(sample_format::fc32, 8);
    GPUFFT_CHECK_THROWS(fc.on_device(nullptr, 0), std::logic_error, "fc32");
#endif
}

GPUFFT_TEST_MAIN()
