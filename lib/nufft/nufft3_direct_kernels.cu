/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The direct form of the type-3 NUFFT's spreading in 2D (nufft3_cuda_kernels.h): one
// block per square region of the grid, one thread per cell. The block stages, chunk by
// chunk, the sources whose taps reach its region (found through the bins set_points
// sorted them into), each thread sums them for its cell and stores the cell once, with
// the pre-correction applied. No tile to flush and no atomics: a cell is written by one
// thread, every cell of the grid (zeros where no source reaches), so the grids need no
// clearing first. The price is that a source is staged by every region its taps reach.

#include "nufft/nufft3_cuda_device.cuh"

namespace gr {
namespace gpufft {
namespace nufft {

namespace {

constexpr int side = direct_side;
constexpr int chunk = 64;          // sources staged at a time
constexpr int list_capacity = 512; // sources listed before they are summed
static_assert(side == 16 && threads_per_block == 256,
              "one thread per region cell, 8 warps");

/*!
 * Sources are sorted by bin (axis 0 fastest), so the bins bx0..bx1 of one row of bins
 * hold one contiguous run of sorted positions: a region's sources lie in a few runs.
 */
template <typename T, int MAXW, int NV>
__global__ void __launch_bounds__(threads_per_block)
    direct_kernel(spread_args a,
                  int regions_x,
                  int ntransf,
                  point_arrays<T> src,
                  const typename complex_of<T>::type* c,
                  const typename complex_of<T>::type* prephase,
                  const T* __restrict__ pcx,
                  const T* __restrict__ pcy,
                  kernel_spec ker,
                  typename complex_of<T>::type* grid)
{
    using C = typename complex_of<T>::type;
    __shared__ C sv[NV * chunk];        // strengths, vector-major
    __shared__ T sk[chunk * 2 * MAXW];  // kernel values [source][axis][tap]
    __shared__ int2 sl[chunk];          // first cell relative to the region
    __shared__ int list[list_capacity]; // sorted positions of the sources to sum
    __shared__ int warp_kept[threads_per_block / 32];

    const int W = a.taps;
    const int ox = (blockIdx.x % regions_x) * side, oy = (blockIdx.x / regions_x) * side;
    const int v0 = blockIdx.y * NV;
    const int nv = min(NV, ntransf - v0);
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    // The cell this thread owns: a warp takes an 8 x 4 patch of the region. A source's
    // taps cover more of a squat patch than of two full rows, so fewer of the lanes
    // that run a hit's multiply-adds sit outside the taps.
    const int cx = (warp % 2) * 8 + lane % 8, cy = (warp / 2) * 4 + lane / 8;

    // A source whose first cell is f reaches cells f .. f + W - 1 of an axis.
    const int fx0 = ox - W + 1, fx1 = ox + side - 1;
    const int fy0 = oy - W + 1, fy1 = oy + side - 1;
    const int bx0 = max(fx0, 0) / a.bin[0], bx1 = min(fx1 / a.bin[0], a.nbins[0] - 1);
    const int by0 = max(fy0, 0) / a.bin[1], by1 = min(fy1 / a.bin[1], a.nbins[1] - 1);

    T re[NV], im[NV];
#pragma unroll
    for (int v = 0; v < NV; ++v)
        re[v] = im[v] = 0;

    // Sums the listed sources chunk by chunk and empties the list.
    int listed = 0; // the same in every thread
    auto sum_listed = [&]() {
        for (int c0 = 0; c0 < listed; c0 += chunk) {
            const int n = min(chunk, listed - c0);
            __syncthreads(); // the list is complete, the last chunk summed
            // Every thread stages: a source's NV strengths are NV scattered loads.
            for (int e = tid; e < n * NV; e += threads_per_block) {
                const int s = e % n, v = e / n;
                C x = C{ 0, 0 };
                if (v < nv) {
                    const int p = list[c0 + s];
                    const C cv = c[(long long)(v0 + v) * a.n_sources + a.perm[p]];
                    const C ph = prephase ? prephase[p] : C{ 1, 0 };
                    x = C{ cv.x * ph.x - cv.y * ph.y, cv.x * ph.y + cv.y * ph.x };
                }
                sv[v * chunk + s] = x;
            }
            for (int s = tid; s < n; s += threads_per_block) {
                const int p = list[c0 + s];
                sl[s] = make_int2(src.first[0][p] - ox, src.first[1][p] - oy);
            }
            for (int e = tid; e < n * 2 * W; e += threads_per_block) {
                const int s = e / (2 * W), d = (e / W) % 2, q = e % W;
                const T z = src.z0[d][list[c0 + s]];
                sk[(s * 2 + d) * MAXW + q] = kernel_value<T>(ker, z + T(q));
            }
            __syncthreads();
            for (int s = 0; s < n; ++s) {
                const int2 l = sl[s];
                const unsigned dx = unsigned(cx - l.x), dy = unsigned(cy - l.y);
                if (dx >= unsigned(W) || dy >= unsigned(W))
                    continue;
                const T w = sk[s * 2 * MAXW + dx] * sk[(s * 2 + 1) * MAXW + dy];
#pragma unroll
                for (int v = 0; v < NV; ++v) {
                    const C x = sv[v * chunk + s];
                    re[v] += x.x * w;
                    im[v] += x.y * w;
                }
            }
        }
        listed = 0;
    };

    for (int by = by0; by <= by1; ++by) {
        const int b0 = by * a.nbins[0] + bx0, b1 = by * a.nbins[0] + bx1;
        const int begin = a.bin_start[b0], end = a.bin_start[b1] + a.bin_count[b1];
        for (int base = begin; base < end; base += threads_per_block) {
            // List the run's sources that reach the region, in sorted order (a warp
            // ballot and the warps' counts), so sums do not depend on timing.
            const int pos = base + tid;
            bool keep = false;
            if (pos < end) {
                const int f0 = src.first[0][pos], f1 = src.first[1][pos];
                keep = f0 >= fx0 && f0 <= fx1 && f1 >= fy0 && f1 <= fy1;
            }
            const unsigned ballot = __ballot_sync(0xffffffffu, keep);
            __syncthreads(); // the counts of the last round are read, the list summed
            if (lane == 0)
                warp_kept[warp] = __popc(ballot);
            __syncthreads();
            int before = 0, kept = 0;
#pragma unroll
            for (int w = 0; w < threads_per_block / 32; ++w) {
                before += w < warp ? warp_kept[w] : 0;
                kept += warp_kept[w];
            }
            if (keep)
                list[listed + before + __popc(ballot & ((1u << lane) - 1u))] = pos;
            listed += kept;
            // Sum once the next round might not fit: runs of a few kept sources (a
            // bin row's run holds about a region's width of them) share chunks.
            if (listed > list_capacity - threads_per_block)
                sum_listed();
        }
    }
    sum_listed();

    const long long gx = ox + cx, gy = oy + cy;
    if (gx >= a.cells[0] || gy >= a.cells[1])
        return;
    const T corr = pcx[gx] * pcy[gy];
    C* out = grid + (long long)v0 * a.grid_cells + gy * a.cells[0] + gx;
#pragma unroll
    for (int v = 0; v < NV; ++v)
        if (v < nv)
            out[v * a.grid_cells] = C{ re[v] * corr, im[v] * corr };
}

//! What every direct launch takes, as the kernel sees it.
template <typename T>
struct direct_launch {
    spread_args a;
    int ntransf;
    point_arrays<T> src;
    const typename complex_of<T>::type* c;
    const typename complex_of<T>::type* prephase;
    const T* pcx;
    const T* pcy;
    kernel_spec ker;
    typename complex_of<T>::type* grid;
    cudaStream_t st;
};

template <typename T, int MAXW, int NV>
void direct_with(const direct_launch<T>& l)
{
    const long long rx = (l.a.cells[0] + side - 1) / side,
                    ry = (l.a.cells[1] + side - 1) / side;
    const dim3 shape(unsigned(rx * ry), unsigned((l.ntransf + NV - 1) / NV));
    direct_kernel<T, MAXW, NV><<<shape, threads_per_block, 0, l.st>>>(
        l.a, int(rx), l.ntransf, l.src, l.c, l.prephase, l.pcx, l.pcy, l.ker, l.grid);
    GPUFFT_CUDA_CHECK_LAUNCH();
}

//! Tap counts and vectors per block are compile-time bounds: the loops unroll.
template <typename T, int MAXW>
void direct_taps(const direct_launch<T>& l)
{
    const int v = direct_vectors(l.ntransf);
    (v >= 16  ? direct_with<T, MAXW, 16>
     : v >= 8 ? direct_with<T, MAXW, 8>
     : v >= 4 ? direct_with<T, MAXW, 4>
     : v >= 2 ? direct_with<T, MAXW, 2>
              : direct_with<T, MAXW, 1>)(l);
}

} // namespace

template <typename T>
void launch_spread_direct(const spread_args& a,
                          int ntransf,
                          const point_arrays<T>& src,
                          const std::complex<T>* c,
                          const std::complex<T>* prephase,
                          const T* const* precorr,
                          const kernel_spec& ker,
                          std::complex<T>* grid,
                          void* stream)
{
    const direct_launch<T> l{
        a,          ntransf,    src, device_complex(c),    device_complex(prephase),
        precorr[0], precorr[1], ker, device_complex(grid), as_stream(stream)
    };
    (ker.taps <= 8 ? direct_taps<T, 8> : direct_taps<T, gather_max_taps>)(l);
}

#define GPUFFT_NUFFT3_DIRECT(T)                                   \
    template void launch_spread_direct<T>(const spread_args&,     \
                                          int,                    \
                                          const point_arrays<T>&, \
                                          const std::complex<T>*, \
                                          const std::complex<T>*, \
                                          const T* const*,        \
                                          const kernel_spec&,     \
                                          std::complex<T>*,       \
                                          void*);

GPUFFT_NUFFT3_DIRECT(float)
GPUFFT_NUFFT3_DIRECT(double)

} // namespace nufft
} // namespace gpufft
} // namespace gr
