/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// CUDA backend of the type-3 NUFFT: buffers, FFT plans, the stream and the order of the
// stages; the kernels sit behind nufft3_cuda_kernels.h. Every stage stays on the device
// from set_points to the result:
//
//   set_points: extents (one small read-back: the grid size depends on them), then per
//     source its bin; a counting sort by bin (atomic ranks, CUB scan, permutation), then
//     first cell and offset gathered in sorted order; subproblems of at most
//     `max_subproblem` sources per bin; per target its first cell, offset and the
//     correction 1 / khat times the centring phase.
//   execute: spread each subproblem into a shared-memory tile (shared atomics only),
//     add the tile into the grid with the pre-correction applied (one global atomic per
//     touched tile cell), FFT (dense_fft_plan::execute_async), interpolate one thread per
//     target.

#include "../cuda/cuda_resources.h"
#include "../cuda/host_transfer.h"
#include "nufft3_backend.h"
#include "nufft3_cuda_kernels.h"
#include "nufft3_trace.h"
#include <gnuradio/gpufft/dense_fft_plan.h>
#include <algorithm>
#include <cmath>
#include <complex>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace gr {
namespace gpufft {
namespace nufft {

namespace {

using cuda::device_buffer;

template <typename T>
class nufft3_cuda : public nufft3_backend
{
public:
    using C = std::complex<T>;

    explicit nufft3_cuda(const nufft3_config& cfg)
        : d_cfg(cfg), d_guard_device(cfg.device_id), d_trace(cfg.trace, cfg.log)
    {
        cuda::device_guard guard(d_guard_device);
        d_stream = std::make_unique<cuda::stream>();
        d_stager = std::make_unique<cuda::host_stager>();
        d_partial.allocate(4 * extent_blocks * 3);
        d_partial_host.allocate(4 * extent_blocks * 3);
        d_sub_total.allocate(1);
        cudaDeviceProp prop{};
        GPUFFT_CUDA_CHECK(cudaGetDeviceProperties(&prop, d_guard_device));
        d_max_smem = int(prop.sharedMemPerBlockOptin);
    }

    const geometry& current_geometry() const override { return d_geom; }

    void set_points(std::int64_t n_src,
                    const double* x,
                    const double* y,
                    std::int64_t n_tgt,
                    const double* s,
                    const double* t,
                    memory where) override
    {
        cuda::device_guard guard(d_guard_device);
        const int dim = d_cfg.dim;
        cudaStream_t st = d_stream->get();
        const double* src[2] = { x, y };
        const double* tgt[2] = { s, t };
        d_trace.start(st);
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
        const double* arrays[4] = { src[0], tgt[0], src[1], tgt[1] };
        const std::int64_t counts[4] = { n_src, n_tgt, n_src, n_tgt };
        for (int i = 0; i < 2 * dim; ++i) {
            launch_extent(
                arrays[i], counts[i], d_partial.get() + i * extent_blocks * 3, st);
        }
        GPUFFT_CUDA_CHECK(cudaMemcpyAsync(d_partial_host.get(),
                                          d_partial.get(),
                                          2 * dim * extent_blocks * 3 * sizeof(double),
                                          cudaMemcpyDeviceToHost,
                                          st));
        d_stream->synchronize();
        const char* names[4] = { "x", "s", "y", "t" };
        extent ex[2], es[2];
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
        req.prec = d_cfg.prec;
        req.kernel = d_cfg.kernel;
        req.upsampling = d_cfg.upsampling;
        req.n_sources = n_src;
        req.n_targets = n_tgt;
        // Sorted sources: perm, first, offset, prephase, rank; c staging. Targets: first,
        // offset, post; F staging. Coordinates staged from the host.
        req.bytes_per_source = 8 + dim * (4.0 + sizeof(T)) + 2 * sizeof(C) +
                               (where == memory::host ? 8.0 * dim : 0);
        req.bytes_per_target = dim * (4.0 + sizeof(T)) + 2 * sizeof(C) +
                               (where == memory::host ? 8.0 * dim : 0);
        if (d_cfg.memory_budget) {
            req.budget_bytes = d_cfg.memory_budget;
        } else {
            std::size_t free_b = 0, total_b = 0;
            GPUFFT_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
            req.budget_bytes = free_b / 4 * 3 + held_bytes();
        }
        const geometry g = choose_geometry(req, ex, es);
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

    void execute(const void* c_in, void* F_out, memory where) override
    {
        cuda::device_guard guard(d_guard_device);
        cudaStream_t st = d_stream->get();
        const C* c = static_cast<const C*>(c_in);
        C* F = static_cast<C*>(F_out);
        d_trace.start(st);
        if (where == memory::host) {
            d_stager->to_device(d_c.get(), c_in, d_n_src * sizeof(C), st);
            c = d_c.get();
            F = d_F.get();
        }
        d_trace.mark("upload");
        GPUFFT_CUDA_CHECK(cudaMemsetAsync(d_grid.get(), 0, d_grid.bytes(), st));
        d_trace.mark("clear");
        spread(c);
        d_trace.mark("spread");
        for (auto& p : d_fft)
            p->execute_async(d_grid.get(), d_grid.get(), st);
        d_trace.mark("fft");
        interp(F);
        d_trace.mark("interp");
        if (where == memory::host)
            d_stager->to_host(F_out, d_F.get(), d_n_tgt * sizeof(C), st);
        d_stream->synchronize();
        d_trace.report("execute");
    }

private:
    std::size_t held_bytes() const
    {
        std::size_t b = d_grid.bytes() + d_coords.bytes() + d_perm.bytes() +
                        d_rank.bytes() + d_prephase.bytes() + d_post.bytes() +
                        d_c.bytes() + d_F.bytes();
        for (int a = 0; a < 2; ++a)
            b += d_first[a].bytes() + d_z0[a].bytes() + d_tfirst[a].bytes() +
                 d_tz0[a].bytes();
        return b;
    }

    template <typename B>
    static void ensure(B& buf, std::size_t count)
    {
        if (buf.size() < count)
            buf.allocate(count);
    }

    void configure(const geometry& g, std::int64_t n_src, std::int64_t n_tgt)
    {
        const int dim = g.dim;
        const bool same_grid = d_have_geom && g.dim == d_geom.dim &&
                               g.axis[0].cells == d_geom.axis[0].cells &&
                               g.axis[1].cells == d_geom.axis[1].cells;
        const bool same_kernel = d_have_geom && g.kernel.kind == d_geom.kernel.kind &&
                                 g.kernel.taps == d_geom.kernel.taps &&
                                 g.kernel.beta == d_geom.kernel.beta &&
                                 g.kernel.gauss_b == d_geom.kernel.gauss_b;
        d_geom = g;
        d_have_geom = true;
        d_n_src = n_src;
        d_n_tgt = n_tgt;
        const int W = g.kernel.taps;

        // Bins: tiles of (bin + W - 1) cells per axis must fit in shared memory.
        if (dim == 1) {
            d_bin[0] = bin_1d;
            d_bin[1] = 1;
        } else {
            int b = 32;
            while (b > 4 && std::size_t(b + W - 1) * (b + W - 1) * sizeof(C) > 96 * 1024)
                b /= 2;
            d_bin[0] = d_bin[1] = b;
        }
        d_tile_bytes =
            std::size_t(d_bin[0] + W - 1) * (dim == 2 ? d_bin[1] + W - 1 : 1) * sizeof(C);
        if (d_tile_bytes > std::size_t(d_max_smem)) {
            std::ostringstream os;
            os << "kernel: " << W << " taps need a " << d_tile_bytes
               << "-byte shared-memory tile; this GPU offers " << d_max_smem
               << " per block (use a larger eps or the es kernel)";
            throw std::invalid_argument(os.str());
        }
        for (int a = 0; a < 2; ++a)
            d_nbins[a] = a < dim ? int((g.axis[a].cells + d_bin[a] - 1) / d_bin[a]) : 1;
        const int nbins = d_nbins[0] * d_nbins[1];
        const std::size_t max_subs = std::size_t(nbins) + n_src / max_subproblem + 1;

        ensure(d_perm, n_src);
        ensure(d_rank, n_src);
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
        ensure(d_bin_count, nbins);
        ensure(d_bin_start, nbins);
        ensure(d_nsub, nbins);
        ensure(d_sub_start, nbins);
        ensure(d_sub_bin, max_subs);
        ensure(d_sub_offset, max_subs);
        ensure(d_scan_temp, exclusive_scan_bytes(nbins));

        cudaStream_t st = d_stream->get();
        if (!same_grid) {
            d_fft.clear();
            d_grid.release();
            d_grid.allocate(std::size_t(g.total_cells()));
            dense_fft_options o;
            o.backend = backend::cuda;
            o.device_id = d_guard_device;
            o.precision = d_cfg.prec;
            const direction dir =
                d_cfg.sign < 0 ? direction::forward : direction::backward;
            const std::int64_t M0 = g.axis[0].cells, M1 = g.axis[1].cells;
            if (dim == 1) {
                d_fft.push_back(std::make_unique<dense_fft_plan>(M0, 1, dir, o));
            } else {
                d_fft.push_back(std::make_unique<dense_fft_plan>(M0, M1, dir, o));
                o.stride = M0;
                o.distance = 1;
                d_fft.push_back(std::make_unique<dense_fft_plan>(M1, M0, dir, o));
            }
        }
        if (!same_grid || !same_kernel) {
            for (int a = 0; a < dim; ++a) {
                const long long M = g.axis[a].cells;
                d_precorr[a].allocate(M);
                launch_precorrection(g.kernel, M, d_precorr[a].get(), st);
            }
        }
    }

    source_args make_source_args(const double* const* src) const
    {
        source_args a{};
        for (int d = 0; d < 2; ++d) {
            a.x[d] = src[d];
            a.axis[d].centre = d_geom.axis[d].x_centre;
            a.axis[d].inv_h = 1.0 / d_geom.axis[d].h;
            a.axis[d].half_cells = int(d_geom.axis[d].cells / 2);
            a.axis[d].bin = d_bin[d];
            a.axis[d].nbins = d_nbins[d];
        }
        a.half_width = d_geom.kernel.half_width;
        a.n = d_n_src;
        return a;
    }

    void prepare_sources(const double* const* src)
    {
        cudaStream_t st = d_stream->get();
        const int dim = d_geom.dim;
        const int nbins = d_nbins[0] * d_nbins[1];
        const source_args a = make_source_args(src);
        GPUFFT_CUDA_CHECK(cudaMemsetAsync(d_bin_count.get(), 0, nbins * sizeof(int), st));
        launch_bin_count(a, dim, d_bin_count.get(), d_rank.get(), st);
        launch_exclusive_scan(d_bin_count.get(),
                              d_bin_start.get(),
                              nbins,
                              d_scan_temp.get(),
                              d_scan_temp.size(),
                              st);
        launch_permutation(a, dim, d_bin_start.get(), d_rank.get(), d_perm.get(), st);
        const bool pre = d_geom.needs_prephase();
        launch_gather_sources(a,
                              dim,
                              d_perm.get(),
                              d_first[0].get(),
                              d_first[1].get(),
                              d_z0[0].get(),
                              d_z0[1].get(),
                              pre ? d_prephase.get() : nullptr,
                              d_geom.axis[0].s_centre,
                              dim == 2 ? d_geom.axis[1].s_centre : 0.0,
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
        d_spread_blocks = unsigned(nbins + d_n_src / max_subproblem + 1);
    }

    void prepare_targets(const double* const* tgt)
    {
        const geometry& g = d_geom;
        target_axis ta[2]{};
        for (int d = 0; d < g.dim; ++d) {
            ta[d].s = tgt[d];
            ta[d].centre = g.axis[d].s_centre;
            ta[d].inv_ds = 1.0 / g.axis[d].ds;
            ta[d].x_centre = g.axis[d].x_centre;
            ta[d].xi_per_cell = two_pi / double(g.axis[d].cells);
        }
        launch_targets(ta[0],
                       ta[1],
                       g.dim,
                       d_n_tgt,
                       g.kernel,
                       double(d_cfg.sign),
                       d_tfirst[0].get(),
                       d_tfirst[1].get(),
                       d_tz0[0].get(),
                       d_tz0[1].get(),
                       d_post.get(),
                       d_stream->get());
    }

    void spread(const C* c)
    {
        const int dim = d_geom.dim;
        spread_args a{};
        a.sub_bin = d_sub_bin.get();
        a.sub_offset = d_sub_offset.get();
        a.sub_total = d_sub_total.get();
        a.bin_start = d_bin_start.get();
        a.bin_count = d_bin_count.get();
        a.perm = d_perm.get();
        a.first[0] = d_first[0].get();
        a.first[1] = d_first[1].get();
        a.bin[0] = d_bin[0];
        a.bin[1] = d_bin[1];
        a.nbins0 = d_nbins[0];
        a.cells[0] = d_geom.axis[0].cells;
        a.cells[1] = dim == 2 ? d_geom.axis[1].cells : 1;
        a.taps = d_geom.kernel.taps;
        launch_spread(a,
                      dim,
                      d_spread_blocks,
                      d_tile_bytes,
                      d_z0[0].get(),
                      d_z0[1].get(),
                      c,
                      d_use_prephase ? d_prephase.get() : nullptr,
                      d_precorr[0].get(),
                      d_precorr[1].get(),
                      d_geom.kernel,
                      d_grid.get(),
                      d_stream->get());
    }

    void interp(C* F)
    {
        launch_interp(d_n_tgt,
                      d_geom.dim,
                      d_tfirst[0].get(),
                      d_tfirst[1].get(),
                      d_tz0[0].get(),
                      d_tz0[1].get(),
                      d_post.get(),
                      d_grid.get(),
                      d_geom.axis[0].cells,
                      d_geom.axis[1].cells,
                      d_geom.kernel,
                      F,
                      d_stream->get());
    }

    nufft3_config d_cfg;
    int d_guard_device;
    int d_max_smem = 48 * 1024;
    geometry d_geom;
    bool d_have_geom = false;
    std::int64_t d_n_src = 0, d_n_tgt = 0;
    int d_bin[2] = { 1, 1 }, d_nbins[2] = { 1, 1 };
    std::size_t d_tile_bytes = 0;
    unsigned d_spread_blocks = 0;
    bool d_use_prephase = false;

    std::unique_ptr<cuda::stream> d_stream;
    stage_trace d_trace;
    std::unique_ptr<cuda::host_stager> d_stager;
    device_buffer<double> d_partial;
    cuda::pinned_buffer<double> d_partial_host;
    device_buffer<double> d_coords;
    // Sources, sorted by bin.
    device_buffer<int> d_perm, d_rank, d_first[2];
    device_buffer<T> d_z0[2];
    device_buffer<C> d_prephase, d_c;
    device_buffer<int> d_bin_count, d_bin_start, d_nsub, d_sub_start, d_sub_bin,
        d_sub_offset, d_sub_total;
    device_buffer<unsigned char> d_scan_temp;
    // Targets, in the caller's order.
    device_buffer<int> d_tfirst[2];
    device_buffer<T> d_tz0[2];
    device_buffer<C> d_post, d_F;
    // Grid.
    device_buffer<T> d_precorr[2];
    device_buffer<C> d_grid;
    std::vector<std::unique_ptr<dense_fft_plan>> d_fft;
};

} // namespace

std::unique_ptr<nufft3_backend> make_nufft3_cuda(const nufft3_config& cfg)
{
    if (cfg.prec == precision::single)
        return std::make_unique<nufft3_cuda<float>>(cfg);
    return std::make_unique<nufft3_cuda<double>>(cfg);
}

} // namespace nufft
} // namespace gpufft
} // namespace gr
