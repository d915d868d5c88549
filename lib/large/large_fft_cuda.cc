/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// CUDA backend of the large FFT: the planner's passes through a ring of device slots
// (three, or two where the schedule says so) on three streams, so the copy in of pass
// i+1, the FFTs of pass i and the copy out of pass i-1 run at once (both PCIe directions
// busy). Pinned caller arrays are copied directly with 2-D copies (large_copy_lane.h);
// pageable ones go through a pinned staging ring (the paper's blocked buffer: the CPU
// gathers the strided blocks so every DMA is one wide transfer), with the scatter of pass
// i-1 running beside the gather of pass i. Host-to-host moves (the in-place transpose of
// the row round) run as host functions on a fourth stream, between the copy in that frees
// their destination and the copy out that overwrites their source. What a pass does on
// the card is large_pass_compute.h. With several devices (large_fft_options::devices)
// each has such a ring and the passes of a round are dealt out to them in turn. The
// copies (large_copy_lane), the pass compute and the trace are their own files; what
// stays here is the ordering of events between streams and devices, which reads best
// whole.

#include "large/large_copy_lane.h"
#include "large/large_fft_backend.h"
#include "large/large_fft_host.h"
#include "large/large_fft_trace.h"
#include "large/large_pass_compute.h"
#include "large/large_pass_marks.h"
#include "large/row_round_order.h"
#include <algorithm>
#include <exception>
#include <memory>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

namespace gr {
namespace gpufft {
namespace detail {

namespace {

using i64 = std::int64_t;

// A batch of host moves for a host function on the move stream (which cannot throw).
struct move_job {
    void* host = nullptr;
    const host_move* moves = nullptr;
    std::size_t count = 0, elem_bytes = 0;
    int threads = 1;
    std::exception_ptr error;
};

void CUDART_CB run_move_job(void* arg)
{
    auto* job = static_cast<move_job*>(arg);
    try {
        move_blocks(job->host, job->moves, job->count, job->elem_bytes, job->threads);
    } catch (...) {
        job->error = std::current_exception();
    }
}

// Waits for the executors' move streams when it goes out of scope: the host functions on
// them point into the round's move jobs, however the round ends.
struct move_fence {
    std::vector<cudaStream_t> streams;
    ~move_fence()
    {
        for (cudaStream_t s : streams)
            cudaStreamSynchronize(s);
    }
};

//! One place of the ring: a pass's buffers, its staging and the events of its stages.
template <typename C>
struct ring_slot {
    cuda::device_buffer<C> buf0, buf1;
    cuda::pinned_buffer<C> stage_in, stage_out;
    cuda::event h2d_done, comp_done, d2h_done;
    // the in-place row round: own rows read; each host-move job of the pass done
    cuda::event own_in;
    std::vector<cuda::event> moved;
};

/*!
 * One executor: a device's share of the plan (one per entry of the devices list; the
 * internal stand-in puts several on one device). Its own streams, ring of slots,
 * pinned staging, FFT plans and budget. Made with `device` current.
 */
template <typename T>
struct device_lane {
    using C = typename pass_compute<T>::C;

    device_lane(int device,
                bool whole_rounds,
                std::size_t executors,
                const std::vector<const large_schedule*>& schedules,
                const large_exec_config& cfg,
                large_fft_trace& trace)
        : device(device),
          in(h2d.get(),
             h2d2.get(),
             cudaMemcpyHostToDevice,
             cfg.tuning.split_copies,
             sizeof(C),
             trace),
          out(d2h.get(),
              d2h2.get(),
              cudaMemcpyDeviceToHost,
              cfg.tuning.split_copies,
              sizeof(C),
              trace),
          compute(schedules, cfg.dir, cfg.tuning, comp.get())
    {
        int slots = 0; // the schedules of one plan share the ring's depth
        for (const auto* s : schedules) {
            pass = std::max(pass, s->pass_elems);
            if (s->pass_elems)
                slots = std::max(slots, s->slots);
            for (const auto& r : s->rounds)
                if (const auto* w = r.as<whole_round>()) {
                    whole = std::max(whole, s->size);
                    stage = std::max(stage, w->chunk);
                }
        }
        stage = std::max(stage, pass);
        if (whole && whole_rounds) // in-card rounds run on the first executor only
            whole_buf.allocate(std::size_t(whole), "the whole transform");
        ring.resize(std::size_t(slots ? slots : large_fft_max_slots));
        for (auto& r : ring) {
            if (!pass)
                break;
            r.buf0.allocate(std::size_t(pass), "a pass buffer");
            r.buf1.allocate(std::size_t(pass), "a pass buffer");
            for (std::size_t j = 0; j <= executors; ++j) // row_round_order::move_jobs()
                r.moved.emplace_back();
        }
        flag.allocate(1);
    }

    void drain() noexcept
    {
        cudaStreamSynchronize(h2d.get());
        cudaStreamSynchronize(comp.get());
        cudaStreamSynchronize(d2h.get());
        cudaStreamSynchronize(move.get());
        cudaStreamSynchronize(h2d2.get());
        cudaStreamSynchronize(d2h2.get());
    }

    void ensure_staging()
    {
        if (ring[0].stage_in.size())
            return;
        for (auto& r : ring) {
            r.stage_in.allocate(std::size_t(stage), "a staging buffer");
            r.stage_out.allocate(std::size_t(stage), "a staging buffer");
        }
    }

    const int device;
    i64 pass = 0, whole = 0, stage = 0;
    cuda::device_buffer<C> whole_buf;
    cuda::device_buffer<int> flag;
    // The copy streams are created first and one after the other: the driver spreads
    // streams over the copy engines in creation order, and copies in and out on one
    // engine share its bandwidth.
    cuda::stream h2d, d2h, comp, move, h2d2, d2h2;
    copy_lane in, out; // on the streams above, so declared after them
    pass_compute<T> compute;
    std::vector<ring_slot<C>> ring; // the executor's pass i in ring[i % size]
};

/*
 * The rounds on G executors. Pass i of a round goes to executor i % G, as its pass
 * i / G through that executor's ring; one host thread issues all passes in order, so
 * an event another executor waits for is always recorded before the wait is issued.
 * With G = 1 this is the one-GPU schedule unchanged. A round ends when every executor
 * has finished it (the next round reads what it wrote).
 *
 * Passes of a round read and write disjoint host regions (the planner's invariant,
 * tested on the CPU), except in the in-place row round: pass k reads tile k of every
 * earlier row block, put there by that pass's host moves. Each executor runs its
 * passes' moves in order on its own move stream, and executors' moves may run at once
 * (they read and write disjoint tiles); row_round_order.h cuts the moves into jobs and
 * the copies in into pieces, and says which job each piece waits for.
 */
template <typename T>
class large_fft_cuda final : public large_fft_executor
{
    using lane = device_lane<T>;
    using C = typename lane::C;

public:
    large_fft_cuda(const std::vector<const large_schedule*>& schedules,
                   const large_exec_config& cfg)
        : d_cfg(cfg), d_trace(cfg.trace, cfg.log)
    {
        const std::vector<int> devices =
            cfg.devices.empty() ? std::vector<int>{ cfg.device_id } : cfg.devices;
        for (std::size_t e = 0; e < devices.size(); ++e) {
            // streams, events, plans and buffers all belong to the executor's device
            cuda::device_guard g(devices[e]);
            d_lanes.push_back(std::make_unique<lane>(
                devices[e], e == 0, devices.size(), schedules, cfg, d_trace));
        }
    }

    ~large_fft_cuda() override
    {
        for (auto& l : d_lanes) {
            try {
                cuda::device_guard g(l->device); // cuFFT plans are freed on theirs
                l->drain();
                l.reset();
            } catch (...) {
            }
        }
    }

    large_fft_stats stats() const override
    {
        large_fft_stats t;
        for (const auto& l : d_lanes) {
            const auto& s = l->compute.stats();
            t.four_step_ffts += s.four_step_ffts;
            t.stockham_ffts += s.stockham_ffts;
            t.cufft_execs += s.cufft_execs;
        }
        return t;
    }

    void run(const large_schedule& s, const void* in, void* out) override
    {
        try {
            for (std::size_t k = 0; k < s.rounds.size(); ++k) {
                const auto& r = s.rounds[k];
                d_trace.begin_round();
                const void* src = r.from_input ? in : out;
                if (r.from_input)
                    for (auto& l : d_lanes) {
                        cuda::device_guard g(l->device);
                        GPUFFT_CUDA_CHECK(cudaMemsetAsync(
                            l->flag.get(), 0, sizeof(int), l->comp.get()));
                    }
                if (const auto* w = r.as<whole_round>())
                    run_whole(*d_lanes[0], *w, r.pass_list, s.size, src, out);
                else
                    run_passes(r, src, out);
                if (r.from_input) {
                    int bad = 0;
                    for (auto& l : d_lanes) {
                        cuda::device_guard g(l->device);
                        int flag = 0;
                        GPUFFT_CUDA_CHECK(cudaMemcpy(
                            &flag, l->flag.get(), sizeof(int), cudaMemcpyDeviceToHost));
                        bad |= flag;
                    }
                    if (bad)
                        throw std::invalid_argument(
                            "execute: the input holds a NaN or infinite sample");
                }
                d_trace.end_round(k, s.rounds.size(), r.describe(sizeof(C)));
            }
        } catch (...) {
            drain();
            throw;
        }
    }

private:
    // One round of passes in flight: where it reads and writes, and how.
    struct round_io {
        const large_round& r;
        const void* src;
        void* out;
        bool direct_in, direct_out; // pinned: copied directly; else through staging
        int threads, half;          // host threads (half: beside another gather/scatter)
        std::optional<row_round_order> order; // the in-place row round: host moves
        std::vector<move_job> jobs;           // order->move_jobs() per pass
        std::vector<pass_marks> marks;        // per executor, by its own pass index
    };

    std::size_t lanes() const { return d_lanes.size(); }
    lane& lane_of(std::size_t i) const { return *d_lanes[i % lanes()]; }
    std::size_t local(std::size_t i) const { return i / lanes(); }
    // The ring place of pass i on its executor.
    ring_slot<C>& slot_of(std::size_t i) const
    {
        lane& l = lane_of(i);
        return l.ring[local(i) % l.ring.size()];
    }

    void drain() noexcept
    {
        for (auto& l : d_lanes)
            l->drain();
    }

    // The event at the end of host-move job w.second of pass w.first.
    cudaEvent_t moved(const row_round_order::job_ref& w) const
    {
        return slot_of(w.first).moved[w.second].get();
    }

    // One round of passes through the executors' rings.
    void run_passes(const large_round& r, const void* src, void* out)
    {
        const auto& passes = r.pass_list;
        const std::size_t G = lanes();
        const int th = std::max(1, d_cfg.threads);
        const auto* rows = r.as<rows_transposed_round>();
        round_io io{ r,
                     src,
                     out,
                     cuda::is_pinned(src),
                     cuda::is_pinned(out),
                     th,
                     std::max(1, th / 2),
                     {},
                     {},
                     {} };
        if (rows) {
            io.order.emplace(*rows, G);
            io.jobs.resize(io.order->move_jobs() * passes.size());
        }
        move_fence fence;
        for (std::size_t e = 0; e < G; ++e) {
            lane& l = *d_lanes[e];
            cuda::device_guard g(l.device);
            const std::size_t mine =
                passes.size() > e ? (passes.size() - e + G - 1) / G : 0;
            io.marks.emplace_back(d_trace.on(), mine);
            if (!io.direct_in || !io.direct_out)
                l.ensure_staging();
            fence.streams.push_back(l.move.get());
        }
        // Staged output: each executor's previous pass goes from staging to the host
        // beside the gather of its next one.
        std::exception_ptr scatter_error;
        for (std::size_t i = 0; i < passes.size(); ++i) {
            std::thread scatter_prev;
            if (!io.direct_out && i >= G)
                scatter_prev = std::thread([&, i] {
                    try {
                        scatter(io, i - G);
                    } catch (...) {
                        scatter_error = std::current_exception();
                    }
                });
            try {
                cuda::device_guard g(lane_of(i).device);
                copy_in(io, i);
                if (rows)
                    move_tiles(io, i);
                copy_out(io, i, compute(io, i));
            } catch (...) {
                if (scatter_prev.joinable())
                    scatter_prev.join();
                throw;
            }
            if (scatter_prev.joinable())
                scatter_prev.join();
            if (scatter_error)
                std::rethrow_exception(scatter_error);
        }
        if (!io.direct_out)
            for (std::size_t i = passes.size() > G ? passes.size() - G : 0;
                 i < passes.size();
                 ++i)
                scatter(io, i);
        // the barrier: the next round reads what this one wrote, on every executor
        for (auto& l : d_lanes) {
            GPUFFT_CUDA_CHECK(cudaStreamSynchronize(l->d2h.get()));
            GPUFFT_CUDA_CHECK(cudaStreamSynchronize(l->comp.get()));
            GPUFFT_CUDA_CHECK(cudaStreamSynchronize(l->move.get()));
        }
        for (const auto& j : io.jobs)
            if (j.error)
                std::rethrow_exception(j.error);
        if (d_trace.on())
            for (std::size_t e = 0; e < G; ++e) {
                cuda::device_guard g(d_lanes[e]->device);
                io.marks[e].report(d_trace, rows != nullptr, e, G);
            }
    }

    // Pass i into its executor's slot, once the pass before it in that slot has left.
    void copy_in(round_io& io, std::size_t i)
    {
        const auto& p = io.r.pass_list[i];
        lane& l = lane_of(i);
        auto& s = slot_of(i);
        const auto& marks = io.marks[i % lanes()];
        GPUFFT_CUDA_CHECK(cudaStreamWaitEvent(l.h2d.get(), s.d2h_done.get(), 0));
        marks.mark(local(i), pass_marks::in_start, l.h2d.get());
        const host_block* b = p.reads.data();
        if (io.direct_in && !io.order) {
            l.in.copy_in(b, b + p.reads.size(), io.src, s.buf0.get());
        } else if (io.direct_in) {
            // piece by piece, each after the host moves that put its tiles in place
            const auto& o = *io.order;
            for (std::size_t piece = 0; piece < o.read_pieces(); ++piece) {
                const auto r = o.reads_of(i, piece);
                if (r.first != r.second) {
                    for (const auto& w : o.waits_of(i, piece))
                        GPUFFT_CUDA_CHECK(cudaStreamWaitEvent(l.h2d.get(), moved(w), 0));
                    l.in.copy_in(b + r.first, b + r.second, io.src, s.buf0.get());
                }
                if (piece == o.moves_after_piece())
                    s.own_in.record(l.h2d.get());
            }
        } else {
            GPUFFT_CUDA_CHECK(cudaEventSynchronize(s.h2d_done.get()));
            if (io.order)
                for (std::size_t piece = 1; piece < io.order->read_pieces(); ++piece)
                    for (const auto& w : io.order->waits_of(i, piece))
                        GPUFFT_CUDA_CHECK(cudaEventSynchronize(moved(w)));
            gather_blocks(io.src,
                          s.stage_in.get(),
                          p.reads,
                          sizeof(C),
                          io.direct_out ? io.threads : io.half);
            GPUFFT_CUDA_CHECK(cudaMemcpyAsync(s.buf0.get(),
                                              s.stage_in.get(),
                                              p.elements * sizeof(C),
                                              cudaMemcpyHostToDevice,
                                              l.h2d.get()));
            s.own_in.record(l.h2d.get());
        }
        s.h2d_done.record(l.h2d.get());
        marks.mark(local(i), pass_marks::in_end, l.h2d.get());
    }

    // The host moves of pass i, once its own rows (the moves fill them; with more than
    // two executors its whole copy in) have left the host array, job by job: the tile
    // rows the next passes read first, then the rest.
    void move_tiles(round_io& io, std::size_t i)
    {
        const auto& p = io.r.pass_list[i];
        const auto& o = *io.order;
        lane& l = lane_of(i);
        auto& s = slot_of(i);
        const auto& marks = io.marks[i % lanes()];
        GPUFFT_CUDA_CHECK(cudaStreamWaitEvent(l.move.get(), s.own_in.get(), 0));
        marks.mark(local(i), pass_marks::moves_start, l.move.get());
        for (std::size_t j = 0; j < o.move_jobs(); ++j) {
            const auto r = o.moves_of(p, j);
            move_job& job = io.jobs[o.move_jobs() * i + j];
            job = { io.out,
                    p.moves.data() + r.first,
                    r.second - r.first,
                    sizeof(C),
                    io.threads,
                    nullptr };
            if (job.count)
                GPUFFT_CUDA_CHECK(cudaLaunchHostFunc(l.move.get(), run_move_job, &job));
            s.moved[j].record(l.move.get());
        }
        marks.mark(local(i), pass_marks::moves_end, l.move.get());
    }

    // The transforms of pass i once it is on the card; returns where its result is.
    const C* compute(round_io& io, std::size_t i)
    {
        lane& l = lane_of(i);
        auto& s = slot_of(i);
        const auto& marks = io.marks[i % lanes()];
        GPUFFT_CUDA_CHECK(cudaStreamWaitEvent(l.comp.get(), s.h2d_done.get(), 0));
        marks.mark(local(i), pass_marks::compute_start, l.comp.get());
        const C* res = l.compute.run(
            io.r, io.r.pass_list[i], s.buf0.get(), s.buf1.get(), l.flag.get());
        s.comp_done.record(l.comp.get());
        marks.mark(local(i), pass_marks::compute_end, l.comp.get());
        return res;
    }

    // Pass i's result `res` out to the host (or to staging), after its host moves,
    // whose sources the writes overwrite.
    void copy_out(round_io& io, std::size_t i, const C* res)
    {
        const auto& p = io.r.pass_list[i];
        lane& l = lane_of(i);
        auto& s = slot_of(i);
        const auto& marks = io.marks[i % lanes()];
        GPUFFT_CUDA_CHECK(cudaStreamWaitEvent(l.d2h.get(), s.comp_done.get(), 0));
        if (io.order) // the writes overwrite the moves' sources
            GPUFFT_CUDA_CHECK(
                cudaStreamWaitEvent(l.d2h.get(), s.moved[io.order->last_job()].get(), 0));
        marks.mark(local(i), pass_marks::out_start, l.d2h.get());
        if (io.direct_out)
            l.out.copy_out(p.writes, io.out, res);
        else
            GPUFFT_CUDA_CHECK(cudaMemcpyAsync(s.stage_out.get(),
                                              res,
                                              p.elements * sizeof(C),
                                              cudaMemcpyDeviceToHost,
                                              l.d2h.get()));
        s.d2h_done.record(l.d2h.get());
        marks.mark(local(i), pass_marks::out_end, l.d2h.get());
    }

    // Staged output: pass i from its staging slot to the host array.
    void scatter(const round_io& io, std::size_t i)
    {
        auto& s = slot_of(i);
        GPUFFT_CUDA_CHECK(cudaEventSynchronize(s.d2h_done.get()));
        scatter_blocks(
            s.stage_out.get(), io.out, io.r.pass_list[i].writes, sizeof(C), io.half);
    }

    // In card, on the first executor: the whole array in by chunks, the FFT, out by
    // chunks.
    void run_whole(lane& l,
                   const whole_round& r,
                   const std::vector<large_pass>& chunks,
                   i64 n,
                   const void* src,
                   void* out)
    {
        cuda::device_guard g(l.device);
        const bool direct_in = cuda::is_pinned(src), direct_out = cuda::is_pinned(out);
        if (!direct_in || !direct_out)
            l.ensure_staging();
        const int th = std::max(1, d_cfg.threads);
        C* buf = l.whole_buf.get();
        const std::size_t K = l.ring.size();
        if (direct_in) {
            GPUFFT_CUDA_CHECK(cudaMemcpyAsync(
                buf, src, n * sizeof(C), cudaMemcpyHostToDevice, l.h2d.get()));
        } else {
            for (std::size_t i = 0; i < chunks.size(); ++i) {
                auto& s = l.ring[i % K];
                const auto& b = chunks[i].reads[0];
                GPUFFT_CUDA_CHECK(cudaEventSynchronize(s.h2d_done.get()));
                gather_blocks(src,
                              s.stage_in.get(),
                              { { b.host_offset, 1, b.width, b.width, 0 } },
                              sizeof(C),
                              th);
                GPUFFT_CUDA_CHECK(cudaMemcpyAsync(buf + b.host_offset,
                                                  s.stage_in.get(),
                                                  b.width * sizeof(C),
                                                  cudaMemcpyHostToDevice,
                                                  l.h2d.get()));
                s.h2d_done.record(l.h2d.get());
            }
        }
        l.ring[0].h2d_done.record(l.h2d.get());
        GPUFFT_CUDA_CHECK(cudaStreamWaitEvent(l.comp.get(), l.ring[0].h2d_done.get(), 0));
        l.compute.run_whole(r, buf, n, l.flag.get());
        l.ring[0].comp_done.record(l.comp.get());
        GPUFFT_CUDA_CHECK(cudaStreamWaitEvent(l.d2h.get(), l.ring[0].comp_done.get(), 0));
        if (direct_out) {
            GPUFFT_CUDA_CHECK(cudaMemcpyAsync(
                out, buf, n * sizeof(C), cudaMemcpyDeviceToHost, l.d2h.get()));
        } else {
            auto scatter = [&](std::size_t i) {
                const auto& b = chunks[i].writes[0];
                GPUFFT_CUDA_CHECK(cudaEventSynchronize(l.ring[i % K].d2h_done.get()));
                scatter_blocks(l.ring[i % K].stage_out.get(),
                               out,
                               { { b.host_offset, 1, b.width, b.width, 0 } },
                               sizeof(C),
                               th);
            };
            for (std::size_t i = 0; i < chunks.size(); ++i) {
                if (i >= K)
                    scatter(i - K);
                const auto& b = chunks[i].writes[0];
                GPUFFT_CUDA_CHECK(cudaMemcpyAsync(l.ring[i % K].stage_out.get(),
                                                  buf + b.host_offset,
                                                  b.width * sizeof(C),
                                                  cudaMemcpyDeviceToHost,
                                                  l.d2h.get()));
                l.ring[i % K].d2h_done.record(l.d2h.get());
            }
            for (std::size_t i = chunks.size() > K ? chunks.size() - K : 0;
                 i < chunks.size();
                 ++i)
                scatter(i);
        }
        GPUFFT_CUDA_CHECK(cudaStreamSynchronize(l.d2h.get()));
    }

    large_exec_config d_cfg;
    large_fft_trace d_trace; // shared by the executors' copy lanes (one issuing thread)
    std::vector<std::unique_ptr<lane>> d_lanes;
};

} // namespace

std::unique_ptr<large_fft_executor>
make_large_fft_cuda(const std::vector<const large_schedule*>& schedules,
                    const large_exec_config& cfg)
{
    if (cfg.prec == precision::single)
        return std::make_unique<large_fft_cuda<float>>(schedules, cfg);
    return std::make_unique<large_fft_cuda<double>>(schedules, cfg);
}

} // namespace detail
} // namespace gpufft
} // namespace gr
