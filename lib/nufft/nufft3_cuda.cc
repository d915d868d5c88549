/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// CUDA backend of the type-3 NUFFT: buffers, FFT plans, the stream and the order of the
// stages; the kernels sit behind nufft3_cuda_kernels.h. One class in one file on
// purpose: every stage reads the buffers and geometry the others leave, and the order
// of the stages on the stream is what this file is about. Every stage stays on the device
// from set_points to the result:
//
//   set_points: extents (one small read-back: the grid size depends on them), then per
//     source its bin; the sources sorted by bin (CUB radix sort of (bin, index) pairs,
//     bin starts and counts from the sorted bins), then first cell and offset gathered
//     in sorted order; subproblems of at most `max_subproblem` sources per bin; the
//     targets sorted by the tile of grid cells they read (CUB radix sort), and per
//     target its first cell, offset and the correction 1 / khat times the centring
//     phase, in that order.
//   execute: fill a shared-memory tile per subproblem (the gather or scatter form,
//     nufft3_spread_layout.h), add the tile into the grid with the pre-correction
//     applied (one global atomic per touched tile cell), or, in the direct form (2D
//     batches), write each cell once from the sources that reach it; the grids' FFT
//     (nufft3_grid_fft.h: one multi-dimensional cuFFT, pruned passes in 3D),
//     interpolate the targets in sorted order (neighbours read neighbouring cells;
//     nufft3_interp_kernels.cu) and write F in the caller's order; groups of strength
//     vectors of a batch are the launches' second grid axis.
//
// One class, because every stage reads the buffers, bins and geometry the last
// set_points chose; the kernels and the grid FFT are in their own files.

#include "../cuda/cuda_resources.h"
#include "../cuda/host_transfer.h"
#include "nufft3_backend.h"
#include "nufft3_cuda_kernels.h"
#include "nufft3_grid_fft.h"
#include "nufft3_spread_layout.h"
#include "nufft3_trace.h"
#include <algorithm>
#include <cmath>
#include <complex>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
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
        d_partial.allocate(2 * max_dim * extent_blocks * 3);
        d_partial_host.allocate(2 * max_dim * extent_blocks * 3);
        d_sub_total.allocate(1);
        cudaDeviceProp prop{};
        GPUFFT_CUDA_CHECK(cudaGetDeviceProperties(&prop, d_guard_device));
        d_max_smem = int(prop.sharedMemPerBlockOptin);
    }

    const geometry& current_geometry() const override { return d_geom; }

    void set_points(std::int64_t n_src,
                    const double* const* src_in,
                    std::int64_t n_tgt,
                    const double* const* tgt_in,
                    memory where) override
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
        const double* arrays[2 * max_axes] = { src[0], tgt[0], src[1],
                                               tgt[1], src[2], tgt[2] };
        const std::int64_t counts[2 * max_axes] = { n_src, n_tgt, n_src,
                                                    n_tgt, n_src, n_tgt };
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
        req.bytes_per_target = dim * (4.0 + sizeof(T)) + 2 * sizeof(C) +
                               (dim > 1 ? 16 : 0) +
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
            d_free_bytes = double(req.budget_bytes) -
                           req.direct_bytes_per_source * n_src -
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

    void execute(const void* c_in, void* F_out, memory where, int ntransf) override
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

private:
    //! A single-precision plan whose grid is in double (nufft3_config::grid_prec).
    bool widens() const { return d_cfg.prec == precision::single && sizeof(T) == 8; }

    //! Bytes of one complex value of c and F.
    double io_bytes() const { return d_cfg.prec == precision::single ? 8.0 : 16.0; }

    //! The direct sum keeps its own copy of the coordinates on the device (d_coords:
    //! host ones are there already, the caller's device ones are copied, since the
    //! caller may free them); the grid's buffers go, so a grid that did not fit is not
    //! held.
    void keep_direct_points(const geometry& g,
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

    //! The direct sum in the plan's precision (IO), chunks of vectors staged from the
    //! host as the budget allows.
    template <typename IO>
    void execute_direct(const void* c_in, void* F_out, memory where, int ntransf)
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
        const std::string call =
            ntransf == 1 ? "execute (direct)"
                         : "execute (direct) ntransf=" + std::to_string(ntransf);
        d_trace.report(call.c_str());
    }

    /*!
     * A single-precision plan with a grid in double: each chunk of float vectors is
     * widened into a double one (on the host for host arrays, by a kernel for device
     * ones), run through the grid, and its F narrowed back. Host arrays go through
     * pageable staging, which returns once read (c) or written (F), so the host
     * buffers are free again at each chunk.
     */
    void execute_widened(const void* c_in, void* F_out, memory where, int ntransf)
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
            const std::size_t nc = std::size_t(b) * d_n_src,
                              nf = std::size_t(b) * d_n_tgt;
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

    void execute_grid(const void* c_in, void* F_out, memory where, int ntransf)
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

    //! The plan for `batch` grids, made on first use and kept while it serves the grid
    //! and the points' supports on it (set_points may keep the grid and move the points).
    grid_fft_cuda& fft(int batch)
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

    std::size_t held_bytes() const
    {
        std::size_t b = d_grid.bytes() + d_coords.bytes() + d_perm.bytes() +
                        d_perm_alt.bytes() + d_skeys.bytes() + d_scan_temp.bytes() +
                        d_prephase.bytes() + d_post.bytes() + d_c.bytes() + d_F.bytes() +
                        d_tkeys.bytes() + d_torder.bytes();
        for (int a = 0; a < max_dim; ++a)
            b += d_first[a].bytes() + d_z0[a].bytes() + d_tfirst[a].bytes() +
                 d_tz0[a].bytes();
        return b;
    }

    template <typename B>
    static void ensure(B& buf, std::size_t count)
    {
        if (buf.size() < count)
            buf.allocate(count, "the points");
    }

    void configure(const geometry& g, std::int64_t n_src, std::int64_t n_tgt)
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

        d_layout = choose_spread_layout(
            g, n_src, d_cfg.spread, sizeof(T), std::size_t(d_max_smem));
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

    source_args make_source_args(const double* const* src) const
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

    point_arrays<T> source_arrays()
    {
        point_arrays<T> p{};
        for (int a = 0; a < d_geom.dim; ++a) {
            p.first[a] = d_first[a].get();
            p.z0[a] = d_z0[a].get();
        }
        return p;
    }

    //! Sorted position -> target (the second half of d_torder; launch_target_order), or
    //! null: in 1D a target's taps are one contiguous run of cells whatever the order,
    //! and sorting would only add to set_points and scatter the writes of F.
    const int* sorted_order() const
    {
        return d_geom.dim > 1 ? d_torder.get() + d_n_tgt : nullptr;
    }

    point_arrays<T> target_arrays()
    {
        point_arrays<T> p{};
        for (int a = 0; a < d_geom.dim; ++a) {
            p.first[a] = d_tfirst[a].get();
            p.z0[a] = d_tz0[a].get();
        }
        return p;
    }

    void prepare_sources(const double* const* src)
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
        d_spread_blocks = unsigned(std::min<std::int64_t>(nbins, d_n_src) +
                                   d_n_src / max_subproblem + 1);
    }

    void prepare_targets(const double* const* tgt)
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

    void spread(const C* c, int ntransf)
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

    void interp(C* F, int ntransf)
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

    nufft3_config d_cfg;
    int d_guard_device;
    int d_max_smem = 48 * 1024;
    geometry d_geom;
    bool d_have_geom = false;
    std::int64_t d_n_src = 0, d_n_tgt = 0;
    spread_layout d_layout; //!< bins and the form of spreading
    int d_nbins[max_dim] = { 1, 1, 1 };
    double d_free_bytes = 0; //!< budget left for grids after the point arrays
    unsigned d_spread_blocks = 0;
    bool d_use_prephase = false;

    std::unique_ptr<cuda::stream> d_stream;
    stage_trace d_trace;
    std::unique_ptr<cuda::host_stager> d_stager;
    device_buffer<double> d_partial;
    cuda::pinned_buffer<double> d_partial_host;
    device_buffer<double> d_coords;
    // Sources, sorted by bin.
    device_buffer<int> d_perm, d_perm_alt, d_first[max_dim];
    device_buffer<unsigned> d_skeys; //!< the sort's bins, unsorted then sorted
    device_buffer<T> d_z0[max_dim];
    device_buffer<C> d_prephase, d_c;
    device_buffer<int> d_bin_count, d_bin_start, d_nsub, d_sub_start, d_sub_bin,
        d_sub_offset, d_sub_total;
    device_buffer<unsigned char> d_scan_temp; //!< CUB scratch: scans, source sort
    // Targets, in interpolation order (sorted_order()); F in the caller's order.
    device_buffer<int> d_tfirst[max_dim];
    device_buffer<T> d_tz0[max_dim];
    device_buffer<C> d_post, d_F;
    device_buffer<unsigned> d_tkeys;
    device_buffer<int> d_torder;
    device_buffer<unsigned char> d_torder_temp;
    // Grid.
    device_buffer<T> d_precorr[max_dim];
    device_buffer<C> d_grid; //!< one or more grids, one after the other
    std::map<int, std::unique_ptr<grid_fft_cuda>> d_fft; //!< by batch
    // The direct sum: its points (in d_coords) and c, F staged in the plan's precision.
    direct_sum_args d_direct{};
    device_buffer<unsigned char> d_io_c, d_io_F;
    // A single-precision plan's vectors widened for a double grid.
    std::vector<std::complex<double>> d_wide_host, d_wide_F;
    device_buffer<C> d_wide_c, d_wide_Fd;
};

} // namespace

std::unique_ptr<nufft3_backend> make_nufft3_cuda(const nufft3_config& cfg)
{
    if (cfg.grid_prec == precision::single)
        return std::make_unique<nufft3_cuda<float>>(cfg);
    return std::make_unique<nufft3_cuda<double>>(cfg);
}

} // namespace nufft
} // namespace gpufft
} // namespace gr
