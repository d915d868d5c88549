/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The CUDA type-3 NUFFT's plan: its stream and scratch (the constructor), the grid and
// the buffers a geometry needs (configure), the grid FFT plans kept by batch, and the
// factory. Stages: nufft3_cuda.h.

#include "nufft/nufft3_cuda.h"

namespace gr {
namespace gpufft {
namespace nufft {

template <typename T>
nufft3_cuda<T>::nufft3_cuda(const nufft3_config& cfg)
    : d_cfg(cfg), d_guard_device(cfg.device_id), d_trace(cfg.trace, cfg.log)
{
    cuda::device_guard guard(d_guard_device);
    d_stream = std::make_unique<cuda::stream>();
    d_stager = std::make_unique<cuda::host_stager>();
    d_partial.allocate(2 * max_dim * extent_blocks * 3);
    d_partial_host.allocate(2 * max_dim * extent_blocks * 3);
    d_sub_total.allocate(1);
    cudaDeviceProp prop{};
    GPUFFT_CUDA_CHECK(cudaGetDeviceProperties(&prop, d_guard_device));
    d_max_smem = int(prop.sharedMemPerBlockOptin);
}

template <typename T>
grid_fft_cuda& nufft3_cuda<T>::fft(int batch)
{
    grid_fft_shape sh;
    sh.dim = d_geom.dim;
    for (int a = 0; a < max_dim; ++a) {
        const axis_geometry& ax = d_geom.axis[a];
        sh.cells[a] = ax.cells;
        sh.in_lo[a] = ax.in_lo;
        sh.in_hi[a] = ax.in_hi;
        sh.out_half[a] = ax.out_half;
    }
    sh.batch = batch;
    sh.sign = d_cfg.sign;
    sh.prec = d_cfg.grid_prec;
    auto& p = d_fft[batch];
    if (!p || !p->serves(sh)) {
        p.reset();
        p = std::make_unique<grid_fft_cuda>(sh);
    }
    return *p;
}

template <typename T>
std::size_t nufft3_cuda<T>::held_bytes() const
{
    std::size_t b = d_grid.bytes() + d_coords.bytes() + d_perm.bytes() +
                    d_perm_alt.bytes() + d_skeys.bytes() + d_scan_temp.bytes() +
                    d_prephase.bytes() + d_post.bytes() + d_c.bytes() + d_F.bytes() +
                    d_tkeys.bytes() + d_torder.bytes();
    for (int a = 0; a < max_dim; ++a)
        b +=
            d_first[a].bytes() + d_z0[a].bytes() + d_tfirst[a].bytes() + d_tz0[a].bytes();
    return b;
}

template <typename T>
void nufft3_cuda<T>::configure(const geometry& g, std::int64_t n_src, std::int64_t n_tgt)
{
    const int dim = g.dim;
    const bool same_grid = d_have_geom && g.same_grid(d_geom);
    const bool same_kernel = d_have_geom && g.kernel.kind == d_geom.kernel.kind &&
                             g.kernel.taps == d_geom.kernel.taps &&
                             g.kernel.beta == d_geom.kernel.beta &&
                             g.kernel.gauss_b == d_geom.kernel.gauss_b;
    d_geom = g;
    d_have_geom = true;
    d_n_src = n_src;
    d_n_tgt = n_tgt;
    const int W = g.kernel.taps;

    d_layout =
        choose_spread_layout(g, n_src, d_cfg.spread, sizeof(T), std::size_t(d_max_smem));
    if (d_layout.shared_bytes > std::size_t(d_max_smem)) {
        std::ostringstream os;
        os << "kernel: " << W << " taps need a " << d_layout.shared_bytes
           << "-byte shared-memory tile; this GPU offers " << d_max_smem
           << " per block (use a larger eps or the es kernel)";
        throw std::invalid_argument(os.str());
    }
    int nbins = 1;
    for (int a = 0; a < max_dim; ++a) {
        const int bin = d_layout.bin[a];
        d_nbins[a] = a < dim ? int((g.axis[a].cells + bin - 1) / bin) : 1;
        nbins *= d_nbins[a];
    }
    const std::size_t max_subs = std::size_t(nbins) + n_src / max_subproblem + 1;

    ensure(d_perm, n_src);
    ensure(d_perm_alt, n_src);
    ensure(d_skeys, 2 * std::size_t(n_src));
    ensure(d_c, n_src);
    for (int a = 0; a < dim; ++a) {
        ensure(d_first[a], n_src);
        ensure(d_z0[a], n_src);
        ensure(d_tfirst[a], n_tgt);
        ensure(d_tz0[a], n_tgt);
    }
    if (g.needs_prephase())
        ensure(d_prephase, n_src);
    ensure(d_post, n_tgt);
    ensure(d_F, n_tgt);
    if (dim > 1) {
        ensure(d_tkeys, 2 * std::size_t(n_tgt));
        ensure(d_torder, 2 * std::size_t(n_tgt));
        ensure(d_torder_temp, target_order_bytes(n_tgt));
    }
    ensure(d_bin_count, nbins);
    ensure(d_bin_start, nbins);
    ensure(d_nsub, nbins);
    ensure(d_sub_start, nbins);
    ensure(d_sub_bin, max_subs);
    ensure(d_sub_offset, max_subs);
    ensure(d_scan_temp,
           std::max(exclusive_scan_bytes(nbins), sort_sources_bytes(n_src, nbins)));

    cudaStream_t st = d_stream->get();
    if (!same_grid) {
        d_fft.clear();
        d_grid.release();
        d_grid.allocate(std::size_t(g.total_cells()), "the fine grid");
    }
    if (!same_grid || !same_kernel) {
        for (int a = 0; a < dim; ++a) {
            const long long M = g.axis[a].cells;
            d_precorr[a].allocate(M);
            launch_precorrection(g.kernel, M, d_precorr[a].get(), st);
        }
    }
}

template class nufft3_cuda<float>;
template class nufft3_cuda<double>;

std::unique_ptr<nufft3_backend> make_nufft3_cuda(const nufft3_config& cfg)
{
    if (cfg.grid_prec == precision::single)
        return std::make_unique<nufft3_cuda<float>>(cfg);
    return std::make_unique<nufft3_cuda<double>>(cfg);
}

} // namespace nufft
} // namespace gpufft
} // namespace gr
