/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_STREAM_HOST_FRAME_H
#define INCLUDED_GPUFFT_STREAM_HOST_FRAME_H

#include "core/host_memory.h"
#include <complex>
#include <cstddef>
#include <cstdint>

namespace gr {
namespace gpufft {
namespace stream {

using detail::host_available_memory; // lib/core/host_memory.h
using detail::host_physical_memory;

/*!
 * One frame of complex samples in host memory. Page-locked (cudaMallocHost) when
 * `pinned` is asked for and CUDA can provide it, so the engine's copies to the GPU run
 * at full PCIe rate instead of through a pageable bounce; otherwise ordinary 64-byte
 * aligned memory. Pages are not touched here: the first frame fill does that.
 * Throws std::runtime_error naming the size when the memory cannot be had.
 */
class host_frame
{
public:
    host_frame() = default;
    //! `device`: the CUDA device whose context allocates pinned memory (the engine's),
    //! so a flowgraph on GPU 3 does not open a context on GPU 0.
    host_frame(std::int64_t samples, bool pinned, int device = 0);
    ~host_frame();
    host_frame(host_frame&& o) noexcept;
    host_frame& operator=(host_frame&& o) noexcept;
    host_frame(const host_frame&) = delete;
    host_frame& operator=(const host_frame&) = delete;

    std::complex<float>* data() const { return d_data; }
    std::int64_t size() const { return d_size; }
    bool pinned() const { return d_pinned; }

private:
    void release() noexcept;

    std::complex<float>* d_data = nullptr;
    std::int64_t d_size = 0;
    bool d_pinned = false;
};

} // namespace stream
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_STREAM_HOST_FRAME_H */
