/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Interpolation of the type-3 NUFFT (nufft3_cuda_kernels.h): the kernel-weighted sum
// of the grid cells around each target, times the target's correction.
//
// In 2D and 3D a group of G lanes (8, 16 or 32: the power of two >= the widest kernel of
// the instantiation, at most a warp) works on one target, lane q owning column q of its
// window (and q + G, ... past 32 taps). A warp-wide load then reads 32 / G targets' rows
// of W consecutive cells, a few cache lines, where one thread per target would read a
// cell from a different row (a different line) in every lane, leaving the loads bound by
// L1 wavefronts rather than by bytes. Lane j also works out row j's weight and offset
// (and plane j's weight) once per target, for its group to read from shared memory. The
// group's sums meet in a butterfly of shuffles that leaves each of its first 2 NV lanes
// one real component to correct and store.
//
// In 1D one thread per target stays: its W cells are adjacent and the targets of a warp
// share a tile, so its loads already touch few lines, and a group would only add the
// reduction and idle lanes.

#include "nufft/nufft3_cuda_device.cuh"
#include <type_traits>
#include <cstring>

namespace gr {
namespace gpufft {
namespace nufft {

namespace {

constexpr unsigned full_warp = 0xffffffffu;
//! Threads per block of the group form (targets per block: this / G).
constexpr int interp_block = 256;
//! G, the lanes per target of the group form, for kernels of up to maxw taps (8, 16 or
//! max_taps): a power of two, at most a warp.
constexpr int group_lanes(int maxw) { return maxw < 32 ? maxw : 32; }

//! m folded into [0, M): a target's taps may run past either end of the periodic grid.
__device__ __forceinline__ int wrap(int m, int M)
{
    return m < 0 ? m + M : (m >= M ? m - M : m);
}

/*!
 * Tap j's weight on an axis where the target's first cell is `first` and its offset z0.
 * The grid index p = n + M/2 puts a factor (-1)^m on FFT output m: folded in here.
 */
template <typename T>
__device__ __forceinline__ T folded_weight(const kernel_spec& ker, T z0, int first, int j)
{
    const T v = kernel_value<T>(ker, z0 + T(j));
    return ((first + j) & 1) ? -v : v;
}

struct grid_shape {
    long long cells[max_axes];
    long long total; // distance between grids
};

/*!
 * 1D: one thread per target and group of NV strength vectors (blockIdx.y): kernel-
 * weighted sum of grid cells, times the correction. The weights and cell indices are
 * worked out once for the group, so a tap costs one load and two multiply-adds per
 * vector.
 */
template <typename T, int MAXW, int NV>
__global__ void interp_kernel(long long n,
                              int ntransf,
                              const int* __restrict__ order,
                              point_arrays<T> tgt,
                              const typename complex_of<T>::type* post,
                              const typename complex_of<T>::type* grid,
                              grid_shape gs,
                              int W,
                              kernel_spec ker,
                              typename complex_of<T>::type* out)
{
    using C = typename complex_of<T>::type;
    const long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    const int v0 = blockIdx.y * NV;
    const int nv = min(NV, ntransf - v0);
    grid += v0 * gs.total;
    out += v0 * n;
    // Axes hold at most 2^30 cells (nufft3_params.cc), so cell indices are ints.
    const int M0 = int(gs.cells[0]);
    T kx[MAXW];
    int col[MAXW];
    const T zx = tgt.z0[0][k];
    const int f0 = tgt.first[0][k];
#pragma unroll
    for (int q = 0; q < MAXW; ++q)
        if (q < W) {
            kx[q] = folded_weight(ker, zx, f0, q);
            col[q] = wrap(f0 + q, M0);
        }
    const C p = post[k];
    const long long at = order ? order[k] : k;
    // The vectors of a group are the same for the whole block: no divergence.
#pragma unroll
    for (int v = 0; v < NV; ++v) {
        if (v >= nv)
            break;
        const C* r = grid + v * gs.total;
        T rx = 0, ry = 0;
#pragma unroll
        for (int q = 0; q < MAXW; ++q)
            if (q < W) {
                const C g = r[col[q]];
                rx += kx[q] * g.x;
                ry += kx[q] * g.y;
            }
        out[v * n + at] = C{ rx * p.x - ry * p.y, rx * p.y + ry * p.x };
    }
}

/*!
 * *p where `use` holds, else zero, as a predicated load rather than a branch around one,
 * so that the loads of all the rows of a window can be in flight together. The grid is
 * read-only while interpolating (hence .nc).
 */
__device__ __forceinline__ double2 load_if(bool use, const double2* p)
{
    double2 g = make_double2(0, 0);
    asm("{\n\t.reg .pred u;\n\tsetp.ne.b32 u, %2, 0;\n\t"
        "@u ld.global.nc.v2.f64 {%0, %1}, [%3];\n\t}"
        : "+d"(g.x), "+d"(g.y)
        : "r"(int(use)), "l"(p));
    return g;
}
__device__ __forceinline__ float2 load_if(bool use, const float2* p)
{
    float2 g = make_float2(0, 0);
    asm("{\n\t.reg .pred u;\n\tsetp.ne.b32 u, %2, 0;\n\t"
        "@u ld.global.nc.v2.f32 {%0, %1}, [%3];\n\t}"
        : "+f"(g.x), "+f"(g.y)
        : "r"(int(use)), "l"(p));
    return g;
}

//! w[0 .. R) = src[0 .. R), in 16-byte loads where R fills them (src is aligned so).
template <typename T, int R>
__device__ __forceinline__ void load_shared(const T* src, T (&w)[R])
{
    constexpr int per = 16 / sizeof(T);
    if constexpr (R % per == 0) {
#pragma unroll
        for (int i = 0; i < R; i += per) {
            const uint4 u = *reinterpret_cast<const uint4*>(src + i);
            memcpy(&w[i], &u, 16);
        }
    } else {
#pragma unroll
        for (int i = 0; i < R; ++i)
            w[i] = src[i];
    }
}

/*!
 * 2D and 3D: G lanes per target (see the top of the file) and NV strength vectors per
 * lane (blockIdx.y: the group of vectors). Every lane of a warp runs to the end, past
 * the last target too (it reads target n - 1 and stores nothing), so __syncwarp and the
 * shuffles always see the full warp.
 */
template <typename T, int DIM, int MAXW, int NV>
__global__ void __launch_bounds__(interp_block)
    interp_group_kernel(long long n,
                        int ntransf,
                        const int* __restrict__ order,
                        point_arrays<T> tgt,
                        const typename complex_of<T>::type* __restrict__ post,
                        const typename complex_of<T>::type* __restrict__ grid,
                        grid_shape gs,
                        int W,
                        kernel_spec ker,
                        typename complex_of<T>::type* __restrict__ out)
{
    using C = typename complex_of<T>::type;
    constexpr int G = group_lanes(MAXW);
    constexpr int CH = MAXW / G; // columns (and rows, planes) per lane
    constexpr int V = 2 * NV;    // real sums per lane
    // Rows per step of the row loop: about 16 loads per lane, independent of each
    // other, in flight together; more would only hold registers that occupancy needs.
    constexpr int R0 = 16 / (NV * CH);
    constexpr int R = R0 < 1 ? 1 : (R0 > MAXW ? MAXW : R0);
    static_assert((G & (G - 1)) == 0 && G * CH == MAXW && V <= G && MAXW % R == 0,
                  "a group is a power of two of lanes holding its 2 NV sums");
    // Per group (its target), the weights of its rows and planes and the byte offsets of
    // its rows, zero from W to MAXW. Each group's run is padded by 16 bytes so that the
    // groups of a warp read different banks.
    constexpr int PW = MAXW + 16 / sizeof(T), PO = MAXW + 2;
    __shared__ __align__(16) T ky_s[interp_block / G][PW];
    __shared__ __align__(16) T kz_s[DIM == 3 ? interp_block / G : 1][PW];
    __shared__ __align__(16) long long row_s[interp_block / G][PO];
    const int q = threadIdx.x & (G - 1);
    const int gi = threadIdx.x / G;
    const long long t = (blockIdx.x * (long long)blockDim.x + threadIdx.x) / G;
    const bool live = t < n;
    const long long k = live ? t : n - 1;
    const int v0 = blockIdx.y * NV;
    const int nv = min(NV, ntransf - v0);
    grid += v0 * gs.total;
    // Axes hold at most 2^30 cells (nufft3_params.cc), so cell indices are ints.
    const int M0 = int(gs.cells[0]), M1 = int(gs.cells[1]), M2 = int(gs.cells[2]);
    const int f2 = DIM == 3 ? tgt.first[2][k] : 0;

    // Lane q's columns q + c G, and the row and plane of the same index, whose weights
    // and row offset it hands to its group.
    T kx[CH];
    int col[CH];
    {
        const T zx = tgt.z0[0][k], zy = tgt.z0[1][k];
        const int f0 = tgt.first[0][k], f1 = tgt.first[1][k];
        const T zz = DIM == 3 ? tgt.z0[2][k] : T(0);
#pragma unroll
        for (int c = 0; c < CH; ++c) {
            const int j = c * G + q;
            T ky = 0, kz = 0;
            long long row = 0;
            kx[c] = 0;
            col[c] = 0;
            if (j < W) {
                kx[c] = folded_weight(ker, zx, f0, j);
                col[c] = wrap(f0 + j, M0);
                ky = folded_weight(ker, zy, f1, j);
                row = (long long)wrap(f1 + j, M1) * M0 * (long long)sizeof(C);
                if constexpr (DIM == 3)
                    kz = folded_weight(ker, zz, f2, j);
            }
            ky_s[gi][j] = ky;
            row_s[gi][j] = row;
            if constexpr (DIM == 3)
                kz_s[gi][j] = kz;
        }
    }
    __syncwarp();

    // This lane's taps of a plane (2D: the grid), into sx, sy: per row its weight (times
    // kx past one column per lane; with one, kx multiplies the sums once at the end).
    // Taps past W and vectors past nv load nothing and add zeros, with no branch, so the
    // loads of a step issue back to back.
    auto add_plane = [&](const C* plane, T* sx, T* sy) {
        const C* base[CH];
#pragma unroll
        for (int c = 0; c < CH; ++c)
            base[c] = plane + col[c];
        for (int r0 = 0; r0 < W; r0 += R) {
            T w[R];
            long long off[R];
            load_shared(&ky_s[gi][r0], w);
            load_shared(&row_s[gi][r0], off);
#pragma unroll
            for (int i = 0; i < R; ++i)
#pragma unroll
                for (int c = 0; c < CH; ++c) {
                    const bool use = r0 + i < W && c * G + q < W;
                    const T wc = CH == 1 ? w[i] : w[i] * kx[c];
                    const C* cell = reinterpret_cast<const C*>(
                        reinterpret_cast<const char*>(base[c]) + off[i]);
#pragma unroll
                    for (int v = 0; v < NV; ++v) {
                        const C g = load_if(use && v < nv, cell + v * gs.total);
                        sx[v] += wc * g.x;
                        sy[v] += wc * g.y;
                    }
                }
        }
    };

    T ax[NV], ay[NV];
#pragma unroll
    for (int v = 0; v < NV; ++v)
        ax[v] = ay[v] = 0;
    if constexpr (DIM == 2) {
        add_plane(grid, ax, ay);
    } else {
        const long long plane_cells = (long long)M0 * M1;
        for (int l = 0; l < W; ++l) {
            T px[NV], py[NV];
#pragma unroll
            for (int v = 0; v < NV; ++v)
                px[v] = py[v] = 0;
            add_plane(grid + wrap(f2 + l, M2) * plane_cells, px, py);
            const T kz = kz_s[gi][l];
#pragma unroll
            for (int v = 0; v < NV; ++v) {
                ax[v] += kz * px[v];
                ay[v] += kz * py[v];
            }
        }
    }
    T s[V];
#pragma unroll
    for (int v = 0; v < NV; ++v) {
        s[2 * v] = CH == 1 ? kx[0] * ax[v] : ax[v];
        s[2 * v + 1] = CH == 1 ? kx[0] * ay[v] : ay[v];
    }

    // Butterfly over the group: at offset o (2 NV / 2 down to 1) each lane keeps half of
    // its 2 o sums (the upper half where its bit o is set) and adds its partner's copy of
    // that half, so halving the sums costs 2 NV - 1 shuffles where summing all of them at
    // each offset would cost 2 NV per offset. Lane q then holds sum number q mod 2 NV
    // over the lanes that differ from it below bit 2 NV; the offsets from 2 NV up to G
    // finish it.
#pragma unroll
    for (int o = V / 2; o >= 1; o /= 2) {
        const bool upper = q & o;
#pragma unroll
        for (int i = 0; i < o; ++i) {
            const T send = upper ? s[i] : s[o + i];
            const T keep = upper ? s[o + i] : s[i];
            s[i] = keep + __shfl_xor_sync(full_warp, send, o);
        }
    }
    T sum = s[0];
#pragma unroll
    for (int o = V; o < G; o *= 2)
        sum += __shfl_xor_sync(full_warp, sum, o);
    // Lanes 2v and 2v + 1 hold the real and imaginary part of vector v's sum.
    const T other = __shfl_xor_sync(full_warp, sum, 1);
    const int v = q >> 1;
    const bool imag = q & 1;
    if (live && q < V && v < nv) {
        const C p = post[k];
        const long long at = order ? order[k] : k;
        const T re = imag ? other : sum, im = imag ? sum : other;
        reinterpret_cast<T*>(out)[2 * ((v0 + v) * n + at) + imag] =
            imag ? re * p.y + im * p.x : re * p.x - im * p.y;
    }
}

//! Strength vectors per thread: the weights are shared among them.
template <typename T, int DIM, int MAXW>
void interp_with(std::int64_t n,
                 int ntransf,
                 const int* order,
                 const point_arrays<T>& tgt,
                 const std::complex<T>* post,
                 const std::complex<T>* grid,
                 const grid_shape& gs,
                 const kernel_spec& ker,
                 std::complex<T>* out,
                 cudaStream_t st)
{
    const int nv = ntransf >= 4 ? 4 : ntransf >= 2 ? 2 : 1;
    const unsigned groups = unsigned((ntransf + nv - 1) / nv);
    // Both forms take the same arguments; they differ in threads per target.
    auto launch = [&](auto kernel, unsigned blocks, int threads) {
        kernel<<<dim3(blocks, groups), threads, 0, st>>>(n,
                                                         ntransf,
                                                         order,
                                                         tgt,
                                                         device_complex(post),
                                                         device_complex(grid),
                                                         gs,
                                                         ker.taps,
                                                         ker,
                                                         device_complex(out));
    };
    if constexpr (DIM == 1) {
        launch(nv == 4   ? interp_kernel<T, MAXW, 4>
               : nv == 2 ? interp_kernel<T, MAXW, 2>
                         : interp_kernel<T, MAXW, 1>,
               blocks_for(n, 128),
               128);
    } else {
        constexpr int G = group_lanes(MAXW);
        launch(nv == 4   ? interp_group_kernel<T, DIM, MAXW, 4>
               : nv == 2 ? interp_group_kernel<T, DIM, MAXW, 2>
                         : interp_group_kernel<T, DIM, MAXW, 1>,
               blocks_for(n * G, interp_block),
               interp_block);
    }
    GPUFFT_CUDA_CHECK_LAUNCH();
}

template <typename T, int DIM>
void interp_dim(std::int64_t n,
                int ntransf,
                const int* order,
                const point_arrays<T>& tgt,
                const std::complex<T>* post,
                const std::complex<T>* grid,
                const grid_shape& gs,
                const kernel_spec& ker,
                std::complex<T>* out,
                cudaStream_t st)
{
    // Tap counts are compile-time bounds so the tap loops unroll into registers.
    const int W = ker.taps;
    auto f = W <= 8    ? interp_with<T, DIM, 8>
             : W <= 16 ? interp_with<T, DIM, 16>
                       : interp_with<T, DIM, max_taps>;
    f(n, ntransf, order, tgt, post, grid, gs, ker, out, st);
}

} // namespace

template <typename T>
void launch_interp(std::int64_t n,
                   int dim,
                   int ntransf,
                   const int* order,
                   const point_arrays<T>& tgt,
                   const std::complex<T>* post,
                   const std::complex<T>* grid,
                   const std::int64_t* cells,
                   const kernel_spec& ker,
                   std::complex<T>* out,
                   void* stream)
{
    grid_shape gs{};
    gs.total = 1;
    for (int d = 0; d < max_axes; ++d) {
        gs.cells[d] = cells[d];
        gs.total *= cells[d];
    }
    const cudaStream_t st = as_stream(stream);
    if (dim == 1)
        interp_dim<T, 1>(n, ntransf, order, tgt, post, grid, gs, ker, out, st);
    else if (dim == 2)
        interp_dim<T, 2>(n, ntransf, order, tgt, post, grid, gs, ker, out, st);
    else
        interp_dim<T, 3>(n, ntransf, order, tgt, post, grid, gs, ker, out, st);
}

#define GPUFFT_NUFFT3_INTERP(T)                            \
    template void launch_interp<T>(std::int64_t,           \
                                   int,                    \
                                   int,                    \
                                   const int*,             \
                                   const point_arrays<T>&, \
                                   const std::complex<T>*, \
                                   const std::complex<T>*, \
                                   const std::int64_t*,    \
                                   const kernel_spec&,     \
                                   std::complex<T>*,       \
                                   void*);

GPUFFT_NUFFT3_INTERP(float)
GPUFFT_NUFFT3_INTERP(double)

} // namespace nufft
} // namespace gpufft
} // namespace gr
