/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_STREAM_RESAMPLE_GRID_H
#define INCLUDED_GPUFFT_STREAM_RESAMPLE_GRID_H

#include <cmath>
#include <cstdint>
#include <vector>

namespace gr {
namespace gpufft {
namespace stream {

/*!
 * The output grid of the NUFFT resampler: sample n at origin + n / rate (seconds after
 * the epoch). Each frame of input times t[0..len) yields the grid points in
 * [t[overlap], t[len - overlap]), which is where the next frame, `len - 2 overlap`
 * samples on, starts its own: frames join without a gap or a repeat. A frame that is
 * skipped breaks the grid; the next one starts a new grid at its t[overlap].
 */
class resample_grid
{
public:
    resample_grid(double rate, int overlap) : d_rate(rate), d_overlap(overlap) {}

    //! A new output rate: the next frame starts a new grid.
    void set_rate(double rate)
    {
        d_rate = rate;
        d_continuous = false;
    }
    double rate() const { return d_rate; }

    //! Two neighbouring input times further apart than a limit (seconds after the epoch).
    struct gap {
        double start, end;
    };

    /*!
     * The gaps longer than `limit` among the times that hold the outputs a frame keeps,
     * t[overlap] .. t[len - overlap]: a band-limited fit does not bridge them
     * (nufft::band_limited_fit::gap_limit), so the outputs near them are unreliable.
     * Consecutive frames check disjoint pairs of samples, so a gap is found once.
     */
    std::vector<gap> gaps(const double* t, int len, double limit) const
    {
        std::vector<gap> out;
        for (int j = d_overlap; j < len - d_overlap && j + 1 < len; ++j)
            if (t[j + 1] - t[j] > limit)
                out.push_back({ t[j], t[j + 1] });
        return out;
    }

    //! Why `t` cannot be a frame (non-finite, decreasing), or nullptr.
    static const char* bad_times(const double* t, int len)
    {
        for (int j = 0; j < len; ++j)
            if (!std::isfinite(t[j]))
                return "NaN or infinite time";
        for (int j = 1; j < len; ++j)
            if (t[j] < t[j - 1])
                return "times decrease";
        return nullptr;
    }

    /*!
     * The grid points of the frame with times `t` (len of them), written to `tau` as
     * times relative to `centre`; returns true when they start a new grid. Call
     * commit() once they are produced, or break_grid() when the frame fails.
     */
    bool points(const double* t, int len, double centre, std::vector<double>& tau)
    {
        const bool starts = !d_continuous;
        if (starts) {
            d_origin = t[d_overlap];
            d_next = 0;
        }
        const double hi = t[len - d_overlap];
        tau.clear();
        for (std::uint64_t n = d_next;; ++n) {
            const double at = d_origin + double(n) / d_rate;
            if (at >= hi)
                break;
            tau.push_back(at - centre);
        }
        d_first = d_next;
        return starts;
    }
    void commit(std::size_t produced)
    {
        d_next = d_first + produced;
        d_continuous = true;
    }
    void break_grid() { d_continuous = false; }
    //! Time (after the epoch) of grid point n of the current grid.
    double time_of(std::uint64_t n) const { return d_origin + double(n) / d_rate; }
    //! Index of the first point of the frame last given to points().
    std::uint64_t first_point() const { return d_first; }

private:
    double d_rate;
    const int d_overlap;
    bool d_continuous = false;
    double d_origin = 0.0;
    std::uint64_t d_next = 0;
    std::uint64_t d_first = 0;
};

} // namespace stream
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_STREAM_RESAMPLE_GRID_H */
