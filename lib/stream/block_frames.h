/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_STREAM_BLOCK_FRAMES_H
#define INCLUDED_GPUFFT_STREAM_BLOCK_FRAMES_H

#include "stream/frame_assembler.h"
#include "stream/host_frame.h"
#include <cstdint>

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

    bool staged() const { return d_cut.staged(); }
    //! The staged buffer is page-locked.
    bool pinned() const { return d_pinned.pinned(); }

    std::int64_t size() const { return d_cut.size(); }
    std::int64_t hop() const { return d_cut.hop(); }
    //! Frames handed out so far.
    std::uint64_t frames() const { return d_cut.frames(); }
    //! Offset of the next frame's first byte.
    std::uint64_t next_frame_offset() const { return d_cut.next_frame_offset(); }
    //! Offset one past the last byte of the last frame handed out (0: none yet).
    std::uint64_t covered_until() const { return d_cut.covered_until(); }
    //! Bytes that complete the next frame (drops between frames included).
    std::int64_t needed() const { return d_cut.needed(); }

    /*!
     * basic_frame_assembler::feed() on bytes: `on_frame(const unsigned char* frame,
     * std::uint64_t first_offset)` for each frame completed while `room()` allows; the
     * bytes consumed are returned. In place, with hop < size, the overlap of a frame
     * handed out in place comes again in the next feed; staged, everything up to the
     * first frame without room is consumed.
     */
    template <class Room, class OnFrame>
    std::int64_t
    feed(const unsigned char* in, std::int64_t n, Room&& room, OnFrame&& on_frame)
    {
        return d_cut.feed(in, n, room, on_frame);
    }

    //! Starts again at offset 0, dropping a partly filled frame.
    void reset() { d_cut.reset(); }

private:
    host_frame d_pinned; //!< staged: every frame (before d_cut, which points into it)
    basic_frame_assembler<unsigned char> d_cut;
};

} // namespace stream
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_STREAM_BLOCK_FRAMES_H */
