/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "host_transfer.h"
#include <algorithm>
#include <cstring>

namespace gr {
namespace gpufft {
namespace cuda {

host_stager::host_stager(std::size_t chunk_bytes) : d_chunk_bytes(chunk_bytes)
{
    // Record both events once so the first wait in each direction returns at once.
    for (auto& e : d_free)
        e.record(nullptr);
}

void host_stager::ensure_chunks()
{
    if (!d_chunk[0].get()) {
        d_chunk[0].allocate(d_chunk_bytes);
        d_chunk[1].allocate(d_chunk_bytes);
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
    ensure_chunks();
    auto* d = static_cast<unsigned char*>(dst);
    const auto* h = static_cast<const unsigned char*>(src);
    for (std::size_t off = 0, i = 0; off < bytes; off += d_chunk_bytes, i ^= 1) {
        const std::size_t len = std::min(d_chunk_bytes, bytes - off);
        d_free[i].synchronize(); // the DMA that last read chunk i is done
        std::memcpy(d_chunk[i].get(), h + off, len);
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
    ensure_chunks();
    auto* h = static_cast<unsigned char*>(dst);
    const auto* d = static_cast<const unsigned char*>(src);
    // Chunk k's DMA is enqueued before chunk k-1 is drained from staging, so one copy
    // is always in flight while the host copies the other out.
    std::size_t prev_off = 0, prev_len = 0;
    int prev = -1;
    for (std::size_t off = 0, i = 0; off < bytes; off += d_chunk_bytes, i ^= 1) {
        const std::size_t len = std::min(d_chunk_bytes, bytes - off);
        d_free[i].synchronize();
        GPUFFT_CUDA_CHECK(
            cudaMemcpyAsync(d_chunk[i].get(), d + off, len, cudaMemcpyDeviceToHost, s));
        d_free[i].record(s);
        if (prev >= 0) {
            d_free[prev].synchronize();
            std::memcpy(h + prev_off, d_chunk[prev].get(), prev_len);
        }
        prev = int(i);
        prev_off = off;
        prev_len = len;
    }
    d_free[prev].synchronize();
    std::memcpy(h + prev_off, d_chunk[prev].get(), prev_len);
}

} // namespace cuda
} // namespace gpufft
} // namespace gr
