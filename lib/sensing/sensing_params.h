/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_SENSING_PARAMS_H
#define INCLUDED_GPUFFT_SENSING_PARAMS_H

#include "sensing/sensing_math.h"
#include "sparse/robust/robust_math.h"
#include <gnuradio/gpufft/sensing_plan.h>
#include <algorithm>
#include <cmath>
#include <string>

namespace gr {
namespace gpufft {
namespace detail {

//! A plan's derived parameters: the kernels' constants and the host side's rules.
struct sensing_params {
    sensing_consts k;
    int gap_bins = 0; //!< runs this close join (and closer than 1/8 of the narrower)
    //! The longest gap whose level may join its runs (sensing_gap_fill_level): an
    //! eighth of the frame, 16 to 65536 bins. Two tones 2^20 bins apart are two
    //! emitters, however the noise between them averages.
    std::int64_t max_fill_gap = 16;
    int lobe = 0;           //!< half-width of the window's main lobe, in bins
    double a0 = 1;          //!< the window's mean (a tone's peak gain)
    double power_sum = 1;   //!< sum of c_m^2: a bin's noise gain
    int narrow_bins = 0;    //!< bands this wide or narrower get a tone fit
    int max_tone_fits = 64; //!< tone fits a frame, strongest first
    gpufft::bandwidth_rule rule = gpufft::bandwidth_rule::obw99;
    double xdb_ratio = 0.01; //!< xdb rule: the edges' level over the peak, linear
    robust_consts tone;      //!< the window for robust mode's tone fit
};

/*!
 * Checks every option and n (std::invalid_argument naming the parameter and its range)
 * and derives the parameters. The one place that validates a sensing plan's options.
 */
sensing_params make_sensing_params(std::int64_t n, const sensing_options& o);

//! Checks max_signals for n (std::invalid_argument naming it).
void check_max_signals(std::int64_t n, int max_signals);
//! max_signals checked for n, 0 (automatic) resolved to min(256, n / 4).
int resolve_max_signals(std::int64_t n, int max_signals);
//! Checks false_alarm (std::invalid_argument naming it).
void check_false_alarm(double false_alarm);
//! Checks floor_frames, [1, sensing_max_floor_frames] (std::invalid_argument naming
//! it): the plan's and the sparse_fft block's one check.
void check_floor_frames(int floor_frames);
//! Checks watch_frames, [0, sensing_max_watch_frames] (std::invalid_argument naming
//! it): the plan's and the sparse_fft block's one check.
void check_watch_frames(int watch_frames);
/*!
 * The threshold over the floor: ln(n / false_alarm) for a floor known exactly, raised
 * for the scatter of its estimate (floor_log_var, the variance of its log): a floor
 * estimated low by z nepers lets noise pass e^z times more often, and that scatter
 * doubled the rate of false signals at n = 1024 (0.017 a frame for 0.01 asked).
 */
double sensing_eta(std::int64_t n, double false_alarm, double floor_log_var);
//! sensing_eta() from its ln(n / false_alarm) (sensing_eta_base()), the same value: a
//! plan keeps the logarithm, made every frame that the floor's variance moved.
double sensing_eta_from_base(double base, double floor_log_var);
inline double sensing_eta_base(std::int64_t n, double false_alarm)
{
    return std::log(double(n) / false_alarm);
}
//! The variance of the log of a bin's floor estimate, from the floor's layout.
double sensing_floor_log_var(const sensing_consts& k);
//! The variance of the log of one sub-band's own floor estimate, one frame.
double sensing_subband_log_var(const sensing_consts& k);
//! Frames a tracked floor averages, at most (sensing_options::floor_frames).
constexpr int sensing_max_floor_frames = 1024;
//! Frames a signal is held for, at most (sensing_options::watch_frames).
constexpr int sensing_max_watch_frames = 8;
/*!
 * A frame's level over the floor's track (sensing_track_floor), from the sub-bands'
 * changes ln raw[i] - prior[i]: where seven eighths of them moved one way (their values
 * at sensing_level_ranks(), sensing_level_cluster()), the median of the cluster of
 * changes about that common move (the mean of its two middle values for an even
 * count, as sensing_cluster_middle gives them on the device), else 0; scratch holds
 * subbands doubles.
 */
double sensing_track_level(const sensing_consts& k,
                           const double* raw,
                           const double* prior,
                           double* scratch);
/*!
 * The variance of a tracked floor's log, in units of one frame's, when its tracks'
 * largest is r (sensing_track_var): theirs plus the level's, the median of `subbands`
 * estimates (pi / 2 times a mean's variance, an upper bound for few), at most 1 (one
 * sub-band: the level is the frame's own floor).
 */
inline double sensing_tracked_var(double r, int subbands)
{
    const double v = r + 1.5707963267948966 / double(subbands);
    return v < 1.0 ? v : 1.0;
}

/*!
 * The variance of a tracked floor's log in units of one frame's, r, after one more
 * frame of weight 1 / frames: (1 - a)^2 r + a^2 (frames <= 1: 1, a fresh track).
 */
inline double sensing_track_var(double r, double frames)
{
    if (frames <= 1)
        return 1.0;
    const double a = 1.0 / frames;
    return (1 - a) * (1 - a) * r + a * a;
}

//! The noise term of the gap levels below.
GPUFFT_HD inline double sensing_gap_noise(std::int64_t gap)
{
    // Six standard deviations of the mean of gap / 2 independent bins (at least one).
    // The device's sqrt is correctly rounded, as the host's: both backends' levels meet
    // the same fill level.
    const double half = 0.5 * double(gap);
    return 6.0 / sqrt(half > 1.0 ? half : 1.0);
}

/*!
 * The mean P / floor over a gap of `gap` bins that joins its runs: 2.5 (4 dB) up to 32
 * bins (8 noise bins reach it once in 2000 gaps: Gamma(8) > 20), then 6 standard
 * deviations of the mean of g / 2 independent bins (the window correlates neighbours)
 * over 1, but never under 1.6 (2 dB): the floor itself is known to a few per cent only,
 * and a long noise gap must not join two distant tones through that error.
 */
GPUFFT_HD inline double sensing_gap_fill_level(std::int64_t gap)
{
    const double noise = sensing_gap_noise(gap);
    return 1.0 + (noise < 0.6 ? 0.6 : (noise > 1.5 ? 1.5 : noise));
}

/*!
 * The same for a gap between two lone tone-like runs (each no wider than the window's
 * main lobe): six standard deviations of the mean of g / 2 independent bins at every
 * length, 4 x at 8 bins and 3.1 x at 16 where the level above stays at 2.5 x. Two tones
 * 12-24 bins apart have only noise and their skirts between them; at 2.5 x a 60 and a
 * 36 dB tone were one band in 1.5-9 % of frames (n = 4096). A modulated carrier's
 * pieces are wider, or join a wider piece first, and keep the level above.
 */
inline double sensing_tone_gap_level(std::int64_t gap)
{
    return 1.0 + std::max(0.6, sensing_gap_noise(gap));
}

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_SENSING_PARAMS_H */
