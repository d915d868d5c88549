/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "large/four_step.h"
#include "large/large_pass_compute.h"
#include "large/stockham.h"
#include <set>
#include <stdexcept>

namespace gr {
namespace gpufft {
namespace detail {

namespace {

using i64 = std::int64_t;

// A column pass (a strided [L][bc] block, bc < B) is transposed on the card so cuFFT
// runs contiguous batches: the strided cuFFT layouts of large L are several times slower
// than the extra pass through device memory.
bool transposes(const column_round& r, const large_pass& p)
{
    return r.B > 1 && p.bc < r.B && !r.trailing;
}

// The passes the two kernels of four_step.h transform whole: the column round's [L][bc]
// blocks written back in natural order, and the row round.
bool four_step_takes(const large_round& round, const large_pass& p)
{
    if (const auto* r = round.as<rows_transposed_round>())
        return four_step_supports(r->blocks * r->M);
    const auto* r = round.as<column_round>();
    return r && transposes(*r, p) && !r->transposed_write && p.ac == 1 &&
           four_step_supports(r->L);
}

// `tile` rows of blocks M, row t's output k to row k of the strip (k = m blocks + h to
// row m of square h), column t.
four_step_geometry four_step_for(const rows_transposed_round& r)
{
    four_step_geometry g;
    four_step_split(r.blocks * r.M, &g.L1, &g.L2);
    g.batch = r.tile;
    g.out_b = 1;
    g.out_k = r.tile;
    g.blocks = r.blocks;
    return g;
}

// The column round's [L][bc] block (FFTs down its bc columns), output (k, w) written in
// the same [L][bc] layout.
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

// The FFT calls of a pass as the device runs them: a transposed column block as
// contiguous rows.
std::vector<fft_call> device_calls(const large_round& r, const large_pass& p)
{
    const auto* c = r.as<column_round>();
    if (c && transposes(*c, p))
        return { { { c->L, p.bc, 1, c->L }, 0 } };
    return pass_fft_calls(r, p);
}

} // namespace

template <typename T>
pass_compute<T>::pass_compute(const std::vector<const large_schedule*>& schedules,
                              direction dir,
                              const large_fft_config& config,
                              cudaStream_t stream)
    : d_dir(dir), d_config(config), d_stream(stream)
{
    std::set<fft_geometry> geometries;
    for (const auto* sched : schedules)
        for (const auto& r : sched->rounds)
            for (const auto& p : r.pass_list) {
                const bool whole = r.as<whole_round>() != nullptr;
                if (!whole && own_fft(r, p))
                    continue;
                for (const auto& c : device_calls(r, p))
                    if (whole || d_config.fft == pass_fft::cufft || !stockham_takes(c.g))
                        geometries.insert(c.g);
            }
    // All FFTs run on the one stream, one after the other: one shared work area.
    std::size_t work = 0;
    for (const auto& geo : geometries) {
        cuda::cufft_handle h;
        // rank 2 for the planes of a 3-D array: one call for every plane of a pass
        const int rank = geo.n2 > 1 ? 2 : 1;
        long long n[2] = { geo.n, geo.n2 };
        work = std::max(work,
                        h.plan_many_external_work(rank,
                                                  n,
                                                  n,
                                                  geo.stride,
                                                  geo.dist,
                                                  geo.batch,
                                                  dbl ? CUFFT_Z2Z : CUFFT_C2C));
        d_plans.emplace(geo, std::move(h));
    }
    d_work.allocate(std::max<std::size_t>(work, 1), "the cuFFT work area");
    for (auto& p : d_plans)
        GPUFFT_CUFFT_CHECK(cufftSetWorkArea(p.second.get(), d_work.get()));
}

template <typename T>
bool pass_compute<T>::own_fft(const large_round& r, const large_pass& p) const
{
    return d_config.fft == pass_fft::four_step && four_step_takes(r, p);
}

template <typename T>
typename pass_compute<T>::C* pass_compute<T>::run(
    const large_round& r, const large_pass& p, C* buf, C* spare, int* flag)
{
    const bool own = own_fft(r, p);
    if (r.from_input && !own) // kernel A checks what it loads
        launch_finite_check(buf, dbl, p.elements, flag, d_stream);
    int* input_flag = r.from_input ? flag : nullptr;
    return std::visit(
        overloaded{
            [](const whole_round&) -> C* {
                throw std::logic_error("pass_compute::run: an in-card round");
            },
            [&](const auto& k) { return compute(k, p, buf, spare, input_flag, own); } },
        r.op);
}

template <typename T>
void pass_compute<T>::run_whole(const whole_round& r, C* buf, i64 n, int* flag)
{
    launch_finite_check(buf, dbl, n, flag, d_stream);
    for (const auto& c : fft_calls(r))
        fft(buf, nullptr, c);
}

template <typename T>
twiddle_params pass_compute<T>::twiddle_of(const column_round& r,
                                           const large_pass& p) const
{
    twiddle_params tw;
    if (r.twiddle) {
        tw.on = true;
        tw.b0 = p.b0;
        tw.n = r.tw_n;
        tw.div = r.tw_div;
        tw.sign = static_cast<int>(d_dir);
    }
    return tw;
}

template <typename T>
typename pass_compute<T>::C* pass_compute<T>::compute(const column_round& r,
                                                      const large_pass& p,
                                                      C* buf,
                                                      C* spare,
                                                      int* input_flag,
                                                      bool own)
{
    const twiddle_params tw = twiddle_of(r, p);
    if (own) {
        // both kernels: A in place, B into the other buffer in natural order, twiddled
        launch_four_step_fft(buf,
                             spare,
                             dbl,
                             four_step_for(r, p),
                             static_cast<int>(d_dir),
                             tw,
                             input_flag,
                             d_stream);
        ++d_stats.four_step_ffts;
        return spare;
    }
    if (transposes(r, p))
        return columns_transposed(r, p, buf, spare, tw);
    for (const auto& c : fft_calls(r, p))
        fft(buf, spare, c);
    if (r.transposed_write && r.unit > 1) {
        if (r.twiddle)
            launch_twiddle(buf, dbl, 1, r.L, p.bc, tw, d_stream);
        transpose_units(buf, spare, r.L, p.bc, r.unit);
        return spare;
    }
    if (r.transposed_write) {
        launch_transpose(buf, spare, dbl, 1, r.L, p.bc, tw, d_stream);
        return spare;
    }
    if (r.twiddle)
        launch_twiddle(buf, dbl, p.ac, r.L, p.bc, tw, d_stream);
    return buf;
}

template <typename T>
typename pass_compute<T>::C* pass_compute<T>::columns_transposed(
    const column_round& r, const large_pass& p, C* buf, C* spare, twiddle_params tw)
{
    // [L][bc] -> [bc][L], contiguous FFTs, twiddle with k the column index
    C* t = spare;
    launch_transpose(buf, t, dbl, 1, r.L, p.bc, twiddle_params{}, d_stream);
    fft(t, buf, { { r.L, p.bc, 1, r.L }, 0 }); // the untransposed pass is spent
    if (r.twiddle) {
        tw.swap = true;
        launch_twiddle(t, dbl, 1, p.bc, r.L, tw, d_stream);
    }
    if (r.transposed_write && r.unit == 1)
        return t; // [bc][L] is the transposed write
    launch_transpose(t, buf, dbl, 1, p.bc, r.L, twiddle_params{}, d_stream);
    if (!r.transposed_write)
        return buf;
    transpose_units(buf, t, r.L, p.bc, r.unit);
    return t;
}

template <typename T>
typename pass_compute<T>::C* pass_compute<T>::compute(
    const tile_transpose_round& r, const large_pass& p, C* buf, C* spare, int*, bool)
{
    launch_transpose(
        buf, spare, dbl, i64(p.reads.size()), r.tile, r.tile, twiddle_params{}, d_stream);
    return spare;
}

template <typename T>
typename pass_compute<T>::C* pass_compute<T>::compute(const rows_transposed_round& r,
                                                      const large_pass&,
                                                      C* buf,
                                                      C* spare,
                                                      int* input_flag,
                                                      bool own)
{
    if (own) {
        // kernel B writes the rows transposed into the strip layout the copy out wants
        launch_four_step_fft(buf,
                             spare,
                             dbl,
                             four_step_for(r),
                             static_cast<int>(d_dir),
                             twiddle_params{},
                             input_flag,
                             d_stream);
        ++d_stats.four_step_ffts;
        return spare;
    }
    for (const auto& c : fft_calls(r))
        fft(buf, spare, c);
    // [T][M][blocks] -> [M][blocks][T] -> [blocks][M][T]
    launch_transpose(
        buf, spare, dbl, 1, r.tile, r.blocks * r.M, twiddle_params{}, d_stream);
    if (r.blocks == 1)
        return spare;
    transpose_units(spare, buf, r.M, r.blocks * r.tile, r.tile);
    return buf;
}

// One FFT call of a pass on `buf`; `scratch` (as large, free now, or null) lets the
// Stockham stages take contiguous power-of-two rows instead of cuFFT.
template <typename T>
void pass_compute<T>::fft(C* buf, C* scratch, const fft_call& c)
{
    const int dir = static_cast<int>(d_dir); // CUFFT_FORWARD == -1 as ours
    if (d_config.fft != pass_fft::cufft && scratch && stockham_takes(c.g)) {
        launch_stockham_fft(
            buf + c.offset, scratch + c.offset, dbl, c.g.n, c.g.batch, dir, d_stream);
        ++d_stats.stockham_ffts;
        return;
    }
    const cufftHandle h = d_plans.at(c.g).get();
    GPUFFT_CUFFT_CHECK(cufftSetStream(h, d_stream));
    if constexpr (dbl)
        GPUFFT_CUFFT_CHECK(cufftExecZ2Z(h, buf + c.offset, buf + c.offset, dir));
    else
        GPUFFT_CUFFT_CHECK(cufftExecC2C(h, buf + c.offset, buf + c.offset, dir));
    ++d_stats.cufft_execs;
}

// [rows][cols] -> [cols / unit][rows][unit] (the Y decomposition's rows of X): a kernel
// with evict-first hints, not device-to-device copies, whose L2 traffic would slow the
// PCIe copies beside them.
template <typename T>
void pass_compute<T>::transpose_units(const C* in, C* out, i64 rows, i64 cols, i64 unit)
{
    launch_unit_transpose(in, out, dbl, rows, cols, unit, d_stream);
}

template class pass_compute<float>;
template class pass_compute<double>;

} // namespace detail
} // namespace gpufft
} // namespace gr
