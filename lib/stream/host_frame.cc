/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "stream/host_frame.h"
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>

#ifdef GPUFFT_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace gr {
namespace gpufft {
namespace stream {

host_frame::host_frame(std::int64_t samples, bool pinned, int device) : d_size(samples)
{
    if (samples < 1)
        throw std::invalid_argument("host_frame: size must be >= 1");
    const std::size_t bytes = std::size_t(samples) * sizeof(std::complex<float>);
#ifdef GPUFFT_HAVE_CUDA
    if (pinned) {
        // A failed runtime call stays in the thread's last error, where the next
        // launch check would report it as its own: clear what fails here. A device
        // below 0 (a CPU engine's) pins for whichever device is current.
        int previous = -1;
        bool switch_device = false;
        if (device >= 0 && cudaGetDevice(&previous) == cudaSuccess &&
            previous != device) {
            switch_device = cudaSetDevice(device) == cudaSuccess;
            if (!switch_device)
                cudaGetLastError();
        }
        void* p = nullptr;
        const bool ok = cudaMallocHost(&p, bytes) == cudaSuccess;
        if (switch_device)
            cudaSetDevice(previous);
        if (ok) {
            d_data = static_cast<std::complex<float>*>(p);
            d_pinned = true;
            return;
        }
        cudaGetLastError(); // clear it: pageable memory below works, only slower
    }
#else
    (void)pinned;
    (void)device;
#endif
    const std::size_t rounded = (bytes + 63) / 64 * 64;
    d_data = static_cast<std::complex<float>*>(std::aligned_alloc(64, rounded));
    if (!d_data)
        throw std::runtime_error("fft_size: cannot allocate a frame of " +
                                 std::to_string(samples) + " samples (" +
                                 std::to_string(bytes >> 20) + " MiB) in host memory");
}

host_frame::~host_frame() { release(); }

host_frame::host_frame(host_frame&& o) noexcept
    : d_data(std::exchange(o.d_data, nullptr)),
      d_size(std::exchange(o.d_size, 0)),
      d_pinned(std::exchange(o.d_pinned, false))
{
}

host_frame& host_frame::operator=(host_frame&& o) noexcept
{
    if (this != &o) {
        release();
        d_data = std::exchange(o.d_data, nullptr);
        d_size = std::exchange(o.d_size, 0);
        d_pinned = std::exchange(o.d_pinned, false);
    }
    return *this;
}

void host_frame::release() noexcept
{
    if (!d_data)
        return;
#ifdef GPUFFT_HAVE_CUDA
    if (d_pinned)
        cudaFreeHost(d_data);
    else
        std::free(d_data);
#else
    std::free(d_data);
#endif
    d_data = nullptr;
    d_size = 0;
}

} // namespace stream
} // namespace gpufft
} // namespace gr
