/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The sparse_fft block's parameter checks (std::invalid_argument naming the parameter
// and its range), apart from the block so it stays glue.

#ifndef INCLUDED_GPUFFT_SPARSE_BLOCK_PARAMS_H
#define INCLUDED_GPUFFT_SPARSE_BLOCK_PARAMS_H

#include "sensing/sensing_params.h"
#include <gnuradio/gpufft/backend.h>
#include <gnuradio/gpufft/sparse_fft_plan.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>

namespace gr {
namespace gpufft {
namespace sparse_output {

// Largest vector item the display output uses: GNU Radio buffers hold several items,
// and items of 2^20 floats fail to allocate.
constexpr int max_display_bins = 65536;

// Exact mode warns about frames that are not exactly sparse at most once per this many
// frames (the first one at once).
constexpr std::uint64_t not_sparse_warn_every = 100;

// A double as printf's %g writes it (to_string would turn 1e-9 into 0.000000).
inline std::string num(double v)
{
    std::ostringstream os;
    os << v;
    return os.str();
}

// mode, min_snr_db, false_alarm and k: checked by their one owner (sparse_fft_plan.h),
// so the block's messages are the plan's and the Python binding's.
inline sparse_fft_mode checked_mode(const std::string& name)
{
    return parse_sparse_fft_mode(name);
}

inline double checked_min_snr_db(double v)
{
    check_sparse_fft_min_snr_db(v);
    return v;
}

inline double checked_false_alarm(double v)
{
    check_sparse_fft_false_alarm(v);
    return v;
}

// floor_frames and watch_frames: checked by their one owner, the sensing plan's
// options check (lib/sensing/sensing_params.h), so the block's messages are the plan's.
inline int checked_floor_frames(int v)
{
    detail::check_floor_frames(v);
    return v;
}

inline int checked_watch_frames(int v)
{
    detail::check_watch_frames(v);
    return v;
}

/*!
 * The floor_frames the sensing plan gets: the block's value, except 1 (each frame its
 * own floor) when frames overlap by half or more (hop <= fft_size / 2): such frames
 * share most of their noise, so a floor averaged over them is not the steadier one the
 * threshold's allowance assumes (commit 628a84d).
 */
inline int floor_frames_in_force(int floor_frames, int hop, int fft_size)
{
    return 2 * std::int64_t(hop) <= std::int64_t(fft_size) ? 1 : floor_frames;
}

inline int checked_hop(int hop, int fft_size)
{
    if (hop < 0)
        throw std::invalid_argument("hop: must be >= 0 (0 means fft_size), got " +
                                    std::to_string(hop));
    return hop == 0 ? fft_size : hop;
}

inline gpufft::backend checked_backend(const std::string& name)
{
    // parse_backend's message already names the parameter ("backend: ...").
    return parse_backend(name);
}

//! k against the frame size fft_size (the plan's n).
inline void check_k(int k, int fft_size, sparse_fft_mode mode)
{
    check_sparse_fft_k(k, fft_size, mode);
}

} // namespace sparse_output
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_SPARSE_BLOCK_PARAMS_H */
