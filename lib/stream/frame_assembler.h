/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_STREAM_FRAME_ASSEMBLER_H
#define INCLUDED_GPUFFT_STREAM_FRAME_ASSEMBLER_H

#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace gr {
namespace gpufft {
namespace stream {

/*!
 * Cuts a stream into frames of `size` samples starting every `hop` samples (hop < size:
 * frames overlap; hop > size: the samples between frames are dropped), whatever the
 * lengths of the pieces it is fed. A frame lying whole in one piece is handed out in
 * place, without a copy; one that straddles pieces is assembled in an own buffer.
 * Samples are numbered from the first one fed (offset 0).
 *
 * `Sample` is any trivially copyable type: the sparse_fft block cuts its input as bytes
 * (basic_frame_assembler<unsigned char>, sizes and offsets times the bytes of a sample),
 * so one assembler serves each of its input types.
 *
 * Staged (the second constructor): every frame is assembled in the caller's buffer,
 * every piece copied by the caller's copier as it comes, none handed out in place, so
 * all of the input is consumed at once (stream/block_frames.h).
 */
template <class Sample>
class basic_frame_assembler
{
public:
    using sample = Sample;
    //! Copies `bytes` bytes from src to dst (the buffers do not overlap).
    using copier = void (*)(void* dst, const void* src, std::size_t bytes);

    basic_frame_assembler(std::int64_t size, std::int64_t hop) : d_size(size), d_hop(hop)
    {
        check();
        d_frame.resize(std::size_t(size));
    }

    //! Staged: frames in `buffer` (`size` samples, the caller's, outliving this one),
    //! pieces copied by `copy`.
    basic_frame_assembler(std::int64_t size,
                          std::int64_t hop,
                          sample* buffer,
                          copier copy)
        : d_size(size), d_hop(hop), d_staged_frame(buffer), d_copy(copy)
    {
        check();
        if (buffer == nullptr || copy == nullptr)
            throw std::logic_error("basic_frame_assembler: staged without a buffer");
    }

    bool staged() const { return d_copy != nullptr; }

    std::int64_t size() const { return d_size; }
    std::int64_t hop() const { return d_hop; }
    //! Frames handed out so far.
    std::uint64_t frames() const { return d_frames; }
    //! Offset of the next frame's first sample.
    std::uint64_t next_frame_offset() const { return d_next; }
    //! Offset one past the last sample of the last frame handed out (0: none yet).
    std::uint64_t covered_until() const
    {
        return d_frames == 0 ? 0 : d_next - std::uint64_t(d_hop) + std::uint64_t(d_size);
    }
    //! Samples that complete the next frame (drops between frames included).
    std::int64_t needed() const { return d_skip + (d_size - d_fill); }

    /*!
     * Takes samples from `in` (n of them, continuing the stream) and calls
     * `on_frame(const sample* frame, std::uint64_t first_offset)` for each frame they
     * complete, as long as `room()` says another frame may be handed out. Returns the
     * samples consumed; the rest must be fed again. With hop < size, the overlap of a
     * frame handed out in place is not consumed, so it comes again in the next feed.
     */
    template <class Room, class OnFrame>
    std::int64_t feed(const sample* in, std::int64_t n, Room&& room, OnFrame&& on_frame)
    {
        std::int64_t pos = 0;
        while (pos < n) {
            if (d_skip > 0) {
                const std::int64_t take = std::min(d_skip, n - pos);
                pos += take;
                d_skip -= take;
                continue;
            }
            const bool in_place = !staged() && d_fill == 0 && n - pos >= d_size;
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
            const std::size_t bytes = std::size_t(take) * sizeof(sample);
            sample* const frame = staged() ? d_staged_frame : d_frame.data();
            if (d_copy)
                d_copy(frame + d_fill, in + pos, bytes);
            else
                std::memcpy(frame + d_fill, in + pos, bytes);
            d_fill += take;
            pos += take;
            if (d_fill < d_size)
                continue;
            emit(frame, on_frame);
            if (d_hop < d_size) {
                std::memmove(
                    frame, frame + d_hop, std::size_t(d_size - d_hop) * sizeof(sample));
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
    void check() const
    {
        if (d_size < 1)
            throw std::invalid_argument("fft_size: must be >= 1, got " +
                                        std::to_string(d_size));
        if (d_hop < 1)
            throw std::invalid_argument("hop: must be >= 1, got " +
                                        std::to_string(d_hop));
    }

    template <class OnFrame>
    void emit(const sample* frame, OnFrame& on_frame)
    {
        const std::uint64_t first = d_next;
        d_next += std::uint64_t(d_hop);
        ++d_frames;
        on_frame(frame, first);
    }

    const std::int64_t d_size, d_hop;
    std::vector<sample> d_frame;      //!< in place: frames that straddle pieces
    sample* d_staged_frame = nullptr; //!< staged: the caller's frame
    copier d_copy = nullptr;          //!< staged: the caller's copier
    std::int64_t d_fill = 0;          //!< samples of the next frame already assembled
    std::int64_t d_skip = 0;          //!< samples still to drop before the next frame
    std::uint64_t d_next = 0;
    std::uint64_t d_frames = 0;
};

using frame_assembler = basic_frame_assembler<std::complex<float>>;

} // namespace stream
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_STREAM_FRAME_ASSEMBLER_H */
