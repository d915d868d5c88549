/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The CUDA executor of the peer-exchange schedule (peer_exchange.h): one slab per
// device, the middle transpose swapped between devices with peer copies. One host
// thread issues everything in order, so every event a stream waits for on another
// device has been recorded before the wait is issued.

#include "cuda/cuda_check.h"
#include "cuda/cuda_resources.h"
#include "large/large_fft_backend.h"
#include "large/large_fft_kernels.h"
#include "large/large_fft_peer.h"
#include "large/peer_kernels.h"
#include <cufft.h>
#include <algorithm>
#include <chrono>
#include <complex>
#include <cstdio>
#include <stdexcept>

namespace gr {
namespace gpufft {
namespace detail {

namespace {

using i64 = std::int64_t;

// Phases of a device's part of the transform, for the trace.
enum phase { t_start, t_in, t_columns, t_exchange, t_rows, t_out, t_count };
const char* const phase_names[t_count] = { "start",    "copy in", "columns",
                                           "exchange", "rows",    "copy out" };

template <typename T>
class large_fft_peer final : public large_fft_executor
{
    using C = std::complex<T>;
    static constexpr bool dbl = sizeof(T) == 8;

    struct device_state {
        int device = 0;
        cuda::stream in[2], comp, send, take, xpose, out;
        cuda::device_buffer<C> slab, temp[2];
        cuda::device_buffer<char> work;
        cuda::device_buffer<int> flag;
        cuda::cufft_handle columns, rows;
        // ordering: copies in done, columns done, a temporary sent into / taken from,
        // the exchange done, a transposed chunk ready / copied out
        cuda::event in_done[2], col_done, sent[2], taken[2], exchanged, slot_done,
            ready[2], out_done[2];
        cuda::event marks[t_count]{ cuda::event(true), cuda::event(true),
                                    cuda::event(true), cuda::event(true),
                                    cuda::event(true), cuda::event(true) };
    };

public:
    large_fft_peer(const peer_layout& l, const large_exec_config& cfg)
        : d_l(l), d_cfg(cfg)
    {
        for (int device : cfg.devices) {
            // streams and events belong to the device current when they are made
            cuda::device_guard g(device);
            auto d = std::make_unique<device_state>();
            d->device = device;
            d->slab.allocate(std::size_t(l.slab()), "the peer exchange's slab");
            for (auto& t : d->temp)
                t.allocate(std::size_t(l.chunk), "the peer exchange's temporaries");
            d->flag.allocate(1, "the finite flag");
            // 1-D batches: the columns (n1 points, s2 apart) and the rows (s2 points)
            const cufftType type = dbl ? CUFFT_Z2Z : CUFFT_C2C;
            long long col_n = l.n1, row_n = l.s2;
            const std::size_t col_work = d->columns.plan_many_external_work(
                1, &col_n, &col_n, l.s2, 1, l.col_batch, type);
            const std::size_t work =
                std::max(col_work,
                         d->rows.plan_many_external_work(
                             1, &row_n, &row_n, 1, l.s2, l.row_batch, type));
            d->work.allocate(std::max<std::size_t>(work, 1), "the cuFFT work area");
            for (auto* h : { &d->columns, &d->rows }) {
                GPUFFT_CUFFT_CHECK(cufftSetWorkArea(h->get(), d->work.get()));
                GPUFFT_CUFFT_CHECK(cufftSetStream(h->get(), d->comp.get()));
            }
            d_dev.push_back(std::move(d));
        }
        d_rounds = exchange_rounds(l.parts);
    }

    void run(const large_schedule&, const void* in, void* out) override
    {
        const auto t0 = std::chrono::steady_clock::now();
        const i64 total = d_l.n;
        const std::size_t bytes = std::size_t(total) * sizeof(C);
        host_pin pin_in(in, bytes), pin_out(in == out ? nullptr : out, bytes);
        const C* x = static_cast<const C*>(in);
        C* y = static_cast<C*>(out);
        for (std::size_t i = 0; i < d_dev.size(); ++i)
            copy_in_and_columns(i, x);
        exchange();
        for (std::size_t i = 0; i < d_dev.size(); ++i)
            rows_and_copy_out(i, y);
        bool bad = false;
        for (auto& d : d_dev) {
            cuda::device_guard g(d->device);
            d->out.synchronize();
            int f = 0;
            GPUFFT_CUDA_CHECK(
                cudaMemcpy(&f, d->flag.get(), sizeof(int), cudaMemcpyDeviceToHost));
            bad |= f != 0;
        }
        if (d_cfg.trace)
            trace(std::chrono::duration<double, std::milli>(
                      std::chrono::steady_clock::now() - t0)
                      .count());
        if (bad)
            throw std::invalid_argument(
                "execute: the input holds a NaN or infinite sample");
    }

    large_fft_stats stats() const override { return d_stats; }

private:
    // Page-locks a pageable caller array for one execute (peer copies and 2-D copies at
    // full rate need pinned host memory); does nothing for pinned or null arrays.
    class host_pin
    {
    public:
        host_pin(const void* p, std::size_t bytes)
        {
            if (!p || cuda::is_pinned(p))
                return;
            GPUFFT_CUDA_CHECK(
                cudaHostRegister(const_cast<void*>(p), bytes, cudaHostRegisterPortable));
            d_p = const_cast<void*>(p);
        }
        ~host_pin()
        {
            if (d_p)
                cudaHostUnregister(d_p);
        }
        host_pin(const host_pin&) = delete;
        host_pin& operator=(const host_pin&) = delete;

    private:
        void* d_p = nullptr;
    };

    int sign() const { return d_cfg.dir == direction::forward ? -1 : 1; }

    void fft(cufftHandle h, C* p)
    {
        const int dir = d_cfg.dir == direction::forward ? CUFFT_FORWARD : CUFFT_INVERSE;
        if constexpr (dbl)
            GPUFFT_CUFFT_CHECK(cufftExecZ2Z(h,
                                            reinterpret_cast<cufftDoubleComplex*>(p),
                                            reinterpret_cast<cufftDoubleComplex*>(p),
                                            dir));
        else
            GPUFFT_CUFFT_CHECK(cufftExecC2C(h,
                                            reinterpret_cast<cufftComplex*>(p),
                                            reinterpret_cast<cufftComplex*>(p),
                                            dir));
        ++d_stats.cufft_execs;
    }

    // Device i's columns n2 in [i S2, (i+1) S2) in by column ranges on two streams, the
    // column FFTs of each range as it lands, then the twiddle and the finite check. The
    // temporaries stay untouched until the exchange: the partners push into them as
    // soon as their own columns are done.
    void copy_in_and_columns(std::size_t i, const C* x)
    {
        auto& d = *d_dev[i];
        const auto& l = d_l;
        cuda::device_guard g(d.device);
        d.marks[t_start].record(d.in[0].get());
        GPUFFT_CUDA_CHECK(cudaStreamWaitEvent(d.in[1].get(), d.marks[t_start].get(), 0));
        GPUFFT_CUDA_CHECK(cudaMemsetAsync(d.flag.get(), 0, sizeof(int), d.comp.get()));
        const i64 width = l.s2 / l.in_parts;
        for (int p = 0; p < l.in_parts; ++p) {
            auto& s = d.in[p % 2];
            const i64 c0 = p * width;
            GPUFFT_CUDA_CHECK(cudaMemcpy2DAsync(d.slab.get() + c0,
                                                l.s2 * sizeof(C),
                                                x + i64(i) * l.s2 + c0,
                                                l.n2 * sizeof(C),
                                                width * sizeof(C),
                                                l.n1,
                                                cudaMemcpyHostToDevice,
                                                s.get()));
            d.in_done[p % 2].record(s.get());
            GPUFFT_CUDA_CHECK(
                cudaStreamWaitEvent(d.comp.get(), d.in_done[p % 2].get(), 0));
            for (i64 c = c0; c < c0 + width; c += l.col_batch)
                fft(d.columns.get(), d.slab.get() + c);
        }
        d.marks[t_in].record(d.in[0].get());
        twiddle_params tw;
        tw.on = true;
        tw.b0 = i64(i) * l.s2;
        tw.n = l.n;
        tw.div = 1;
        tw.sign = sign();
        launch_twiddle(d.slab.get(), dbl, 1, l.n1, l.s2, tw, d.comp.get());
        // after the FFT: a NaN or infinity anywhere in a column spreads over it
        launch_finite_check(d.slab.get(), dbl, l.slab(), d.flag.get(), d.comp.get());
        d.col_done.record(d.comp.get());
        d.marks[t_columns].record(d.comp.get());
    }

    // Slot p of device i and slot i of device p swapped, pair by pair, in chunks: each
    // device pushes a chunk into its partner's temporary, then takes the chunk its
    // partner pushed into its own temporary into the slot it has just sent.
    void exchange()
    {
        const auto& l = d_l;
        const i64 slot = l.slot();
        // A device sends once its own columns are done, and into a partner whose
        // columns are done too: the partner's temporaries are then free of anything
        // of this execute but the exchange.
        for (auto& d : d_dev) {
            cuda::device_guard g(d->device);
            for (auto& e : d_dev)
                GPUFFT_CUDA_CHECK(
                    cudaStreamWaitEvent(d->send.get(), e->col_done.get(), 0));
            GPUFFT_CUDA_CHECK(cudaStreamWaitEvent(d->take.get(), d->col_done.get(), 0));
        }
        std::size_t q = 0;
        for (const auto& partner : d_rounds) {
            for (i64 c0 = 0; c0 < slot; c0 += l.chunk, ++q) {
                const i64 len = std::min(l.chunk, slot - c0);
                const int b = int(q % 2);
                for (std::size_t i = 0; i < d_dev.size(); ++i) {
                    const int p = partner[i];
                    if (p < 0)
                        continue;
                    auto& d = *d_dev[i];
                    auto& e = *d_dev[p];
                    cuda::device_guard g(d.device);
                    // the partner has taken what was last put in this temporary
                    GPUFFT_CUDA_CHECK(
                        cudaStreamWaitEvent(d.send.get(), e.taken[b].get(), 0));
                    GPUFFT_CUDA_CHECK(cudaMemcpyPeerAsync(e.temp[b].get(),
                                                          e.device,
                                                          d.slab.get() + p * slot + c0,
                                                          d.device,
                                                          std::size_t(len) * sizeof(C),
                                                          d.send.get()));
                    d.sent[b].record(d.send.get());
                }
                for (std::size_t i = 0; i < d_dev.size(); ++i) {
                    const int p = partner[i];
                    if (p < 0)
                        continue;
                    auto& d = *d_dev[i];
                    auto& e = *d_dev[p];
                    cuda::device_guard g(d.device);
                    // the partner's chunk is here, and ours has left the slot
                    GPUFFT_CUDA_CHECK(
                        cudaStreamWaitEvent(d.take.get(), e.sent[b].get(), 0));
                    GPUFFT_CUDA_CHECK(
                        cudaStreamWaitEvent(d.take.get(), d.sent[b].get(), 0));
                    GPUFFT_CUDA_CHECK(cudaMemcpyAsync(d.slab.get() + p * slot + c0,
                                                      d.temp[b].get(),
                                                      std::size_t(len) * sizeof(C),
                                                      cudaMemcpyDeviceToDevice,
                                                      d.take.get()));
                    d.taken[b].record(d.take.get());
                }
            }
        }
        for (auto& d : d_dev) {
            cuda::device_guard g(d->device);
            d->exchanged.record(d->take.get());
        }
    }

    // The radix step, then slot by slot the row FFTs and the copies out: column blocks
    // of the slot transposed (on their own stream, so the row FFTs of the next slot run
    // meanwhile) into the temporaries in turn, each copied out as rows of S1 elements
    // (the output's [N2][N1] view, rows m G N1 apart).
    void rows_and_copy_out(std::size_t i, C* y)
    {
        auto& d = *d_dev[i];
        const auto& l = d_l;
        cuda::device_guard g(d.device);
        GPUFFT_CUDA_CHECK(cudaStreamWaitEvent(d.comp.get(), d.exchanged.get(), 0));
        d.marks[t_exchange].record(d.comp.get());
        launch_segment_butterfly(
            d.slab.get(), dbl, l.parts, l.s1, l.s2, sign(), d.comp.get());
        const i64 per_slot = l.s1 / l.row_batch;
        std::size_t q = 0;
        for (int r = 0; r < l.parts; ++r) {
            for (i64 k = 0; k < per_slot; ++k)
                fft(d.rows.get(), d.slab.get() + r * l.slot() + k * l.row_batch * l.s2);
            d.slot_done.record(d.comp.get());
            GPUFFT_CUDA_CHECK(cudaStreamWaitEvent(d.xpose.get(), d.slot_done.get(), 0));
            for (i64 m0 = 0; m0 < l.s2; m0 += l.out_cols, ++q) {
                const int b = int(q % 2);
                GPUFFT_CUDA_CHECK(
                    cudaStreamWaitEvent(d.xpose.get(), d.out_done[b].get(), 0));
                launch_pitched_transpose(d.slab.get() + r * l.slot() + m0,
                                         l.s2,
                                         d.temp[b].get(),
                                         dbl,
                                         l.s1,
                                         l.out_cols,
                                         d.xpose.get());
                d.ready[b].record(d.xpose.get());
                GPUFFT_CUDA_CHECK(cudaStreamWaitEvent(d.out.get(), d.ready[b].get(), 0));
                GPUFFT_CUDA_CHECK(
                    cudaMemcpy2DAsync(y + r * l.n1 + i64(i) * l.s1 + m0 * l.parts * l.n1,
                                      std::size_t(l.parts * l.n1) * sizeof(C),
                                      d.temp[b].get(),
                                      std::size_t(l.s1) * sizeof(C),
                                      std::size_t(l.s1) * sizeof(C),
                                      std::size_t(l.out_cols),
                                      cudaMemcpyDeviceToHost,
                                      d.out.get()));
                d.out_done[b].record(d.out.get());
            }
        }
        d.marks[t_rows].record(d.comp.get());
        d.marks[t_out].record(d.out.get());
    }

    void trace(double wall_ms)
    {
        for (auto& d : d_dev) {
            cuda::device_guard g(d->device);
            std::string line =
                "large_fft   peer device " + std::to_string(d->device) + ":";
            for (int k = t_in; k < t_count; ++k) {
                char buf[64];
                std::snprintf(buf,
                              sizeof buf,
                              " %s until %.2f ms%s",
                              phase_names[k],
                              d->marks[k].elapsed_ms_since(d->marks[t_start]),
                              k + 1 < t_count ? "," : "");
                line += buf;
            }
            log_message(d_cfg.log, log_level::debug, line);
        }
        char buf[96];
        std::snprintf(buf, sizeof buf, "large_fft round 1/1: %.2f ms; ", wall_ms);
        log_message(d_cfg.log, log_level::debug, buf + d_l.describe());
    }

    peer_layout d_l;
    large_exec_config d_cfg;
    std::vector<std::unique_ptr<device_state>> d_dev;
    std::vector<std::vector<int>> d_rounds;
    large_fft_stats d_stats;
};

} // namespace

std::unique_ptr<large_fft_executor> make_large_fft_peer(const peer_layout& layout,
                                                        const large_exec_config& cfg)
{
    if (cfg.prec == precision::single)
        return std::make_unique<large_fft_peer<float>>(layout, cfg);
    return std::make_unique<large_fft_peer<double>>(layout, cfg);
}

} // namespace detail
} // namespace gpufft
} // namespace gr
