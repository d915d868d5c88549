/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "core/parallel_copy.h"
#include "cuda/host_transfer.h"
#include <algorithm>

namespace gr {
namespace gpufft {
namespace cuda {

host_stager::host_stager(std::size_t chunk_bytes) : d_chunk_bytes(chunk_bytes) {}

void host_stager::ensure_chunks()
{
    if (d_chunk[0].get())
        return;
    for (int i = 0; i < ring; ++i) {
        d_chunk[i].allocate(d_chunk_bytes);
        d_free[i].record(nullptr); // so the first wait on each chunk returns at once
    }
}

void host_stager::to_device(void* dst, const void* src, std::size_t bytes, cudaStream_t s)
{
    if (bytes == 0)
        return;
    if (is_pinned(src)) {
        GPUFFT_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, s));
        return;
    }
    if (bytes <= d_chunk_bytes) { // nothing to overlap: the driver's staging is faster
        GPUFFT_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, s));
        GPUFFT_CUDA_CHECK(cudaStreamSynchronize(s)); // src may be reused on return
        return;
    }
    ensure_chunks();
    auto& copier = detail::shared_copier();
    auto* d = static_cast<unsigned char*>(dst);
    const auto* h = static_cast<const unsigned char*>(src);
    int i = 0;
    for (std::size_t off = 0; off < bytes; off += d_chunk_bytes, i = (i + 1) % ring) {
        const std::size_t len = std::min(d_chunk_bytes, bytes - off);
        d_free[i].synchronize(); // the DMA that last read chunk i is done
        copier.copy(d_chunk[i].get(), h + off, len);
        GPUFFT_CUDA_CHECK(
            cudaMemcpyAsync(d + off, d_chunk[i].get(), len, cudaMemcpyHostToDevice, s));
        d_free[i].record(s);
    }
}

void host_stager::to_host(void* dst, const void* src, std::size_t bytes, cudaStream_t s)
{
    if (bytes == 0)
        return;
    if (is_pinned(dst)) {
        GPUFFT_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, s));
        return;
    }
    if (bytes <= d_chunk_bytes) {
        GPUFFT_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, s));
        GPUFFT_CUDA_CHECK(cudaStreamSynchronize(s));
        return;
    }
    ensure_chunks();
    auto& copier = detail::shared_copier();
    auto* h = static_cast<unsigned char*>(dst);
    const auto* d = static_cast<const unsigned char*>(src);
    const std::size_t chunks = (bytes + d_chunk_bytes - 1) / d_chunk_bytes;
    auto enqueue = [&](std::size_t k) {
        const std::size_t off = k * d_chunk_bytes;
        const std::size_t len = std::min(d_chunk_bytes, bytes - off);
        const int i = int(k % ring);
        // A DMA of an earlier call on another stream may still read chunk i.
        GPUFFT_CUDA_CHECK(cudaStreamWaitEvent(s, d_free[i].get(), 0));
        GPUFFT_CUDA_CHECK(
            cudaMemcpyAsync(d_chunk[i].get(), d + off, len, cudaMemcpyDeviceToHost, s));
        d_free[i].record(s);
    };
    // Keep `ring` DMAs ahead of the host: chunk k + ring reuses chunk k's buffer once the
    // host has drained it.
    for (std::size_t k = 0; k < std::min<std::size_t>(ring, chunks); ++k)
        enqueue(k);
    for (std::size_t k = 0; k < chunks; ++k) {
        const std::size_t off = k * d_chunk_bytes;
        const std::size_t len = std::min(d_chunk_bytes, bytes - off);
        const int i = int(k % ring);
        d_free[i].synchronize();
        copier.copy(h + off, d_chunk[i].get(), len);
        if (k + ring < chunks)
            enqueue(k + ring);
    }
}

} // namespace cuda
} // namespace gpufft
} // namespace gr
