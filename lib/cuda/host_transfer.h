/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_HOST_TRANSFER_H
#define INCLUDED_GPUFFT_HOST_TRANSFER_H

#include "cuda/cuda_resources.h"
#include <cstddef>

namespace gr {
namespace gpufft {
namespace cuda {

/*!
 * Host <-> device copies that run near the pinned rate whatever the host memory is.
 *
 * Pinned memory is copied asynchronously at the DMA rate (~52 GB/s on the GPU machine).
 * The driver copies pageable memory at 7-10 GB/s, limited by its single-threaded staging.
 * Here pageable data goes through a ring of pinned chunks owned by the stager: several
 * host threads (detail::shared_copier) fill or drain one chunk while the DMA engine moves
 * another, so the rate is that of the slower of the parallel memcpy and PCIe (measured on
 * an H200 host: 4x the driver's pageable rate at 2^27 complex64). Transfers of one chunk
 * or less have nothing to overlap and take the driver's path, which is faster there.
 */
class host_stager
{
public:
    explicit host_stager(std::size_t chunk_bytes = std::size_t(16) << 20);

    /*!
     * Enqueue host -> device on `s`. For pageable `src` this returns once `src` has been
     * read (the last DMA may still be in flight); for pinned `src` it returns at once and
     * the caller must keep `src` alive until `s` reaches this point.
     */
    void to_device(void* dst, const void* src, std::size_t bytes, cudaStream_t s);

    /*!
     * Device -> host on `s`. For pageable `dst` this blocks until `dst` holds the data;
     * for pinned `dst` it only enqueues (synchronize `s` before reading).
     */
    void to_host(void* dst, const void* src, std::size_t bytes, cudaStream_t s);

private:
    static constexpr int ring = 3;
    void ensure_chunks();

    std::size_t d_chunk_bytes;
    pinned_buffer<unsigned char> d_chunk[ring];
    event d_free[ring]; // recorded after the DMA that uses chunk i
};

} // namespace cuda
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_HOST_TRANSFER_H */
