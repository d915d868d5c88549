/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "large/large_copy_lane.h"
#include <stdexcept>

namespace gr {
namespace gpufft {
namespace detail {

using i64 = std::int64_t;

copy_lane::copy_lane(cudaStream_t stream,
                     cudaStream_t helper,
                     cudaMemcpyKind kind,
                     bool split,
                     std::size_t elem_bytes,
                     large_fft_trace& trace)
    : d_stream(stream),
      d_helper(helper),
      d_kind(kind),
      d_split(split),
      d_elem(elem_bytes),
      d_trace(trace)
{
}

void copy_lane::copy_in(const host_block* first,
                        const host_block* last,
                        const void* host,
                        void* dev)
{
    if (d_kind != cudaMemcpyHostToDevice)
        throw std::logic_error("copy_lane::copy_in on a device-to-host lane");
    copy(first,
         last,
         static_cast<char*>(const_cast<void*>(host)),
         static_cast<char*>(dev));
}

void copy_lane::copy_out(const std::vector<host_block>& blocks,
                         void* host,
                         const void* dev)
{
    if (d_kind != cudaMemcpyDeviceToHost)
        throw std::logic_error("copy_lane::copy_out on a host-to-device lane");
    copy(blocks.data(),
         blocks.data() + blocks.size(),
         static_cast<char*>(host),
         static_cast<char*>(const_cast<void*>(dev)));
}

void copy_lane::issue(const host_block& b,
                      i64 r0,
                      i64 nr,
                      i64 c0,
                      i64 nc,
                      char* host,
                      char* dev,
                      cudaStream_t on) const
{
    if (nr <= 0 || nc <= 0)
        return;
    const std::size_t e = d_elem;
    char* h = host + (b.host_offset + r0 * b.pitch + c0) * e;
    char* d = dev + (b.dev_offset + r0 * b.dpitch() + c0) * e;
    if (d_kind == cudaMemcpyHostToDevice)
        GPUFFT_CUDA_CHECK(
            cudaMemcpy2DAsync(d, b.dpitch() * e, h, b.pitch * e, nc * e, nr, d_kind, on));
    else
        GPUFFT_CUDA_CHECK(
            cudaMemcpy2DAsync(h, b.pitch * e, d, b.dpitch() * e, nc * e, nr, d_kind, on));
}

void copy_lane::copy(const host_block* first,
                     const host_block* last,
                     char* host,
                     char* dev)
{
    if (first == last)
        return;
    large_fft_trace::issue_clock clock(d_trace);
    if (!d_split) {
        for (const host_block* b = first; b != last; ++b)
            issue(*b, 0, b->rows, 0, b->width, host, dev, d_stream);
        return;
    }
    d_fork.record(d_stream);
    GPUFFT_CUDA_CHECK(cudaStreamWaitEvent(d_helper, d_fork.get(), 0));
    for (const host_block* b = first; b != last; ++b) {
        if (b->rows > 1) {
            const i64 h = b->rows / 2;
            issue(*b, 0, h, 0, b->width, host, dev, d_stream);
            issue(*b, h, b->rows - h, 0, b->width, host, dev, d_helper);
        } else {
            const i64 h = b->width / 2;
            issue(*b, 0, 1, 0, h, host, dev, d_stream);
            issue(*b, 0, 1, h, b->width - h, host, dev, d_helper);
        }
    }
    d_join.record(d_helper);
    GPUFFT_CUDA_CHECK(cudaStreamWaitEvent(d_stream, d_join.get(), 0));
}

} // namespace detail
} // namespace gpufft
} // namespace gr
