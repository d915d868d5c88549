/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_STREAM_BLOCK_FRAMES_H
#define INCLUDED_GPUFFT_STREAM_BLOCK_FRAMES_H

#include "stream/host_frame.h"
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace gr {
namespace gpufft {
namespace stream {

/*!
 * The sparse_fft block's frames, cut from its input as bytes: `size` bytes every `hop`
 * bytes, with the rules of basic_frame_assembler (frame_assembler.h): overlap kept,
 * samples between frames dropped, offsets counted from the first byte fed.
 *
 * Two ways to hand a frame out:
 *  - in place (the default, the CPU engines): a frame lying whole in one piece is handed
 *    out where it lies, without a copy; the block then holds it in GNU Radio's buffer
 *    for the whole transform. Only a frame that straddles pieces is copied.
 *  - staged (constructed so; the CUDA engine): every piece is copied into the frame's own
 *    buffer as it arrives, page-locked where CUDA gives it, so the block can consume
 *    its input at once. The upstream block then keeps the whole upstream buffer to
 *    write into while the frame goes to the GPU and is transformed (with GNU Radio's
 *    default buffer of about 2 frames it would otherwise stop for every transform), and
 *    the engine's copy to the GPU runs from page-locked memory at the DMA rate instead
 *    of through the driver's pageable path. Frames and their offsets are the same
 *    either way.
 */
class block_frames
{
public:
    /*!
     * In place, or with `staged` every frame assembled in an own buffer of `size` bytes,
     * page-locked where CUDA can provide it (in the context of CUDA device `device`),
     * the pieces copied with the process's parallel copier. The buffer is allocated
     * here. Throws std::invalid_argument naming fft_size or hop when below 1.
     */
    block_frames(std::int64_t size,
                 std::int64_t hop,
                 bool staged = false,
                 int device = -1);

    bool staged() const { return d_staged; }
    //! The staged buffer is page-locked.
    bool pinned() const { return d_pinned.pinned(); }

    std::int64_t size() const { return d_size; }
    std::int64_t hop() const { return d_hop; }
    //! Frames handed out so far.
    std::uint64_t frames() const { return d_frames; }
    //! Offset of the next frame's first byte.
    std::uint64_t next_frame_offset() const { return d_next; }
    //! Offset one past the last byte of the last frame handed out (0: none yet).
    std::uint64_t covered_until() const
    {
        return d_frames == 0 ? 0 : d_next - std::uint64_t(d_hop) + std::uint64_t(d_size);
    }
    //! Bytes that complete the next frame (drops between frames included).
    std::int64_t needed() const { return d_skip + (d_size - d_fill); }

    /*!
     * Takes bytes from `in` (n of them, continuing the stream) and calls
     * `on_frame(const unsigned char* frame, std::uint64_t first_offset)` for each frame
     * they complete, as long as `room()` says another frame may be handed out. Returns
     * the bytes consumed; the rest must be fed again. In place, with hop < size, the
     * overlap of a frame handed out in place is not consumed, so it comes again in the
     * next feed; staged, everything up to the first frame without room is consumed.
     */
    template <class Room, class OnFrame>
    std::int64_t
    feed(const unsigned char* in, std::int64_t n, Room&& room, OnFrame&& on_frame)
    {
        std::int64_t pos = 0;
        while (pos < n) {
            if (d_skip > 0) {
                const std::int64_t take = std::min(d_skip, n - pos);
                pos += take;
                d_skip -= take;
                continue;
            }
            const bool in_place = !d_staged && d_fill == 0 && n - pos >= d_size;
            const bool completes = in_place || n - pos >= d_size - d_fill;
            if (completes && !room())
                break;
            if (in_place) {
                emit(in + pos, on_frame);
                pos += std::min(d_hop, d_size);
                d_skip = std::max<std::int64_t>(0, d_hop - d_size);
                continue;
            }
            const std::int64_t take = std::min(d_size - d_fill, n - pos);
            copy(d_buffer + d_fill, in + pos, take);
            d_fill += take;
            pos += take;
            if (d_fill < d_size)
                continue;
            emit(d_buffer, on_frame);
            if (d_hop < d_size) {
                std::memmove(d_buffer, d_buffer + d_hop, std::size_t(d_size - d_hop));
                d_fill = d_size - d_hop;
            } else {
                d_fill = 0;
                d_skip = d_hop - d_size;
            }
        }
        return pos;
    }

    //! Starts again at offset 0, dropping a partly filled frame.
    void reset()
    {
        d_fill = d_skip = 0;
        d_next = 0;
        d_frames = 0;
    }

private:
    template <class OnFrame>
    void emit(const unsigned char* frame, OnFrame& on_frame)
    {
        const std::uint64_t first = d_next;
        d_next += std::uint64_t(d_hop);
        ++d_frames;
        on_frame(frame, first);
    }
    //! memcpy in place; the parallel copier when staged (a piece of 1 MiB or more is
    //! split over a few threads: one thread copies ~10 GB/s, a fifth of PCIe).
    void copy(unsigned char* dst, const unsigned char* src, std::int64_t bytes);

    const std::int64_t d_size, d_hop;
    const bool d_staged;
    std::vector<unsigned char> d_own; //!< in place: frames that straddle pieces
    host_frame d_pinned;              //!< staged: every frame
    unsigned char* d_buffer = nullptr;
    std::int64_t d_fill = 0; //!< bytes of the next frame already in d_buffer
    std::int64_t d_skip = 0; //!< bytes still to drop before the next frame
    std::uint64_t d_next = 0;
    std::uint64_t d_frames = 0;
};

} // namespace stream
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_STREAM_BLOCK_FRAMES_H */
