/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_HOST_TRANSFER_H
#define INCLUDED_GPUFFT_HOST_TRANSFER_H

#include "cuda_resources.h"
#include <cstddef>

namespace gr {
namespace gpufft {
namespace cuda {

/*!
 * Host <-> device copies that run at the pinned rate whatever the host memory is.
 *
 * Pageable memory copies at ~7 GB/s against ~52 GB/s pinned on the GPU machine, so
 * pageable transfers are staged through two pinned chunks owned here: the memcpy into one
 * chunk overlaps the DMA out of the other. Pinned host memory is copied directly.
 */
class host_stager
{
public:
    explicit host_stager(std::size_t chunk_bytes = std::size_t(8) << 20);

    /*!
     * Enqueue host -> device on `s`. For pageable `src` this returns once `src` has been
     * read (the DMA may still be in flight); for pinned `src` it returns at once and the
     * caller must keep `src` alive until `s` reaches this point.
     */
    void to_device(void* dst, const void* src, std::size_t bytes, cudaStream_t s);

    /*!
     * Device -> host on `s`. For pageable `dst` this blocks until `dst` holds the data;
     * for pinned `dst` it only enqueues (synchronize `s` before reading).
     */
    void to_host(void* dst, const void* src, std::size_t bytes, cudaStream_t s);

private:
    void ensure_chunks();

    std::size_t d_chunk_bytes;
    pinned_buffer<unsigned char> d_chunk[2];
    event d_free[2]; // recorded when the DMA using chunk i has finished
};

} // namespace cuda
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_HOST_TRANSFER_H */
