/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Small pieces both CUDA backends of the sparse FFT (exact and robust) set up with.

#ifndef INCLUDED_GPUFFT_SPARSE_CUDA_SETUP_H
#define INCLUDED_GPUFFT_SPARSE_CUDA_SETUP_H

#include "cuda/cuda_check.h"
#include "cuda/cuda_resources.h"
#include "sparse/common/sparse_params.h"
#include <gnuradio/gpufft/dense_fft_plan.h>
#include <cuda_runtime.h>
#include <vector>

namespace gr {
namespace gpufft {
namespace detail {

//! Options of the batched cuFFT plans the sparse backends run on device_id.
inline dense_fft_options cuda_fft_options(int device_id)
{
    dense_fft_options o;
    o.backend = backend::cuda;
    o.device_id = device_id;
    return o;
}

//! The smallest power of two >= v (hash-table sizes).
inline unsigned long long pow2_at_least(unsigned long long v)
{
    unsigned long long p = 1;
    while (p < v)
        p <<= 1;
    return p;
}

/*!
 * What every hash of a plan reads, on the device: the filter taps, each hash's sample
 * walk (first index and step) and each loop's permutation. Built on the host in
 * O(window) and copied once per plan, on `stream` (from pageable memory, so the host
 * vectors may go as soon as the copies are queued).
 */
struct device_hash_plan {
    cuda::device_buffer<float> taps;
    cuda::device_buffer<sparse_hash_walk> walks;
    cuda::device_buffer<unsigned long long> sigma, sigma_inv, tau;

    void upload(const sparse_params& p, cudaStream_t stream)
    {
        const int H = p.hashes(), loops = p.c.loops, per_loop = H / loops;
        const std::vector<float> host_taps = make_window(p);
        std::vector<sparse_hash_walk> host_walks(static_cast<std::size_t>(H));
        for (int h = 0; h < H; ++h)
            host_walks[h] = { p.sample_index(h, -p.half_window), p.sigma[h / per_loop] };
        taps.allocate(host_taps.size());
        walks.allocate(host_walks.size());
        sigma.allocate(loops);
        sigma_inv.allocate(loops);
        tau.allocate(loops);
        copy(taps.get(), host_taps.data(), host_taps.size() * sizeof(float), stream);
        copy(walks.get(),
             host_walks.data(),
             host_walks.size() * sizeof(sparse_hash_walk),
             stream);
        copy(sigma.get(), p.sigma.data(), loops * sizeof(std::uint64_t), stream);
        copy(sigma_inv.get(), p.sigma_inv.data(), loops * sizeof(std::uint64_t), stream);
        copy(tau.get(), p.tau.data(), loops * sizeof(std::uint64_t), stream);
    }

private:
    static void copy(void* dst, const void* src, std::size_t bytes, cudaStream_t stream)
    {
        GPUFFT_CUDA_CHECK(
            cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream));
    }
};

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_SPARSE_CUDA_SETUP_H */
