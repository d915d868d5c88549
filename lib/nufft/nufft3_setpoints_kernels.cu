/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// set_points kernels of the type-3 NUFFT (nufft3_cuda_kernels.h): extents (block
// partials, reduced on the host), the sources sorted by bin (a CUB radix sort of
// (bin, index) pairs over the bits the bins need; bin starts and counts from the
// sorted keys), first cell / offset / centring phase gathered in sorted order,
// subproblems of at most max_subproblem sources per bin, per target its placement and
// correction, and the grid's pre-correction.

#include "nufft/nufft3_cuda_device.cuh"
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <type_traits>
#include <algorithm>

namespace gr {
namespace gpufft {
namespace nufft {

namespace {

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

/*!
 * Kernels that loop over axes take their number as a template argument (with_dim): with
 * a bound known only at run time, the per-axis arrays below and the by-value pointer
 * arrays they index (source_args, point_arrays, centres) are kept in local memory, which
 * every thread writes and which goes to DRAM like any global store once L2 evicts it,
 * on top of the kernel's real outputs.
 */
template <typename F>
void with_dim(int dim, F&& f)
{
    switch (dim) {
    case 1:
        f(std::integral_constant<int, 1>{});
        break;
    case 2:
        f(std::integral_constant<int, 2>{});
        break;
    default:
        f(std::integral_constant<int, 3>{});
        break;
    }
}

//! Source j's first cell and offset per axis; returns its bin, axis 0 fastest.
template <int Dim>
__device__ __forceinline__ int
place(const source_args& a, long long j, int first[max_axes], double z0[max_axes])
{
    int bin = 0;
#pragma unroll
    for (int d = Dim - 1; d >= 0; --d) {
        long long f;
        split_coordinate(
            __ldg(a.x[d] + j), a.axis[d].centre, a.axis[d].h, a.half_width, f, z0[d]);
        first[d] = int(f) + a.axis[d].half_cells;
        bin = bin * a.axis[d].nbins + first[d] / a.axis[d].bin;
    }
    return bin;
}

//! The sort's input pairs: key = the source's bin, value = its index.
template <int Dim>
__global__ void source_key_kernel(source_args a, unsigned* keys, int* index)
{
    const long long j = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (j >= a.n)
        return;
    int first[max_axes];
    double z0[max_axes];
    keys[j] = unsigned(place<Dim>(a, j, first, z0));
    index[j] = int(j);
}

//! end[bin] = one past the last sorted position of each bin that holds sources, found
//! where the sorted key changes (end zeroed by the caller; each entry written once).
__global__ void bin_end_kernel(const unsigned* keys, long long n, int* end)
{
    const long long pos = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (pos >= n)
        return;
    const unsigned k = keys[pos];
    if (pos + 1 == n || keys[pos + 1] != k)
        end[k] = int(pos + 1);
}

//! Bins are contiguous in sorted order, so a bin starts where the last non-empty bin
//! before it ends: start = exclusive max-scan of end (0 for the first), also for an
//! empty bin, whose end is 0.
struct max_op {
    __host__ __device__ int operator()(int x, int y) const { return x > y ? x : y; }
};

//! count[b] = end[b] - start[b] in place; 0 for an empty bin (end 0).
__global__ void bin_count_kernel(const int* start, int nbins, int* end_count)
{
    const int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= nbins)
        return;
    const int e = end_count[b];
    end_count[b] = e > start[b] ? e - start[b] : 0;
}

/*!
 * The sorted arrays, written in order (one random 8-byte read per coordinate instead of
 * random writes to every array: a scatter costs a 32-byte sector per 4-byte store).
 */
struct centres {
    double s[max_axes];
};

template <typename T, int Dim>
__global__ void gather_sources_kernel(source_args a,
                                      const int* __restrict__ perm,
                                      point_arrays<T> out,
                                      typename complex_of<T>::type* prephase,
                                      centres sc,
                                      double sign)
{
    const long long pos = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (pos >= a.n)
        return;
    const int j = perm[pos];
    int first[max_axes];
    double z0[max_axes];
    place<Dim>(a, j, first, z0);
    double phase = 0;
#pragma unroll
    for (int d = 0; d < Dim; ++d) {
        out.first[d][pos] = first[d];
        out.z0[d][pos] = T(z0[d]);
        phase += sc.s[d] * (__ldg(a.x[d] + j) - a.axis[d].centre);
    }
    if (prephase) {
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

struct target_axes {
    target_axis a[max_axes];
};

template <typename T, int Dim>
__global__ void targets_kernel(target_axes ta,
                               long long n,
                               kernel_spec ker,
                               double sign,
                               const int* __restrict__ order,
                               point_arrays<T> out,
                               typename complex_of<T>::type* post)
{
    const long long j = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (j >= n)
        return;
    const long long k = order ? order[j] : j;
    double phase = 0;
    T khat = 1;
#pragma unroll
    for (int d = 0; d < Dim; ++d) {
        const target_axis& a = ta.a[d];
        const double s = a.s[k];
        const double v = (s - a.centre) / a.ds;
        long long f;
        double z;
        split_coordinate(s, a.centre, a.ds, ker.half_width, f, z);
        out.first[d][j] = int(f);
        out.z0[d][j] = T(z);
        phase += s * a.x_centre;
        khat *= kernel_transform<T>(ker, T(v * a.xi_per_cell));
    }
    double sn, cs;
    sincos(sign * phase, &sn, &cs);
    post[j] = { T(cs / double(khat)), T(sn / double(khat)) };
}

// The tile of each target's first cell, tiles numbered with axis 0 fastest (the grid's
// layout); order = the identity, for the sort to carry along.
template <int Dim>
__global__ void target_key_kernel(target_axes ta,
                                  long long n,
                                  double half_width,
                                  long long tiles0,
                                  long long tiles1,
                                  long long cells0,
                                  long long cells1,
                                  long long cells2,
                                  unsigned* keys,
                                  int* order)
{
    const long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    const long long cells[3] = { cells0, cells1, cells2 };
    long long key = 0, scale = 1;
#pragma unroll
    for (int d = 0; d < Dim; ++d) {
        const target_axis& a = ta.a[d];
        long long f;
        double z;
        split_coordinate(a.s[k], a.centre, a.ds, half_width, f, z);
        f %= cells[d];
        if (f < 0)
            f += cells[d];
        key += scale * (f / target_tile);
        scale *= d == 0 ? tiles0 : tiles1;
    }
    keys[k] = unsigned(key);
    order[k] = int(k);
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

} // namespace

void launch_extent(const double* v, std::int64_t n, double* partial, void* stream)
{
    extent_kernel<<<extent_blocks, threads_per_block, 0, as_stream(stream)>>>(
        v, n, partial);
    GPUFFT_CUDA_CHECK_LAUNCH();
}

std::size_t exclusive_scan_bytes(int n)
{
    std::size_t bytes = 0;
    GPUFFT_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(
        nullptr, bytes, static_cast<const int*>(nullptr), static_cast<int*>(nullptr), n));
    return bytes;
}

void launch_exclusive_scan(const int* in,
                           int* out,
                           int n,
                           void* scratch,
                           std::size_t scratch_bytes,
                           void* stream)
{
    GPUFFT_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(
        scratch, scratch_bytes, in, out, n, as_stream(stream)));
}

namespace {

//! Bits of the sort keys: enough for bins 0 .. nbins - 1 (fewer bits, fewer passes).
int bin_key_bits(int nbins)
{
    int bits = 0;
    while (bits < 32 && (1ll << bits) < nbins)
        ++bits;
    return bits;
}

} // namespace

std::size_t sort_sources_bytes(std::int64_t n, int nbins)
{
    cub::DoubleBuffer<unsigned> keys(nullptr, nullptr);
    cub::DoubleBuffer<int> index(nullptr, nullptr);
    std::size_t sort = 0, scan = 0;
    GPUFFT_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
        nullptr, sort, keys, index, int(n), 0, bin_key_bits(nbins)));
    GPUFFT_CUDA_CHECK(cub::DeviceScan::ExclusiveScan(nullptr,
                                                     scan,
                                                     static_cast<const int*>(nullptr),
                                                     static_cast<int*>(nullptr),
                                                     max_op{},
                                                     0,
                                                     nbins));
    return std::max(sort, scan);
}

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
                         void* stream)
{
    const cudaStream_t st = as_stream(stream);
    const long long n = a.n;
    with_dim(dim, [&](auto D) {
        source_key_kernel<decltype(D)::value>
            <<<blocks_for(n), threads_per_block, 0, st>>>(a, keys, perm);
    });
    GPUFFT_CUDA_CHECK_LAUNCH();
    // The double-buffer form: the pointer form would add a copy of the keys and indices
    // to the scratch. CUB says which half ends up holding them.
    cub::DoubleBuffer<unsigned> k(keys, keys + n);
    cub::DoubleBuffer<int> index(perm, alt);
    GPUFFT_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
        scratch, scratch_bytes, k, index, int(n), 0, bin_key_bits(nbins), st));
    GPUFFT_CUDA_CHECK(cudaMemsetAsync(bin_count, 0, nbins * sizeof(int), st));
    bin_end_kernel<<<blocks_for(n), threads_per_block, 0, st>>>(
        k.Current(), n, bin_count);
    GPUFFT_CUDA_CHECK_LAUNCH();
    GPUFFT_CUDA_CHECK(cub::DeviceScan::ExclusiveScan(
        scratch, scratch_bytes, bin_count, bin_start, max_op{}, 0, nbins, st));
    bin_count_kernel<<<blocks_for(nbins), threads_per_block, 0, st>>>(
        bin_start, nbins, bin_count);
    GPUFFT_CUDA_CHECK_LAUNCH();
    return index.Current();
}

template <typename T>
void launch_gather_sources(const source_args& a,
                           int dim,
                           const int* perm,
                           const point_arrays<T>& out,
                           std::complex<T>* prephase,
                           const double* s_centre,
                           double sign,
                           void* stream)
{
    centres sc{};
    for (int d = 0; d < dim; ++d)
        sc.s[d] = s_centre[d];
    with_dim(dim, [&](auto D) {
        gather_sources_kernel<T, decltype(D)::value>
            <<<blocks_for(a.n), threads_per_block, 0, as_stream(stream)>>>(
                a, perm, out, device_complex(prephase), sc, sign);
    });
    GPUFFT_CUDA_CHECK_LAUNCH();
}

void launch_subproblem_count(const int* count, int nbins, int* nsub, void* stream)
{
    subproblem_count_kernel<<<blocks_for(nbins),
                              threads_per_block,
                              0,
                              as_stream(stream)>>>(count, nbins, nsub);
    GPUFFT_CUDA_CHECK_LAUNCH();
}

void launch_subproblem_fill(const int* nsub,
                            const int* sub_start,
                            int nbins,
                            int* sub_bin,
                            int* sub_offset,
                            int* total,
                            void* stream)
{
    subproblem_fill_kernel<<<blocks_for(nbins),
                             threads_per_block,
                             0,
                             as_stream(stream)>>>(
        nsub, sub_start, nbins, sub_bin, sub_offset, total);
    GPUFFT_CUDA_CHECK_LAUNCH();
}

template <typename T>
void launch_targets(const target_axis* axes,
                    int dim,
                    std::int64_t n,
                    const kernel_spec& ker,
                    double sign,
                    const int* order,
                    const point_arrays<T>& out,
                    std::complex<T>* post,
                    void* stream)
{
    target_axes ta{};
    for (int d = 0; d < dim; ++d)
        ta.a[d] = axes[d];
    with_dim(dim, [&](auto D) {
        targets_kernel<T, decltype(D)::value>
            <<<blocks_for(n), threads_per_block, 0, as_stream(stream)>>>(
                ta, n, ker, sign, order, out, device_complex(post));
    });
    GPUFFT_CUDA_CHECK_LAUNCH();
}

std::size_t target_order_bytes(std::int64_t n)
{
    std::size_t bytes = 0;
    GPUFFT_CUDA_CHECK(
        cub::DeviceRadixSort::SortPairs(nullptr,
                                        bytes,
                                        static_cast<const unsigned*>(nullptr),
                                        static_cast<unsigned*>(nullptr),
                                        static_cast<const int*>(nullptr),
                                        static_cast<int*>(nullptr),
                                        int(n)));
    return bytes;
}

void launch_target_order(const target_axis* axes,
                         int dim,
                         std::int64_t n,
                         double half_width,
                         const std::int64_t* cells,
                         unsigned* keys,
                         int* order,
                         void* scratch,
                         std::size_t scratch_bytes,
                         void* stream)
{
    target_axes ta{};
    long long tiles[3] = { 1, 1, 1 }, total = 1;
    for (int d = 0; d < dim; ++d) {
        ta.a[d] = axes[d];
        tiles[d] = (cells[d] + target_tile - 1) / target_tile;
        total *= tiles[d];
    }
    int bits = 1;
    while (bits < 32 && (1ll << bits) < total)
        ++bits;
    const cudaStream_t st = as_stream(stream);
    // keys[0..n) and order[0..n) hold the unsorted pairs, keys[n..2n) and order[n..2n)
    // the sorted ones.
    with_dim(dim, [&](auto D) {
        target_key_kernel<decltype(D)::value>
            <<<blocks_for(n), threads_per_block, 0, st>>>(ta,
                                                          n,
                                                          half_width,
                                                          tiles[0],
                                                          tiles[1],
                                                          cells[0],
                                                          cells[1],
                                                          cells[2],
                                                          keys,
                                                          order);
    });
    GPUFFT_CUDA_CHECK_LAUNCH();
    GPUFFT_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
        scratch, scratch_bytes, keys, keys + n, order, order + n, int(n), 0, bits, st));
}

template <typename T>
void launch_precorrection(const kernel_spec& ker, std::int64_t M, T* out, void* stream)
{
    precorrection_kernel<T>
        <<<blocks_for(M), threads_per_block, 0, as_stream(stream)>>>(ker, M, out);
    GPUFFT_CUDA_CHECK_LAUNCH();
}

#define GPUFFT_NUFFT3_SETPOINTS(T)                                 \
    template void launch_gather_sources<T>(const source_args&,     \
                                           int,                    \
                                           const int*,             \
                                           const point_arrays<T>&, \
                                           std::complex<T>*,       \
                                           const double*,          \
                                           double,                 \
                                           void*);                 \
    template void launch_targets<T>(const target_axis*,            \
                                    int,                           \
                                    std::int64_t,                  \
                                    const kernel_spec&,            \
                                    double,                        \
                                    const int*,                    \
                                    const point_arrays<T>&,        \
                                    std::complex<T>*,              \
                                    void*);                        \
    template void launch_precorrection<T>(const kernel_spec&, std::int64_t, T*, void*);

GPUFFT_NUFFT3_SETPOINTS(float)
GPUFFT_NUFFT3_SETPOINTS(double)

} // namespace nufft
} // namespace gpufft
} // namespace gr
