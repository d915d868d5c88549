/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// CUDA backend of the large FFT: the planner's passes through a ring of three device
// slots on three streams, so the copy in of pass i+1, the FFTs of pass i and the copy out
// of pass i-1 run at once (both PCIe directions busy). Pinned caller arrays are copied
// directly with 2-D copies; pageable ones go through a pinned staging ring (the paper's
// blocked buffer: the CPU gathers the strided blocks so every DMA is one wide transfer),
// with the scatter of pass i-1 running beside the gather of pass i. Host-to-host moves
// (the in-place transpose of the row round) run as host functions on a fourth stream,
// between the copy in that frees their destination and the copy out that overwrites
// their source.

#include "cuda/cuda_resources.h"
#include "four_step.h"
#include "large_fft_backend.h"
#include "large_fft_host.h"
#include "large_fft_kernels.h"
#include "large_fft_trace.h"
#include "stockham.h"
#include <cufft.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
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

// A column pass (a strided [L][bc] block, bc < B) is transposed on the card so cuFFT
// runs contiguous batches: the strided cuFFT layouts of large L are several times slower
// than the extra pass through device memory.
bool transposes(const large_round& round, const large_pass& p)
{
    const auto* r = round.as<column_round>();
    return r && r->B > 1 && p.bc < r->B && !r->trailing;
}

// The passes the two kernels of four_step.h transform whole: the column round's [L][bc]
// blocks written back in natural order, and the row round.
bool four_step_takes(const large_round& round, const large_pass& p)
{
    if (const auto* r = round.as<rows_transposed_round>())
        return four_step_supports(r->blocks * r->M);
    const auto* r = round.as<column_round>();
    return transposes(round, p) && !r->transposed_write && p.ac == 1 &&
           four_step_supports(r->L);
}

four_step_geometry four_step_for(const rows_transposed_round& r)
{
    four_step_geometry g;
    {
        // `tile` rows of blocks M, row t's output k to row k of the strip (k = m blocks
        // + h to row m of square h), column t
        four_step_split(r.blocks * r.M, &g.L1, &g.L2);
        g.batch = r.tile;
        g.out_b = 1;
        g.out_k = r.tile;
        g.blocks = r.blocks;
    }
    return g;
}

four_step_geometry four_step_for(const column_round& r, const large_pass& p)
{
    four_step_geometry g;
    four_step_split(r.L, &g.L1, &g.L2);
    g.W = p.bc;
    g.out_b = 0;
    g.out_k = p.bc;
    return g;
}

// Contiguous power-of-two rows the Stockham stages take.
bool stockham_takes(const fft_geometry& g)
{
    return g.n2 == 1 && g.stride == 1 && g.dist == g.n && stockham_supports(g.n);
}

std::vector<fft_call> device_calls(const large_round& r, const large_pass& p)
{
    if (transposes(r, p)) {
        const i64 L = r.as<column_round>()->L;
        return { { { L, p.bc, 1, L }, 0 } };
    }
    return pass_fft_calls(r, p);
}

template <typename T>
class large_fft_cuda final : public large_fft_executor
{
    static constexpr bool dbl = sizeof(T) == 8;
    using C = std::conditional_t<dbl, cufftDoubleComplex, cufftComplex>;

public:
    large_fft_cuda(const std::vector<const large_schedule*>& schedules,
                   const large_exec_config& cfg)
        : d_cfg(cfg), d_trace(cfg.trace, cfg.log)
    {
        cuda::device_guard g(cfg.device_id);
        for (const auto* s : schedules) {
            d_pass = std::max(d_pass, s->pass_elems);
            for (const auto& r : s->rounds)
                if (const auto* w = r.as<whole_round>()) {
                    d_whole = std::max(d_whole, s->size);
                    d_stage = std::max(d_stage, w->chunk);
                }
        }
        d_stage = std::max(d_stage, d_pass);

        // All FFTs run on the compute stream one after the other: one shared work area.
        std::size_t work = 0;
        std::set<fft_geometry> geometries;
        for (const auto* sched : schedules)
            for (const auto& r : sched->rounds)
                for (const auto& p : r.pass_list) {
                    const bool whole = r.as<whole_round>() != nullptr;
                    if (!whole && own_pass_fft(r, p))
                        continue;
                    for (const auto& c : device_calls(r, p))
                        if (whole || d_cfg.tuning.fft == pass_fft::cufft ||
                            !stockham_takes(c.g))
                            geometries.insert(c.g);
                }
        for (const auto& geo : geometries) {
            cuda::cufft_handle h;
            GPUFFT_CUFFT_CHECK(cufftSetAutoAllocation(h.get(), 0));
            // rank 2 for the planes of a 3-D array: one call for every plane of a pass
            const int rank = geo.n2 > 1 ? 2 : 1;
            long long n[2] = { geo.n, geo.n2 };
            std::size_t ws = 0;
            GPUFFT_CUFFT_CHECK(cufftMakePlanMany64(h.get(),
                                                   rank,
                                                   n,
                                                   n,
                                                   geo.stride,
                                                   geo.dist,
                                                   n,
                                                   geo.stride,
                                                   geo.dist,
                                                   dbl ? CUFFT_Z2Z : CUFFT_C2C,
                                                   geo.batch,
                                                   &ws));
            work = std::max(work, ws);
            d_plans.emplace(geo, std::move(h));
        }
        if (d_whole)
            d_whole_buf.allocate(std::size_t(d_whole));
        for (int s = 0; s < K && d_pass; ++s) {
            d_buf0[s].allocate(std::size_t(d_pass));
            d_buf1[s].allocate(std::size_t(d_pass));
        }
        d_work.allocate(std::max<std::size_t>(work, 1));
        for (auto& p : d_plans)
            GPUFFT_CUFFT_CHECK(cufftSetWorkArea(p.second.get(), d_work.get()));
        d_flag.allocate(1);
    }

    ~large_fft_cuda() override { drain(); }

    large_fft_stats stats() const override { return d_stats; }

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
                if (r.as<whole_round>())
                    run_whole(r, s.size, src, out);
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

    // The pass is transformed by the kernels of four_step.h (no cuFFT plan needed).
    bool own_pass_fft(const large_round& r, const large_pass& p) const
    {
        return d_cfg.tuning.fft == pass_fft::four_step && four_step_takes(r, p);
    }

    // One FFT call of a pass on `buf`; `scratch` (as large, free now, or null) lets the
    // Stockham stages take contiguous power-of-two rows instead of cuFFT.
    void fft(C* buf, C* scratch, const fft_call& c)
    {
        const int dir = static_cast<int>(d_cfg.dir); // CUFFT_FORWARD == -1 as ours
        if (d_cfg.tuning.fft != pass_fft::cufft && scratch && stockham_takes(c.g)) {
            launch_stockham_fft(buf + c.offset,
                                scratch + c.offset,
                                dbl,
                                c.g.n,
                                c.g.batch,
                                dir,
                                d_comp.get());
            ++d_stats.stockham_ffts;
            return;
        }
        const cufftHandle h = d_plans.at(c.g).get();
        GPUFFT_CUFFT_CHECK(cufftSetStream(h, d_comp.get()));
        if constexpr (dbl)
            GPUFFT_CUFFT_CHECK(cufftExecZ2Z(h, buf + c.offset, buf + c.offset, dir));
        else
            GPUFFT_CUFFT_CHECK(cufftExecC2C(h, buf + c.offset, buf + c.offset, dir));
        ++d_stats.cufft_execs;
    }

    // [rows][cols] -> [cols / unit][rows][unit] on the compute stream (the Y
    // decomposition's rows of X): a kernel with evict-first hints, not device-to-device
    // copies, whose L2 traffic would slow the PCIe copies beside them
    void transpose_units(const C* in, C* out, i64 rows, i64 cols, i64 unit)
    {
        launch_unit_transpose(in, out, dbl, rows, cols, unit, d_comp.get());
    }

    void copy_blocks(void* dst_base,
                     const void* src_base,
                     const host_block* first,
                     const host_block* last,
                     bool to_device,
                     cudaStream_t st)
    {
        if (first == last)
            return;
        const std::size_t e = sizeof(C);
        // rows [r0, r0 + nr), columns [c0, c0 + nc) of block b on stream `on`
        auto issue =
            [&](const host_block& b, i64 r0, i64 nr, i64 c0, i64 nc, cudaStream_t on) {
                if (nr <= 0 || nc <= 0)
                    return;
                auto* host = static_cast<const char*>(to_device ? src_base : dst_base) +
                             (b.host_offset + r0 * b.pitch + c0) * e;
                auto* dev = static_cast<const char*>(to_device ? dst_base : src_base) +
                            (b.dev_offset + r0 * b.dpitch() + c0) * e;
                if (to_device)
                    GPUFFT_CUDA_CHECK(cudaMemcpy2DAsync(const_cast<char*>(dev),
                                                        b.dpitch() * e,
                                                        host,
                                                        b.pitch * e,
                                                        nc * e,
                                                        nr,
                                                        cudaMemcpyHostToDevice,
                                                        on));
                else
                    GPUFFT_CUDA_CHECK(cudaMemcpy2DAsync(const_cast<char*>(host),
                                                        b.pitch * e,
                                                        dev,
                                                        b.dpitch() * e,
                                                        nc * e,
                                                        nr,
                                                        cudaMemcpyDeviceToHost,
                                                        on));
            };
        large_fft_trace::issue_clock clock(d_trace);
        if (!d_cfg.tuning.split_copies) {
            for (const host_block* b = first; b != last; ++b)
                issue(*b, 0, b->rows, 0, b->width, st);
            return;
        }
        // Two copy engines per direction: each block split in halves (rows, or bytes of
        // a single row), the second half on a helper stream forked from and joined
        // back into `st`.
        const bool in = to_device;
        cudaStream_t helper = in ? d_h2d2.get() : d_d2h2.get();
        cuda::event& fork = in ? d_fork_in : d_fork_out;
        cuda::event& join = in ? d_join_in : d_join_out;
        fork.record(st);
        GPUFFT_CUDA_CHECK(cudaStreamWaitEvent(helper, fork.get(), 0));
        for (const host_block* b = first; b != last; ++b) {
            if (b->rows > 1) {
                const i64 h = b->rows / 2;
                issue(*b, 0, h, 0, b->width, st);
                issue(*b, h, b->rows - h, 0, b->width, helper);
            } else {
                const i64 h = b->width / 2;
                issue(*b, 0, 1, 0, h, st);
                issue(*b, 0, 1, h, b->width - h, helper);
            }
        }
        join.record(helper);
        GPUFFT_CUDA_CHECK(cudaStreamWaitEvent(st, join.get(), 0));
    }
    void copy_blocks(void* dst_base,
                     const void* src_base,
                     const std::vector<host_block>& blocks,
                     bool to_device,
                     cudaStream_t st)
    {
        copy_blocks(dst_base,
                    src_base,
                    blocks.data(),
                    blocks.data() + blocks.size(),
                    to_device,
                    st);
    }

    // One round of passes through the three-slot ring.
    void run_passes(const large_round& r, const void* src, void* out)
    {
        const bool direct_in = cuda::is_pinned(src);
        const bool direct_out = cuda::is_pinned(out);
        if (!direct_in || !direct_out)
            ensure_staging();
        const int th = std::max(1, d_cfg.threads);
        const int half = std::max(1, th / 2);
        const auto& passes = r.pass_list;
        std::exception_ptr scatter_error;
        // host moves, two jobs per pass: the move the next pass reads, then the rest
        const auto* rows = r.as<rows_transposed_round>();
        const bool moves = rows != nullptr;
        const auto* cols = r.as<column_round>();
        std::vector<move_job> jobs(moves ? 2 * passes.size() : 0);
        // the host functions point into `jobs`: wait for them however this returns
        struct move_fence {
            cudaStream_t s;
            ~move_fence() { cudaStreamSynchronize(s); }
        } fence{ d_move.get() };

        auto scatter = [&](std::size_t i) {
            const int s = int(i % K);
            GPUFFT_CUDA_CHECK(cudaEventSynchronize(d_d2h_done[s].get()));
            scatter_blocks(d_stage_out[s].get(), out, passes[i].writes, sizeof(C), half);
        };

        // trace 2: per pass, GPU times of copy in, compute, copy out and host moves
        constexpr int n_marks = 8;
        std::vector<cuda::event> marks;
        if (d_trace.on())
            for (std::size_t k = 0; k < passes.size() * n_marks; ++k)
                marks.emplace_back(true);
        auto mark = [&](std::size_t i, int k, cudaStream_t st) {
            if (d_trace.on())
                marks[i * n_marks + k].record(st);
        };

        for (std::size_t i = 0; i < passes.size(); ++i) {
            const auto& p = passes[i];
            const int s = int(i % K);
            std::thread scatter_prev;
            if (!direct_out && i > 0)
                scatter_prev = std::thread([&, i] {
                    try {
                        scatter(i - 1);
                    } catch (...) {
                        scatter_error = std::current_exception();
                    }
                });
            try {
                // copy in (waits until pass i-K has left this slot)
                GPUFFT_CUDA_CHECK(
                    cudaStreamWaitEvent(d_h2d.get(), d_d2h_done[s].get(), 0));
                mark(i, 0, d_h2d.get());
                const bool after_moves = moves && i > 0;
                if (direct_in) {
                    // the pass's own rows first (one block per square); the rest needs
                    // the previous pass's moves
                    const host_block* b = p.reads.data();
                    const host_block* e = b + p.reads.size();
                    const host_block* own = after_moves ? b + rows->blocks : e;
                    copy_blocks(d_buf0[s].get(), src, b, own, true, d_h2d.get());
                    if (after_moves) {
                        GPUFFT_CUDA_CHECK(cudaStreamWaitEvent(
                            d_h2d.get(), d_moved_first[(i - 1) % K].get(), 0));
                        copy_blocks(d_buf0[s].get(), src, own, e, true, d_h2d.get());
                    }
                } else {
                    GPUFFT_CUDA_CHECK(cudaEventSynchronize(d_h2d_done[s].get()));
                    if (after_moves)
                        GPUFFT_CUDA_CHECK(
                            cudaEventSynchronize(d_moved_first[(i - 1) % K].get()));
                    gather_blocks(src,
                                  d_stage_in[s].get(),
                                  p.reads,
                                  sizeof(C),
                                  direct_out ? th : half);
                    GPUFFT_CUDA_CHECK(cudaMemcpyAsync(d_buf0[s].get(),
                                                      d_stage_in[s].get(),
                                                      p.elements * sizeof(C),
                                                      cudaMemcpyHostToDevice,
                                                      d_h2d.get()));
                }
                d_h2d_done[s].record(d_h2d.get());
                mark(i, 1, d_h2d.get());

                // host moves (once this pass's reads have left the host array)
                if (moves) {
                    GPUFFT_CUDA_CHECK(
                        cudaStreamWaitEvent(d_move.get(), d_h2d_done[s].get(), 0));
                    mark(i, 6, d_move.get());
                    // the moves of tile row j + 1 (one per square) first
                    const std::size_t first =
                        std::min<std::size_t>(std::size_t(rows->blocks), p.moves.size());
                    jobs[2 * i] = { out, p.moves.data(), first, sizeof(C), th, nullptr };
                    jobs[2 * i + 1] = { out,
                                        p.moves.data() + first,
                                        p.moves.size() - first,
                                        sizeof(C),
                                        th,
                                        nullptr };
                    GPUFFT_CUDA_CHECK(
                        cudaLaunchHostFunc(d_move.get(), run_move_job, &jobs[2 * i]));
                    d_moved_first[s].record(d_move.get());
                    GPUFFT_CUDA_CHECK(
                        cudaLaunchHostFunc(d_move.get(), run_move_job, &jobs[2 * i + 1]));
                    d_moved_all[s].record(d_move.get());
                    mark(i, 7, d_move.get());
                }

                // compute
                GPUFFT_CUDA_CHECK(
                    cudaStreamWaitEvent(d_comp.get(), d_h2d_done[s].get(), 0));
                mark(i, 2, d_comp.get());
                C* buf = d_buf0[s].get();
                C* res = buf;
                const bool own = own_pass_fft(r, p);
                if (r.from_input && !own) // kernel A checks what it loads
                    launch_finite_check(buf, dbl, p.elements, d_flag.get(), d_comp.get());
                twiddle_params tw;
                if (cols && cols->twiddle) {
                    tw.on = true;
                    tw.b0 = p.b0;
                    tw.n = cols->tw_n;
                    tw.div = cols->tw_div;
                    tw.sign = static_cast<int>(d_cfg.dir);
                }
                if (own) {
                    // both kernels: A in place, B into the slot's other buffer in the
                    // layout the copy out wants, twiddled (column round)
                    res = d_buf1[s].get();
                    launch_four_step_fft(buf,
                                         res,
                                         dbl,
                                         rows ? four_step_for(*rows)
                                              : four_step_for(*cols, p),
                                         static_cast<int>(d_cfg.dir),
                                         tw,
                                         r.from_input ? d_flag.get() : nullptr,
                                         d_comp.get());
                    ++d_stats.four_step_ffts;
                } else if (const auto* tt = r.as<tile_transpose_round>()) {
                    res = d_buf1[s].get();
                    launch_transpose(buf,
                                     res,
                                     dbl,
                                     i64(p.reads.size()),
                                     tt->tile,
                                     tt->tile,
                                     twiddle_params{},
                                     d_comp.get());
                } else if (rows) {
                    for (const auto& c : pass_fft_calls(r, p))
                        fft(buf, d_buf1[s].get(), c);
                    // [T][M][blocks] -> [M][blocks][T] -> [blocks][M][T]
                    res = d_buf1[s].get();
                    launch_transpose(buf,
                                     res,
                                     dbl,
                                     1,
                                     rows->tile,
                                     rows->blocks * rows->M,
                                     twiddle_params{},
                                     d_comp.get());
                    if (rows->blocks > 1) {
                        transpose_units(
                            res, buf, rows->M, rows->blocks * rows->tile, rows->tile);
                        res = buf;
                    }
                } else if (transposes(r, p)) {
                    // [L][bc] -> [bc][L], contiguous FFTs, twiddle with k the column
                    // index
                    C* t = d_buf1[s].get();
                    launch_transpose(
                        buf, t, dbl, 1, cols->L, p.bc, twiddle_params{}, d_comp.get());
                    for (const auto& c : device_calls(r, p))
                        fft(t, buf, c); // the untransposed pass is spent
                    if (cols->twiddle) {
                        tw.swap = true;
                        launch_twiddle(t, dbl, 1, p.bc, cols->L, tw, d_comp.get());
                    }
                    res = t;
                    if (!cols->transposed_write || cols->unit > 1) {
                        launch_transpose(t,
                                         buf,
                                         dbl,
                                         1,
                                         p.bc,
                                         cols->L,
                                         twiddle_params{},
                                         d_comp.get());
                        res = buf;
                    }
                    if (cols->transposed_write && cols->unit > 1) {
                        transpose_units(buf, t, cols->L, p.bc, cols->unit);
                        res = t;
                    }
                } else {
                    for (const auto& c : pass_fft_calls(r, p))
                        fft(buf, d_buf1[s].get(), c);
                    if (cols->transposed_write && cols->unit > 1) {
                        if (cols->twiddle)
                            launch_twiddle(buf, dbl, 1, cols->L, p.bc, tw, d_comp.get());
                        res = d_buf1[s].get();
                        transpose_units(buf, res, cols->L, p.bc, cols->unit);
                    } else if (cols->transposed_write) {
                        res = d_buf1[s].get();
                        launch_transpose(
                            buf, res, dbl, 1, cols->L, p.bc, tw, d_comp.get());
                    } else if (cols->twiddle) {
                        launch_twiddle(buf, dbl, p.ac, cols->L, p.bc, tw, d_comp.get());
                    }
                }
                d_comp_done[s].record(d_comp.get());
                mark(i, 3, d_comp.get());

                // copy out
                GPUFFT_CUDA_CHECK(
                    cudaStreamWaitEvent(d_d2h.get(), d_comp_done[s].get(), 0));
                if (moves) // the writes land where the moves read
                    GPUFFT_CUDA_CHECK(
                        cudaStreamWaitEvent(d_d2h.get(), d_moved_all[s].get(), 0));
                mark(i, 4, d_d2h.get());
                if (direct_out)
                    copy_blocks(out, res, p.writes, false, d_d2h.get());
                else
                    GPUFFT_CUDA_CHECK(cudaMemcpyAsync(d_stage_out[s].get(),
                                                      res,
                                                      p.elements * sizeof(C),
                                                      cudaMemcpyDeviceToHost,
                                                      d_d2h.get()));
                d_d2h_done[s].record(d_d2h.get());
                mark(i, 5, d_d2h.get());
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
        if (!direct_out && !passes.empty())
            scatter(passes.size() - 1);
        // the next round reads what this one wrote
        GPUFFT_CUDA_CHECK(cudaStreamSynchronize(d_d2h.get()));
        GPUFFT_CUDA_CHECK(cudaStreamSynchronize(d_comp.get()));
        GPUFFT_CUDA_CHECK(cudaStreamSynchronize(d_move.get()));
        for (const auto& j : jobs)
            if (j.error)
                std::rethrow_exception(j.error);
        if (d_trace.on()) {
            auto at = [&](std::size_t i, int k) {
                return marks[i * n_marks + k].elapsed_ms_since(marks[0]);
            };
            for (std::size_t i = 0; i < passes.size(); ++i) {
                pass_times t;
                t.in[0] = at(i, 0);
                t.in[1] = at(i, 1);
                t.compute[0] = at(i, 2);
                t.compute[1] = at(i, 3);
                t.out[0] = at(i, 4);
                t.out[1] = at(i, 5);
                t.has_moves = moves;
                if (moves) {
                    t.moves[0] = at(i, 6);
                    t.moves[1] = at(i, 7);
                }
                d_trace.pass(i, t);
            }
        }
    }

    // In-card: the whole array in by chunks, the FFT, out by chunks.
    void run_whole(const large_round& r, i64 n, const void* src, void* out)
    {
        const bool direct_in = cuda::is_pinned(src), direct_out = cuda::is_pinned(out);
        if (!direct_in || !direct_out)
            ensure_staging();
        const int th = std::max(1, d_cfg.threads);
        C* buf = d_whole_buf.get();
        const auto& chunks = r.pass_list;
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
        launch_finite_check(buf, dbl, n, d_flag.get(), d_comp.get());
        for (const auto& c : pass_fft_calls(r, large_pass{}))
            fft(buf, nullptr, c);
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
    large_fft_stats d_stats;
    i64 d_pass = 0, d_whole = 0, d_stage = 0;
    std::map<fft_geometry, cuda::cufft_handle> d_plans;
    cuda::device_buffer<C> d_whole_buf, d_buf0[K], d_buf1[K];
    cuda::device_buffer<char> d_work;
    cuda::device_buffer<int> d_flag;
    cuda::pinned_buffer<C> d_stage_in[K], d_stage_out[K];
    // The copy streams are created first and one after the other: the driver spreads
    // streams over the copy engines in creation order, and copies in and out on one
    // engine share its bandwidth.
    cuda::stream d_h2d, d_d2h, d_comp, d_move, d_h2d2, d_d2h2;
    cuda::event d_fork_in, d_join_in, d_fork_out, d_join_out;
    cuda::event d_h2d_done[K], d_comp_done[K], d_d2h_done[K];
    cuda::event d_moved_first[K], d_moved_all[K];
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
