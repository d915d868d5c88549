/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The CUDA type-3 NUFFT's execute: spread the strengths onto the grid, its FFT, and
// interpolate the targets; the direct sum and the widened path of single-precision
// plans with a double grid. Stages: nufft3_cuda.h.

#include "nufft/nufft3_cuda.h"

namespace gr {
namespace gpufft {
namespace nufft {

template <typename T>
void nufft3_cuda<T>::execute(const void* c_in, void* F_out, memory where, int ntransf)
{
    cuda::device_guard guard(d_guard_device);
    if (d_geom.direct) {
        if (d_cfg.prec == precision::single)
            execute_direct<float>(c_in, F_out, where, ntransf);
        else
            execute_direct<double>(c_in, F_out, where, ntransf);
        return;
    }
    if (widens()) {
        execute_widened(c_in, F_out, where, ntransf);
        return;
    }
    execute_grid(c_in, F_out, where, ntransf);
}

template <typename T>
template <typename IO>
void nufft3_cuda<T>::execute_direct(const void* c_in,
                                    void* F_out,
                                    memory where,
                                    int ntransf)
{
    using CI = std::complex<IO>;
    cudaStream_t st = d_stream->get();
    const CI* c_all = static_cast<const CI*>(c_in);
    CI* F_all = static_cast<CI*>(F_out);
    const double per_vector = double(d_n_src + d_n_tgt) * sizeof(CI);
    const int chunk =
        where == memory::host
            ? int(std::max<double>(
                  1,
                  std::min<double>(double(ntransf),
                                   std::floor(d_free_bytes / per_vector) + 1)))
            : ntransf;
    if (where == memory::host) {
        ensure(d_io_c, std::size_t(chunk) * d_n_src * sizeof(CI));
        ensure(d_io_F, std::size_t(chunk) * d_n_tgt * sizeof(CI));
    }
    d_trace.start(st);
    if (where == memory::device)
        d_stream->follow_default_stream();
    for (int v0 = 0; v0 < ntransf; v0 += chunk) {
        const int b = std::min(chunk, ntransf - v0);
        const CI* c = c_all + std::int64_t(v0) * d_n_src;
        CI* F = F_all + std::int64_t(v0) * d_n_tgt;
        if (where == memory::host) {
            d_stager->to_device(d_io_c.get(), c, b * d_n_src * sizeof(CI), st);
            c = reinterpret_cast<const CI*>(d_io_c.get());
            F = reinterpret_cast<CI*>(d_io_F.get());
        }
        d_trace.mark("upload");
        launch_direct_sum<IO>(d_direct, b, c, F, st);
        d_trace.mark("sum");
        if (where == memory::host)
            d_stager->to_host(F_all + std::int64_t(v0) * d_n_tgt,
                              d_io_F.get(),
                              b * d_n_tgt * sizeof(CI),
                              st);
    }
    d_stream->synchronize();
    const std::string call = ntransf == 1
                                 ? "execute (direct)"
                                 : "execute (direct) ntransf=" + std::to_string(ntransf);
    d_trace.report(call.c_str());
}

template <typename T>
void nufft3_cuda<T>::execute_widened(const void* c_in,
                                     void* F_out,
                                     memory where,
                                     int ntransf)
{
    using CF = std::complex<float>;
    using CD = std::complex<double>;
    const CF* c_all = static_cast<const CF*>(c_in);
    CF* F_all = static_cast<CF*>(F_out);
    const double per_vector = double(d_n_src + d_n_tgt) * sizeof(CD);
    const int chunk = int(std::max<double>(
        1,
        std::min<double>(
            double(ntransf),
            std::floor(d_free_bytes /
                       (per_vector + double(d_geom.total_cells()) * sizeof(CD))))));
    cudaStream_t st = d_stream->get();
    for (int v0 = 0; v0 < ntransf; v0 += chunk) {
        const int b = std::min(chunk, ntransf - v0);
        const std::size_t nc = std::size_t(b) * d_n_src, nf = std::size_t(b) * d_n_tgt;
        const CF* c = c_all + std::int64_t(v0) * d_n_src;
        CF* F = F_all + std::int64_t(v0) * d_n_tgt;
        if (where == memory::host) {
            d_wide_host.resize(std::max(nc, nf));
            for (std::size_t i = 0; i < nc; ++i)
                d_wide_host[i] = CD(c[i]);
            d_wide_F.resize(nf);
            execute_grid(d_wide_host.data(), d_wide_F.data(), memory::host, b);
            for (std::size_t i = 0; i < nf; ++i)
                F[i] = CF(d_wide_F[i]);
        } else {
            ensure(d_wide_c, nc);
            ensure(d_wide_Fd, nf);
            d_stream->follow_default_stream();
            // On the plan's stream, so execute_grid's stages follow it.
            launch_widen(c, reinterpret_cast<CD*>(d_wide_c.get()), nc, st);
            execute_grid(d_wide_c.get(), d_wide_Fd.get(), memory::device, b);
            launch_narrow(reinterpret_cast<const CD*>(d_wide_Fd.get()), F, nf, st);
            d_stream->synchronize();
        }
    }
}

template <typename T>
void nufft3_cuda<T>::execute_grid(const void* c_in,
                                  void* F_out,
                                  memory where,
                                  int ntransf)
{
    cudaStream_t st = d_stream->get();
    const std::int64_t cells = d_geom.total_cells();
    // As many grids at a time as the memory budget holds (set_points made sure of
    // one; each further one also needs its strengths and outputs staged from the
    // host). The launch's second grid axis bounds a chunk at 65535.
    const double per_vector =
        double(cells) * sizeof(C) +
        (where == memory::host ? double(d_n_src + d_n_tgt) * sizeof(C) : 0);
    const int chunk = int(std::max<double>(
        1,
        std::min<double>(
            { double(ntransf), std::floor(d_free_bytes / per_vector), 65535.0 })));
    if (d_grid.size() < std::size_t(chunk * cells)) {
        d_fft.clear();
        d_grid.release();
        d_grid.allocate(std::size_t(chunk * cells), "the fine grids");
    }
    if (where == memory::host) {
        ensure(d_c, std::size_t(chunk) * d_n_src);
        ensure(d_F, std::size_t(chunk) * d_n_tgt);
    }
    d_trace.start(st);
    if (where == memory::device)
        d_stream->follow_default_stream();
    for (int v0 = 0; v0 < ntransf; v0 += chunk) {
        const int b = std::min(chunk, ntransf - v0);
        const C* c = static_cast<const C*>(c_in) + v0 * d_n_src;
        C* F = static_cast<C*>(F_out) + v0 * d_n_tgt;
        if (where == memory::host) {
            d_stager->to_device(d_c.get(), c, b * d_n_src * sizeof(C), st);
            c = d_c.get();
            F = d_F.get();
        }
        d_trace.mark("upload");
        if (!spread_direct(d_layout, b)) // the direct form writes every cell
            GPUFFT_CUDA_CHECK(
                cudaMemsetAsync(d_grid.get(), 0, b * cells * sizeof(C), st));
        d_trace.mark("clear");
        spread(c, b);
        d_trace.mark("spread");
        fft(b).execute_async(d_grid.get(), st);
        d_trace.mark("fft");
        interp(F, b);
        d_trace.mark("interp");
        if (where == memory::host)
            d_stager->to_host(static_cast<C*>(F_out) + v0 * d_n_tgt,
                              d_F.get(),
                              b * d_n_tgt * sizeof(C),
                              st);
    }
    d_stream->synchronize();
    const std::string call =
        ntransf == 1 ? "execute" : "execute ntransf=" + std::to_string(ntransf);
    d_trace.report(call.c_str());
}

template <typename T>
void nufft3_cuda<T>::spread(const C* c, int ntransf)
{
    spread_args a{};
    a.sub_bin = d_sub_bin.get();
    a.sub_offset = d_sub_offset.get();
    a.sub_total = d_sub_total.get();
    a.bin_start = d_bin_start.get();
    a.bin_count = d_bin_count.get();
    a.perm = d_perm.get();
    for (int d = 0; d < max_dim; ++d) {
        a.bin[d] = d_layout.bin[d];
        a.nbins[d] = d_nbins[d];
        a.cells[d] = d_geom.axis[d].cells;
    }
    a.taps = d_geom.kernel.taps;
    // The gather form serves up to 4 vectors per block where their tiles fit, so
    // a batch tests each (cell, source) pair once for all of them.
    std::size_t shared = 0;
    const int vectors = gather_vectors(
        d_layout, d_geom, sizeof(T), ntransf, std::size_t(d_max_smem), &shared);
    a.gather_vectors = vectors;
    a.n_sources = d_n_src;
    a.grid_cells = d_geom.total_cells();
    const T* precorr[max_dim] = { d_precorr[0].get(),
                                  d_precorr[1].get(),
                                  d_precorr[2].get() };
    if (spread_direct(d_layout, ntransf)) {
        launch_spread_direct(a,
                             ntransf,
                             source_arrays(),
                             c,
                             d_use_prephase ? d_prephase.get() : nullptr,
                             precorr,
                             d_geom.kernel,
                             d_grid.get(),
                             d_stream->get());
        return;
    }
    launch_spread(a,
                  d_geom.dim,
                  d_spread_blocks,
                  ntransf,
                  shared,
                  source_arrays(),
                  c,
                  d_use_prephase ? d_prephase.get() : nullptr,
                  precorr,
                  d_geom.kernel,
                  d_grid.get(),
                  d_stream->get());
}

template <typename T>
void nufft3_cuda<T>::interp(C* F, int ntransf)
{
    const std::int64_t cells[max_dim] = { d_geom.axis[0].cells,
                                          d_geom.axis[1].cells,
                                          d_geom.axis[2].cells };
    launch_interp(d_n_tgt,
                  d_geom.dim,
                  ntransf,
                  sorted_order(),
                  target_arrays(),
                  d_post.get(),
                  d_grid.get(),
                  cells,
                  d_geom.kernel,
                  F,
                  d_stream->get());
}

template class nufft3_cuda<float>;
template class nufft3_cuda<double>;

} // namespace nufft
} // namespace gpufft
} // namespace gr
