/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "test_harness.h"
#include <gnuradio/gpufft/backend.h>
#include <gnuradio/gpufft/dense_fft_plan.h>
#include <gnuradio/gpufft/device.h>
#include <gnuradio/gpufft/sparse_fft_plan.h>
#include <cstdlib>
#include <utility>
#include <vector>

using namespace gr::gpufft;

GPUFFT_TEST(parse_backend_names)
{
    GPUFFT_CHECK(parse_backend("auto") == backend::automatic);
    GPUFFT_CHECK(parse_backend("CPU") == backend::cpu);
    GPUFFT_CHECK(parse_backend("cuda") == backend::cuda);
    GPUFFT_CHECK_EQ(to_string(backend::cuda), std::string("cuda"));
    GPUFFT_CHECK_EQ(to_string(parse_backend(to_string(backend::automatic))),
                    std::string("auto"));
    GPUFFT_CHECK_THROWS(parse_backend("opencl"), std::invalid_argument, "backend");
    GPUFFT_CHECK_THROWS(
        parse_backend(""), std::invalid_argument, "'auto', 'cpu', 'cuda'");
}

GPUFFT_TEST(parse_precision_names)
{
    GPUFFT_CHECK(parse_precision("single") == precision::single);
    GPUFFT_CHECK(parse_precision("complex128") == precision::double_);
    GPUFFT_CHECK_THROWS(parse_precision("half"), std::invalid_argument, "precision");
}

GPUFFT_TEST(auto_resolves_to_what_exists)
{
    const backend b = resolve_backend(backend::automatic, 0);
    GPUFFT_CHECK(b == (cuda_available(0) ? backend::cuda : backend::cpu));
    GPUFFT_CHECK(resolve_backend(backend::cpu, 12345) == backend::cpu);
    dense_fft_options opt; // backend auto
    dense_fft_plan plan(64, 1, direction::forward, opt);
    GPUFFT_CHECK(plan.backend() == b);
}

GPUFFT_TEST(cuda_without_gpu_is_a_clear_error)
{
    if (cuda_available(0))
        GPUFFT_SKIP("a GPU is present: this checks the machines without one");
    GPUFFT_CHECK_THROWS(
        resolve_backend(backend::cuda, 0), std::runtime_error, "backend=cuda");
    dense_fft_options opt;
    opt.backend = backend::cuda;
    GPUFFT_CHECK_THROWS(dense_fft_plan(64, 1, direction::forward, opt),
                        std::runtime_error,
                        "backend=cuda");
}

GPUFFT_TEST(device_ids_are_validated)
{
    GPUFFT_CHECK_THROWS(resolve_device_id(-1), std::invalid_argument, "device_id: -1");
    GPUFFT_CHECK_THROWS(
        resolve_device_id(cuda_device_count()), std::invalid_argument, "out of range");
    GPUFFT_CHECK(!cuda_available(cuda_device_count()));
    GPUFFT_CHECK_THROWS(
        get_device_info(cuda_device_count() + 3), std::invalid_argument, "device_id");
    if (cuda_available(0)) {
        const device_info d = get_device_info(0);
        GPUFFT_CHECK(!d.name.empty());
        GPUFFT_CHECK(d.total_memory > 0 && d.free_memory <= d.total_memory);
    }
}

GPUFFT_TEST(environment_override)
{
    setenv("GPUFFT_DEVICE", "nonsense", 1);
    GPUFFT_CHECK_THROWS(resolve_device_id(0), std::invalid_argument, "GPUFFT_DEVICE");
    setenv("GPUFFT_DEVICE", "999", 1);
    GPUFFT_CHECK_THROWS(
        resolve_device_id(0), std::invalid_argument, "GPUFFT_DEVICE: 999");
    GPUFFT_CHECK(!cuda_available(0));
    if (cuda_device_count() > 0) {
        setenv("GPUFFT_DEVICE", "0", 1);
        GPUFFT_CHECK_EQ(resolve_device_id(7), 0); // the override wins over the argument
    }
    unsetenv("GPUFFT_DEVICE");
}

GPUFFT_TEST(describe_backend_says_something)
{
    const std::string s = describe_backend(0);
    GPUFFT_CHECK(s.rfind("cpu", 0) == 0 || s.rfind("cuda", 0) == 0);
}

GPUFFT_TEST(plans_report_through_their_log_handler)
{
    std::vector<std::pair<gr::gpufft::log_level, std::string>> got;
    auto handler = [&](gr::gpufft::log_level l, const std::string& m) {
        got.emplace_back(l, m);
    };
    // Without a device, auto says so to the handler (every plan, not once per process).
    if (!gr::gpufft::cuda_available(0)) {
        for (int i = 0; i < 2; ++i)
            GPUFFT_CHECK(
                gr::gpufft::resolve_backend(gr::gpufft::backend::automatic, 0, handler) ==
                gr::gpufft::backend::cpu);
        GPUFFT_CHECK_EQ(got.size(), std::size_t(2));
        GPUFFT_CHECK(got[0].first == gr::gpufft::log_level::info);
        GPUFFT_CHECK(got[0].second.find("runs on the CPU") != std::string::npos);
    }
    // A sparse plan that runs dense says why, to the handler.
    got.clear();
    gr::gpufft::sparse_fft_options o;
    o.backend = gr::gpufft::backend::cpu;
    o.log = handler;
    gr::gpufft::sparse_fft_plan plan(1 << 12, 8, o);
    GPUFFT_CHECK(plan.dense_fallback());
    GPUFFT_CHECK_EQ(got.size(), std::size_t(1));
    GPUFFT_CHECK(got[0].second.find("dense FFT") != std::string::npos);
    GPUFFT_CHECK_EQ(gr::gpufft::to_string(gr::gpufft::log_level::warning),
                    std::string("warning"));
}

GPUFFT_TEST_MAIN()
