/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The CPU type-3 NUFFT's execute: spread by slabs (one buffer a thread, no locks), the
// grid FFT, interpolate. Stages: nufft3_cpu.h.

#include "nufft/nufft3_cpu.h"

namespace gr {
namespace gpufft {
namespace nufft {

template <typename T>
void nufft3_cpu<T>::execute(const void* c_in, void* F_out, memory where, int ntransf)
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
        auto* Ff = static_cast<std::complex<float>*>(F_out) + std::int64_t(v) * d_n_tgt;
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

template <typename T>
void nufft3_cpu<T>::spread(const cplx* c, cplx* grid)
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

template <typename T>
void nufft3_cpu<T>::interpolate(const cplx* grid, cplx* F)
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

template <typename T>
template <int DIM>
void nufft3_cpu<T>::spread_dim(const cplx* c, cplx* grid)
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

template <typename T>
template <int DIM>
void nufft3_cpu<T>::add_slabs(cplx* grid, std::int64_t row)
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

template <typename T>
template <int DIM>
void nufft3_cpu<T>::interpolate_dim(const cplx* grid, cplx* F)
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
                            acc += row_sum(grid + ((m1 % M1 + M1) % M1) * M0, m1) * ky[r];
                        }
                    } else {
                        for (int q = 0; q < W; ++q)
                            kz[q] = kernel_value<T>(g.kernel, d_tz0[2][k] + T(q));
                        const std::int64_t f2 = d_tfirst[2][k];
                        for (int l = 0; l < W; ++l) {
                            const std::int64_t m2 = f2 + l;
                            const cplx* plane = grid + ((m2 % M2 + M2) % M2) * M0 * M1;
                            cplx pacc(0);
                            for (int r = 0; r < W; ++r) {
                                const std::int64_t m1 = f1 + r;
                                pacc +=
                                    row_sum(plane + ((m1 % M1 + M1) % M1) * M0, m1 + m2) *
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

template class nufft3_cpu<float>;
template class nufft3_cpu<double>;

} // namespace nufft
} // namespace gpufft
} // namespace gr
