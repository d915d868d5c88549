/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "host_transfer.h"

namespace gr {
namespace gpufft {
namespace cuda {

void host_stager::to_device(void* dst, const void* src, std::size_t bytes, cudaStream_t s)
{
    if (bytes == 0)
        return;
    GPUFFT_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, s));
    if (!is_pinned(src)) // the caller may reuse src at once
        GPUFFT_CUDA_CHECK(cudaStreamSynchronize(s));
}

void host_stager::to_host(void* dst, const void* src, std::size_t bytes, cudaStream_t s)
{
    if (bytes == 0)
        return;
    GPUFFT_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, s));
    if (!is_pinned(dst))
        GPUFFT_CUDA_CHECK(cudaStreamSynchronize(s));
}

} // namespace cuda
} // namespace gpufft
} // namespace gr
