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
// the way. One class, since its stages share its buffers and geometry; the stages live
// in one file each, as in the CUDA backend (nufft3_cuda.h):
//
//   nufft3_cpu_makeplan.cc  the grid FFT plans, the grid's release, the factory;
//   nufft3_cpu_setpts.cc    set_points: extents, geometry, corrections, sorted sources,
//                           targets;
//   nufft3_cpu_execute.cc   execute: spread by slabs, FFT, interpolate.
//
// The shared arithmetic (kernel, geometry, grid FFT) lives in its own files.

#ifndef INCLUDED_GPUFFT_NUFFT3_CPU_H
#define INCLUDED_GPUFFT_NUFFT3_CPU_H

#include "core/parallel_for.h"
#include "nufft/nufft3_backend.h"
#include "nufft/nufft3_direct_sum.h"
#include "nufft/nufft3_grid_fft.h"
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

// Items per thread below which a pass stays on fewer threads: the per-item work here is
// cheap, so a thread start only pays for itself over a few thousand items.
constexpr std::int64_t pass_grain = 4096;

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
                    memory where) override;

    void execute(const void* c_in, void* F_out, memory where, int ntransf) override;

private:
    void release_grid();

    //! The plan for `batch` grids at the start of d_grid, made on first use.
    grid_fft_cpu& fft(int batch);

    //! 1 / khat(2 pi n / M) for every cell n (grid index p = n + M/2).
    void compute_corrections();

    void sort_sources(const double* const* src);

    void prepare_targets(const double* const* tgt);

    void spread(const cplx* c, cplx* grid);

    void interpolate(const cplx* grid, cplx* F);

    template <int DIM>
    void spread_dim(const cplx* c, cplx* grid);

    //! Slabs overlap by the kernel width, so they are added one after the other; each
    //! slab's cells are split over the threads instead.
    template <int DIM>
    void add_slabs(cplx* grid, std::int64_t row);

    template <int DIM>
    void interpolate_dim(const cplx* grid, cplx* F);

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

} // namespace nufft
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_NUFFT3_CPU_H */
