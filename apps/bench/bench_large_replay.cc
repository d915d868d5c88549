/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "bench_large_replay.h"
#include "bench_probe_kernels.h"

#ifdef GPUFFT_HAVE_CUDA
#include "cuda/cuda_resources.h"
#include "large/large_fft_kernels.h"
#include "large/large_fft_schedule.h"
#include <algorithm>
#include <chrono>
#include <cstdio>

namespace gpufft_bench {

namespace {

using cf = std::complex<float>;
using i64 = std::int64_t;
namespace cuda = gr::gpufft::cuda;
using gr::gpufft::detail::host_block;
using gr::gpufft::detail::large_round;

// Where a pass's kernel runs, relative to its copies.
enum class kernel_at {
    compute, // on a compute stream between the copy in and the copy out (the executor)
    beside,  // on the compute stream, but the copy out waits for the copy in only
};

// What a pass's kernel does: the executor's finite check of the slot, or a sweep of
// the same footprint (1.2 GB at 2^32) that differs in one respect.
enum class kernel_kind {
    none,      // no kernel: the hop through the compute stream alone
    check,     // the executor's finite check of the slot
    streaming, // the slot read with the evict-first hint
    transpose, // the executor's transpose kernel from the slot into another buffer
    other,     // another buffer of the slot's size read (not the copies' memory)
    memset,    // another buffer of the slot's size written (cudaMemsetAsync)
};

struct ring_setup {
    const char* name;
    kernel_kind kernel;
    kernel_at where; // where it runs
};

constexpr int slots = 3;

// One direction's copies of a pass, split as the executor's: on `st`, with the second
// half of every block on `helper` (forked from and joined back into `st`).
struct copy_lane {
    copy_lane(cudaStream_t s, cudaStream_t h) : st(s), helper(h) {}
    cudaStream_t st, helper;
    cuda::event fork, join;

    void copy(cf* host, cf* dev, const std::vector<host_block>& blocks, bool in)
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
        fork.record(st);
        GPUFFT_CUDA_CHECK(cudaStreamWaitEvent(helper, fork.get(), 0));
        for (const auto& b : blocks) {
            const i64 h = b.rows > 1 ? b.rows / 2 : b.rows;
            issue(b, 0, h, st);
            if (h < b.rows)
                issue(b, h, b.rows - h, helper);
        }
        join.record(helper);
        GPUFFT_CUDA_CHECK(cudaStreamWaitEvent(st, join.get(), 0));
    }
};

// Milliseconds for the copies of round `r` through a three-slot ring with two buffers
// per slot (as the executor), streams created in the executor's order, and a kernel per
// pass as `how` says.
double replay_round(
    const large_round& r, i64 slot_elems, cf* in_arr, cf* out_arr, const ring_setup& how)
{
    std::vector<cuda::device_buffer<cf>> bufs;
    for (int k = 0; k < 2 * slots; ++k)
        bufs.emplace_back(std::size_t(slot_elems));
    auto slot = [&](int s) { return bufs[2 * s].get(); };
    // the executor's creation order (in, out, compute, move, in helper, out helper)
    cuda::stream in_st, out_st, comp, move, in_helper, out_helper;
    copy_lane in(in_st.get(), in_helper.get());
    copy_lane out(out_st.get(), out_helper.get());
    cuda::event got[slots], computed[slots], done[slots];
    cuda::device_buffer<int> flag(1);
    using k = kernel_kind;
    const bool needs_other =
        how.kernel == k::other || how.kernel == k::memset || how.kernel == k::transpose;
    cuda::device_buffer<cf> other(needs_other ? std::size_t(slot_elems) : 1);
    auto kernel = [&](int s, i64 elements, cudaStream_t on) {
        auto* x = reinterpret_cast<const float*>(slot(s));
        const i64 n = 2 * elements;
        switch (how.kernel) {
        case k::none:
            break;
        case k::check:
            gr::gpufft::detail::launch_finite_check(
                slot(s), false, elements, flag.get(), on);
            break;
        case k::streaming:
            launch_sweep(x, n, 1, true, flag.get(), on);
            break;
        case k::transpose:
            gr::gpufft::detail::launch_transpose(
                slot(s), other.get(), false, 1, elements / 1024, 1024, {}, on);
            break;
        case k::other:
            launch_sweep(
                reinterpret_cast<const float*>(other.get()), n, 1, false, flag.get(), on);
            break;
        case k::memset:
            GPUFFT_CUDA_CHECK(
                cudaMemsetAsync(other.get(), 0, std::size_t(elements) * sizeof(cf), on));
            break;
        }
    };
    const auto t0 = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < r.pass_list.size(); ++i) {
        const auto& p = r.pass_list[i];
        const int s = int(i % slots);
        GPUFFT_CUDA_CHECK(cudaStreamWaitEvent(in.st, done[s].get(), 0));
        in.copy(r.from_input ? in_arr : out_arr, slot(s), p.reads, true);
        got[s].record(in.st);
        cuda::event* ready = &got[s];
        GPUFFT_CUDA_CHECK(cudaStreamWaitEvent(comp.get(), got[s].get(), 0));
        kernel(s, p.elements, comp.get());
        computed[s].record(comp.get());
        if (how.where == kernel_at::compute)
            ready = &computed[s];
        GPUFFT_CUDA_CHECK(cudaStreamWaitEvent(out.st, ready->get(), 0));
        out.copy(out_arr, slot(s), p.writes, false);
        done[s].record(out.st);
    }
    GPUFFT_CUDA_CHECK(cudaStreamSynchronize(in.st));
    GPUFFT_CUDA_CHECK(cudaStreamSynchronize(out.st));
    GPUFFT_CUDA_CHECK(cudaStreamSynchronize(comp.get()));
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
    std::printf("replay of the schedule's copies with one kernel per pass (GB/s, in + "
                "out):\n%s",
                sched.describe().c_str());
    using w = kernel_at;
    using k = kernel_kind;
    const ring_setup setups[] = {
        { "hop only", k::none, w::compute },
        { "check on compute", k::check, w::compute },
        { "reads beside", k::other, w::beside },
        { "streaming reads beside", k::streaming, w::beside },
        { "memset beside", k::memset, w::beside },
        { "transpose beside", k::transpose, w::beside },
    };
    for (std::size_t ri = 0; ri < sched.rounds.size(); ++ri) {
        const auto& r = sched.rounds[ri];
        if (r.type == large_round::kind::whole)
            continue;
        const double bytes = double(round_bytes(r));
        std::printf("  round %zu:", ri + 1);
        for (const auto& how : setups) {
            replay_round(r, sched.pass_elems, in, out, how); // warm-up
            const double ms = replay_round(r, sched.pass_elems, in, out, how);
            std::printf("  %s %.1f (%.0f ms)", how.name, bytes / ms / 1e6, ms);
            std::fflush(stdout);
        }
        std::printf("\n");
    }
}

} // namespace gpufft_bench

#endif
