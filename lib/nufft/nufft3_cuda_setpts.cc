/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The CUDA type-3 NUFFT's set_points: the points' extents (the one read-back), the
// geometry, then the sources sorted by bin and the targets by tile. Stages:
// nufft3_cuda.h.

#include "nufft/nufft3_cuda.h"

namespace gr {
namespace gpufft {
namespace nufft {

template <typename T>
void nufft3_cuda<T>::set_points(std::int64_t n_src,
                                const double* const* src_in,
                                std::int64_t n_tgt,
                                const double* const* tgt_in,
                                memory where)
{
    cuda::device_guard guard(d_guard_device);
    const int dim = d_cfg.dim;
    cudaStream_t st = d_stream->get();
    const double* src[max_axes] = {};
    const double* tgt[max_axes] = {};
    for (int a = 0; a < dim; ++a) {
        src[a] = src_in[a];
        tgt[a] = tgt_in[a];
    }
    d_trace.start(st);
    if (where == memory::device)
        d_stream->follow_default_stream();
    if (where == memory::host) {
        ensure(d_coords, std::size_t(dim) * (n_src + n_tgt));
        double* p = d_coords.get();
        for (int a = 0; a < dim; ++a) {
            d_stager->to_device(p, src[a], n_src * sizeof(double), st);
            src[a] = p;
            p += n_src;
            d_stager->to_device(p, tgt[a], n_tgt * sizeof(double), st);
            tgt[a] = p;
            p += n_tgt;
        }
    }

    d_trace.mark("upload");
    // Extents: the only read-back, since the grid size depends on them.
    const double* arrays[2 * max_axes] = {
        src[0], tgt[0], src[1], tgt[1], src[2], tgt[2]
    };
    const std::int64_t counts[2 * max_axes] = {
        n_src, n_tgt, n_src, n_tgt, n_src, n_tgt
    };
    for (int i = 0; i < 2 * dim; ++i) {
        launch_extent(arrays[i], counts[i], d_partial.get() + i * extent_blocks * 3, st);
    }
    GPUFFT_CUDA_CHECK(cudaMemcpyAsync(d_partial_host.get(),
                                      d_partial.get(),
                                      2 * dim * extent_blocks * 3 * sizeof(double),
                                      cudaMemcpyDeviceToHost,
                                      st));
    d_stream->synchronize();
    const char* names[2 * max_axes] = { "x", "s", "y", "t", "z", "u" };
    extent ex[max_axes], es[max_axes];
    for (int i = 0; i < 2 * dim; ++i) {
        double lo = INFINITY, hi = -INFINITY, bad = 0;
        const double* p = d_partial_host.get() + i * extent_blocks * 3;
        for (int b = 0; b < extent_blocks; ++b) {
            lo = std::min(lo, p[3 * b]);
            hi = std::max(hi, p[3 * b + 1]);
            bad += p[3 * b + 2];
        }
        if (bad > 0)
            throw_non_finite(names[i], std::int64_t(bad));
        (i % 2 ? es : ex)[i / 2] = extent{ lo, hi };
    }

    plan_request req;
    req.dim = dim;
    req.eps = d_cfg.eps;
    req.prec = d_cfg.grid_prec;
    req.kernel = d_cfg.kernel;
    req.upsampling = d_cfg.upsampling;
    req.n_sources = n_src;
    req.n_targets = n_tgt;
    // Sorted sources: perm, first, offset, prephase; their sort's keys (two words),
    // second index buffer and CUB scratch (its counters per tile of thousands of
    // sources: under a byte each); c staging. Targets: first, offset, post, sort
    // keys and order; F staging. Coordinates staged from the host.
    req.bytes_per_source = 17 + dim * (4.0 + sizeof(T)) + 2 * sizeof(C) +
                           (where == memory::host ? 8.0 * dim : 0);
    req.bytes_per_target = dim * (4.0 + sizeof(T)) + 2 * sizeof(C) + (dim > 1 ? 16 : 0) +
                           (where == memory::host ? 8.0 * dim : 0);
    if (d_cfg.memory_budget) {
        req.budget_bytes = d_cfg.memory_budget;
    } else {
        std::size_t free_b = 0, total_b = 0;
        GPUFFT_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
        req.budget_bytes = free_b / 4 * 3 + held_bytes();
    }
    // The direct sum keeps the coordinates and stages c and F of one vector.
    req.method = d_cfg.method;
    req.direct_bytes_per_source = 8.0 * dim + io_bytes();
    req.direct_bytes_per_target = 8.0 * dim + io_bytes();
    req.direct_term_cost = cuda_direct_term_cost;
    const geometry g = choose_geometry(req, ex, es);
    if (g.direct) {
        d_free_bytes = double(req.budget_bytes) - req.direct_bytes_per_source * n_src -
                       req.direct_bytes_per_target * n_tgt;
        d_trace.mark("extents");
        keep_direct_points(g, n_src, src, n_tgt, tgt, where);
        d_stream->synchronize();
        d_trace.report("set_points");
        return;
    }
    d_free_bytes = double(req.budget_bytes) - req.bytes_per_source * n_src -
                   req.bytes_per_target * n_tgt;
    d_trace.mark("extents");
    configure(g, n_src, n_tgt);
    d_trace.mark("configure");
    prepare_sources(src);
    d_trace.mark("sources");
    prepare_targets(tgt);
    d_trace.mark("targets");
    d_stream->synchronize();
    d_trace.report("set_points");
}

template <typename T>
void nufft3_cuda<T>::keep_direct_points(const geometry& g,
                                        std::int64_t n_src,
                                        const double* const* src,
                                        std::int64_t n_tgt,
                                        const double* const* tgt,
                                        memory where)
{
    cudaStream_t st = d_stream->get();
    const int dim = g.dim;
    d_fft.clear();
    d_grid.release();
    d_have_geom = false;
    d_geom = g;
    d_n_src = n_src;
    d_n_tgt = n_tgt;
    d_direct = direct_sum_args{};
    d_direct.dim = dim;
    d_direct.sign = double(d_cfg.sign);
    d_direct.n_src = n_src;
    d_direct.n_tgt = n_tgt;
    if (where == memory::host) {
        for (int a = 0; a < dim; ++a) {
            d_direct.src[a] = src[a]; // already in d_coords
            d_direct.tgt[a] = tgt[a];
        }
        return;
    }
    ensure(d_coords, std::size_t(dim) * (n_src + n_tgt));
    double* p = d_coords.get();
    for (int a = 0; a < dim; ++a) {
        GPUFFT_CUDA_CHECK(cudaMemcpyAsync(
            p, src[a], n_src * sizeof(double), cudaMemcpyDeviceToDevice, st));
        d_direct.src[a] = p;
        p += n_src;
        GPUFFT_CUDA_CHECK(cudaMemcpyAsync(
            p, tgt[a], n_tgt * sizeof(double), cudaMemcpyDeviceToDevice, st));
        d_direct.tgt[a] = p;
        p += n_tgt;
    }
}

template <typename T>
source_args nufft3_cuda<T>::make_source_args(const double* const* src) const
{
    source_args a{};
    for (int d = 0; d < max_dim; ++d) {
        a.x[d] = src[d];
        a.axis[d].centre = d_geom.axis[d].x_centre;
        a.axis[d].h = d_geom.axis[d].h;
        a.axis[d].half_cells = int(d_geom.axis[d].cells / 2);
        a.axis[d].bin = d_layout.bin[d];
        a.axis[d].nbins = d_nbins[d];
    }
    a.half_width = d_geom.kernel.half_width;
    a.n = d_n_src;
    return a;
}

template <typename T>
void nufft3_cuda<T>::prepare_sources(const double* const* src)
{
    cudaStream_t st = d_stream->get();
    const int dim = d_geom.dim;
    const int nbins = d_nbins[0] * d_nbins[1] * d_nbins[2];
    const source_args a = make_source_args(src);
    // A radix sort rather than a counting sort with atomic ranks: with few bins,
    // most sources' atomics meet on the same counters.
    const int* sorted = launch_sort_sources(a,
                                            dim,
                                            nbins,
                                            d_skeys.get(),
                                            d_perm.get(),
                                            d_perm_alt.get(),
                                            d_bin_start.get(),
                                            d_bin_count.get(),
                                            d_scan_temp.get(),
                                            d_scan_temp.size(),
                                            st);
    // The sort leaves the indices in either buffer; d_perm is the one spreading
    // reads.
    if (sorted != d_perm.get())
        std::swap(d_perm, d_perm_alt);
    const bool pre = d_geom.needs_prephase();
    double s_centre[max_dim];
    for (int d = 0; d < max_dim; ++d)
        s_centre[d] = d_geom.axis[d].s_centre;
    launch_gather_sources(a,
                          dim,
                          d_perm.get(),
                          source_arrays(),
                          pre ? d_prephase.get() : nullptr,
                          s_centre,
                          double(d_cfg.sign),
                          st);
    d_use_prephase = pre;

    launch_subproblem_count(d_bin_count.get(), nbins, d_nsub.get(), st);
    launch_exclusive_scan(d_nsub.get(),
                          d_sub_start.get(),
                          nbins,
                          d_scan_temp.get(),
                          d_scan_temp.size(),
                          st);
    launch_subproblem_fill(d_nsub.get(),
                           d_sub_start.get(),
                           nbins,
                           d_sub_bin.get(),
                           d_sub_offset.get(),
                           d_sub_total.get(),
                           st);
    // Every subproblem but one per bin holds max_subproblem sources.
    d_spread_blocks =
        unsigned(std::min<std::int64_t>(nbins, d_n_src) + d_n_src / max_subproblem + 1);
}

template <typename T>
void nufft3_cuda<T>::prepare_targets(const double* const* tgt)
{
    const geometry& g = d_geom;
    target_axis ta[max_dim]{};
    for (int d = 0; d < g.dim; ++d) {
        ta[d].s = tgt[d];
        ta[d].centre = g.axis[d].s_centre;
        ta[d].ds = g.axis[d].ds;
        ta[d].x_centre = g.axis[d].x_centre;
        ta[d].xi_per_cell = two_pi / double(g.axis[d].cells);
    }
    const std::int64_t cells[max_dim] = { g.axis[0].cells,
                                          g.axis[1].cells,
                                          g.axis[2].cells };
    if (g.dim > 1)
        launch_target_order(ta,
                            g.dim,
                            d_n_tgt,
                            g.kernel.half_width,
                            cells,
                            d_tkeys.get(),
                            d_torder.get(),
                            d_torder_temp.get(),
                            d_torder_temp.size(),
                            d_stream->get());
    launch_targets(ta,
                   g.dim,
                   d_n_tgt,
                   g.kernel,
                   double(d_cfg.sign),
                   sorted_order(),
                   target_arrays(),
                   d_post.get(),
                   d_stream->get());
}

template class nufft3_cuda<float>;
template class nufft3_cuda<double>;

} // namespace nufft
} // namespace gpufft
} // namespace gr
