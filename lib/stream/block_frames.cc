/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "core/parallel_copy.h"
#include "stream/block_frames.h"

namespace gr {
namespace gpufft {
namespace stream {

namespace {

// A frame of `size` bytes, page-locked where CUDA gives it; none in place or when the
// size is refused (the assembler names it).
host_frame staging(std::int64_t size, bool staged, int device)
{
    if (!staged || size < 1)
        return host_frame();
    // host_frame counts complex float samples: the bytes rounded up to whole ones.
    const auto unit = std::int64_t(sizeof(std::complex<float>));
    return host_frame((size + unit - 1) / unit, true, device);
}

basic_frame_assembler<unsigned char>
cutter(std::int64_t size, std::int64_t hop, const host_frame& frame, bool staged)
{
    if (!staged || frame.data() == nullptr)
        return basic_frame_assembler<unsigned char>(size, hop);
    // A piece of 1 MiB or more is split over a few threads: one thread copies about
    // 10 GB/s, a fifth of PCIe.
    return basic_frame_assembler<unsigned char>(
        size,
        hop,
        reinterpret_cast<unsigned char*>(frame.data()),
        [](void* dst, const void* src, std::size_t bytes) {
            detail::shared_copier().copy(dst, src, bytes);
        });
}

} // namespace

block_frames::block_frames(std::int64_t size, std::int64_t hop, bool staged, int device)
    : d_pinned(staging(size, staged, device)), d_cut(cutter(size, hop, d_pinned, staged))
{
}

} // namespace stream
} // namespace gpufft
} // namespace gr
