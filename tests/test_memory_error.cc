/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Out-of-memory errors on the host side: std::bad_alloc inside an engine becomes a
// memory_error (a std::runtime_error) naming the engine and its sizes; a memory_error
// from below gains the engine's name once; other errors pass unchanged.

#include "core/memory_error.h"
#include "test_harness.h"
#include <gnuradio/gpufft/dense_fft_plan.h>
#include <gnuradio/gpufft/large_fft_plan.h>
#include <vector>

using namespace gr::gpufft;
using namespace gpufft_test;

GPUFFT_TEST(bad_alloc_names_engine_and_sizes)
{
    auto sizes = [] { return std::string("n = 2^31, k = 2^27"); };
    GPUFFT_CHECK_THROWS(detail::with_memory_context(
                            "sparse_fft_plan", sizes, [] { throw std::bad_alloc(); }),
                        std::runtime_error,
                        "sparse_fft_plan: out of host memory allocating the buffers for "
                        "n = 2^31, k = 2^27");
}

GPUFFT_TEST(real_bad_alloc_from_a_vector)
{
    // A vector larger than any host: the allocation itself fails (length_error is not
    // an allocation failure and passes through as itself).
    auto sizes = [] { return std::string("n = 2^62"); };
    bool threw = false;
    try {
        detail::with_memory_context("test_engine", sizes, [] {
            std::vector<char> v;
            v.reserve(std::size_t(1) << 62);
            return v.size();
        });
    } catch (const detail::memory_error& e) {
        threw = std::string(e.what()).find("test_engine: out of host memory") !=
                std::string::npos;
    } catch (const std::length_error&) {
        threw = true;
    }
    GPUFFT_CHECK(threw);
}

GPUFFT_TEST(memory_error_prefixed_once)
{
    auto sizes = [] { return std::string("shape (8)"); };
    try {
        detail::with_memory_context("spectrum_integrator", sizes, [&] {
            detail::with_memory_context("large_fft_plan", sizes, [] {
                throw detail::memory_error("out of GPU memory: cudaMalloc of 2.0 GiB");
            });
        });
        GPUFFT_FAIL("no error");
    } catch (const detail::memory_error& e) {
        GPUFFT_CHECK_EQ(std::string(e.what()),
                        std::string("spectrum_integrator: large_fft_plan: out of GPU "
                                    "memory: cudaMalloc of 2.0 GiB"));
    }
    // The same engine again (a plan's execute inside its constructor) is not repeated.
    try {
        detail::with_memory_context("x", sizes, [&] {
            detail::with_memory_context(
                "x", sizes, [] { throw detail::memory_error("out of GPU memory"); });
        });
    } catch (const detail::memory_error& e) {
        GPUFFT_CHECK_EQ(std::string(e.what()), std::string("x: out of GPU memory"));
    }
}

GPUFFT_TEST(other_errors_pass_unchanged)
{
    auto sizes = [] { return std::string("?"); };
    GPUFFT_CHECK_THROWS(detail::with_memory_context(
                            "e", sizes, [] { throw std::invalid_argument("n: bad"); }),
                        std::invalid_argument,
                        "n: bad");
    GPUFFT_CHECK_EQ(detail::with_memory_context("e", sizes, [] { return 42; }), 42);
}

GPUFFT_TEST(byte_and_size_strings)
{
    GPUFFT_CHECK_EQ(detail::bytes_string(512), std::string("512 bytes"));
    GPUFFT_CHECK_EQ(detail::bytes_string(64ull << 20), std::string("64.0 MiB"));
    GPUFFT_CHECK_EQ(detail::bytes_string(3ull << 30), std::string("3.0 GiB"));
    GPUFFT_CHECK_EQ(detail::size_string(1 << 27), std::string("2^27"));
    GPUFFT_CHECK_EQ(detail::size_string(1000), std::string("1000"));
}

GPUFFT_TEST(cpu_plans_too_large_for_the_host)
{
    // A CPU dense plan whose buffers cannot exist: an error naming the plan, never a
    // bare std::bad_alloc (FFTW's planner is not asked: the sizes are refused or the
    // allocation fails first).
    dense_fft_options o;
    o.backend = backend::cpu;
    try {
        dense_fft_plan p(std::int64_t(1) << 40, 1 << 20, direction::forward, o);
        GPUFFT_FAIL("a 2^60-element plan was made");
    } catch (const std::bad_alloc&) {
        GPUFFT_FAIL("bare std::bad_alloc");
    } catch (const std::exception& e) {
        std::printf("  dense 2^40 x 2^20 -> %s\n", e.what());
    }
}

GPUFFT_TEST_MAIN()
