/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// CUDA backend of the type-3 NUFFT. Every stage stays on the device from set_points to
// the result:
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
#include <gnuradio/gpufft/dense_fft_plan.h>
#include <cub/cub.cuh>
#include <type_traits>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace gr {
namespace gpufft {
namespace nufft {

namespace {

using cuda::device_buffer;

constexpr int extent_blocks = 256;
constexpr int threads_per_block = 256;
//! Sources one block spreads at most: bounds the work of a crowded bin.
constexpr int max_subproblem = 1024;
//! Cells per 1D bin; 2D bins are square, 32 cells a side unless the kernel is too wide.
constexpr int bin_1d = 1024;

template <typename T>
struct complex_of;
template <>
struct complex_of<float> {
    using type = float2;
};
template <>
struct complex_of<double> {
    using type = double2;
};

constexpr double two_pi = 6.283185307179586476925;

// ---------------------------------------------------------------------------------------
// set_points kernels

//! Per-block min, max and count of non-finite values of v[0..n).
__global__ void extent_kernel(const double* v, long long n, double* partial)
{
    __shared__ double s_lo[threads_per_block], s_hi[threads_per_block],
        s_bad[threads_per_block];
    double lo = INFINITY, hi = -INFINITY, bad = 0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        const double a = v[i];
        if (isfinite(a)) {
            lo = fmin(lo, a);
            hi = fmax(hi, a);
        } else {
            bad += 1;
        }
    }
    s_lo[threadIdx.x] = lo;
    s_hi[threadIdx.x] = hi;
    s_bad[threadIdx.x] = bad;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) {
            s_lo[threadIdx.x] = fmin(s_lo[threadIdx.x], s_lo[threadIdx.x + s]);
            s_hi[threadIdx.x] = fmax(s_hi[threadIdx.x], s_hi[threadIdx.x + s]);
            s_bad[threadIdx.x] += s_bad[threadIdx.x + s];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        partial[3 * blockIdx.x] = s_lo[0];
        partial[3 * blockIdx.x + 1] = s_hi[0];
        partial[3 * blockIdx.x + 2] = s_bad[0];
    }
}

//! The placement of sources on one axis, as kernels need it.
struct axis_map {
    double centre, inv_h;
    int half_cells; // M / 2: grid index p = n + M / 2
    int bin, nbins;
};

struct source_args {
    const double* x[2];
    axis_map axis[2];
    double half_width;
    long long n;
};

__device__ __forceinline__ void
place(const source_args& a, int dim, long long j, int first[2], double z0[2], int& bin)
{
    bin = 0;
    for (int d = dim - 1; d >= 0; --d) {
        long long f;
        split_coordinate(
            (a.x[d][j] - a.axis[d].centre) * a.axis[d].inv_h, a.half_width, f, z0[d]);
        first[d] = int(f) + a.axis[d].half_cells;
        bin = bin * a.axis[d].nbins + first[d] / a.axis[d].bin;
    }
}

__global__ void bin_count_kernel(source_args a, int dim, int* count, int* rank)
{
    const long long j = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (j >= a.n)
        return;
    int first[2];
    double z0[2];
    int bin;
    place(a, dim, j, first, z0, bin);
    rank[j] = atomicAdd(count + bin, 1);
}

//! Sorted position of every source: its bin's start plus its rank inside the bin.
__global__ void
permutation_kernel(source_args a, int dim, const int* start, const int* rank, int* perm)
{
    const long long j = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (j >= a.n)
        return;
    int first[2];
    double z0[2];
    int bin;
    place(a, dim, j, first, z0, bin);
    perm[start[bin] + rank[j]] = int(j);
}

/*!
 * The sorted arrays, written in order (one random 8-byte read per coordinate instead of
 * random writes to every array: a scatter costs a 32-byte sector per 4-byte store).
 */
template <typename T>
__global__ void gather_sources_kernel(source_args a,
                                      int dim,
                                      const int* perm,
                                      int* first0,
                                      int* first1,
                                      T* z00,
                                      T* z01,
                                      typename complex_of<T>::type* prephase,
                                      double s_centre0,
                                      double s_centre1,
                                      double sign)
{
    const long long pos = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (pos >= a.n)
        return;
    const int j = perm[pos];
    int first[2];
    double z0[2];
    int bin;
    place(a, dim, j, first, z0, bin);
    first0[pos] = first[0];
    z00[pos] = T(z0[0]);
    if (dim == 2) {
        first1[pos] = first[1];
        z01[pos] = T(z0[1]);
    }
    if (prephase) {
        double phase = s_centre0 * (a.x[0][j] - a.axis[0].centre);
        if (dim == 2)
            phase += s_centre1 * (a.x[1][j] - a.axis[1].centre);
        double sn, cs;
        sincos(sign * phase, &sn, &cs);
        prephase[pos] = { T(cs), T(sn) };
    }
}

//! Subproblems per bin: ceil(count / max_subproblem).
__global__ void subproblem_count_kernel(const int* count, int nbins, int* nsub)
{
    const int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b < nbins)
        nsub[b] = (count[b] + max_subproblem - 1) / max_subproblem;
}

__global__ void subproblem_fill_kernel(const int* nsub,
                                       const int* sub_start,
                                       int nbins,
                                       int* sub_bin,
                                       int* sub_offset,
                                       int* total)
{
    const int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= nbins)
        return;
    const int s0 = sub_start[b];
    for (int i = 0; i < nsub[b]; ++i) {
        sub_bin[s0 + i] = b;
        sub_offset[s0 + i] = i * max_subproblem;
    }
    if (b == nbins - 1)
        *total = s0 + nsub[b];
}

struct target_axis {
    const double* s;
    double centre, inv_ds, x_centre, xi_per_cell; // xi = 2 pi v / M
};

template <typename T>
__global__ void targets_kernel(target_axis a0,
                               target_axis a1,
                               int dim,
                               long long n,
                               kernel_spec ker,
                               double sign,
                               int* first0,
                               int* first1,
                               T* z00,
                               T* z01,
                               typename complex_of<T>::type* post)
{
    const long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    double phase = 0;
    T khat = 1;
    for (int d = 0; d < dim; ++d) {
        const target_axis& a = d == 0 ? a0 : a1;
        const double s = a.s[k];
        const double v = (s - a.centre) * a.inv_ds;
        long long f;
        double z;
        split_coordinate(v, ker.half_width, f, z);
        (d == 0 ? first0 : first1)[k] = int(f);
        (d == 0 ? z00 : z01)[k] = T(z);
        phase += s * a.x_centre;
        khat *= kernel_transform<T>(ker, T(v * a.xi_per_cell));
    }
    double sn, cs;
    sincos(sign * phase, &sn, &cs);
    post[k] = { T(cs / double(khat)), T(sn / double(khat)) };
}

//! 1 / khat(2 pi (p - M/2) / M) for every grid index p.
template <typename T>
__global__ void precorrection_kernel(kernel_spec ker, long long M, T* out)
{
    const long long p = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (p >= M)
        return;
    const T xi = T(two_pi * double(p - M / 2) / double(M));
    out[p] = T(1) / kernel_transform<T>(ker, xi);
}

// ---------------------------------------------------------------------------------------
// execute kernels

template <typename T>
__device__ __forceinline__ void atomic_add(typename complex_of<T>::type* p,
                                           typename complex_of<T>::type v)
{
    atomicAdd(&p->x, v.x);
    atomicAdd(&p->y, v.y);
}

struct spread_args {
    const int* sub_bin;
    const int* sub_offset;
    const int* sub_total;
    const int* bin_start;
    const int* bin_count;
    const int* perm;
    const int* first[2];
    int bin[2], nbins0;
    long long cells[2]; // M0, M1 (1 in 1D)
    int taps;
};

//! One block per subproblem: spread into a shared tile, then add it to the grid.
template <typename T, int DIM, int MAXW>
__global__ void spread_kernel(spread_args a,
                              const T* z0x,
                              const T* z0y,
                              const typename complex_of<T>::type* c,
                              const typename complex_of<T>::type* prephase,
                              const T* precorr0,
                              const T* precorr1,
                              kernel_spec ker,
                              typename complex_of<T>::type* grid)
{
    using C = typename complex_of<T>::type;
    extern __shared__ unsigned char smem_raw[];
    C* tile = reinterpret_cast<C*>(smem_raw);
    const int sub = blockIdx.x;
    if (sub >= *a.sub_total)
        return;
    const int b = a.sub_bin[sub];
    const int begin = a.bin_start[b] + a.sub_offset[sub];
    const int count = min(max_subproblem, a.bin_count[b] - a.sub_offset[sub]);
    const int W = a.taps;
    const int bx = DIM == 2 ? b % a.nbins0 : b;
    const int by = DIM == 2 ? b / a.nbins0 : 0;
    const int ox = bx * a.bin[0], oy = by * a.bin[1];
    const int tx = a.bin[0] + W - 1, ty = DIM == 2 ? a.bin[1] + W - 1 : 1;
    for (int i = threadIdx.x; i < tx * ty; i += blockDim.x)
        tile[i] = C{ 0, 0 };
    __syncthreads();

    for (int i = threadIdx.x; i < count; i += blockDim.x) {
        const int pos = begin + i;
        C v = c[a.perm[pos]];
        if (prephase) {
            const C p = prephase[pos];
            v = C{ v.x * p.x - v.y * p.y, v.x * p.y + v.y * p.x };
        }
        T kx[MAXW];
        const T zx = z0x[pos];
#pragma unroll
        for (int q = 0; q < MAXW; ++q)
            if (q < W)
                kx[q] = kernel_value<T>(ker, zx + T(q));
        const int lx = a.first[0][pos] - ox;
        if (DIM == 1) {
#pragma unroll
            for (int q = 0; q < MAXW; ++q)
                if (q < W)
                    atomic_add<T>(tile + lx + q, C{ v.x * kx[q], v.y * kx[q] });
        } else {
            const T zy = z0y[pos];
            const int ly = a.first[1][pos] - oy;
            for (int r = 0; r < W; ++r) {
                const T ky = kernel_value<T>(ker, zy + T(r));
                const C vr{ v.x * ky, v.y * ky };
                C* row = tile + (ly + r) * tx + lx;
#pragma unroll
                for (int q = 0; q < MAXW; ++q)
                    if (q < W)
                        atomic_add<T>(row + q, C{ vr.x * kx[q], vr.y * kx[q] });
            }
        }
    }
    __syncthreads();

    for (int i = threadIdx.x; i < tx * ty; i += blockDim.x) {
        const C v = tile[i];
        if (v.x == T(0) && v.y == T(0))
            continue;
        const long long gx = ox + i % tx, gy = oy + i / tx;
        if (gx >= a.cells[0] || gy >= a.cells[1])
            continue; // only zeros live past the grid's edge
        T corr = precorr0[gx];
        if (DIM == 2)
            corr *= precorr1[gy];
        atomic_add<T>(grid + gy * a.cells[0] + gx, C{ v.x * corr, v.y * corr });
    }
}

__device__ __forceinline__ long long wrap(long long m, long long M)
{
    return m < 0 ? m + M : (m >= M ? m - M : m);
}

//! One thread per target: kernel-weighted sum of grid cells, times the correction.
template <typename T, int DIM, int MAXW>
__global__ void interp_kernel(long long n,
                              const int* first0,
                              const int* first1,
                              const T* z00,
                              const T* z01,
                              const typename complex_of<T>::type* post,
                              const typename complex_of<T>::type* grid,
                              long long M0,
                              long long M1,
                              int W,
                              kernel_spec ker,
                              typename complex_of<T>::type* out)
{
    using C = typename complex_of<T>::type;
    const long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    T kx[MAXW];
    const T zx = z00[k];
#pragma unroll
    for (int q = 0; q < MAXW; ++q)
        if (q < W)
            kx[q] = kernel_value<T>(ker, zx + T(q));
    const long long f0 = first0[k];
    // Grid index p = n + M/2 puts a factor (-1)^m on FFT output m: folded in the weights.
    T ax = 0, ay = 0;
    if (DIM == 1) {
#pragma unroll
        for (int q = 0; q < MAXW; ++q)
            if (q < W) {
                const long long m = f0 + q;
                const C g = grid[wrap(m, M0)];
                const T w = (m & 1) ? -kx[q] : kx[q];
                ax += w * g.x;
                ay += w * g.y;
            }
    } else {
        const T zy = z01[k];
        const long long f1 = first1[k];
        for (int r = 0; r < W; ++r) {
            const long long m1 = f1 + r;
            const T ky = kernel_value<T>(ker, zy + T(r));
            const C* row = grid + wrap(m1, M1) * M0;
            T rx = 0, ry = 0;
#pragma unroll
            for (int q = 0; q < MAXW; ++q)
                if (q < W) {
                    const long long m0 = f0 + q;
                    const C g = row[wrap(m0, M0)];
                    const T w = ((m0 + m1) & 1) ? -kx[q] : kx[q];
                    rx += w * g.x;
                    ry += w * g.y;
                }
            ax += ky * rx;
            ay += ky * ry;
        }
    }
    const C p = post[k];
    out[k] = C{ ax * p.x - ay * p.y, ax * p.y + ay * p.x };
}

/*!
 * Per-stage device times on stderr when GPUFFT_NUFFT3_TIMING is set (for tuning; off by
 * default, when mark() and report() cost nothing).
 */
class stage_timer
{
public:
    stage_timer() : d_on(std::getenv("GPUFFT_NUFFT3_TIMING") != nullptr) {}
    void start(cudaStream_t s)
    {
        if (!d_on)
            return;
        d_stream = s;
        d_names.clear();
        d_events.clear();
        mark("start");
    }
    void mark(const char* name)
    {
        if (!d_on)
            return;
        d_events.emplace_back(true);
        d_events.back().record(d_stream);
        d_names.push_back(name);
    }
    void report(const char* what)
    {
        if (!d_on || d_events.size() < 2)
            return;
        d_events.back().synchronize();
        std::fprintf(stderr, "nufft3 %s:", what);
        for (std::size_t i = 1; i < d_events.size(); ++i)
            std::fprintf(stderr,
                         " %s %.3f ms",
                         d_names[i],
                         d_events[i].elapsed_ms_since(d_events[i - 1]));
        std::fprintf(stderr, "\n");
    }

private:
    bool d_on;
    cudaStream_t d_stream = nullptr;
    std::vector<const char*> d_names;
    std::vector<cuda::event> d_events;
};

unsigned blocks_for(long long n, int per = threads_per_block)
{
    return unsigned((n + per - 1) / per);
}

// ---------------------------------------------------------------------------------------

template <typename T>
class nufft3_cuda : public nufft3_backend
{
public:
    using C = typename complex_of<T>::type;

    explicit nufft3_cuda(const nufft3_config& cfg)
        : d_cfg(cfg), d_guard_device(cfg.device_id)
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
        d_timer.start(st);
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

        d_timer.mark("upload");
        // Extents: the only read-back, since the grid size depends on them.
        const double* arrays[4] = { src[0], tgt[0], src[1], tgt[1] };
        const std::int64_t counts[4] = { n_src, n_tgt, n_src, n_tgt };
        for (int i = 0; i < 2 * dim; ++i) {
            extent_kernel<<<extent_blocks, threads_per_block, 0, st>>>(
                arrays[i], counts[i], d_partial.get() + i * extent_blocks * 3);
            GPUFFT_CUDA_CHECK_LAUNCH();
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
        d_timer.mark("extents");
        configure(g, n_src, n_tgt);
        d_timer.mark("configure");
        prepare_sources(src);
        d_timer.mark("sources");
        prepare_targets(tgt);
        d_timer.mark("targets");
        d_stream->synchronize();
        d_timer.report("set_points");
    }

    void execute(const void* c_in, void* F_out, memory where) override
    {
        cuda::device_guard guard(d_guard_device);
        cudaStream_t st = d_stream->get();
        const C* c = static_cast<const C*>(c_in);
        C* F = static_cast<C*>(F_out);
        d_timer.start(st);
        if (where == memory::host) {
            d_stager->to_device(d_c.get(), c_in, d_n_src * sizeof(C), st);
            c = d_c.get();
            F = d_F.get();
        }
        d_timer.mark("upload");
        GPUFFT_CUDA_CHECK(cudaMemsetAsync(d_grid.get(), 0, d_grid.bytes(), st));
        d_timer.mark("clear");
        launch_spread(c);
        d_timer.mark("spread");
        for (auto& p : d_fft)
            p->execute_async(d_grid.get(), d_grid.get(), st);
        d_timer.mark("fft");
        launch_interp(F);
        d_timer.mark("interp");
        if (where == memory::host)
            d_stager->to_host(F_out, d_F.get(), d_n_tgt * sizeof(C), st);
        d_stream->synchronize();
        d_timer.report("execute");
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
        std::size_t scan_bytes = 0;
        GPUFFT_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(
            nullptr, scan_bytes, d_bin_count.get(), d_bin_start.get(), nbins));
        ensure(d_scan_temp, scan_bytes);

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
                precorrection_kernel<T><<<blocks_for(M), threads_per_block, 0, st>>>(
                    g.kernel, M, d_precorr[a].get());
                GPUFFT_CUDA_CHECK_LAUNCH();
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
        bin_count_kernel<<<blocks_for(d_n_src), threads_per_block, 0, st>>>(
            a, dim, d_bin_count.get(), d_rank.get());
        GPUFFT_CUDA_CHECK_LAUNCH();
        std::size_t scan_bytes = d_scan_temp.size();
        GPUFFT_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(d_scan_temp.get(),
                                                        scan_bytes,
                                                        d_bin_count.get(),
                                                        d_bin_start.get(),
                                                        nbins,
                                                        st));
        permutation_kernel<<<blocks_for(d_n_src), threads_per_block, 0, st>>>(
            a, dim, d_bin_start.get(), d_rank.get(), d_perm.get());
        GPUFFT_CUDA_CHECK_LAUNCH();
        const bool pre = d_geom.needs_prephase();
        gather_sources_kernel<T><<<blocks_for(d_n_src), threads_per_block, 0, st>>>(
            a,
            dim,
            d_perm.get(),
            d_first[0].get(),
            d_first[1].get(),
            d_z0[0].get(),
            d_z0[1].get(),
            pre ? d_prephase.get() : nullptr,
            d_geom.axis[0].s_centre,
            dim == 2 ? d_geom.axis[1].s_centre : 0.0,
            double(d_cfg.sign));
        GPUFFT_CUDA_CHECK_LAUNCH();
        d_use_prephase = pre;

        subproblem_count_kernel<<<blocks_for(nbins), threads_per_block, 0, st>>>(
            d_bin_count.get(), nbins, d_nsub.get());
        GPUFFT_CUDA_CHECK_LAUNCH();
        GPUFFT_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(
            d_scan_temp.get(), scan_bytes, d_nsub.get(), d_sub_start.get(), nbins, st));
        subproblem_fill_kernel<<<blocks_for(nbins), threads_per_block, 0, st>>>(
            d_nsub.get(),
            d_sub_start.get(),
            nbins,
            d_sub_bin.get(),
            d_sub_offset.get(),
            d_sub_total.get());
        GPUFFT_CUDA_CHECK_LAUNCH();
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
        targets_kernel<T><<<blocks_for(d_n_tgt), threads_per_block, 0, d_stream->get()>>>(
            ta[0],
            ta[1],
            g.dim,
            d_n_tgt,
            g.kernel,
            double(d_cfg.sign),
            d_tfirst[0].get(),
            d_tfirst[1].get(),
            d_tz0[0].get(),
            d_tz0[1].get(),
            d_post.get());
        GPUFFT_CUDA_CHECK_LAUNCH();
    }

    template <int DIM, int MAXW>
    void spread_with(const C* c)
    {
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
        a.cells[1] = DIM == 2 ? d_geom.axis[1].cells : 1;
        a.taps = d_geom.kernel.taps;
        auto fn = spread_kernel<T, DIM, MAXW>;
        if (d_tile_bytes > 48 * 1024)
            GPUFFT_CUDA_CHECK(cudaFuncSetAttribute(
                fn, cudaFuncAttributeMaxDynamicSharedMemorySize, int(d_tile_bytes)));
        fn<<<d_spread_blocks, threads_per_block, d_tile_bytes, d_stream->get()>>>(
            a,
            d_z0[0].get(),
            DIM == 2 ? d_z0[1].get() : nullptr,
            c,
            d_use_prephase ? d_prephase.get() : nullptr,
            d_precorr[0].get(),
            DIM == 2 ? d_precorr[1].get() : nullptr,
            d_geom.kernel,
            d_grid.get());
        GPUFFT_CUDA_CHECK_LAUNCH();
    }

    template <int DIM, int MAXW>
    void interp_with(C* F)
    {
        interp_kernel<T, DIM, MAXW>
            <<<blocks_for(d_n_tgt, 128), 128, 0, d_stream->get()>>>(
                d_n_tgt,
                d_tfirst[0].get(),
                DIM == 2 ? d_tfirst[1].get() : nullptr,
                d_tz0[0].get(),
                DIM == 2 ? d_tz0[1].get() : nullptr,
                d_post.get(),
                d_grid.get(),
                d_geom.axis[0].cells,
                DIM == 2 ? d_geom.axis[1].cells : 1,
                d_geom.kernel.taps,
                d_geom.kernel,
                F);
        GPUFFT_CUDA_CHECK_LAUNCH();
    }

    // Tap counts are compile-time bounds so the tap loops unroll into registers.
    void launch_spread(const C* c)
    {
        const int W = d_geom.kernel.taps;
        if (d_geom.dim == 1)
            W <= 8    ? spread_with<1, 8>(c)
            : W <= 16 ? spread_with<1, 16>(c)
                      : spread_with<1, max_taps>(c);
        else
            W <= 8    ? spread_with<2, 8>(c)
            : W <= 16 ? spread_with<2, 16>(c)
                      : spread_with<2, max_taps>(c);
    }

    void launch_interp(C* F)
    {
        const int W = d_geom.kernel.taps;
        if (d_geom.dim == 1)
            W <= 8    ? interp_with<1, 8>(F)
            : W <= 16 ? interp_with<1, 16>(F)
                      : interp_with<1, max_taps>(F);
        else
            W <= 8    ? interp_with<2, 8>(F)
            : W <= 16 ? interp_with<2, 16>(F)
                      : interp_with<2, max_taps>(F);
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
    stage_timer d_timer;
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
