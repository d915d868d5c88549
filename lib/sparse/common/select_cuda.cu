/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "cuda/cuda_check.h"
#include "sparse/common/block_select.cuh"
#include "sparse/common/select_cuda.h"
#include <cub/block/block_scan.cuh>
#include <cuda_runtime.h>
#include <stdexcept>
#include <string>

namespace gr {
namespace gpufft {
namespace detail {

namespace {

constexpr int bins = 4096;         // 12-bit digits
constexpr int find_threads = 1024; // a thread per 4 bins in the find step

// scratch: [0] the key bits chosen so far, [1] the rank within the values that share
// them, [2..] the histogram of the current digit.

// Histogram of the digit at `shift` (width `bits`) of the keys (select_key()) whose
// higher bits match the prefix.
__global__ void histogram_kernel(const float* __restrict__ values,
                                 long long count,
                                 unsigned* scratch,
                                 int shift,
                                 int bits)
{
    __shared__ unsigned local[bins];
    for (int i = threadIdx.x; i < bins; i += blockDim.x)
        local[i] = 0;
    __syncthreads();
    const unsigned prefix = scratch[0];
    const int high = shift + bits; // bits above the digit are fixed
    const unsigned high_mask = high >= 32 ? 0u : ~0u << high;
    const unsigned digit_mask = (1u << bits) - 1u;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < count;
         i += (long long)gridDim.x * blockDim.x) {
        const unsigned u = select_key(__float_as_uint(values[i]));
        if (((u ^ prefix) & high_mask) == 0)
            atomicAdd(&local[(u >> shift) & digit_mask], 1u);
    }
    __syncthreads();
    unsigned* hist = scratch + 2;
    for (int i = threadIdx.x; i < bins; i += blockDim.x)
        if (local[i])
            atomicAdd(&hist[i], local[i]);
}

// The digit whose bin holds the rank: appended to the prefix, the rank made relative
// to that bin, the histogram cleared for the next pass; the last pass writes *out.
__global__ void find_kernel(unsigned* scratch, int shift, float* out, bool last)
{
    using scan = cub::BlockScan<unsigned, find_threads>;
    __shared__ typename scan::TempStorage temp;
    constexpr int per = bins / find_threads;
    unsigned* hist = scratch + 2;
    unsigned c[per], total = 0;
    for (int j = 0; j < per; ++j) {
        c[j] = hist[threadIdx.x * per + j];
        total += c[j];
    }
    unsigned before;
    scan(temp).ExclusiveSum(total, before);
    const unsigned rank = scratch[1];
    __syncthreads(); // every thread has read scratch[1] before it changes
    for (int j = 0; j < per; ++j) {
        if (before <= rank && rank < before + c[j]) {
            const unsigned prefix =
                scratch[0] | (unsigned(threadIdx.x * per + j) << shift);
            scratch[0] = prefix;
            scratch[1] = rank - before;
            if (last)
                *out = __uint_as_float(select_unkey(prefix));
        }
        before += c[j];
    }
    for (int j = 0; j < per; ++j)
        hist[threadIdx.x * per + j] = 0;
}

__global__ void start_kernel(unsigned* scratch, unsigned rank)
{
    scratch[0] = 0;
    scratch[1] = rank;
}

__global__ void block_select_kernel(const float* values, int count, int rank, float* out)
{
    __shared__ float v[block_select_max];
    __shared__ unsigned hist[block_select_bins];
    for (int i = threadIdx.x; i < count; i += blockDim.x)
        v[i] = values[i];
    __syncthreads();
    const float r = block_select_nonneg(v, count, rank, hist);
    if (threadIdx.x == 0)
        *out = r;
}

} // namespace

void launch_block_select_nonneg(
    const float* values, int count, int rank, float* out, void* stream)
{
    if (count < 1 || count > block_select_max || rank < 0 || rank >= count)
        throw std::invalid_argument("launch_block_select_nonneg: count must be in [1, " +
                                    std::to_string(block_select_max) +
                                    "] and rank in [0, count)");
    block_select_kernel<<<1, 1024, 0, static_cast<cudaStream_t>(stream)>>>(
        values, count, rank, out);
    GPUFFT_CUDA_CHECK_LAUNCH();
}

void launch_select_nonneg(const float* values,
                          long long count,
                          long long rank,
                          unsigned* scratch,
                          float* out,
                          void* stream)
{
    auto st = static_cast<cudaStream_t>(stream);
    GPUFFT_CUDA_CHECK(cudaMemsetAsync(scratch + 2, 0, bins * sizeof(unsigned), st));
    start_kernel<<<1, 1, 0, st>>>(scratch, unsigned(rank));
    GPUFFT_CUDA_CHECK_LAUNCH();
    long long blocks = (count + 4 * 256 - 1) / (4 * 256);
    blocks = blocks < 1 ? 1 : (blocks > 264 ? 264 : blocks);
    const int shifts[3] = { 20, 8, 0 }, widths[3] = { 12, 12, 8 };
    for (int pass = 0; pass < 3; ++pass) {
        histogram_kernel<<<unsigned(blocks), 256, 0, st>>>(
            values, count, scratch, shifts[pass], widths[pass]);
        GPUFFT_CUDA_CHECK_LAUNCH();
        find_kernel<<<1, find_threads, 0, st>>>(scratch, shifts[pass], out, pass == 2);
        GPUFFT_CUDA_CHECK_LAUNCH();
    }
}

} // namespace detail
} // namespace gpufft
} // namespace gr
