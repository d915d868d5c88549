/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// CPU backend of the large FFT: the same passes as the CUDA backend, with two host
// scratch buffers standing in for the device memory and FFTW (through dense_fft_plan)
// for cuFFT. CI runs the multi-pass schedules through this on tiny budgets.

#include "core/parallel_for.h"
#include "large/large_fft_backend.h"
#include "large/large_fft_host.h"
#include "large/large_fft_trace.h"
#include <gnuradio/gpufft/dense_fft_plan.h>
#include <cmath>
#include <complex>
#include <map>
#include <stdexcept>

namespace gr {
namespace gpufft {
namespace detail {

namespace {

using i64 = std::int64_t;

// [rows][cols] -> [cols / unit][rows][unit]: runs of `unit` elements move as one.
template <typename T>
void transpose_units(const std::complex<T>* in,
                     std::complex<T>* out,
                     i64 rows,
                     i64 cols,
                     i64 unit,
                     int threads)
{
    parallel_for(
        rows,
        threads,
        [&](int, i64 lo, i64 hi) {
            for (i64 r = lo; r < hi; ++r)
                for (i64 q = 0; q < cols / unit; ++q)
                    std::copy_n(
                        in + r * cols + q * unit, unit, out + (q * rows + r) * unit);
        },
        1);
}

template <typename T>
void transpose(
    const std::complex<T>* in, std::complex<T>* out, i64 rows, i64 cols, int threads)
{
    constexpr i64 blk = 32;
    parallel_for((rows + blk - 1) / blk,
                 threads,
                 [&](int, i64 lo, i64 hi) {
                     for (i64 rb = lo * blk; rb < std::min(rows, hi * blk); rb += blk)
                         for (i64 cb = 0; cb < cols; cb += blk)
                             for (i64 r = rb; r < std::min(rows, rb + blk); ++r)
                                 for (i64 c = cb; c < std::min(cols, cb + blk); ++c)
                                     out[c * rows + r] = in[r * cols + c];
                 },
                 1);
}

// Element (a, k, j) of an [ac][L][bc] buffer times exp(sign 2 pi i k*((b0+j)/div) / n),
// the angle reduced exactly in integers and evaluated in double.
template <typename T>
void twiddle(std::complex<T>* buf,
             const column_round& r,
             const large_pass& p,
             int sign,
             int threads)
{
    const double w = sign * 2.0 * M_PI / double(r.tw_n);
    parallel_for(
        p.ac * r.L,
        threads,
        [&](int, i64 lo, i64 hi) {
            for (i64 row = lo; row < hi; ++row) {
                const i64 k = row % r.L;
                std::complex<T>* x = buf + row * p.bc;
                for (i64 j = 0; j < p.bc; ++j) {
                    const i64 e = (k * ((p.b0 + j) / r.tw_div)) % r.tw_n;
                    const std::complex<double> t = std::polar(1.0, w * double(e));
                    x[j] = std::complex<T>(std::complex<double>(x[j]) * t);
                }
            }
        },
        1);
}

template <typename T>
class large_fft_cpu final : public large_fft_executor
{
public:
    large_fft_cpu(const std::vector<const large_schedule*>& schedules,
                  const large_exec_config& cfg)
        : d_cfg(cfg), d_trace(cfg.trace, cfg.log)
    {
        i64 cap = 0;
        for (const auto* s : schedules)
            cap = std::max(cap, s->pass_elems);
        d_buf0.resize(cap);
        d_buf1.resize(cap);
        dense_fft_options o;
        o.backend = backend::cpu;
        o.precision = cfg.prec;
        o.threads = cfg.threads;
        for (const auto& g : schedule_geometries(schedules))
            for (const auto& g1 : as_1d(g)) {
                o.stride = g1.stride;
                o.distance = g1.dist;
                d_plans.emplace(g1, dense_fft_plan(g1.n, g1.batch, cfg.dir, o));
            }
    }

    void run(const large_schedule& s, const void* in_v, void* out_v) override
    {
        const C* in = static_cast<const C*>(in_v);
        C* out = static_cast<C*>(out_v);
        for (std::size_t k = 0; k < s.rounds.size(); ++k) {
            const auto& r = s.rounds[k];
            d_trace.begin_round();
            run_round(r, s, in, out);
            d_trace.end_round(k, s.rounds.size(), r.describe(sizeof(C)));
        }
    }

private:
    using C = std::complex<T>;

    void run_round(const large_round& r, const large_schedule& s, const C* in, C* out)
    {
        const int th = d_cfg.threads;
        if (const auto* w = r.as<whole_round>()) {
            run_whole(*w, s.size, in, out);
            return;
        }
        const C* src = r.from_input ? in : out;
        for (const auto& p : r.pass_list) {
            C* buf = d_buf0.data();
            gather_blocks(src, buf, p.reads, sizeof(C), th);
            if (r.from_input && !all_finite(buf, p.elements, sizeof(C), th))
                throw_nonfinite();
            const C* res = std::visit(
                overloaded{ [&](const whole_round&) -> const C* { return buf; },
                            [&](const auto& k) { return compute(k, p, buf); } },
                r.op);
            move_blocks(out, p.moves.data(), p.moves.size(), sizeof(C), th);
            scatter_blocks(res, out, p.writes, sizeof(C), th);
        }
    }

    // In card: FFTW along each axis directly on the output array.
    void run_whole(const whole_round& r, std::int64_t n, const C* in, C* out)
    {
        const int th = d_cfg.threads;
        if (!all_finite(in, n, sizeof(C), th))
            throw_nonfinite();
        if (in != out)
            gather_blocks(in, out, { { 0, 1, n, n, 0 } }, sizeof(C), th);
        for (const auto& c : fft_calls(r))
            fft(out, c);
    }

    // Each compute() transforms a pass in d_buf0 (`buf`) and returns where its result
    // is, in the layout its writes expect.
    const C* compute(const column_round& r, const large_pass& p, C* buf)
    {
        const int th = d_cfg.threads;
        for (const auto& c : fft_calls(r, p))
            fft(buf, c);
        if (r.twiddle)
            twiddle(buf, r, p, static_cast<int>(d_cfg.dir), th);
        if (!r.transposed_write)
            return buf;
        C* res = d_buf1.data();
        if (r.unit > 1)
            transpose_units(buf, res, r.L, p.bc, r.unit, th);
        else
            transpose(buf, res, r.L, p.bc, th);
        return res;
    }

    const C* compute(const tile_transpose_round& r, const large_pass& p, C* buf)
    {
        C* res = d_buf1.data();
        const i64 t = r.tile;
        for (std::size_t i = 0; i < p.reads.size(); ++i)
            transpose(buf + i * t * t, res + i * t * t, t, t, d_cfg.threads);
        return res;
    }

    const C* compute(const rows_transposed_round& r, const large_pass& /*pass*/, C* buf)
    {
        const int th = d_cfg.threads;
        for (const auto& c : fft_calls(r))
            fft(buf, c);
        // [T][M][blocks] -> [M][blocks][T] -> [blocks][M][T]
        C* res = d_buf1.data();
        transpose(buf, res, r.tile, r.blocks * r.M, th);
        if (r.blocks == 1)
            return res;
        transpose_units(res, buf, r.M, r.blocks * r.tile, r.tile, th);
        return buf;
    }

    // A 2-D geometry runs as 1-D FFTs: all rows at once, then the columns plane by
    // plane (FFTW's guru interface would take both batch loops, dense_fft_plan one).
    static std::vector<fft_geometry> as_1d(const fft_geometry& g)
    {
        if (g.n2 == 1)
            return { g };
        return { { g.n2, g.batch * g.n, 1, g.n2 }, { g.n, g.n2, g.n2, 1 } };
    }

    void fft(std::complex<T>* buf, const fft_call& c)
    {
        if (c.g.n2 == 1) {
            d_plans.at(c.g).execute(buf + c.offset, buf + c.offset);
            return;
        }
        const auto g1 = as_1d(c.g);
        d_plans.at(g1[0]).execute(buf + c.offset, buf + c.offset);
        for (i64 b = 0; b < c.g.batch; ++b) {
            std::complex<T>* plane = buf + c.offset + b * c.g.dist;
            d_plans.at(g1[1]).execute(plane, plane);
        }
    }

    [[noreturn]] static void throw_nonfinite()
    {
        throw std::invalid_argument("execute: the input holds a NaN or infinite sample");
    }

    large_exec_config d_cfg;
    large_fft_trace d_trace;
    std::vector<std::complex<T>> d_buf0, d_buf1;
    std::map<fft_geometry, dense_fft_plan> d_plans;
};

} // namespace

std::unique_ptr<large_fft_executor>
make_large_fft_cpu(const std::vector<const large_schedule*>& schedules,
                   const large_exec_config& cfg)
{
    if (cfg.prec == precision::single)
        return std::make_unique<large_fft_cpu<float>>(schedules, cfg);
    return std::make_unique<large_fft_cpu<double>>(schedules, cfg);
}

} // namespace detail
} // namespace gpufft
} // namespace gr
