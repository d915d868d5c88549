/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// CUDA backend of the type-3 NUFFT: buffers, FFT plans, the stream and the order of the
// stages; the kernels sit behind nufft3_cuda_kernels.h. One class, since every stage
// reads the buffers and geometry the others leave; its stages live in one file each, as
// cuFINUFFT splits its plan into makeplan, setpts and execute:
//
//   nufft3_cuda_makeplan.cc  the constructor, the grid and its buffers (configure), the
//                            grid FFT plans, the factory;
//   nufft3_cuda_setpts.cc    set_points: extents, geometry, sources and targets sorted;
//   nufft3_cuda_execute.cc   execute: spread, FFT, interpolate; the direct sum and the
//                            widened (double-grid) path of single-precision plans.
//
// Every stage stays on the device from set_points to the result:
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

#ifndef INCLUDED_GPUFFT_NUFFT3_CUDA_H
#define INCLUDED_GPUFFT_NUFFT3_CUDA_H

#include "cuda/cuda_resources.h"
#include "cuda/host_transfer.h"
#include "nufft/nufft3_backend.h"
#include "nufft/nufft3_cuda_kernels.h"
#include "nufft/nufft3_grid_fft.h"
#include "nufft/nufft3_spread_layout.h"
#include "nufft/nufft3_trace.h"
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

using cuda::device_buffer;

template <typename T>
class nufft3_cuda : public nufft3_backend
{
public:
    using C = std::complex<T>;

    explicit nufft3_cuda(const nufft3_config& cfg);

    const geometry& current_geometry() const override { return d_geom; }

    void set_points(std::int64_t n_src,
                    const double* const* src_in,
                    std::int64_t n_tgt,
                    const double* const* tgt_in,
                    memory where) override;

    void execute(const void* c_in, void* F_out, memory where, int ntransf) override;

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
                            memory where);

    //! The direct sum in the plan's precision (IO), chunks of vectors staged from the
    //! host as the budget allows.
    template <typename IO>
    void execute_direct(const void* c_in, void* F_out, memory where, int ntransf);

    /*!
     * A single-precision plan with a grid in double: each chunk of float vectors is
     * widened into a double one (on the host for host arrays, by a kernel for device
     * ones), run through the grid, and its F narrowed back. Host arrays go through
     * pageable staging, which returns once read (c) or written (F), so the host
     * buffers are free again at each chunk.
     */
    void execute_widened(const void* c_in, void* F_out, memory where, int ntransf);

    void execute_grid(const void* c_in, void* F_out, memory where, int ntransf);

    //! The plan for `batch` grids, made on first use and kept while it serves the grid
    //! and the points' supports on it (set_points may keep the grid and move the points).
    grid_fft_cuda& fft(int batch);

    std::size_t held_bytes() const;

    template <typename B>
    static void ensure(B& buf, std::size_t count)
    {
        if (buf.size() < count)
            buf.allocate(count, "the points");
    }

    void configure(const geometry& g, std::int64_t n_src, std::int64_t n_tgt);

    source_args make_source_args(const double* const* src) const;

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

    void prepare_sources(const double* const* src);

    void prepare_targets(const double* const* tgt);

    void spread(const C* c, int ntransf);

    void interp(C* F, int ntransf);

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

} // namespace nufft
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_NUFFT3_CUDA_H */
