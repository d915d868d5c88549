/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// CUDA backend of the large FFT: the planner's passes through a ring of three device
// slots on three streams, so the copy in of pass i+1, the FFTs of pass i and the copy out
// of pass i-1 run at once (both PCIe directions busy). Pinned caller arrays are copied
// directly with 2-D copies (large_copy_lane.h); pageable ones go through a pinned
// staging ring (the paper's blocked buffer: the CPU gathers the strided blocks so every
// DMA is one wide transfer), with the scatter of pass i-1 running beside the gather of
// pass i. Host-to-host moves (the in-place transpose of the row round) run as host
// functions on a fourth stream, between the copy in that frees their destination and
// the copy out that overwrites their source. What a pass does on the card is
// large_pass_compute.h.

#include "large_copy_lane.h"
#include "large_fft_backend.h"
#include "large_fft_host.h"
#include "large_fft_trace.h"
#include "large_pass_compute.h"
#include "large_pass_marks.h"
#include <exception>
#include <stdexcept>
#include <thread>

namespace gr {
namespace gpufft {
namespace detail {

namespace {

using i64 = std::int64_t;
constexpr int K = large_fft_slots;

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

// Waits for the move stream when it goes out of scope: the host functions on it point
// into the round's move jobs, however the round ends.
struct move_fence {
    cudaStream_t stream;
    ~move_fence() { cudaStreamSynchronize(stream); }
};

template <typename T>
class large_fft_cuda final : public large_fft_executor
{
    using C = typename pass_compute<T>::C;

public:
    // Called with cfg.device_id current (make_large_fft_cuda).
    large_fft_cuda(const std::vector<const large_schedule*>& schedules,
                   const large_exec_config& cfg)
        : d_cfg(cfg),
          d_trace(cfg.trace, cfg.log),
          d_in(d_h2d.get(),
               d_h2d2.get(),
               cudaMemcpyHostToDevice,
               cfg.tuning.split_copies,
               sizeof(C),
               d_trace),
          d_out(d_d2h.get(),
                d_d2h2.get(),
                cudaMemcpyDeviceToHost,
                cfg.tuning.split_copies,
                sizeof(C),
                d_trace),
          d_compute(schedules, cfg.dir, cfg.tuning, d_comp.get())
    {
        for (const auto* s : schedules) {
            d_pass = std::max(d_pass, s->pass_elems);
            for (const auto& r : s->rounds)
                if (const auto* w = r.as<whole_round>()) {
                    d_whole = std::max(d_whole, s->size);
                    d_stage = std::max(d_stage, w->chunk);
                }
        }
        d_stage = std::max(d_stage, d_pass);
        if (d_whole)
            d_whole_buf.allocate(std::size_t(d_whole));
        for (int s = 0; s < K && d_pass; ++s) {
            d_buf0[s].allocate(std::size_t(d_pass));
            d_buf1[s].allocate(std::size_t(d_pass));
        }
        d_flag.allocate(1);
    }

    ~large_fft_cuda() override { drain(); }

    large_fft_stats stats() const override { return d_compute.stats(); }

    void run(const large_schedule& s, const void* in, void* out) override
    {
        cuda::device_guard g(d_cfg.device_id);
        try {
            for (std::size_t k = 0; k < s.rounds.size(); ++k) {
                const auto& r = s.rounds[k];
                d_trace.begin_round();
                const void* src = r.from_input ? in : out;
                if (r.from_input)
                    GPUFFT_CUDA_CHECK(
                        cudaMemsetAsync(d_flag.get(), 0, sizeof(int), d_comp.get()));
                if (const auto* w = r.as<whole_round>())
                    run_whole(*w, r.pass_list, s.size, src, out);
                else
                    run_passes(r, src, out);
                if (r.from_input) {
                    int bad = 0;
                    GPUFFT_CUDA_CHECK(cudaMemcpy(
                        &bad, d_flag.get(), sizeof(int), cudaMemcpyDeviceToHost));
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
        const rows_transposed_round* rows; // non-null: host moves between the passes
        std::vector<move_job> jobs;        // two per pass: the tiles the next pass reads
        pass_marks marks;
    };

    void drain() noexcept
    {
        cudaStreamSynchronize(d_h2d.get());
        cudaStreamSynchronize(d_comp.get());
        cudaStreamSynchronize(d_d2h.get());
        cudaStreamSynchronize(d_move.get());
        cudaStreamSynchronize(d_h2d2.get());
        cudaStreamSynchronize(d_d2h2.get());
    }

    void ensure_staging()
    {
        if (d_stage_in[0].size())
            return;
        for (int s = 0; s < K; ++s) {
            d_stage_in[s].allocate(std::size_t(d_stage));
            d_stage_out[s].allocate(std::size_t(d_stage));
        }
    }

    // One round of passes through the three-slot ring.
    void run_passes(const large_round& r, const void* src, void* out)
    {
        const auto& passes = r.pass_list;
        const int th = std::max(1, d_cfg.threads);
        const auto* rows = r.as<rows_transposed_round>();
        round_io io{ r,
                     src,
                     out,
                     cuda::is_pinned(src),
                     cuda::is_pinned(out),
                     th,
                     std::max(1, th / 2),
                     rows,
                     std::vector<move_job>(rows ? 2 * passes.size() : 0),
                     pass_marks(d_trace.on(), passes.size()) };
        if (!io.direct_in || !io.direct_out)
            ensure_staging();
        const move_fence fence{ d_move.get() };
        std::exception_ptr scatter_error;
        for (std::size_t i = 0; i < passes.size(); ++i) {
            std::thread scatter_prev;
            if (!io.direct_out && i > 0)
                scatter_prev = std::thread([&, i] {
                    try {
                        scatter(io, i - 1);
                    } catch (...) {
                        scatter_error = std::current_exception();
                    }
                });
            try {
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
        if (!io.direct_out && !passes.empty())
            scatter(io, passes.size() - 1);
        // the next round reads what this one wrote
        GPUFFT_CUDA_CHECK(cudaStreamSynchronize(d_d2h.get()));
        GPUFFT_CUDA_CHECK(cudaStreamSynchronize(d_comp.get()));
        GPUFFT_CUDA_CHECK(cudaStreamSynchronize(d_move.get()));
        for (const auto& j : io.jobs)
            if (j.error)
                std::rethrow_exception(j.error);
        if (d_trace.on())
            io.marks.report(d_trace, rows != nullptr);
    }

    // Pass i into slot i % K, once pass i - K has left it.
    void copy_in(round_io& io, std::size_t i)
    {
        const auto& p = io.r.pass_list[i];
        const int s = int(i % K);
        GPUFFT_CUDA_CHECK(cudaStreamWaitEvent(d_h2d.get(), d_d2h_done[s].get(), 0));
        io.marks.mark(i, pass_marks::in_start, d_h2d.get());
        const bool after_moves = io.rows && i > 0;
        if (io.direct_in) {
            // the pass's own rows first (one block per square); the rest needs the
            // previous pass's moves
            const host_block* b = p.reads.data();
            const host_block* e = b + p.reads.size();
            const host_block* own = after_moves ? b + io.rows->blocks : e;
            d_in.copy_in(b, own, io.src, d_buf0[s].get());
            if (after_moves) {
                GPUFFT_CUDA_CHECK(cudaStreamWaitEvent(
                    d_h2d.get(), d_moved_first[(i - 1) % K].get(), 0));
                d_in.copy_in(own, e, io.src, d_buf0[s].get());
            }
        } else {
            GPUFFT_CUDA_CHECK(cudaEventSynchronize(d_h2d_done[s].get()));
            if (after_moves)
                GPUFFT_CUDA_CHECK(cudaEventSynchronize(d_moved_first[(i - 1) % K].get()));
            gather_blocks(io.src,
                          d_stage_in[s].get(),
                          p.reads,
                          sizeof(C),
                          io.direct_out ? io.threads : io.half);
            GPUFFT_CUDA_CHECK(cudaMemcpyAsync(d_buf0[s].get(),
                                              d_stage_in[s].get(),
                                              p.elements * sizeof(C),
                                              cudaMemcpyHostToDevice,
                                              d_h2d.get()));
        }
        d_h2d_done[s].record(d_h2d.get());
        io.marks.mark(i, pass_marks::in_end, d_h2d.get());
    }

    // The host moves of pass i, once its reads have left the host array: first those of
    // tile row i + 1 (one per square), which the next pass reads, then the rest.
    void move_tiles(round_io& io, std::size_t i)
    {
        const auto& p = io.r.pass_list[i];
        const int s = int(i % K);
        GPUFFT_CUDA_CHECK(cudaStreamWaitEvent(d_move.get(), d_h2d_done[s].get(), 0));
        io.marks.mark(i, pass_marks::moves_start, d_move.get());
        const std::size_t first =
            std::min<std::size_t>(std::size_t(io.rows->blocks), p.moves.size());
        io.jobs[2 * i] = {
            io.out, p.moves.data(), first, sizeof(C), io.threads, nullptr
        };
        io.jobs[2 * i + 1] = {
            io.out, p.moves.data() + first, p.moves.size() - first, sizeof(C), io.threads,
            nullptr
        };
        GPUFFT_CUDA_CHECK(
            cudaLaunchHostFunc(d_move.get(), run_move_job, &io.jobs[2 * i]));
        d_moved_first[s].record(d_move.get());
        GPUFFT_CUDA_CHECK(
            cudaLaunchHostFunc(d_move.get(), run_move_job, &io.jobs[2 * i + 1]));
        d_moved_all[s].record(d_move.get());
        io.marks.mark(i, pass_marks::moves_end, d_move.get());
    }

    // The transforms of pass i once it is on the card; returns where its result is.
    const C* compute(round_io& io, std::size_t i)
    {
        const int s = int(i % K);
        GPUFFT_CUDA_CHECK(cudaStreamWaitEvent(d_comp.get(), d_h2d_done[s].get(), 0));
        io.marks.mark(i, pass_marks::compute_start, d_comp.get());
        const C* res = d_compute.run(
            io.r, io.r.pass_list[i], d_buf0[s].get(), d_buf1[s].get(), d_flag.get());
        d_comp_done[s].record(d_comp.get());
        io.marks.mark(i, pass_marks::compute_end, d_comp.get());
        return res;
    }

    // Pass i's result `res` out to the host (or to staging), after its host moves,
    // whose sources the writes overwrite.
    void copy_out(round_io& io, std::size_t i, const C* res)
    {
        const auto& p = io.r.pass_list[i];
        const int s = int(i % K);
        GPUFFT_CUDA_CHECK(cudaStreamWaitEvent(d_d2h.get(), d_comp_done[s].get(), 0));
        if (io.rows)
            GPUFFT_CUDA_CHECK(cudaStreamWaitEvent(d_d2h.get(), d_moved_all[s].get(), 0));
        io.marks.mark(i, pass_marks::out_start, d_d2h.get());
        if (io.direct_out)
            d_out.copy_out(p.writes, io.out, res);
        else
            GPUFFT_CUDA_CHECK(cudaMemcpyAsync(d_stage_out[s].get(),
                                              res,
                                              p.elements * sizeof(C),
                                              cudaMemcpyDeviceToHost,
                                              d_d2h.get()));
        d_d2h_done[s].record(d_d2h.get());
        io.marks.mark(i, pass_marks::out_end, d_d2h.get());
    }

    // Staged output: pass i from its staging slot to the host array.
    void scatter(const round_io& io, std::size_t i)
    {
        const int s = int(i % K);
        GPUFFT_CUDA_CHECK(cudaEventSynchronize(d_d2h_done[s].get()));
        scatter_blocks(
            d_stage_out[s].get(), io.out, io.r.pass_list[i].writes, sizeof(C), io.half);
    }

    // In card: the whole array in by chunks, the FFT, out by chunks.
    void run_whole(const whole_round& r,
                   const std::vector<large_pass>& chunks,
                   i64 n,
                   const void* src,
                   void* out)
    {
        const bool direct_in = cuda::is_pinned(src), direct_out = cuda::is_pinned(out);
        if (!direct_in || !direct_out)
            ensure_staging();
        const int th = std::max(1, d_cfg.threads);
        C* buf = d_whole_buf.get();
        if (direct_in) {
            GPUFFT_CUDA_CHECK(cudaMemcpyAsync(
                buf, src, n * sizeof(C), cudaMemcpyHostToDevice, d_h2d.get()));
        } else {
            for (std::size_t i = 0; i < chunks.size(); ++i) {
                const int s = int(i % K);
                const auto& b = chunks[i].reads[0];
                GPUFFT_CUDA_CHECK(cudaEventSynchronize(d_h2d_done[s].get()));
                gather_blocks(src,
                              d_stage_in[s].get(),
                              { { b.host_offset, 1, b.width, b.width, 0 } },
                              sizeof(C),
                              th);
                GPUFFT_CUDA_CHECK(cudaMemcpyAsync(buf + b.host_offset,
                                                  d_stage_in[s].get(),
                                                  b.width * sizeof(C),
                                                  cudaMemcpyHostToDevice,
                                                  d_h2d.get()));
                d_h2d_done[s].record(d_h2d.get());
            }
        }
        d_h2d_done[0].record(d_h2d.get());
        GPUFFT_CUDA_CHECK(cudaStreamWaitEvent(d_comp.get(), d_h2d_done[0].get(), 0));
        d_compute.run_whole(r, buf, n, d_flag.get());
        d_comp_done[0].record(d_comp.get());
        GPUFFT_CUDA_CHECK(cudaStreamWaitEvent(d_d2h.get(), d_comp_done[0].get(), 0));
        if (direct_out) {
            GPUFFT_CUDA_CHECK(cudaMemcpyAsync(
                out, buf, n * sizeof(C), cudaMemcpyDeviceToHost, d_d2h.get()));
        } else {
            auto scatter = [&](std::size_t i) {
                const auto& b = chunks[i].writes[0];
                GPUFFT_CUDA_CHECK(cudaEventSynchronize(d_d2h_done[i % K].get()));
                scatter_blocks(d_stage_out[i % K].get(),
                               out,
                               { { b.host_offset, 1, b.width, b.width, 0 } },
                               sizeof(C),
                               th);
            };
            for (std::size_t i = 0; i < chunks.size(); ++i) {
                if (i >= std::size_t(K))
                    scatter(i - K);
                const auto& b = chunks[i].writes[0];
                GPUFFT_CUDA_CHECK(cudaMemcpyAsync(d_stage_out[i % K].get(),
                                                  buf + b.host_offset,
                                                  b.width * sizeof(C),
                                                  cudaMemcpyDeviceToHost,
                                                  d_d2h.get()));
                d_d2h_done[i % K].record(d_d2h.get());
            }
            for (std::size_t i = chunks.size() > std::size_t(K) ? chunks.size() - K : 0;
                 i < chunks.size();
                 ++i)
                scatter(i);
        }
        GPUFFT_CUDA_CHECK(cudaStreamSynchronize(d_d2h.get()));
    }

    large_exec_config d_cfg;
    large_fft_trace d_trace;
    i64 d_pass = 0, d_whole = 0, d_stage = 0;
    cuda::device_buffer<C> d_whole_buf, d_buf0[K], d_buf1[K];
    cuda::device_buffer<int> d_flag;
    cuda::pinned_buffer<C> d_stage_in[K], d_stage_out[K];
    // The copy streams are created first and one after the other: the driver spreads
    // streams over the copy engines in creation order, and copies in and out on one
    // engine share its bandwidth.
    cuda::stream d_h2d, d_d2h, d_comp, d_move, d_h2d2, d_d2h2;
    copy_lane d_in, d_out; // on the streams above, so declared after them
    pass_compute<T> d_compute;
    cuda::event d_h2d_done[K], d_comp_done[K], d_d2h_done[K];
    cuda::event d_moved_first[K], d_moved_all[K];
};

} // namespace

std::unique_ptr<large_fft_executor>
make_large_fft_cuda(const std::vector<const large_schedule*>& schedules,
                    const large_exec_config& cfg)
{
    // streams, events, plans and buffers all belong to the plan's device
    cuda::device_guard g(cfg.device_id);
    if (cfg.prec == precision::single)
        return std::make_unique<large_fft_cuda<float>>(schedules, cfg);
    return std::make_unique<large_fft_cuda<double>>(schedules, cfg);
}

} // namespace detail
} // namespace gpufft
} // namespace gr
