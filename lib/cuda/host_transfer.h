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
 * Host <-> device copies for arrays that may be pinned or pageable.
 *
 * Pinned memory is copied asynchronously at the DMA rate (~52 GB/s on the GPU machine).
 * Pageable memory goes through the driver's own staging: measured on an H200 host, our
 * single-threaded staging through two pinned chunks (memcpy overlapped with DMA) moved
 * 7.6 GB/s against the driver's 10.3 GB/s, because the host memcpy is the bottleneck.
 * A multi-threaded staging copy could beat the driver; until then the driver path is used.
 */
class host_stager
{
public:
    /*!
     * Enqueue host -> device on `s`. For pageable `src` this returns once `src` has been
     * read; for pinned `src` it returns at once and the caller must keep `src` alive
     * until `s` reaches this point.
     */
    void to_device(void* dst, const void* src, std::size_t bytes, cudaStream_t s);

    /*!
     * Device -> host on `s`. For pageable `dst` this blocks until `dst` holds the data;
     * for pinned `dst` it only enqueues (synchronize `s` before reading).
     */
    void to_host(void* dst, const void* src, std::size_t bytes, cudaStream_t s);
};

} // namespace cuda
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_HOST_TRANSFER_H */
