/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The CPU type-3 NUFFT's set_points: the points' extents, the geometry, the
// corrections, the sources sorted into slabs and the targets. Stages: nufft3_cpu.h.

#include "nufft/nufft3_cpu.h"
#include <unistd.h>

namespace gr {
namespace gpufft {
namespace nufft {

namespace {

std::size_t default_host_budget()
{
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long page = sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || page <= 0)
        return std::size_t(4) << 30;
    return std::size_t(pages) * std::size_t(page) / 2;
}

extent scan_extent(const double* v, std::int64_t n, const char* name)
{
    extent e{ v[0], v[0] };
    std::int64_t bad = 0;
    for (std::int64_t i = 0; i < n; ++i) {
        const double a = v[i];
        if (!std::isfinite(a)) {
            ++bad;
            continue;
        }
        e.lo = std::min(e.lo, a);
        e.hi = std::max(e.hi, a);
    }
    if (bad)
        throw_non_finite(name, bad);
    return e;
}

} // namespace

template <typename T>
void nufft3_cpu<T>::set_points(std::int64_t n_src,
                               const double* const* src,
                               std::int64_t n_tgt,
                               const double* const* tgt,
                               memory where)
{
    if (where != memory::host)
        throw std::invalid_argument(
            "where: the CPU backend takes host arrays only (memory::host)");
    const int dim = d_cfg.dim;
    const char* src_name[max_dim] = { "x", "y", "z" };
    const char* tgt_name[max_dim] = { "s", "t", "u" };
    extent ex[max_dim], es[max_dim];
    for (int a = 0; a < dim; ++a) {
        ex[a] = scan_extent(src[a], n_src, src_name[a]);
        es[a] = scan_extent(tgt[a], n_tgt, tgt_name[a]);
    }

    plan_request req;
    req.dim = dim;
    req.eps = d_cfg.eps;
    req.prec = d_cfg.grid_prec;
    req.kernel = d_cfg.kernel;
    req.upsampling = d_cfg.upsampling;
    req.budget_bytes = d_cfg.memory_budget ? d_cfg.memory_budget : default_host_budget();
    req.n_sources = n_src;
    req.n_targets = n_tgt;
    req.bytes_per_source = dim * (4.0 + sizeof(T)) + 8 + sizeof(cplx);
    req.bytes_per_target = dim * (4.0 + sizeof(T)) + sizeof(cplx);
    req.method = d_cfg.method;
    req.direct_bytes_per_source = req.direct_bytes_per_target =
        direct_bytes_per_point(dim);
    req.direct_term_cost = cpu_direct_term_cost;
    const geometry g = choose_geometry(req, ex, es);
    if (g.direct) {
        // The grid's buffers go: a grid that did not fit must not stay held.
        release_grid();
        d_geom = g;
        d_n_src = n_src;
        d_n_tgt = n_tgt;
        d_direct.assign(dim, n_src, src, n_tgt, tgt);
        return;
    }
    d_direct.clear();

    const bool new_grid = d_geom.direct || !g.same_grid(d_geom) || d_grid.empty();
    d_geom = g;
    d_n_src = n_src;
    d_n_tgt = n_tgt;
    d_free_bytes = double(req.budget_bytes) - req.bytes_per_source * n_src -
                   req.bytes_per_target * n_tgt;
    if (new_grid) {
        d_fft.clear();
        std::vector<cplx>().swap(d_grid);
        d_grid.assign(std::size_t(g.total_cells()), cplx(0));
    }
    compute_corrections();
    sort_sources(src);
    prepare_targets(tgt);
}

template <typename T>
void nufft3_cpu<T>::compute_corrections()
{
    const geometry& g = d_geom;
    for (int a = 0; a < g.dim; ++a) {
        const std::int64_t M = g.axis[a].cells;
        auto& v = d_precorr[a];
        v.resize(std::size_t(M));
        const double w = 2 * 3.14159265358979323846 / double(M);
        detail::parallel_for(
            M,
            d_cfg.threads,
            [&](int, std::int64_t b, std::int64_t e) {
                for (std::int64_t p = b; p < e; ++p)
                    v[p] = T(1.0 /
                             kernel_transform<double>(g.kernel, w * double(p - M / 2)));
            },
            pass_grain);
    }
}

template <typename T>
void nufft3_cpu<T>::sort_sources(const double* const* src)
{
    const geometry& g = d_geom;
    const int dim = g.dim;
    const std::int64_t n = d_n_src;
    const double sign = d_cfg.sign;
    std::vector<std::int32_t> first[max_dim];
    std::vector<T> z0[max_dim];
    for (int a = 0; a < dim; ++a) {
        first[a].resize(n);
        z0[a].resize(n);
        const auto& ax = g.axis[a];
        detail::parallel_for(
            n,
            d_cfg.threads,
            [&](int, std::int64_t b, std::int64_t e) {
                for (std::int64_t j = b; j < e; ++j) {
                    long long f;
                    double z;
                    split_coordinate(
                        src[a][j], ax.x_centre, ax.h, g.kernel.half_width, f, z);
                    first[a][j] = std::int32_t(f + ax.cells / 2);
                    z0[a][j] = T(z);
                }
            },
            pass_grain);
    }

    // Counting sort by the first cell on the last axis.
    const int key = dim - 1;
    const std::int64_t keys = g.axis[key].cells;
    std::vector<std::int64_t> start(std::size_t(keys) + 1, 0);
    for (std::int64_t j = 0; j < n; ++j)
        ++start[first[key][j] + 1];
    for (std::int64_t k = 0; k < keys; ++k)
        start[k + 1] += start[k];
    d_perm.resize(n);
    {
        std::vector<std::int64_t> next(start.begin(), start.end() - 1);
        for (std::int64_t j = 0; j < n; ++j)
            d_perm[next[first[key][j]]++] = j;
    }
    const bool prephase = g.needs_prephase();
    d_prephase.resize(prephase ? n : 0);
    for (int a = 0; a < dim; ++a) {
        d_first[a].resize(n);
        d_z0[a].resize(n);
    }
    detail::parallel_for(
        n,
        d_cfg.threads,
        [&](int, std::int64_t b, std::int64_t e) {
            for (std::int64_t i = b; i < e; ++i) {
                const std::int64_t j = d_perm[i];
                double phase = 0;
                for (int a = 0; a < dim; ++a) {
                    d_first[a][i] = first[a][j];
                    d_z0[a][i] = z0[a][j];
                    phase += g.axis[a].s_centre * (src[a][j] - g.axis[a].x_centre);
                }
                if (prephase)
                    d_prephase[i] = cplx(std::polar(1.0, sign * phase));
            }
        },
        pass_grain);

    // One slab of whole key cells per thread, balanced by point count.
    const int parts =
        int(std::max<std::int64_t>(1, std::min<std::int64_t>(d_cfg.threads, n / 4096)));
    d_slabs.clear();
    std::int64_t k = 0;
    for (int p = 0; p < parts && k < keys; ++p) {
        const std::int64_t want = n * (p + 1) / parts;
        std::int64_t k_end = k + 1;
        while (k_end < keys && start[k_end] < want)
            ++k_end;
        if (p == parts - 1)
            k_end = keys;
        if (start[k_end] > start[k])
            d_slabs.push_back({ start[k], start[k_end], k, k_end + g.kernel.taps });
        k = k_end;
    }
    d_slab_buf.resize(d_slabs.size());
}

template <typename T>
void nufft3_cpu<T>::prepare_targets(const double* const* tgt)
{
    const geometry& g = d_geom;
    const int dim = g.dim;
    const std::int64_t n = d_n_tgt;
    const double sign = d_cfg.sign;
    for (int a = 0; a < dim; ++a) {
        d_tfirst[a].resize(n);
        d_tz0[a].resize(n);
    }
    d_post.resize(n);
    detail::parallel_for(
        n,
        d_cfg.threads,
        [&](int, std::int64_t b, std::int64_t e) {
            for (std::int64_t k = b; k < e; ++k) {
                double phase = 0, khat = 1;
                for (int a = 0; a < dim; ++a) {
                    const auto& ax = g.axis[a];
                    const double v = (tgt[a][k] - ax.s_centre) / ax.ds;
                    long long f;
                    double z;
                    split_coordinate(
                        tgt[a][k], ax.s_centre, ax.ds, g.kernel.half_width, f, z);
                    d_tfirst[a][k] = std::int32_t(f);
                    d_tz0[a][k] = T(z);
                    phase += tgt[a][k] * ax.x_centre;
                    khat *= kernel_transform<double>(
                        g.kernel, 2 * 3.14159265358979323846 * v / double(ax.cells));
                }
                d_post[k] = cplx(std::polar(1.0 / khat, sign * phase));
            }
        },
        pass_grain);
}

template class nufft3_cpu<float>;
template class nufft3_cpu<double>;

} // namespace nufft
} // namespace gpufft
} // namespace gr
