/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The CUDA backend of the large FFT: the same schedule as the CPU backend (checked by
// its description), the same answer, through pageable (staged) and pinned (direct)
// host arrays, in place and out of place, with each way of transforming the passes and
// of issuing the copies (large_fft_config).

#include "gpu_skip.h"
#include "large/large_fft_checks.h"
#include "large/large_fft_plan_impl.h"
#include <gnuradio/gpufft/dense_fft_plan.h>
#include <gnuradio/gpufft/device.h>
#include <limits>
#ifdef GPUFFT_HAVE_CUDA
#include "cuda/cuda_resources.h"
#endif

using namespace gr::gpufft;
using namespace gpufft_test;

namespace {

large_fft_options opts(backend b, std::size_t budget, precision p = precision::double_)
{
    large_fft_options o;
    o.backend = b;
    o.precision = p;
    o.memory_budget = budget;
    return o;
}

// The forward FFT of x by FFTW in double (the reference of the single-precision cases).
std::vector<std::complex<double>>
forward_fft_double(const std::vector<std::complex<float>>& x)
{
    const auto n = std::int64_t(x.size());
    std::vector<std::complex<double>> xd(x.begin(), x.end()), ref(x.size());
    dense_fft_options o;
    o.backend = backend::cpu;
    o.precision = precision::double_;
    dense_fft_plan(n, 1, direction::forward, o).execute(xd.data(), ref.data());
    return ref;
}

// The schedule lines of describe(), without the first line (which names the backend).
std::string schedule_text(const large_fft_plan& p)
{
    const auto d = p.describe();
    return d.substr(d.find('\n') + 1);
}

} // namespace

GPUFFT_TEST(same_schedule_and_answer_as_cpu)
{
    require_gpu();
    struct c {
        std::vector<std::int64_t> shape;
        std::int64_t pass; // 0: default budget (in card)
    };
    for (const auto& t :
         { c{ { 4096 }, 1024 },      // two rounds, square
           c{ { 8192 }, 1024 },      // two rounds, host permutation in place
           c{ { 8192 }, 2048 },      // two rounds, transposed rows of 2 squares
           c{ { 6000 }, 1024 },      // small primes
           c{ { 4096 }, 40 },        // three rounds
           c{ { 48, 60 }, 300 },     // 2-D
           c{ { 96, 16 }, 300 },     // 2-D, Y decomposition
           c{ { 12, 10, 14 }, 300 }, // 3-D slabs
           c{ { 12, 10, 14 }, 100 }, // 3-D three rounds
           c{ { 96, 3, 5 }, 300 },   // 3-D, Z decomposition
           c{ { 1000 }, 0 } }) {     // in card
        // the planner's ring (three slots at these sizes), then a ring of two
        for (int slots : { 0, 2 })
            for (auto dir : { direction::forward, direction::backward }) {
                detail::large_fft_config config;
                config.ring_slots = slots;
                const std::size_t budget =
                    t.pass ? budget_for_pass(t.pass, 16, slots ? slots : 3) : 0;
                auto gpu = detail::make_large_fft_plan(
                    t.shape, dir, opts(backend::cuda, budget), config);
                GPUFFT_CHECK(gpu.backend() == backend::cuda);
                if (t.pass) {
                    auto cpu = detail::make_large_fft_plan(
                        t.shape, dir, opts(backend::cpu, budget), config);
                    GPUFFT_CHECK_EQ(schedule_text(gpu), schedule_text(cpu));
                }
                GPUFFT_CHECK_LE(check_plan<double>(gpu, int(dir)), 1e-12);
            }
    }
}

#ifdef GPUFFT_HAVE_CUDA // pinned arrays need the CUDA runtime
GPUFFT_TEST(pinned_arrays_are_copied_directly)
{
    require_gpu();
    struct c {
        std::int64_t n, pass;
    };
    // in place: tile-pair transpose round (2^16, 4096), transposed row round (2^16,
    // 16384; 2^17 over two squares, 32768), with each way of transforming the passes,
    // with the copies split over two streams per direction or not, and on a ring of two
    std::vector<detail::large_fft_config> configs(5);
    configs[1].fft = detail::pass_fft::stockham;
    configs[2].fft = detail::pass_fft::cufft;
    configs[3].split_copies = false;
    configs[4].ring_slots = 2;
    for (const auto& config : configs)
        for (const auto& t :
             { c{ 1 << 16, 4096 }, c{ 1 << 16, 16384 }, c{ 1 << 17, 32768 } }) {
            const std::int64_t n = t.n, pass = t.pass;
            const std::size_t budget =
                budget_for_pass(pass, 16, config.ring_slots ? config.ring_slots : 3);
            auto gpu = detail::make_large_fft_plan(
                { n }, direction::forward, opts(backend::cuda, budget), config);
            auto cpu = detail::make_large_fft_plan(
                { n }, direction::forward, opts(backend::cpu, budget), config);
            GPUFFT_CHECK_EQ(schedule_text(gpu), schedule_text(cpu));
            const auto x = random_complex<double>(n, fresh_seed());
            std::vector<std::complex<double>> ref(n);
            cpu.execute(x.data(), ref.data());
            cuda::pinned_buffer<std::complex<double>> in(n), out(n);
            std::copy(x.begin(), x.end(), in.get());
            std::fill(out.get(), out.get() + n, poison<double>());
            gpu.execute(in.get(), out.get());
            GPUFFT_CHECK_LE(rel_l2_error(out.get(), ref.data(), n), 1e-13);
            gpu.execute(in.get(), in.get());
            GPUFFT_CHECK_LE(rel_l2_error(in.get(), ref.data(), n), 1e-13);
            const auto st = detail::plan_stats(gpu);
            if (config.fft == detail::pass_fft::cufft)
                GPUFFT_CHECK_EQ(st.four_step_ffts + st.stockham_ffts, 0);
        }
}

// The trace through the plan's log: per round, one line per pass (GPU times from
// events) and the round's line with the time spent issuing the direct copies.
GPUFFT_TEST(trace_reports_rounds_and_passes)
{
    require_gpu();
    const std::int64_t n = 1 << 16;
    std::vector<std::string> lines;
    auto o = opts(backend::cuda, budget_for_pass(16384, 16));
    o.trace = true;
    o.log = [&](log_level level, const std::string& m) {
        GPUFFT_CHECK(level == log_level::debug);
        lines.push_back(m);
    };
    large_fft_plan gpu({ n }, direction::forward, o);
    const auto x = random_complex<double>(n, fresh_seed());
    cuda::pinned_buffer<std::complex<double>> a(n);
    std::copy(x.begin(), x.end(), a.get());
    gpu.execute(a.get(), a.get()); // in place: a column round, then the row round's moves
    const auto& sched = detail::large_fft_plan_access::of(gpu).in_place;
    std::size_t rounds = 0, passes = 0, want_passes = 0;
    for (const auto& r : sched.rounds)
        want_passes += r.pass_list.size();
    for (const auto& m : lines)
        if (m.rfind("large_fft round ", 0) == 0) {
            ++rounds;
            GPUFFT_CHECK(m.find("issuing copies") != std::string::npos);
        } else if (m.rfind("large_fft   pass ", 0) == 0) {
            ++passes;
        }
    GPUFFT_CHECK_EQ(rounds, sched.rounds.size());
    GPUFFT_CHECK_EQ(passes, want_passes);
    std::vector<std::complex<double>> ref(n);
    large_fft_plan({ n }, direction::forward, opts(backend::cpu, 0))
        .execute(x.data(), ref.data());
    GPUFFT_CHECK_LE(rel_l2_error(a.get(), ref.data(), n), 1e-12);
}

// The passes' FFTs on our evict-first kernels instead of cuFFT: the two four-step kernels
// (the default) and the Stockham stages give the same answers (lengths that are not
// powers of two, and plane FFTs, still go to cuFFT).
void own_ffts_match_cpu(detail::pass_fft fft,
                        std::int64_t detail::large_fft_stats::*count)
{
    detail::large_fft_config config;
    config.fft = fft;
    std::int64_t launches = 0;
    struct c {
        std::vector<std::int64_t> shape;
        std::int64_t pass;
    };
    for (const auto& t : {
             c{ { 4096 }, 1024 },   // two rounds, square
             c{ { 8192 }, 2048 },   // two rounds, transposed rows
             c{ { 4096 }, 40 },     // three rounds
             c{ { 6000 }, 1024 },   // small primes (cuFFT)
             c{ { 96, 16 }, 300 },  // 2-D, Y decomposition
             c{ { 96, 3, 5 }, 300 } // 3-D, Z decomposition
         })
        for (auto dir : { direction::forward, direction::backward }) {
            auto gpu = detail::make_large_fft_plan(
                t.shape, dir, opts(backend::cuda, budget_for_pass(t.pass, 16)), config);
            GPUFFT_CHECK_LE(check_plan<double>(gpu, int(dir)), 1e-12);
            launches += detail::plan_stats(gpu).*count;
        }
    GPUFFT_CHECK(launches > 0);

    // single precision, and pinned arrays in place (the transposed row round)
    const std::int64_t n = 1 << 20;
    auto gpu = detail::make_large_fft_plan(
        { n },
        direction::forward,
        opts(backend::cuda, budget_for_pass(1 << 18, 8), precision::single),
        config);
    const auto x = random_complex<float>(n, fresh_seed());
    const auto ref = forward_fft_double(x);
    cuda::pinned_buffer<std::complex<float>> a(n);
    std::copy(x.begin(), x.end(), a.get());
    gpu.execute(a.get(), a.get());
    GPUFFT_CHECK_LE(rel_l2_error(a.get(), ref.data(), n), 3e-6);
    GPUFFT_CHECK(detail::plan_stats(gpu).*count > 0);
}

GPUFFT_TEST(four_step_ffts_match_cpu)
{
    require_gpu();
    own_ffts_match_cpu(detail::pass_fft::four_step,
                       &detail::large_fft_stats::four_step_ffts);
}

GPUFFT_TEST(stockham_ffts_match_cpu)
{
    require_gpu();
    own_ffts_match_cpu(detail::pass_fft::stockham,
                       &detail::large_fft_stats::stockham_ffts);
}
#endif

GPUFFT_TEST(single_precision_out_of_card_2_20)
{
    require_gpu();
    const std::int64_t n = 1 << 20;
    // two rounds: budget 1/4 of the data (in place: tile transpose round), and passes of
    // 256 rows (in place: transposed row round, 4 passes, through the staging ring)
    for (std::size_t budget : { std::size_t(n) * 8 / 4, budget_for_pass(1 << 18, 8) }) {
        large_fft_plan gpu(
            { n }, direction::forward, opts(backend::cuda, budget, precision::single));
        GPUFFT_CHECK_EQ(gpu.passes(), 2);
        const auto x = random_complex<float>(n, fresh_seed());
        const auto ref = forward_fft_double(x);
        std::vector<std::complex<float>> y(n, poison<float>());
        gpu.execute(x.data(), y.data());
        GPUFFT_CHECK_LE(rel_l2_error(y.data(), ref.data(), n), 3e-6);
        auto z = x;
        gpu.execute(z.data(), z.data());
        GPUFFT_CHECK_LE(rel_l2_error(z.data(), ref.data(), n), 3e-6);
    }
}

GPUFFT_TEST(non_finite_input_is_refused)
{
    require_gpu();
    for (std::size_t budget : { std::size_t(0), budget_for_pass(1024, 16) }) {
        large_fft_plan gpu({ 4096 }, direction::forward, opts(backend::cuda, budget));
        auto x = random_complex<double>(4096, fresh_seed());
        std::vector<std::complex<double>> y(4096);
        // in place, the four-step kernels check what they load; the last pass's too
        for (std::size_t bad : { 77, 4000 })
            for (bool in_place : { false, true }) {
                auto z = x;
                z[bad] = { 0, std::numeric_limits<double>::infinity() };
                GPUFFT_CHECK_THROWS(gpu.execute(z.data(), in_place ? z.data() : y.data()),
                                    std::invalid_argument,
                                    "NaN");
            }
        GPUFFT_CHECK_LE(check_plan<double>(gpu, -1), 1e-12); // still usable
    }
    GPUFFT_CHECK_THROWS(large_fft_plan({ 4096 },
                                       direction::forward,
                                       opts(backend::cuda, std::size_t(1) << 62)),
                        std::invalid_argument,
                        "memory_budget");
}

GPUFFT_TEST_MAIN()
