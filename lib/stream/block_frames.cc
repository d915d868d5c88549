/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "core/parallel_copy.h"
#include "stream/block_frames.h"
#include <stdexcept>
#include <string>

namespace gr {
namespace gpufft {
namespace stream {

block_frames::block_frames(std::int64_t size, std::int64_t hop, bool staged, int device)
    : d_size(size), d_hop(hop), d_staged(staged)
{
    if (size < 1)
        throw std::invalid_argument("fft_size: must be >= 1, got " +
                                    std::to_string(size));
    if (hop < 1)
        throw std::invalid_argument("hop: must be >= 1, got " + std::to_string(hop));
    if (staged) {
        // host_frame counts complex float samples: the bytes rounded up to whole ones.
        const auto unit = std::int64_t(sizeof(std::complex<float>));
        d_pinned = host_frame((size + unit - 1) / unit, true, device);
        d_buffer = reinterpret_cast<unsigned char*>(d_pinned.data());
    } else {
        d_own.resize(std::size_t(size));
        d_buffer = d_own.data();
    }
}

void block_frames::copy(unsigned char* dst, const unsigned char* src, std::int64_t bytes)
{
    if (d_staged)
        detail::shared_copier().copy(dst, src, std::size_t(bytes));
    else
        std::memcpy(dst, src, std::size_t(bytes));
}

} // namespace stream
} // namespace gpufft
} // namespace gr
