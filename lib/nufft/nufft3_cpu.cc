/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// CPU backend of the type-3 NUFFT: the same stages as the CUDA one, with threads.
// Sources are sorted by cell along the last axis (x in 1D, y in 2D, z in 3D) and split
// into one contiguous slab per thread; each thread spreads into its own slab buffer (no
// locks), and the slabs are added into the fine grid with the pre-correction applied on
// the way. The file is one backend class whose stages share its buffers and geometry;
// the shared arithmetic (kernel, geometry, grid FFT) lives in its own files.

#include "core/parallel_for.h"
#include "nufft3_backend.h"
#include "nufft3_direct_sum.h"
#include "nufft3_grid_fft.h"
#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <map>
#include <memory>
#include <stdexcept>
#include <vector>

namespace gr {
namespace gpufft {
namespace nufft {

namespace {

// Items per thread below which a pass stays on fewer threads: the per-item work here is
// cheap, so a thread start only pays for itself over a few thousand items.
constexpr std::int64_t pass_grain = 4096;

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

template <typename T>
class nufft3_cpu : public nufft3_backend
{
public:
    using cplx = std::complex<T>;

    explicit nufft3_cpu(const nufft3_config& cfg) : d_cfg(cfg) {}

    const geometry& current_geometry() const override { return d_geom; }

    void set_points(std::int64_t n_src,
                    const double* const* src,
                    std::int64_t n_tgt,
                    const double* const* tgt,
                    memory where) override
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
        req.budget_bytes =
            d_cfg.memory_budget ? d_cfg.memory_budget : default_host_budget();
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

    void execute(const void* c_in, void* F_out, memory where, int ntransf) override
    {
        if (where != memory::host)
            throw std::invalid_argument(
                "where: the CPU backend takes host arrays only (memory::host)");
        if (d_geom.direct) {
            if (d_cfg.prec == precision::single)
                direct_sum_cpu(d_direct,
                               d_cfg.sign,
                               static_cast<const std::complex<float>*>(c_in),
                               static_cast<std::complex<float>*>(F_out),
                               ntransf,
                               d_cfg.threads);
            else
                direct_sum_cpu(d_direct,
                               d_cfg.sign,
                               static_cast<const std::complex<double>*>(c_in),
                               static_cast<std::complex<double>*>(F_out),
                               ntransf,
                               d_cfg.threads);
            return;
        }
        // A single-precision plan with its grid in double (nufft3_config::grid_prec)
        // converts each vector on the way in and out.
        const bool widen = d_cfg.prec == precision::single && sizeof(T) == 8;
        const cplx* c = static_cast<const cplx*>(c_in);
        cplx* F = static_cast<cplx*>(F_out);
        if (widen) {
            d_c_wide.resize(std::size_t(d_n_src));
            d_F_wide.resize(std::size_t(d_n_tgt));
        }
        auto vec_in = [&](int v) -> const cplx* {
            if (!widen)
                return c + std::int64_t(v) * d_n_src;
            const auto* cf =
                static_cast<const std::complex<float>*>(c_in) + std::int64_t(v) * d_n_src;
            for (std::int64_t j = 0; j < d_n_src; ++j)
                d_c_wide[j] = cplx(cf[j]);
            return d_c_wide.data();
        };
        auto vec_out = [&](int v, const cplx* grid) {
            if (!widen) {
                interpolate(grid, F + std::int64_t(v) * d_n_tgt);
                return;
            }
            interpolate(grid, d_F_wide.data());
            auto* Ff =
                static_cast<std::complex<float>*>(F_out) + std::int64_t(v) * d_n_tgt;
            for (std::int64_t k = 0; k < d_n_tgt; ++k)
                Ff[k] = std::complex<float>(d_F_wide[k]);
        };
        const std::int64_t cells = d_geom.total_cells();
        // As many grids at a time as the memory budget holds (set_points made sure of
        // one).
        const double grid_bytes = double(cells) * sizeof(cplx);
        const int chunk = int(std::max<double>(
            1, std::min<double>(ntransf, std::floor(d_free_bytes / grid_bytes))));
        if (d_grid.size() < std::size_t(chunk * cells)) {
            d_fft.clear();
            std::vector<cplx>().swap(d_grid);
            d_grid.assign(std::size_t(chunk * cells), cplx(0));
        }
        for (int v0 = 0; v0 < ntransf; v0 += chunk) {
            const int b = std::min(chunk, ntransf - v0);
            for (int v = 0; v < b; ++v)
                spread(vec_in(v0 + v), d_grid.data() + v * cells);
            fft(b).execute(d_grid.data());
            for (int v = 0; v < b; ++v)
                vec_out(v0 + v, d_grid.data() + v * cells);
        }
    }

private:
    void release_grid()
    {
        d_fft.clear();
        std::vector<cplx>().swap(d_grid);
        d_slab_buf.clear();
    }

    //! The plan for `batch` grids at the start of d_grid, made on first use.
    grid_fft_cpu& fft(int batch)
    {
        auto& p = d_fft[batch];
        if (!p) {
            grid_fft_shape sh;
            sh.dim = d_geom.dim;
            for (int a = 0; a < max_dim; ++a)
                sh.cells[a] = d_geom.axis[a].cells;
            sh.batch = batch;
            sh.sign = d_cfg.sign;
            sh.prec = d_cfg.grid_prec;
            p = std::make_unique<grid_fft_cpu>(sh, d_cfg.threads, d_grid.data());
        }
        return *p;
    }

    //! 1 / khat(2 pi n / M) for every cell n (grid index p = n + M/2).
    void compute_corrections()
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
                        v[p] = T(1.0 / kernel_transform<double>(g.kernel,
                                                                w * double(p - M / 2)));
                },
                pass_grain);
        }
    }

    void sort_sources(const double* const* src)
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
        const int parts = int(
            std::max<std::int64_t>(1, std::min<std::int64_t>(d_cfg.threads, n / 4096)));
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

    void prepare_targets(const double* const* tgt)
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

    void spread(const cplx* c, cplx* grid)
    {
        switch (d_geom.dim) {
        case 1:
            spread_dim<1>(c, grid);
            break;
        case 2:
            spread_dim<2>(c, grid);
            break;
        default:
            spread_dim<3>(c, grid);
        }
    }

    void interpolate(const cplx* grid, cplx* F)
    {
        switch (d_geom.dim) {
        case 1:
            interpolate_dim<1>(grid, F);
            break;
        case 2:
            interpolate_dim<2>(grid, F);
            break;
        default:
            interpolate_dim<3>(grid, F);
        }
    }

    template <int DIM>
    void spread_dim(const cplx* c, cplx* grid)
    {
        const geometry& g = d_geom;
        const int W = g.kernel.taps;
        const std::int64_t M0 = g.axis[0].cells, M1 = g.axis[1].cells;
        (void)M1;
        // Cells per key cell (the last axis): a row in 2D, a plane in 3D.
        const std::int64_t row = DIM == 1 ? 1 : DIM == 2 ? M0 : M0 * M1;
        const bool prephase = !d_prephase.empty();
        // One slab per thread: each spreads into its own buffer.
        const auto slabs = std::int64_t(d_slabs.size());
        detail::parallel_for(
            slabs,
            int(slabs),
            [&](int, std::int64_t sb, std::int64_t se) {
                for (std::int64_t si = sb; si < se; ++si) {
                    const slab& sl = d_slabs[si];
                    auto& buf = d_slab_buf[si];
                    buf.assign(std::size_t((sl.key_end - sl.key_begin) * row), cplx(0));
                    T kx[max_taps], ky[max_taps], kz[max_taps];
                    for (std::int64_t i = sl.begin; i < sl.end; ++i) {
                        cplx v = c[d_perm[i]];
                        if (prephase)
                            v *= d_prephase[i];
                        for (int q = 0; q < W; ++q)
                            kx[q] = kernel_value<T>(g.kernel, d_z0[0][i] + T(q));
                        if constexpr (DIM == 1) {
                            cplx* out = buf.data() + (d_first[0][i] - sl.key_begin);
                            for (int q = 0; q < W; ++q)
                                out[q] += v * kx[q];
                        } else if constexpr (DIM == 2) {
                            for (int q = 0; q < W; ++q)
                                ky[q] = kernel_value<T>(g.kernel, d_z0[1][i] + T(q));
                            for (int r = 0; r < W; ++r) {
                                const cplx vr = v * ky[r];
                                cplx* out = buf.data() +
                                            (d_first[1][i] - sl.key_begin + r) * row +
                                            d_first[0][i];
                                for (int q = 0; q < W; ++q)
                                    out[q] += vr * kx[q];
                            }
                        } else {
                            for (int q = 0; q < W; ++q) {
                                ky[q] = kernel_value<T>(g.kernel, d_z0[1][i] + T(q));
                                kz[q] = kernel_value<T>(g.kernel, d_z0[2][i] + T(q));
                            }
                            for (int l = 0; l < W; ++l) {
                                const cplx vl = v * kz[l];
                                cplx* plane =
                                    buf.data() + (d_first[2][i] - sl.key_begin + l) * row;
                                // Sources lie in the grid's middle 1 / sigma, so
                                // their taps never wrap (params.h).
                                for (int r = 0; r < W; ++r) {
                                    const cplx vr = vl * ky[r];
                                    cplx* out =
                                        plane + (d_first[1][i] + r) * M0 + d_first[0][i];
                                    for (int q = 0; q < W; ++q)
                                        out[q] += vr * kx[q];
                                }
                            }
                        }
                    }
                }
            },
            1);
        add_slabs<DIM>(grid, row);
    }

    //! Slabs overlap by the kernel width, so they are added one after the other; each
    //! slab's cells are split over the threads instead.
    template <int DIM>
    void add_slabs(cplx* grid, std::int64_t row)
    {
        const geometry& g = d_geom;
        const std::int64_t M0 = g.axis[0].cells, M1 = g.axis[1].cells;
        const std::int64_t total = g.total_cells();
        std::fill(grid, grid + total, cplx(0));
        const T* pc0 = d_precorr[0].data();
        const T* pc1 = DIM >= 2 ? d_precorr[1].data() : nullptr;
        const T* pc2 = DIM == 3 ? d_precorr[2].data() : nullptr;
        for (std::size_t si = 0; si < d_slabs.size(); ++si) {
            const slab& sl = d_slabs[si];
            const cplx* buf = d_slab_buf[si].data();
            const std::int64_t cells = (sl.key_end - sl.key_begin) * row;
            const std::int64_t base = sl.key_begin * row;
            detail::parallel_for(
                cells,
                d_cfg.threads,
                [&](int, std::int64_t b, std::int64_t e) {
                    for (std::int64_t q = b; q < e; ++q) {
                        const std::int64_t cell = base + q;
                        if (cell >= total)
                            break; // the slab's right margin past the grid holds only
                                   // zeros
                        T corr;
                        if constexpr (DIM == 1)
                            corr = pc0[cell];
                        else if constexpr (DIM == 2)
                            corr = pc0[cell % M0] * pc1[cell / M0];
                        else
                            corr = pc0[cell % M0] * pc1[(cell / M0) % M1] *
                                   pc2[cell / (M0 * M1)];
                        grid[cell] += buf[q] * corr;
                    }
                },
                pass_grain);
        }
    }

    template <int DIM>
    void interpolate_dim(const cplx* grid, cplx* F)
    {
        const geometry& g = d_geom;
        const int W = g.kernel.taps;
        const std::int64_t M0 = g.axis[0].cells;
        const std::int64_t M1 = g.axis[1].cells;
        const std::int64_t M2 = g.axis[2].cells;
        detail::parallel_for(
            d_n_tgt,
            d_cfg.threads,
            [&](int, std::int64_t b, std::int64_t e) {
                T kx[max_taps], ky[max_taps], kz[max_taps];
                for (std::int64_t k = b; k < e; ++k) {
                    for (int q = 0; q < W; ++q)
                        kx[q] = kernel_value<T>(g.kernel, d_tz0[0][k] + T(q));
                    const std::int64_t f0 = d_tfirst[0][k];
                    // Grid index p = n + M/2 puts a factor (-1)^m on FFT output m.
                    auto row_sum = [&](const cplx* rowp, std::int64_t parity) {
                        cplx racc(0);
                        for (int q = 0; q < W; ++q) {
                            const std::int64_t m0 = f0 + q;
                            const cplx v = rowp[(m0 % M0 + M0) % M0];
                            racc += ((m0 + parity) & 1) ? -v * kx[q] : v * kx[q];
                        }
                        return racc;
                    };
                    cplx acc(0);
                    if constexpr (DIM == 1) {
                        acc = row_sum(grid, 0);
                    } else {
                        for (int q = 0; q < W; ++q)
                            ky[q] = kernel_value<T>(g.kernel, d_tz0[1][k] + T(q));
                        const std::int64_t f1 = d_tfirst[1][k];
                        if constexpr (DIM == 2) {
                            for (int r = 0; r < W; ++r) {
                                const std::int64_t m1 = f1 + r;
                                acc += row_sum(grid + ((m1 % M1 + M1) % M1) * M0, m1) *
                                       ky[r];
                            }
                        } else {
                            for (int q = 0; q < W; ++q)
                                kz[q] = kernel_value<T>(g.kernel, d_tz0[2][k] + T(q));
                            const std::int64_t f2 = d_tfirst[2][k];
                            for (int l = 0; l < W; ++l) {
                                const std::int64_t m2 = f2 + l;
                                const cplx* plane =
                                    grid + ((m2 % M2 + M2) % M2) * M0 * M1;
                                cplx pacc(0);
                                for (int r = 0; r < W; ++r) {
                                    const std::int64_t m1 = f1 + r;
                                    pacc += row_sum(plane + ((m1 % M1 + M1) % M1) * M0,
                                                    m1 + m2) *
                                            ky[r];
                                }
                                acc += pacc * kz[l];
                            }
                        }
                    }
                    F[k] = acc * d_post[k];
                }
            },
            pass_grain);
    }

    struct slab {
        std::int64_t begin, end;         //!< sorted source range
        std::int64_t key_begin, key_end; //!< key cells covered (with the kernel's reach)
    };

    nufft3_config d_cfg;
    geometry d_geom;
    std::int64_t d_n_src = 0, d_n_tgt = 0;
    double d_free_bytes = 0;  //!< budget left for grids after the point arrays
    std::vector<cplx> d_grid; //!< one or more grids, one after the other
    std::map<int, std::unique_ptr<grid_fft_cpu>> d_fft; //!< by batch, for d_grid
    std::vector<T> d_precorr[max_dim];
    // Sources in sorted order.
    std::vector<std::int64_t> d_perm;
    std::vector<std::int32_t> d_first[max_dim];
    std::vector<T> d_z0[max_dim];
    std::vector<cplx> d_prephase;
    std::vector<slab> d_slabs;
    std::vector<std::vector<cplx>> d_slab_buf;
    // Targets in the caller's order.
    std::vector<std::int32_t> d_tfirst[max_dim];
    std::vector<T> d_tz0[max_dim];
    std::vector<cplx> d_post;
    // A single-precision plan's vectors widened for a double grid.
    std::vector<cplx> d_c_wide, d_F_wide;
    direct_points d_direct; //!< the points, when d_geom.direct
};

} // namespace

void throw_non_finite(const char* name, std::int64_t count)
{
    throw std::invalid_argument(
        std::string(name) + ": " + std::to_string(count) +
        " coordinate(s) are NaN or infinite; every point must be finite");
}

std::unique_ptr<nufft3_backend> make_nufft3_cpu(const nufft3_config& cfg)
{
    if (cfg.grid_prec == precision::single)
        return std::make_unique<nufft3_cpu<float>>(cfg);
    return std::make_unique<nufft3_cpu<double>>(cfg);
}

} // namespace nufft
} // namespace gpufft
} // namespace gr
