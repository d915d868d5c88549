/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The blocks' rule for an engine that throws inside work() (stream/engine_failure.h),
// with stand-in engines that throw what a real one would: a refused frame is skipped,
// a CUDA allocation failure under "auto" moves the engine to the CPU once, and anything
// else ends the stream with the block's name and the reason. The real engines on a full
// GPU are in test_out_of_memory_cuda.

#include "stream/engine_failure.h"
#include "test_harness.h"
#include <vector>

using namespace gr::gpufft;
using namespace gr::gpufft::stream;
using namespace gpufft_test;

namespace {

struct log_lines {
    std::vector<std::pair<log_level, std::string>> lines;
    log_handler handler()
    {
        return [this](log_level l, const std::string& m) { lines.emplace_back(l, m); };
    }
};

// An engine that fails its first `failures` calls with E, then works.
struct flaky_engine {
    int failures = 0;
    int calls = 0;
    template <typename E>
    void call(const char* what)
    {
        ++calls;
        if (calls <= failures)
            throw E(what);
    }
};

bool contains(const std::string& s, const char* part)
{
    return s.find(part) != std::string::npos;
}

} // namespace

GPUFFT_TEST(auto_moves_to_cpu_once_on_cuda_out_of_memory)
{
    log_lines log;
    cpu_fallback fb(backend::automatic, "some_block", log.handler());
    flaky_engine engine{ 1 };
    int moves = 0;
    std::string error = "untouched";
    const bool ran =
        fb.run([&] { engine.call<detail::cuda_memory_error>("out of GPU memory: test"); },
               [&] { ++moves; },
               error);
    GPUFFT_CHECK(ran);
    GPUFFT_CHECK(moves == 1);
    GPUFFT_CHECK(engine.calls == 2); // the frame is done again, on the CPU
    GPUFFT_CHECK(fb.fell_back());
    GPUFFT_CHECK(fb.backend() == backend::cpu);
    GPUFFT_CHECK(error == "untouched");
    GPUFFT_CHECK(log.lines.size() == 1);
    GPUFFT_CHECK(log.lines[0].first == log_level::warning);
    GPUFFT_CHECK(contains(log.lines[0].second, "some_block"));
    GPUFFT_CHECK(contains(log.lines[0].second, "out of GPU memory: test"));
    GPUFFT_CHECK(contains(log.lines[0].second, "continues on the CPU"));

    // Out of memory again (now the CPU engine's): nowhere left to go.
    flaky_engine again{ 1 };
    GPUFFT_CHECK_THROWS(fb.run([&] { again.call<detail::cuda_memory_error>("again"); },
                               [&] { ++moves; },
                               error),
                        engine_stopped,
                        "some_block: stopping the stream: again");
    GPUFFT_CHECK(moves == 1);
    GPUFFT_CHECK(log.lines.size() == 1);
}

GPUFFT_TEST(named_backend_stops_on_out_of_memory)
{
    for (auto b : { backend::cuda, backend::cpu }) {
        log_lines log;
        cpu_fallback fb(b, "some_block", log.handler());
        flaky_engine engine{ 1 };
        std::string error;
        try {
            fb.run([&] { engine.call<detail::cuda_memory_error>("out of GPU memory"); },
                   [] { GPUFFT_FAIL("moved a named backend to the CPU"); },
                   error);
            GPUFFT_FAIL("no engine_stopped");
        } catch (const engine_stopped& e) {
            GPUFFT_CHECK(contains(e.what(), "some_block"));
            GPUFFT_CHECK(contains(e.what(), "out of GPU memory"));
        }
        GPUFFT_CHECK(!fb.fell_back());
        GPUFFT_CHECK(fb.backend() == b);
        GPUFFT_CHECK(log.lines.empty());
    }
}

GPUFFT_TEST(refused_frame_is_skipped_and_the_stream_goes_on)
{
    cpu_fallback fb(backend::automatic, "some_block", {});
    flaky_engine engine{ 1 };
    std::string error;
    GPUFFT_CHECK(!fb.run([&] { engine.call<std::invalid_argument>("too few samples"); },
                         [] { GPUFFT_FAIL("moved to the CPU for a refused frame"); },
                         error));
    GPUFFT_CHECK(error == "too few samples");
    GPUFFT_CHECK(fb.run([&] { engine.call<std::invalid_argument>("unused"); },
                        [] { GPUFFT_FAIL("moved to the CPU"); },
                        error));
    GPUFFT_CHECK(!fb.fell_back());
}

GPUFFT_TEST(other_failures_end_the_stream)
{
    // A CUDA error, and the host out of memory: "auto" has nothing to move to.
    cpu_fallback fb(backend::automatic, "some_block", {});
    std::string error;
    flaky_engine cuda_error{ 1 };
    try {
        fb.run([&] { cuda_error.call<std::runtime_error>("cudaErrorIllegalAddress"); },
               [] { GPUFFT_FAIL("moved to the CPU on a CUDA error"); },
               error);
        GPUFFT_FAIL("no engine_stopped");
    } catch (const engine_stopped& e) {
        GPUFFT_CHECK(contains(e.what(), "some_block: stopping the stream"));
        GPUFFT_CHECK(contains(e.what(), "cudaErrorIllegalAddress"));
    }
    flaky_engine host{ 1 };
    GPUFFT_CHECK_THROWS(
        fb.run([&] { host.call<detail::memory_error>("out of host memory"); },
               [] { GPUFFT_FAIL("moved to the CPU on host memory"); },
               error),
        engine_stopped,
        "out of host memory");
    GPUFFT_CHECK(!fb.fell_back());
}

GPUFFT_TEST(make_under_auto_falls_back_named_backend_throws)
{
    log_lines log;
    cpu_fallback fb(backend::automatic, "some_block", log.handler());
    std::vector<backend> tried;
    const backend made = fb.make([&](backend b) {
        tried.push_back(b);
        if (b != backend::cpu)
            throw detail::cuda_memory_error("out of GPU memory: plan");
        return b;
    });
    GPUFFT_CHECK(made == backend::cpu);
    GPUFFT_CHECK(tried.size() == 2 && tried[0] == backend::automatic);
    GPUFFT_CHECK(log.lines.size() == 1);

    cpu_fallback named(backend::cuda, "some_block", {});
    GPUFFT_CHECK_THROWS(named.make([](backend) -> int {
        throw detail::cuda_memory_error("out of GPU memory: plan");
    }),
                        detail::cuda_memory_error,
                        "out of GPU memory: plan");
    // Errors other than out of memory reach the block's constructor unchanged.
    cpu_fallback fb2(backend::automatic, "some_block", {});
    GPUFFT_CHECK_THROWS(
        fb2.make([](backend) -> int { throw std::invalid_argument("fft_size: bad"); }),
        std::invalid_argument,
        "fft_size");
    GPUFFT_CHECK(!fb2.fell_back());
}

GPUFFT_TEST_MAIN()
