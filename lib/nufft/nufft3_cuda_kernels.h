/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The type-3 NUFFT's device kernels behind plain C++ launchers (no CUDA types here
// beyond an opaque stream), one .cu file per stage as in cuFINUFFT:
//
//   nufft3_setpoints_kernels.cu  extents, binning and radix sort of the sources,
//                                subproblems, target placement and corrections,
//                                the grid's pre-correction
//   nufft3_spread_kernels.cu     sources onto the fine grid (shared-memory tiles)
//   nufft3_interp_kernels.cu     the transformed grid at the targets
//   nufft3_direct_sum_kernels.cu the sum term by term (no grid), and the conversions
//                                of a single-precision plan's double grid
//
// Every pointer is a device array; complex arrays are std::complex<T> on this side and
// float2 / double2 (the same layout) inside the kernels. Launchers check the launch and
// throw std::runtime_error on a CUDA failure. nufft3_cuda.cc orchestrates them.

#ifndef INCLUDED_GPUFFT_NUFFT3_CUDA_KERNELS_H
#define INCLUDED_GPUFFT_NUFFT3_CUDA_KERNELS_H

#include "nufft/nufft3_kernel.h"
#include <complex>
#include <cstddef>
#include <cstdint>

namespace gr {
namespace gpufft {
namespace nufft {

//! Threads of every kernel's block.
constexpr int threads_per_block = 256;
//! Blocks of the extent reduction: each writes (min, max, non-finite count).
constexpr int extent_blocks = 256;
//! Sources one block spreads at most: bounds the work of a crowded bin.
constexpr int max_subproblem = 1024;
//! Cells per 1D bin; 2D bins are 32 x 32, 3D bins 16 x 16 x 8, halved (largest axis
//! first) until the tile with the kernel's margin fits max_tile_bytes.
constexpr int bin_1d = 1024;
constexpr std::size_t max_tile_bytes = 96 * 1024;
//! The gather form of spreading (launch_spread): sources staged in shared memory at a
//! time, and the widest kernel it takes (wider ones scatter).
constexpr int gather_chunk = 64;
constexpr int gather_max_taps = 16;
//! Most bins the gather form's planner accepts (four int arrays of this length).
constexpr double max_gather_bins = 1 << 23;
//! Shared-memory bytes of the gather form for `vectors` strength vectors per block: a
//! tile of tile_cells per vector, and per staged source its strengths, dim tile offsets
//! and dim rows of kernel values (8 or 16 wide).
inline std::size_t gather_shared_bytes(
    int dim, int taps, std::size_t real_bytes, std::size_t tile_cells, int vectors)
{
    const std::size_t row = taps <= 8 ? 8 : 16;
    return vectors * tile_cells * 2 * real_bytes +
           gather_chunk * ((2 * vectors + dim * row) * real_bytes + dim * sizeof(int));
}
//! The direct form of spreading (launch_spread_direct): regions of direct_side^2 cells,
//! one thread per cell.
constexpr int direct_side = 16;
//! Where `auto` spreads a batch in the direct form (nufft3_spread_layout.h): at least
//! this many vectors, at most this many sources per occupied cell.
constexpr int direct_min_vectors = 8;
constexpr double direct_max_density = 1.0;
//! Strength vectors one direct block serves: 16, 8, 4, 2 or 1, the most up to ntransf
//! (no tile per vector, so only registers bound them).
inline int direct_vectors(int ntransf)
{
    return ntransf >= 16  ? 16
           : ntransf >= 8 ? 8
           : ntransf >= 4 ? 4
           : ntransf >= 2 ? 2
                          : 1;
}
//! Most dimensions (mirrors nufft3_params.h, which nvcc does not see).
constexpr int max_axes = 3;

constexpr double two_pi = 6.283185307179586476925;

//! The placement of sources on one axis, as kernels need it. Cell coordinates are
//! divided by h and ds, as on the CPU, not multiplied by a reciprocal: that adds up to an
//! ulp of a coordinate of 1e5 cells, which the kernel's slope turns into errors near
//! 1e-10 (crowded sources make them add up).
struct axis_map {
    double centre, h; // cells = (x - centre) / h
    int half_cells;   // M / 2: grid index p = n + M / 2
    int bin, nbins;
};

struct source_args {
    const double* x[max_axes];
    axis_map axis[max_axes];
    double half_width;
    long long n;
};

struct target_axis {
    const double* s;
    double centre, ds, x_centre, xi_per_cell; // v = (s - centre) / ds; xi = 2 pi v / M
};

//! Per point and axis its first cell and kernel offset (unused axes null).
template <typename T>
struct point_arrays {
    int* first[max_axes];
    T* z0[max_axes];
};

//! The sorted sources and their subproblems, as the spreading kernel reads them.
struct spread_args {
    const int* sub_bin;
    const int* sub_offset;
    const int* sub_total;
    const int* bin_start;
    const int* bin_count;
    const int* perm;
    int bin[max_axes], nbins[max_axes];
    long long cells[max_axes]; // M0, M1, M2 (1 past dim)
    int taps;
    int gather_vectors;   // gather form with 1, 2 or 4 vectors per block; 0: scatter
    long long n_sources;  // distance between strength vectors
    long long grid_cells; // distance between grids
};

// ---------------------------------------------------------------------------------------
// set_points (nufft3_setpoints_kernels.cu)

//! partial[3 b .. 3 b + 2] = min, max and non-finite count of block b's share of v.
void launch_extent(const double* v, std::int64_t n, double* partial, void* stream);

//! Scratch bytes of launch_exclusive_scan over n ints.
std::size_t exclusive_scan_bytes(int n);

//! out[i] = in[0] + ... + in[i - 1] (CUB), with scratch of exclusive_scan_bytes(n).
void launch_exclusive_scan(const int* in,
                           int* out,
                           int n,
                           void* scratch,
                           std::size_t scratch_bytes,
                           void* stream);

/*!
 * The sources sorted by bin, stably (a bin's sources in index order): per source its bin
 * (place() in the kernels) and index, a CUB radix sort of these pairs over the bits that
 * nbins needs, then from the sorted bins per bin its first sorted position bin_start and
 * bin_count (an empty bin: count 0, start where it would begin). keys: 2 n words; perm
 * and alt: n words each, the two halves of the indices' double buffer. Returns the one
 * (perm or alt) that holds the sorted indices. scratch: sort_sources_bytes(n, nbins).
 */
std::size_t sort_sources_bytes(std::int64_t n, int nbins);
int* launch_sort_sources(const source_args& a,
                         int dim,
                         int nbins,
                         unsigned* keys,
                         int* perm,
                         int* alt,
                         int* bin_start,
                         int* bin_count,
                         void* scratch,
                         std::size_t scratch_bytes,
                         void* stream);

/*!
 * First cell and kernel offset per axis of every source in sorted order, and its
 * centring phase exp(i sign s_centre . (x - x_centre)) when prephase is not null.
 */
template <typename T>
void launch_gather_sources(const source_args& a,
                           int dim,
                           const int* perm,
                           const point_arrays<T>& out,
                           std::complex<T>* prephase,
                           const double* s_centre, // dim values (host array)
                           double sign,
                           void* stream);

//! nsub[b] = ceil(count[b] / max_subproblem).
void launch_subproblem_count(const int* count, int nbins, int* nsub, void* stream);

//! Bin and offset in the bin of every subproblem; *total = their number.
void launch_subproblem_fill(const int* nsub,
                            const int* sub_start,
                            int nbins,
                            int* sub_bin,
                            int* sub_offset,
                            int* total,
                            void* stream);

/*!
 * Per target its first cell and kernel offset per axis, and post = the centring phase
 * divided by the spreading kernel's transform, stored at the target's sorted position j
 * for target order[j] (launch_target_order; null: the caller's order). axes: dim
 * entries (host array).
 */
template <typename T>
void launch_targets(const target_axis* axes,
                    int dim,
                    std::int64_t n,
                    const kernel_spec& ker,
                    double sign,
                    const int* order,
                    const point_arrays<T>& out,
                    std::complex<T>* post,
                    void* stream);

/*!
 * The order in which interpolation visits the targets: by the tile of target_tile cells
 * per axis that holds each target's first cell, the slowest axis first, so the threads
 * of a warp read neighbouring grid cells (targets come in any order). order[j] = the
 * target (user index) at sorted position j. keys: 2 n words; scratch:
 * target_order_bytes(n).
 */
constexpr int target_tile = 16;
std::size_t target_order_bytes(std::int64_t n);
void launch_target_order(const target_axis* axes,
                         int dim,
                         std::int64_t n,
                         double half_width,
                         const std::int64_t* cells, // 3 values (host array)
                         unsigned* keys,
                         int* order,
                         void* scratch,
                         std::size_t scratch_bytes,
                         void* stream);

//! out[p] = 1 / khat(2 pi (p - M/2) / M) for every grid index p of an axis of M cells.
template <typename T>
void launch_precorrection(const kernel_spec& ker, std::int64_t M, T* out, void* stream);

// ---------------------------------------------------------------------------------------
// execute (nufft3_spread_kernels.cu, nufft3_interp_kernels.cu)

/*!
 * Adds ntransf strength vectors c (each times prephase when not null) spread with `ker`
 * and pre-corrected by precorr[0] x precorr[1] x precorr[2] to ntransf grids: a launch
 * of `blocks` x ntransf blocks, one subproblem of one vector each (the gather form:
 * a.gather_vectors vectors each), with shared_bytes of shared memory (scatter: the tile;
 * gather: gather_shared_bytes). Unused axes' arrays are null.
 */
template <typename T>
void launch_spread(const spread_args& a,
                   int dim,
                   unsigned blocks,
                   int ntransf,
                   std::size_t shared_bytes,
                   const point_arrays<T>& src,
                   const std::complex<T>* c,
                   const std::complex<T>* prephase,
                   const T* const* precorr, // dim device arrays (host array of them)
                   const kernel_spec& ker,
                   std::complex<T>* grid,
                   void* stream);

/*!
 * The direct form in 2D: writes (not adds) every cell of ntransf grids, the sources'
 * spread strengths pre-corrected, from the sources sorted into the bins of `a`; one
 * launch of direct_side^2-cell regions and groups of direct_vectors() vectors. Kernels
 * of up to gather_max_taps taps.
 */
template <typename T>
void launch_spread_direct(const spread_args& a,
                          int ntransf,
                          const point_arrays<T>& src,
                          const std::complex<T>* c,
                          const std::complex<T>* prephase,
                          const T* const* precorr, // 2 device arrays (host array of them)
                          const kernel_spec& ker,
                          std::complex<T>* grid,
                          void* stream);

/*!
 * out[v n + k] = post[k] times the kernel-weighted sum of grid v (cells[0] x cells[1] x
 * cells[2], grid_cells apart) around target k, for ntransf vectors v in one launch.
 */
template <typename T>
void launch_interp(std::int64_t n,
                   int dim,
                   int ntransf,
                   const int* order, // sorted position -> target, as in launch_targets
                   const point_arrays<T>& tgt,
                   const std::complex<T>* post,
                   const std::complex<T>* grid,
                   const std::int64_t* cells, // 3 values (host array)
                   const kernel_spec& ker,
                   std::complex<T>* out,
                   void* stream);

//! Strength vectors one thread of launch_direct_sum sums at a time.
constexpr int direct_sum_vectors = 4;

//! The points of launch_direct_sum: dim device arrays each (unused axes null).
struct direct_sum_args {
    int dim;
    double sign;
    std::int64_t n_src, n_tgt;
    const double* src[max_axes];
    const double* tgt[max_axes];
};

/*!
 * F[v n_tgt + k] = sum_j c[v n_src + j] exp(sign i (s_k x_j + t_k y_j + u_k z_j)) for
 * ntransf vectors, term by term: phases, sines and sums in double for both T.
 */
template <typename T>
void launch_direct_sum(const direct_sum_args& a,
                       int ntransf,
                       const std::complex<T>* c,
                       std::complex<T>* F,
                       void* stream);

//! out = in, widened or narrowed (a single-precision plan with a double grid).
void launch_widen(const std::complex<float>* in,
                  std::complex<double>* out,
                  std::int64_t n,
                  void* stream);
void launch_narrow(const std::complex<double>* in,
                   std::complex<float>* out,
                   std::int64_t n,
                   void* stream);

} // namespace nufft
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_NUFFT3_CUDA_KERNELS_H */
