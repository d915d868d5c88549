/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "bench_large_replay.h"

#ifdef GPUFFT_HAVE_CUDA
#include "cuda/cuda_resources.h"
#include "large/large_fft_kernels.h"
#include "large/large_fft_schedule.h"
#include <gnuradio/gpufft/large_fft_plan.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <string>

namespace gpufft_bench {

namespace {

using cf = std::complex<float>;
using i64 = std::int64_t;
namespace cuda = gr::gpufft::cuda;
using gr::gpufft::detail::host_block;
using gr::gpufft::detail::large_round;

struct ring_setup {
    const char* name;
    int slot_allocs;   // device allocations per slot: 0 (one for the ring), 1, or 2
                       // allocated in turn as the executor's (copies use the first)
    bool split;        // each block's rows in halves on two streams per direction
    bool exec_streams; // streams created in the executor's order (in, out, compute,
                       // move, in helper, out helper); copies out wait on the compute
                       // stream
    int checks;        // the executor's finite check of the input on that stream, this
                       // many times (10: compute of about a real pass's length)
    int pad = 0;       // idle streams created (and kept) before the ring's: whether the
                       // engines a stream gets depend on how many streams came before
};

constexpr int slots = 3;

// One direction's copies of a pass: on `st`, with the second half of every block on
// `helper` (forked from and joined back into `st`) when splitting.
struct copy_lane {
    copy_lane(cudaStream_t s, cudaStream_t h) : st(s), helper(h) {}
    cudaStream_t st, helper;
    cuda::event fork, join;

    void
    copy(cf* host, cf* dev, const std::vector<host_block>& blocks, bool in, bool split)
    {
        const std::size_t e = sizeof(cf);
        auto issue = [&](const host_block& b, i64 r0, i64 nr, cudaStream_t on) {
            cf* h = host + b.host_offset + r0 * b.pitch;
            cf* d = dev + b.dev_offset + r0 * b.dpitch();
            if (in)
                GPUFFT_CUDA_CHECK(cudaMemcpy2DAsync(d,
                                                    b.dpitch() * e,
                                                    h,
                                                    b.pitch * e,
                                                    b.width * e,
                                                    nr,
                                                    cudaMemcpyHostToDevice,
                                                    on));
            else
                GPUFFT_CUDA_CHECK(cudaMemcpy2DAsync(h,
                                                    b.pitch * e,
                                                    d,
                                                    b.dpitch() * e,
                                                    b.width * e,
                                                    nr,
                                                    cudaMemcpyDeviceToHost,
                                                    on));
        };
        if (split) {
            fork.record(st);
            GPUFFT_CUDA_CHECK(cudaStreamWaitEvent(helper, fork.get(), 0));
        }
        for (const auto& b : blocks) {
            const i64 h = split && b.rows > 1 ? b.rows / 2 : b.rows;
            issue(b, 0, h, st);
            if (h < b.rows)
                issue(b, h, b.rows - h, helper);
        }
        if (split) {
            join.record(helper);
            GPUFFT_CUDA_CHECK(cudaStreamWaitEvent(st, join.get(), 0));
        }
    }
};

// Milliseconds for the copies of round `r` through a three-slot ring, no compute.
double replay_round(
    const large_round& r, i64 slot_elems, cf* in_arr, cf* out_arr, const ring_setup& how)
{
    std::vector<cuda::device_buffer<cf>> bufs;
    if (how.slot_allocs == 0)
        bufs.emplace_back(std::size_t(slots * slot_elems));
    for (int k = 0; k < slots * how.slot_allocs; ++k)
        bufs.emplace_back(std::size_t(slot_elems));
    auto slot = [&](int s) {
        return how.slot_allocs == 0 ? bufs[0].get() + s * slot_elems
                                    : bufs[s * how.slot_allocs].get();
    };
    // creation order: the probe's, or the executor's (the driver maps streams onto its
    // hardware queues and copy engines in creation order)
    enum { in_st, in_helper, out_st, out_helper, comp, move, n_streams };
    const int probe_order[] = { in_st, in_helper, out_st, out_helper, comp, move };
    const int exec_order[] = { in_st, out_st, comp, move, in_helper, out_helper };
    std::vector<cuda::stream> pad(how.pad), created(n_streams);
    cudaStream_t st[n_streams];
    for (int k = 0; k < n_streams; ++k)
        st[(how.exec_streams ? exec_order : probe_order)[k]] = created[k].get();
    copy_lane in(st[in_st], st[in_helper]);
    copy_lane out(st[out_st], st[out_helper]);
    cuda::event got[slots], computed[slots], done[slots];
    cuda::device_buffer<int> flag(1);
    const auto t0 = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < r.pass_list.size(); ++i) {
        const auto& p = r.pass_list[i];
        const int s = int(i % slots);
        GPUFFT_CUDA_CHECK(cudaStreamWaitEvent(in.st, done[s].get(), 0));
        in.copy(r.from_input ? in_arr : out_arr, slot(s), p.reads, true, how.split);
        got[s].record(in.st);
        cuda::event* ready = &got[s];
        if (how.exec_streams) {
            GPUFFT_CUDA_CHECK(cudaStreamWaitEvent(st[comp], got[s].get(), 0));
            for (int c = 0; c < (r.from_input ? how.checks : 0); ++c)
                gr::gpufft::detail::launch_finite_check(
                    slot(s), false, p.elements, flag.get(), st[comp]);
            computed[s].record(st[comp]);
            ready = &computed[s];
        }
        GPUFFT_CUDA_CHECK(cudaStreamWaitEvent(out.st, ready->get(), 0));
        out.copy(out_arr, slot(s), p.writes, false, how.split);
        done[s].record(out.st);
    }
    GPUFFT_CUDA_CHECK(cudaStreamSynchronize(in.st));
    GPUFFT_CUDA_CHECK(cudaStreamSynchronize(out.st));
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() -
                                                     t0)
        .count();
}

i64 round_bytes(const large_round& r)
{
    i64 b = 0;
    for (const auto& p : r.pass_list)
        for (const auto* list : { &p.reads, &p.writes })
            for (const auto& blk : *list)
                b += blk.elements() * i64(sizeof(cf));
    return b;
}

} // namespace

void replay_probe(const std::vector<std::int64_t>& shape,
                  std::size_t budget,
                  std::complex<float>* in,
                  std::complex<float>* out)
{
    const auto sched =
        gr::gpufft::detail::plan_large_fft(shape, sizeof(cf), budget, in == out);
    std::printf("replay of the schedule's copies, no compute (GB/s, in + out):\n%s",
                sched.describe().c_str());
    const ring_setup setups[] = { { "ring", 0, false, false, 0 },
                                  { "+slot buffers", 1, false, false, 0 },
                                  { "+split", 1, true, false, 0 },
                                  { "+executor streams", 1, true, true, 0 },
                                  { "+finite check", 1, true, true, 1 },
                                  { "+paired buffers", 2, true, true, 1 },
                                  { "+10 checks", 2, true, true, 10 },
                                  { "1 stream before", 2, true, true, 1, 1 },
                                  { "2 streams before", 2, true, true, 1, 2 } };
    auto replay_rounds = [&](const ring_setup* first, const ring_setup* last) {
        for (std::size_t k = 0; k < sched.rounds.size(); ++k) {
            const auto& r = sched.rounds[k];
            if (r.type == large_round::kind::whole)
                continue;
            const double bytes = double(round_bytes(r));
            std::printf("  round %zu:", k + 1);
            for (const ring_setup* how = first; how != last; ++how) {
                replay_round(r, sched.pass_elems, in, out, *how); // warm-up
                const double ms = replay_round(r, sched.pass_elems, in, out, *how);
                std::printf("  %s %.1f (%.0f ms)", how->name, bytes / ms / 1e6, ms);
            }
            std::printf("\n");
        }
    };
    replay_rounds(std::begin(setups), std::end(setups));
    // The executor itself, copies only; GPUFFT_LARGE_FFT_TRACE=1 prints its round times.
    // The last setup again while the plan (its buffers, cuFFT plans) exists, before and
    // after the executor ran: whether the executor's context slows every copy.
    setenv("GPUFFT_LARGE_FFT_NO_COMPUTE", "1", 1);
    setenv("GPUFFT_LARGE_FFT_TRACE", "1", 1);
    {
        gr::gpufft::large_fft_options opt;
        opt.backend = gr::gpufft::backend::cuda;
        opt.memory_budget = budget;
        gr::gpufft::large_fft_plan plan(shape, gr::gpufft::direction::forward, opt);
        const ring_setup alive[] = { { "plan alive", 2, true, true, 1 } };
        replay_rounds(std::begin(alive), std::end(alive));
        for (int rep = 0; rep < 2; ++rep) {
            const auto t0 = std::chrono::steady_clock::now();
            plan.execute(in, out);
            std::fflush(stderr);
            std::printf("  executor, no compute: %.0f ms (rounds on stderr)\n",
                        std::chrono::duration<double, std::milli>(
                            std::chrono::steady_clock::now() - t0)
                            .count());
            std::fflush(stdout);
        }
        const ring_setup after[] = { { "after the executor", 2, true, true, 1 } };
        replay_rounds(std::begin(after), std::end(after));
    }
    unsetenv("GPUFFT_LARGE_FFT_NO_COMPUTE");
    unsetenv("GPUFFT_LARGE_FFT_TRACE");
}

} // namespace gpufft_bench

#endif
