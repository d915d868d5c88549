/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_STREAM_NOT_SPARSE_WARNING_H
#define INCLUDED_GPUFFT_STREAM_NOT_SPARSE_WARNING_H

#include <cstdint>
#include <string>

namespace gr {
namespace gpufft {
namespace stream {

/*!
 * Exact mode's warning about frames that are not exactly sparse, rate-limited so a
 * noisy stream does not flood the log: the first such frame at once, then at most one
 * warning per `every` frames, each with the count since the last warning and in all.
 */
class not_sparse_warning
{
public:
    explicit not_sparse_warning(std::uint64_t every = 100) : d_every(every) {}

    //! Counts frame `index` as not sparse; returns the warning to log, or "" when the
    //! last one was less than `every` frames ago.
    std::string note(std::uint64_t index)
    {
        d_frames++;
        d_unreported++;
        if (d_warned && index - d_warned_at < d_every)
            return {};
        const std::string text =
            "frame " + std::to_string(index) + ": not exactly sparse (" +
            std::to_string(d_unreported) + " such frame(s) since the last warning, " +
            std::to_string(d_frames) +
            " in all): energy is left that the coefficients found do not explain, so "
            "only the coefficients the residual vouches for were reported. Noise or "
            "tones between bins break exact mode; use mode \"robust\" for such signals. "
            "(Warned at most once per " +
            std::to_string(d_every) + " frames.)";
        d_warned = true;
        d_warned_at = index;
        d_unreported = 0;
        return text;
    }

    //! Frames found not sparse so far.
    std::uint64_t frames() const { return d_frames; }

private:
    const std::uint64_t d_every;
    std::uint64_t d_frames = 0;
    std::uint64_t d_unreported = 0; // since the last warning
    std::uint64_t d_warned_at = 0;  // frame index of the last warning
    bool d_warned = false;
};

} // namespace stream
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_STREAM_NOT_SPARSE_WARNING_H */
