/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Spreading of the type-3 NUFFT (nufft3_cuda_kernels.h): one block per subproblem and
// strength vector fills a shared-memory tile, then adds it, pre-corrected, into the grid
// (one global atomic per non-zero tile cell). Two ways to fill the tile:
//   scatter: each thread adds one source's taps (shared atomics: compare-and-swap loops
//            for double, and for float on the GPUs we target);
//   gather:  the block stages a chunk of sources with their kernel values, and each
//            thread sums, for the tile cells it owns, the sources that reach them (no
//            atomics; a share of the pairs tested lie outside the taps, which the planner
//            bounds by its choice of bin).

#include "nufft/nufft3_cuda_device.cuh"

namespace gr {
namespace gpufft {
namespace nufft {

namespace {

template <typename T>
__device__ __forceinline__ void atomic_add(typename complex_of<T>::type* p,
                                           typename complex_of<T>::type v)
{
    atomicAdd(&p->x, v.x);
    atomicAdd(&p->y, v.y);
}

//! The pre-correction of up to three axes, by value.
template <typename T>
struct precorrections {
    const T* p[max_axes];
};

//! A subproblem's sources (begin, count) and its tile: origin and extent in grid cells.
struct subproblem_tile {
    int begin, count;
    int ox, oy, oz;
    int tx, ty, tz;
};

template <int DIM>
__device__ __forceinline__ subproblem_tile locate(const spread_args& a, int sub)
{
    const int b = a.sub_bin[sub];
    const int W = a.taps;
    const int bx = DIM == 1 ? b : b % a.nbins[0];
    const int by = DIM == 1   ? 0
                   : DIM == 2 ? b / a.nbins[0]
                              : (b / a.nbins[0]) % a.nbins[1];
    const int bz = DIM == 3 ? b / (a.nbins[0] * a.nbins[1]) : 0;
    subproblem_tile t;
    t.begin = a.bin_start[b] + a.sub_offset[sub];
    t.count = min(max_subproblem, a.bin_count[b] - a.sub_offset[sub]);
    t.ox = bx * a.bin[0];
    t.oy = by * a.bin[1];
    t.oz = bz * a.bin[2];
    t.tx = a.bin[0] + W - 1;
    t.ty = DIM >= 2 ? a.bin[1] + W - 1 : 1;
    t.tz = DIM == 3 ? a.bin[2] + W - 1 : 1;
    return t;
}

//! Adds tile cell i of (tx, ty, tz), pre-corrected, into the grid; zeros are skipped
//! (cells past the grid's edge only ever hold zeros).
template <typename T, int DIM>
__device__ __forceinline__ void flush_cell(const spread_args& a,
                                           const precorrections<T>& pc,
                                           int i,
                                           int tx,
                                           int ty,
                                           int ox,
                                           int oy,
                                           int oz,
                                           typename complex_of<T>::type v,
                                           typename complex_of<T>::type* grid)
{
    using C = typename complex_of<T>::type;
    if (v.x == T(0) && v.y == T(0))
        return;
    const long long gx = ox + i % tx;
    const long long gy = DIM >= 2 ? oy + (i / tx) % ty : 0;
    const long long gz = DIM == 3 ? oz + i / (tx * ty) : 0;
    if (gx >= a.cells[0] || gy >= a.cells[1] || gz >= a.cells[2])
        return;
    T corr = pc.p[0][gx];
    if (DIM >= 2)
        corr *= pc.p[1][gy];
    if (DIM == 3)
        corr *= pc.p[2][gz];
    atomic_add<T>(grid + (gz * a.cells[1] + gy) * a.cells[0] + gx,
                  C{ v.x * corr, v.y * corr });
}

/*!
 * One block per subproblem and strength vector (blockIdx.y): spread into a shared
 * tile, then add it to that vector's grid. DIM is a template parameter so the 1D and 2D
 * loops carry no branch for the third axis.
 */
template <typename T, int DIM, int MAXW>
__global__ void spread_kernel(spread_args a,
                              point_arrays<T> src,
                              const typename complex_of<T>::type* c,
                              const typename complex_of<T>::type* prephase,
                              precorrections<T> pc,
                              kernel_spec ker,
                              typename complex_of<T>::type* grid)
{
    using C = typename complex_of<T>::type;
    extern __shared__ unsigned char smem_raw[];
    C* tile = reinterpret_cast<C*>(smem_raw);
    const int sub = blockIdx.x;
    if (sub >= *a.sub_total)
        return;
    c += blockIdx.y * a.n_sources;
    grid += blockIdx.y * a.grid_cells;
    const subproblem_tile t = locate<DIM>(a, sub);
    const int begin = t.begin, count = t.count, W = a.taps;
    const int ox = t.ox, oy = t.oy, oz = t.oz, tx = t.tx, ty = t.ty, tz = t.tz;
    for (int i = threadIdx.x; i < tx * ty * tz; i += blockDim.x)
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
        const T zx = src.z0[0][pos];
#pragma unroll
        for (int q = 0; q < MAXW; ++q)
            if (q < W)
                kx[q] = kernel_value<T>(ker, zx + T(q));
        const int lx = src.first[0][pos] - ox;
        if (DIM == 1) {
#pragma unroll
            for (int q = 0; q < MAXW; ++q)
                if (q < W)
                    atomic_add<T>(tile + lx + q, C{ v.x * kx[q], v.y * kx[q] });
        } else {
            const T zy = src.z0[1][pos];
            const int ly = src.first[1][pos] - oy;
            const int planes = DIM == 3 ? W : 1;
            const T zz = DIM == 3 ? src.z0[2][pos] : T(0);
            const int lz = DIM == 3 ? src.first[2][pos] - oz : 0;
            for (int l = 0; l < planes; ++l) {
                C vl = v;
                if (DIM == 3) {
                    const T kz = kernel_value<T>(ker, zz + T(l));
                    vl = C{ v.x * kz, v.y * kz };
                }
                C* plane = tile + (lz + l) * tx * ty;
                for (int r = 0; r < W; ++r) {
                    const T ky = kernel_value<T>(ker, zy + T(r));
                    const C vr{ vl.x * ky, vl.y * ky };
                    C* row = plane + (ly + r) * tx + lx;
#pragma unroll
                    for (int q = 0; q < MAXW; ++q)
                        if (q < W)
                            atomic_add<T>(row + q, C{ vr.x * kx[q], vr.y * kx[q] });
                }
            }
        }
    }
    __syncthreads();

    for (int i = threadIdx.x; i < tx * ty * tz; i += blockDim.x)
        flush_cell<T, DIM>(a, pc, i, tx, ty, ox, oy, oz, tile[i], grid);
}

/*!
 * The gather form of spread_kernel (2D and 3D): per chunk of gather_chunk sources the
 * block stages strengths, tile offsets and kernel values in shared memory; then each
 * thread walks its tile cells and adds every staged source whose taps cover the cell.
 * A block serves NV strength vectors (blockIdx.y the group of vectors; vectors past
 * ntransf stage zeros and are not written): the pairs' tests and weights are shared.
 */
template <typename T, int DIM, int MAXW, int NV>
__global__ void gather_kernel(spread_args a,
                              int ntransf,
                              point_arrays<T> src,
                              const typename complex_of<T>::type* c,
                              const typename complex_of<T>::type* prephase,
                              precorrections<T> pc,
                              kernel_spec ker,
                              typename complex_of<T>::type* grid)
{
    using C = typename complex_of<T>::type;
    extern __shared__ unsigned char smem_raw[];
    const int sub = blockIdx.x;
    if (sub >= *a.sub_total)
        return;
    const int v0 = blockIdx.y * NV;
    const int nv = min(NV, ntransf - v0);
    c += v0 * a.n_sources;
    grid += v0 * a.grid_cells;
    const subproblem_tile t = locate<DIM>(a, sub);
    const int begin = t.begin, count = t.count, W = a.taps;
    const int ox = t.ox, oy = t.oy, oz = t.oz, tx = t.tx, ty = t.ty, tz = t.tz;
    const int cells = tx * ty * tz;

    // Layout (gather_shared_bytes): NV tiles | NV rows of staged strengths | kernel
    // values [source][axis][tap] | offsets [source][axis]
    C* tile = reinterpret_cast<C*>(smem_raw);
    C* sv = tile + NV * cells;
    T* sk = reinterpret_cast<T*>(sv + NV * gather_chunk);
    int* sl = reinterpret_cast<int*>(sk + gather_chunk * DIM * MAXW);

    for (int i = threadIdx.x; i < NV * cells; i += blockDim.x)
        tile[i] = C{ 0, 0 };

    for (int c0 = 0; c0 < count; c0 += gather_chunk) {
        const int n = min(gather_chunk, count - c0);
        __syncthreads(); // the last chunk is summed (and the tiles cleared)
        for (int s = threadIdx.x; s < n; s += blockDim.x) {
            const int pos = begin + c0 + s;
            const int j = a.perm[pos];
            const C p = prephase ? prephase[pos] : C{ 1, 0 };
#pragma unroll
            for (int v = 0; v < NV; ++v) {
                C x = C{ 0, 0 };
                if (v < nv) {
                    const C cv = c[v * a.n_sources + j];
                    x = C{ cv.x * p.x - cv.y * p.y, cv.x * p.y + cv.y * p.x };
                }
                sv[v * gather_chunk + s] = x;
            }
            sl[s * DIM] = src.first[0][pos] - ox;
            sl[s * DIM + 1] = src.first[1][pos] - oy;
            if (DIM == 3)
                sl[s * DIM + 2] = src.first[2][pos] - oz;
        }
        for (int e = threadIdx.x; e < n * DIM * W; e += blockDim.x) {
            const int s = e / (DIM * W), d = (e / W) % DIM, q = e % W;
            const T z = src.z0[d][begin + c0 + s];
            sk[(s * DIM + d) * MAXW + q] = kernel_value<T>(ker, z + T(q));
        }
        __syncthreads();

        for (int i = threadIdx.x; i < cells; i += blockDim.x) {
            const int ix = i % tx;
            const int iy = DIM == 2 ? i / tx : (i / tx) % ty;
            const int iz = DIM == 3 ? i / (tx * ty) : 0;
            T re[NV], im[NV];
#pragma unroll
            for (int v = 0; v < NV; ++v)
                re[v] = im[v] = 0;
            bool hit = false;
            for (int s = 0; s < n; ++s) {
                const unsigned dx = unsigned(ix - sl[s * DIM]);
                const unsigned dy = unsigned(iy - sl[s * DIM + 1]);
                const unsigned dz = DIM == 3 ? unsigned(iz - sl[s * DIM + 2]) : 0u;
                if (dx >= unsigned(W) || dy >= unsigned(W) || dz >= unsigned(W))
                    continue;
                const T* k = sk + s * DIM * MAXW;
                T w = k[dx] * k[MAXW + dy];
                if (DIM == 3)
                    w *= k[2 * MAXW + dz];
                hit = true;
#pragma unroll
                for (int v = 0; v < NV; ++v) {
                    const C x = sv[v * gather_chunk + s];
                    re[v] += x.x * w;
                    im[v] += x.y * w;
                }
            }
            if (hit)
#pragma unroll
                for (int v = 0; v < NV; ++v) {
                    C t = tile[v * cells + i];
                    tile[v * cells + i] = C{ t.x + re[v], t.y + im[v] };
                }
        }
    }
    __syncthreads();
    for (int v = 0; v < nv; ++v)
        for (int i = threadIdx.x; i < cells; i += blockDim.x)
            flush_cell<T, DIM>(a,
                               pc,
                               i,
                               tx,
                               ty,
                               ox,
                               oy,
                               oz,
                               tile[v * cells + i],
                               grid + v * a.grid_cells);
}

//! What every spreading launch takes, as the kernels see it.
template <typename T>
struct spread_launch {
    spread_args a;
    unsigned blocks;
    int ntransf;
    std::size_t shared_bytes;
    point_arrays<T> src;
    const typename complex_of<T>::type* c;
    const typename complex_of<T>::type* prephase;
    precorrections<T> pc;
    kernel_spec ker;
    typename complex_of<T>::type* grid;
    cudaStream_t st;
};

//! Raises the kernel's dynamic shared-memory limit where it asks for more than 48 KiB.
template <typename F>
void allow_shared(F fn, std::size_t bytes)
{
    if (bytes > 48 * 1024)
        GPUFFT_CUDA_CHECK(cudaFuncSetAttribute(
            fn, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
}

//! One launch of gather_kernel for NV vectors per block.
template <typename T, int DIM, int MAXW, int NV>
void gather_with(const spread_launch<T>& l)
{
    auto fn = gather_kernel<T, DIM, MAXW, NV>;
    allow_shared(fn, l.shared_bytes);
    const dim3 shape(l.blocks, unsigned((l.ntransf + NV - 1) / NV));
    fn<<<shape, threads_per_block, l.shared_bytes, l.st>>>(
        l.a, l.ntransf, l.src, l.c, l.prephase, l.pc, l.ker, l.grid);
    GPUFFT_CUDA_CHECK_LAUNCH();
}

template <typename T, int DIM, int MAXW>
void spread_with(const spread_launch<T>& l)
{
    if constexpr (DIM >= 2 && MAXW <= gather_max_taps) {
        const int v = l.a.gather_vectors;
        if (v > 0) {
            (v >= 4   ? gather_with<T, DIM, MAXW, 4>
             : v == 2 ? gather_with<T, DIM, MAXW, 2>
                      : gather_with<T, DIM, MAXW, 1>)(l);
            return;
        }
    }
    auto fn = spread_kernel<T, DIM, MAXW>;
    allow_shared(fn, l.shared_bytes);
    const dim3 shape(l.blocks, unsigned(l.ntransf));
    fn<<<shape, threads_per_block, l.shared_bytes, l.st>>>(
        l.a, l.src, l.c, l.prephase, l.pc, l.ker, l.grid);
    GPUFFT_CUDA_CHECK_LAUNCH();
}

template <typename T, int DIM>
void spread_dim(const spread_launch<T>& l)
{
    // Tap counts are compile-time bounds so the tap loops unroll into registers.
    const int W = l.ker.taps;
    (W <= 8    ? spread_with<T, DIM, 8>
     : W <= 16 ? spread_with<T, DIM, 16>
               : spread_with<T, DIM, max_taps>)(l);
}

} // namespace

template <typename T>
void launch_spread(const spread_args& a,
                   int dim,
                   unsigned blocks,
                   int ntransf,
                   std::size_t shared_bytes,
                   const point_arrays<T>& src,
                   const std::complex<T>* c,
                   const std::complex<T>* prephase,
                   const T* const* precorr,
                   const kernel_spec& ker,
                   std::complex<T>* grid,
                   void* stream)
{
    spread_launch<T> l{ a,
                        blocks,
                        ntransf,
                        shared_bytes,
                        src,
                        device_complex(c),
                        device_complex(prephase),
                        {},
                        ker,
                        device_complex(grid),
                        as_stream(stream) };
    for (int d = 0; d < dim; ++d)
        l.pc.p[d] = precorr[d];
    if (dim == 1)
        spread_dim<T, 1>(l);
    else if (dim == 2)
        spread_dim<T, 2>(l);
    else
        spread_dim<T, 3>(l);
}

#define GPUFFT_NUFFT3_SPREAD(T)                            \
    template void launch_spread<T>(const spread_args&,     \
                                   int,                    \
                                   unsigned,               \
                                   int,                    \
                                   std::size_t,            \
                                   const point_arrays<T>&, \
                                   const std::complex<T>*, \
                                   const std::complex<T>*, \
                                   const T* const*,        \
                                   const kernel_spec&,     \
                                   std::complex<T>*,       \
                                   void*);

GPUFFT_NUFFT3_SPREAD(float)
GPUFFT_NUFFT3_SPREAD(double)

} // namespace nufft
} // namespace gpufft
} // namespace gr
