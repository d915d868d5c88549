/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_SENSING_BACKEND_H
#define INCLUDED_GPUFFT_SENSING_BACKEND_H

#include "sensing/sensing_params.h"
#include <gnuradio/gpufft/backend.h>
#include <complex>
#include <cstdint>
#include <memory>
#include <vector>

namespace gr {
namespace gpufft {
namespace detail {

//! Bins [first, last] (shifted order) of a run or band.
struct sensing_run {
    std::int64_t first = 0;
    std::int64_t last = 0;
};

//! The sums a band's signal is made of (band_stats over its bins).
struct sensing_band {
    std::int64_t first = 0, last = 0; //!< shifted bins summed (the core and lobes)
    std::int64_t core_first = 0, core_last = 0; //!< the bins above the threshold
    double excess = 0;                          //!< sum of (P - floor)+ over the band
    double power = 0;          //!< sum of P - floor over the band (unbiased)
    double moment = 0;         //!< sum of s (P - floor)+
    float peak = 0;            //!< the largest P
    std::int64_t peak_bin = 0; //!< its shifted bin
    double floor_at_peak = 0;
    double lower = 0, upper = 0; //!< edges by the rule, fractional shifted bins
    //! Narrow cores: X_w at peak_bin + j, |j| <= fit_half, as (re, im) pairs.
    double lobe[2 * (2 * sensing_max_fit_half + 1)] = {};
};

/*!
 * What the plan's floor track gives a frame (sensing_track_floor): the threshold over
 * the floor for this frame, and the track before it, prior[i] the mean log floor of
 * sub-band i, prior[subbands + i] the frames in it and prior[2 subbands + i] the frames
 * in a row it was held in (null: no track, the frame's own floors are used).
 */
struct sensing_floor_track {
    double eta = 0;
    const double* prior = nullptr;
    //! The last frame's quiet power (sensing_quiet_power; 0: none): with prior, the
    //! frame's level is sensing_burst_level's.
    double prior_quiet = 0;
    /*!
     * Optional (4 subbands + 1 values, the last 0): a backend that applies the track on
     * the host may leave there what the plan's update of the track would make again
     * from the same floors, each sub-band's sensing_track_floor() new_log, new_frames,
     * new_held and floor used (at i, subbands + i, 2 subbands + i, 3 subbands + i), and
     * set the last value to 1.
     */
    double* next = nullptr;
};

//! Runs of more than this many a frame are cut there (the frame is `truncated`).
constexpr std::int64_t sensing_max_runs = 1 << 16;

/*!
 * One backend's passes over a frame. spectrum(): the FFT, the opened floor of every
 * sub-band (the frame's own, into `floors`), the floor used (tracked: each sub-band's
 * sensing_track_floor with track.prior) and the runs of bins above track.eta x that
 * floor, ascending; bands(): each band's sums, edges and (narrow ones) the windowed
 * bins around its peak for the tone fit, over the floor used.
 */
class sensing_backend
{
public:
    virtual ~sensing_backend() = default;
    //! False when the runs overflowed sensing_max_runs (the first ones are kept).
    //! time: the frame's samples' power in time.
    virtual bool spectrum(const std::complex<float>* x,
                          memory where,
                          const sensing_floor_track& track,
                          std::vector<double>& floors,
                          std::vector<sensing_run>& runs,
                          sensing_time_power& time) = 0;
    virtual void bands(std::vector<sensing_band>& bands) = 0;
    /*!
     * level[i]: the mean of P / floor over the bins between runs[i] and runs[i + 1]
     * (gaps longer than max_gap get 0, unread). Unless `exact`, a backend may give a
     * bound of it instead: from above where the bound is under
     * sensing_gap_fill_level(), from below where it is over both that and
     * sensing_tone_gap_level() (every join the plan tests is decided the same), and 0
     * for gaps of gap_bins or fewer; exact levels are for sums over several gaps (the
     * plan's weak chains).
     */
    virtual void gap_levels(const std::vector<sensing_run>& runs,
                            std::int64_t max_gap,
                            bool exact,
                            std::vector<double>& level) = 0;
    virtual std::int64_t memory_bytes() const = 0;
};

//! std::invalid_argument for a frame with a NaN or an infinity (both backends).
[[noreturn]] void throw_non_finite_frame();

std::unique_ptr<sensing_backend> make_sensing_cpu(const sensing_params& p, int threads);
std::unique_ptr<sensing_backend> make_sensing_cuda(const sensing_params& p, int device);

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_SENSING_BACKEND_H */
