/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The arithmetic of spectrum sensing that the CPU and CUDA backends share, written once
// for host and device: the windowed power of a bin from the unwindowed spectrum, the
// noise floor's censored log-mean per sub-band, its opening across sub-bands and its
// value at a bin. Every function here must stay identical for both backends: that is
// what makes their signals the same frame by frame.

#ifndef INCLUDED_GPUFFT_SENSING_MATH_H
#define INCLUDED_GPUFFT_SENSING_MATH_H

#include "sparse/common/sparse_math.h" // GPUFFT_HD
#include <type_traits>
#include <cstdint>
#include <cstring>

namespace gr {
namespace gpufft {
namespace detail {

//! Taps of the windows' spectral kernels (a 4-term cosine sum has 7).
constexpr int sensing_max_taps = 7;
//! Most sub-bands of the floor; the opening's kernel runs them in one thread block.
constexpr int sensing_max_subbands = 1024;
//! Samples of the spectrum a sub-band's floor is estimated from, at most.
constexpr int sensing_floor_samples = 4096;
//! Censoring passes of the floor's log-mean.
constexpr int sensing_floor_passes = 4;
//! Half-width of the windowed bins a tone fit reads, at most (Blackman-Harris: 3).
constexpr int sensing_max_fit_half = 4;
//! Sub-frames whose powers tell a burst over the band from a gain step
//! (sensing_quiet_power).
constexpr int sensing_time_blocks = 16;
//! Samples of a sub-frame its power is read from, at most (a stride of them beyond).
constexpr std::int64_t sensing_time_block_samples = 4096;

//! Everything the kernels need; trivially copyable (a kernel argument).
struct sensing_consts {
    std::int64_t n = 0;
    std::int64_t half = 0;     //!< n / 2: shifted bin s is signed bin s - half
    std::int64_t sub_bins = 0; //!< bins per floor sub-band (the last may be short)
    double inv_sub_bins = 0;   //!< 1 / sub_bins
    int subbands = 0;
    int opening = 0;                 //!< radius of the floor's opening, in sub-bands
    std::int64_t stride = 1;         //!< floor samples: every stride-th bin of a sub-band
    int taps = 0;                    //!< spectral taps of the window, odd
    double c[sensing_max_taps] = {}; //!< X_w[q] = sum_m c[m + taps/2] X[q - m]
    double eta = 0;                  //!< threshold over the floor, linear
    double cut = 0;                  //!< censoring point over the floor, linear
    double log_cut = 0;              //!< ln(cut)
    double censored_bias = 0;        //!< E[ln u | u < cut], u ~ Exp(1)
    double floor_min = 0;            //!< the least floor, |X_w|^2 units (a normal float)
    double log_floor_min = 0;        //!< ln(floor_min)
    double ceiling = 2;              //!< a sub-band's floor is at most this x its opening
    std::int64_t dc_mask = 0;        //!< signed bins |b| <= dc_mask are never above
    bool mask_dc = false;
    std::int64_t narrow = 0; //!< cores this many bins wide or fewer get a tone fit
    int fit_half = 3;        //!< the tone fit reads X_w at the peak +-fit_half
    double track_frames = 1; //!< frames the tracked floor averages, at most (1: none)
    double track_jump = 0;  //!< a frame's floor this far (nepers) off the track resets it
    double track_slack = 1; //!< the floor is at least the frame's own x this (< 1)
    //! A rise past track_jump is held (the track kept) in up to this many frames in a
    //! row (sensing_track_floor)
    double track_hold = 0;
    double track_hold_rise = 0; //!< a held rise is more than this (nepers, >= track_jump)
    //! Sub-frame powers (sensing_quiet_power): every time_stride-th sample
    std::int64_t time_stride = 1;
    //! A band that rose this much more (nepers) than its frame's quiet samples holds a
    //! burst (sensing_burst_rise)
    double quiet_jump = 0;
    //! A sub-frame's noise power (its samples read) for a floor of 1 (|X_w|^2 units)
    double quiet_noise = 0;
};

//! Natural-order index of shifted bin s (fftshift order, 0 <= s < n).
GPUFFT_HD inline std::int64_t sensing_natural(const sensing_consts& k, std::int64_t s)
{
    const std::int64_t q = s - k.half;
    return q < 0 ? q + k.n : q;
}

//! sensing_power() for a window of TAPS spectral taps: with the count known the loop
//! unrolls and a GPU thread issues the taps' loads together (with k.taps read at run
//! time it did not).
template <int TAPS, typename Bin>
GPUFFT_HD inline float
sensing_power_of_taps(const sensing_consts& k, const Bin& bin, std::int64_t q)
{
    constexpr int h = TAPS / 2;
    float xr[TAPS], xi[TAPS];
    for (int t = 0; t < TAPS; ++t) {
        std::int64_t p = q + h - t;
        p = p < 0 ? p + k.n : (p >= k.n ? p - k.n : p);
        bin(p, xr[t], xi[t]);
    }
    float re = 0, im = 0;
    for (int t = 0; t < TAPS; ++t) {
        re += float(k.c[t]) * xr[t];
        im += float(k.c[t]) * xi[t];
    }
    return re * re + im * im;
}

//! f(std::integral_constant<int, T>()) with T = k.taps (odd, at most
//! sensing_max_taps): a window's taps as a count known at compile time.
template <typename F>
GPUFFT_HD inline decltype(auto) sensing_with_taps(const sensing_consts& k, F&& f)
{
    switch (k.taps) {
    case 1:
        return f(std::integral_constant<int, 1>());
    case 3:
        return f(std::integral_constant<int, 3>());
    case 5:
        return f(std::integral_constant<int, 5>());
    default:
        return f(std::integral_constant<int, sensing_max_taps>());
    }
}

/*!
 * |X_w|^2 at shifted bin s, X the unwindowed spectrum in natural order read through
 * bin(q, re, im): the window is a cosine sum, so X_w = sum_m c_m X[q - m], summed from
 * m = -taps/2 up (the order of the CUDA threshold pass, which sums a lane's bins from
 * registers: every CUDA kernel then gets the same power for a bin, to the bit). The CPU
 * windows the samples instead.
 */
template <typename Bin>
GPUFFT_HD inline float
sensing_power(const sensing_consts& k, const Bin& bin, std::int64_t s)
{
    const std::int64_t q = sensing_natural(k, s);
    return sensing_with_taps(k, [&](auto taps) {
        return sensing_power_of_taps<decltype(taps)::value>(k, bin, q);
    });
}

/*!
 * P[u] = sensing_power(k, bin, s[u]) for the N bins s (each valid), the same power to
 * the bit, with one dispatch on the taps for all N: a dispatch a bin put a branch between
 * one bin's loads and the next's, so each GPU thread waited for its own (the bands
 * kernel on a 33k-bin carrier at 2^24, H200: 109 -> 101 us). A batch reads all N bins
 * whether the caller keeps them or not: 16 for a gap's two ends made the ordered gaps
 * slower (7.9 -> 11.8 us at 2^20).
 */
template <int N, typename Bin>
GPUFFT_HD inline void
sensing_powers(const sensing_consts& k, const Bin& bin, const std::int64_t* s, float* P)
{
    sensing_with_taps(k, [&](auto taps) {
        for (int u = 0; u < N; ++u)
            P[u] = sensing_power_of_taps<decltype(taps)::value>(
                k, bin, sensing_natural(k, s[u]));
    });
}

//! X_w at shifted bin s (wrapped) in double, for tone fits.
template <typename Bin>
GPUFFT_HD inline void sensing_windowed_bin(
    const sensing_consts& k, const Bin& bin, std::int64_t s, double& re, double& im)
{
    s = s < 0 ? s + k.n : (s >= k.n ? s - k.n : s);
    const std::int64_t q = sensing_natural(k, s);
    const int h = k.taps / 2;
    re = im = 0;
    for (int m = -h; m <= h; ++m) {
        std::int64_t p = q - m;
        p = p < 0 ? p + k.n : (p >= k.n ? p - k.n : p);
        float xr, xi;
        bin(p, xr, xi);
        re += k.c[m + h] * double(xr);
        im += k.c[m + h] * double(xi);
    }
}

//! First bin and bin count of sub-band i.
GPUFFT_HD inline void
sensing_subband(const sensing_consts& k, int i, std::int64_t& first, std::int64_t& count)
{
    first = std::int64_t(i) * k.sub_bins;
    const std::int64_t end = first + k.sub_bins < k.n ? first + k.sub_bins : k.n;
    count = end - first;
}

//! Floor samples of sub-band i: bins first + j * stride, j < this.
GPUFFT_HD inline std::int64_t sensing_sample_count(const sensing_consts& k, int i)
{
    std::int64_t first, count;
    sensing_subband(k, i, first, count);
    return (count + k.stride - 1) / k.stride;
}

//! ln of a power, with zeros (digital silence) held at the least floor. Written out
//! (exponent, then 2 atanh((m - 1) / (m + 1)) to the 9th power, 1e-6 absolute) so the
//! CPU loop vectorises and both backends compute the same.
GPUFFT_HD inline float sensing_log_power(const sensing_consts& k, float p)
{
    const float v = p > float(k.floor_min) ? p : float(k.floor_min);
    std::uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    const int e = int((bits >> 23) & 0xffu) - 127;
    bits = (bits & 0x007fffffu) | 0x3f800000u; // mantissa in [1, 2)
    float m;
    memcpy(&m, &bits, sizeof m);
    const float t = (m - 1.0f) / (m + 1.0f), t2 = t * t;
    const float ln_m =
        2.0f * t *
        (1.0f + t2 * (1.0f / 3 + t2 * (1.0f / 5 + t2 * (1.0f / 7 + t2 * (1.0f / 9)))));
    return float(e) * 0.69314718f + ln_m;
}

//! sensing_log_power() in fixed point (2^-16 nepers), |value| < 2^23: the floor's sums
//! of these are exact in any order, so both backends sum the same values to the same
//! floor, a thread block's reduction as a CPU loop.
GPUFFT_HD inline std::int32_t sensing_log_fixed_value(const sensing_consts& k, float p)
{
    return std::int32_t(sensing_log_power(k, p) * 65536.0f);
}

/*!
 * The floor's exponent (the ln of the floor while that stands over floor_min) from one
 * censoring pass over a sub-band's fixed-point log powers: their sum and count below
 * the cut. For exponential noise u of mean mu, E[ln u | u < cut mu] = ln mu +
 * censored_bias, so noise alone keeps the floor where it is, while bins of a carrier
 * (far above the cut) drop out of the mean. The first pass takes every bin: E[ln u] =
 * ln mu - Euler's gamma (`first`).
 */
GPUFFT_HD inline double sensing_floor_exponent(const sensing_consts& k,
                                               std::int64_t fixed_sum,
                                               std::int64_t count,
                                               bool first)
{
    const double bias = first ? -0.5772156649015329 : k.censored_bias;
    return double(fixed_sum) / 65536.0 / double(count) - bias;
}

//! The floor of exponent e.
GPUFFT_HD inline double sensing_floor_of(const sensing_consts& k, double e)
{
    const double f = exp(e);
    return f > k.floor_min ? f : k.floor_min;
}

/*!
 * The next censoring pass's cut, ln(cut x floor) in fixed point, from the floor's
 * exponent e. The passes run on the floor's log: the cut is ln(cut) + e, and the exp is
 * taken once, at the end (a log and an exp a pass were a tenth of detect() at n = 1024
 * on the CPU, and on the GPU every thread of a block took them). The cut is rounded to
 * float, so its last double bits do not reach it; near floor_min it is taken from the
 * floor itself.
 */
GPUFFT_HD inline std::int32_t sensing_floor_cut(const sensing_consts& k, double e)
{
    if (e > k.log_floor_min + 1.0)
        return std::int32_t(float(k.log_cut + e) * 65536.0f);
    return std::int32_t(float(log(k.cut * sensing_floor_of(k, e))) * 65536.0f);
}

/*!
 * The floors of the sub-bands f (in place, `scratch` as large) held to at most
 * `ceiling` over their opening: a running minimum over +-opening sub-bands, then a
 * running maximum of that. The opening drops a carrier wider than a sub-band but
 * narrower than 2 x opening + 1 of them out of the floor, but it also shaves the top off
 * a floor that is curved (a front end's roll-off, an IF filter's hump); so a sub-band
 * keeps its own estimate unless that stands more than `ceiling` over the opening: pure
 * noise keeps an unbiased floor, a wide carrier costs at most `ceiling` of sensitivity.
 */
GPUFFT_HD inline void
sensing_open_floor(const sensing_consts& k, double* f, double* scratch)
{
    const int S = k.subbands, r = k.opening;
    for (int i = 0; i < S; ++i) {
        double v = f[i];
        for (int j = i - r; j <= i + r; ++j)
            if (j >= 0 && j < S && f[j] < v)
                v = f[j];
        scratch[i] = v;
    }
    for (int i = 0; i < S; ++i) {
        double v = scratch[i];
        for (int j = i - r; j <= i + r; ++j)
            if (j >= 0 && j < S && scratch[j] > v)
                v = scratch[j];
        const double top = v * k.ceiling;
        scratch[S + i] = f[i] < top ? f[i] : top;
    }
    for (int i = 0; i < S; ++i)
        f[i] = scratch[S + i];
}

//! The floor at shifted bin s: linear between the sub-bands' centres.
GPUFFT_HD inline double
sensing_floor_at(const sensing_consts& k, const double* f, std::int64_t s)
{
    if (k.subbands == 1)
        return f[0];
    const double x = (double(s) + 0.5) * k.inv_sub_bins - 0.5;
    if (x <= 0)
        return f[0];
    int i = int(x);
    if (i >= k.subbands - 1)
        return f[k.subbands - 1];
    const double t = x - double(i);
    return f[i] + t * (f[i + 1] - f[i]);
}

/*!
 * The least and greatest floor over shifted bins [a, b) (a < b): the floor is linear
 * between sub-band centres (sensing_floor_at), so each is at an end or at a centre
 * inside. Bounds a stretch's threshold (the threshold passes) and a gap's level.
 */
GPUFFT_HD inline void sensing_floor_range(const sensing_consts& k,
                                          const double* f,
                                          std::int64_t a,
                                          std::int64_t b,
                                          double& least,
                                          double& most)
{
    const double fa = sensing_floor_at(k, f, a), fb = sensing_floor_at(k, f, b - 1);
    least = fa < fb ? fa : fb;
    most = fa < fb ? fb : fa;
    const std::int64_t end =
        b / k.sub_bins + 1 < k.subbands ? b / k.sub_bins + 1 : std::int64_t(k.subbands);
    for (std::int64_t i = a / k.sub_bins; i < end; ++i) {
        const std::int64_t centre = i * k.sub_bins + k.sub_bins / 2;
        if (centre >= a && centre < b) {
            least = f[i] < least ? f[i] : least;
            most = f[i] > most ? f[i] : most;
        }
    }
}

/*!
 * One sub-band's floor tracked over frames (sensing_options::floor_frames). A radio's
 * floor has a shape across the band that holds from frame to frame (its filters'
 * roll-off) and a level that need not (gain, a pulse train's impulses, digital
 * silence), so the track keeps each sub-band's log floor and a frame moves all of them
 * by its level, a change that (nearly) the whole band shares (sensing_track_level).
 * raw: the frame's own (opened) floor; prior_log: the track moved by that level;
 * prior_frames: the frames in the track (0: none); prior_held: the frames in a row the
 * track was held in (below). The track is a running mean, then an exponential one of
 * weight 1 / track_frames. A floor more than track_hold_rise nepers over it (6 dB) is a
 * signal's plateau, not the floor, while that lasts up to track_hold frames in a row:
 * the track is kept and used (a burst that fills most of the band, an 802.11 packet, is
 * a band over the floor, where its own frame's floor lay on its plateau); a rise that
 * lasts longer starts the track again (a carrier that stays). Otherwise a floor more than
 * track_jump nepers off the track starts it again (a carrier switched off, a floor whose
 * shape moved), and the floor used is the track, but never under raw x track_slack: a
 * sub-band whose floor rises by less than the jump is followed at once, less its
 * estimate's scatter, so a rising floor never lets noise through, while a floor read
 * high or low in one frame by chance no longer moves the threshold. Returns the floor
 * used; the new track in new_log, new_frames, new_held. Both backends (and the plan, for
 * the track) call this.
 */
GPUFFT_HD inline double sensing_track_floor(const sensing_consts& k,
                                            double raw,
                                            double prior_log,
                                            double prior_frames,
                                            double prior_held,
                                            double& new_log,
                                            double& new_frames,
                                            double& new_held)
{
    const double l = log(raw);
    const double d = l - prior_log;
    new_held = 0;
    if (d > k.track_hold_rise && prior_frames > 0 && prior_held < k.track_hold) {
        new_log = prior_log;
        new_frames = prior_frames;
        new_held = prior_held + 1;
        return exp(prior_log);
    }
    if (prior_frames <= 0 || d > k.track_jump || d < -k.track_jump) {
        new_log = l;
        new_frames = 1;
        return raw;
    }
    new_frames = prior_frames + 1 < k.track_frames ? prior_frames + 1 : k.track_frames;
    new_log = prior_log + d / new_frames;
    const double tracked = exp(new_log), low = raw * k.track_slack;
    return tracked > low ? tracked : low;
}

/*!
 * The values of ranks ra and rb of d[0 .. S) (ties by index), as a thread block
 * computes them: thread t ranks d[i] for i = t, t + stride, ... and writes them to
 * out[0], out[1] (sensing_track_level's ranks; the host takes the same values by
 * nth_element).
 */
GPUFFT_HD inline void
sensing_rank_pair(const double* d, int S, int t, int stride, int ra, int rb, double* out)
{
    for (int i = t; i < S; i += stride) {
        int rank = 0;
        for (int j = 0; j < S; ++j)
            rank += d[j] < d[i] || (d[j] == d[i] && j < i);
        if (rank == ra)
            out[0] = d[i];
        if (rank == rb)
            out[1] = d[i];
    }
}

/*!
 * The ranks sensing_track_level takes of S sub-bands' changes: an eighth of the way in
 * from either end.
 */
GPUFFT_HD inline void sensing_level_ranks(int S, int& low, int& high)
{
    low = (S - 1) / 8;
    high = S - 1 - low;
}

/*!
 * Where the frame's level is read from its sub-bands' changes, given the values at
 * sensing_level_ranks(): seven eighths of them rose (low > 0: the lower cluster, the
 * changes up to low + 2 track_jump) or fell (high < 0: the upper cluster, from high - 2
 * track_jump); else the band did not move as one and the level is 0. [lo, hi] bound
 * the cluster; false where there is none. A gain step moves every sub-band; a signal
 * that fills up to seven eighths of the band (an 802.11 packet at 20 MS/s fills 83 %)
 * moves none of the level, so its sub-bands' rise is held by the track, not taken for
 * the floor's (with the median, the track followed the packet's plateau).
 */
GPUFFT_HD inline bool sensing_level_cluster(
    const sensing_consts& k, double low, double high, double& lo, double& hi)
{
    const double inf = 1e300;
    if (low > 0) {
        lo = -inf;
        hi = low + 2 * k.track_jump;
        return true;
    }
    if (high < 0) {
        lo = high - 2 * k.track_jump;
        hi = inf;
        return true;
    }
    return false;
}

/*!
 * The two middle values of the d[i] in [lo, hi] (the values of ranks (m - 1) / 2 and m
 * / 2 among those m, ties by index), as a thread block computes them: thread t ranks
 * d[i] for i = t, t + stride, ... and writes them to out[0], out[1]; the level is their
 * mean, a gain step's median without the extreme ranks' bias (the lowest of 8 sub-bands
 * lies some 1.4 standard deviations under their mean). The host takes the same values
 * by nth_element (sensing_track_level).
 */
GPUFFT_HD inline void sensing_cluster_middle(
    const double* d, int S, double lo, double hi, int t, int stride, double* out)
{
    int m = 0;
    for (int j = 0; j < S; ++j)
        m += d[j] >= lo && d[j] <= hi;
    for (int i = t; i < S; i += stride) {
        if (!(d[i] >= lo && d[i] <= hi))
            continue;
        int rank = 0;
        for (int j = 0; j < S; ++j)
            rank += d[j] >= lo && d[j] <= hi && (d[j] < d[i] || (d[j] == d[i] && j < i));
        if (rank == (m - 1) / 2)
            out[0] = d[i];
        if (rank == m / 2)
            out[1] = d[i];
    }
}

//! A frame's samples' power in time (sensing_quiet_power, sensing_burst_rise).
struct sensing_time_power {
    double quiet = 0; //!< the quiet samples' (sensing_quiet_power; 0: all silent)
    double last = 0;  //!< the last sub-frame's
};

/*!
 * The power of a frame's quiet samples from its sensing_time_blocks sub-frames' powers:
 * the sub-frame a quarter of the way up among those that are not digital silence (0
 * where all are). A burst in a few sub-frames leaves it at the power between bursts; a
 * gain step moves it with the band.
 */
GPUFFT_HD inline double sensing_quiet_power(const double* power)
{
    double v[sensing_time_blocks];
    int m = 0;
    for (int i = 0; i < sensing_time_blocks; ++i) {
        if (!(power[i] > 0))
            continue;
        int j = m++;
        for (; j > 0 && v[j - 1] > power[i]; --j)
            v[j] = v[j - 1];
        v[j] = power[i];
    }
    return m > 0 ? v[(m - 1) / 4] : 0.0;
}

/*!
 * Whether a frame whose level (sensing_track_level) is `level` rose as a burst does,
 * not as a gain: its band rose by quiet_jump more than the power of its quiet samples
 * (t.quiet; prior_quiet the last frame's, 0: none), and its last sub-frame is quiet
 * again (t.last within quiet_jump of t.quiet). ADS-B's 120 us messages over a 2 MS/s
 * band, a packet, lift every sub-band's floor in their frame as a gain step does; a
 * gain that steps or ramps up ends the frame high. The floor's level is then 0, so the
 * track holds the burst as a signal (sensing_track_floor), where the quiet samples are
 * the floor's (sensing_quiet_is_floor).
 */
GPUFFT_HD inline bool sensing_burst_rise(const sensing_consts& k,
                                         double level,
                                         const sensing_time_power& t,
                                         double prior_quiet)
{
    return level > 0 && t.quiet > 0 && prior_quiet > 0 &&
           level - log(t.quiet / prior_quiet) > k.quiet_jump &&
           t.last <= t.quiet * exp(k.quiet_jump);
}

/*!
 * Whether the frame's quiet samples hold mostly noise: their power at most 4 times
 * (6 dB) the noise of a floor whose mean over the sub-bands is mean_floor (|X_w|^2
 * units, the track's before the frame). Where carriers hold most of the samples'
 * power, their modulation moves it by more than a floor's rise would, so a rise that
 * the quiet samples do not share tells nothing (random mixes of QPSK and FM carriers
 * 20-40 dB over the noise: a level that rose by 6 dB was taken for a burst and the
 * floor held under the band's). 4: a radio's DC offset and the lines of a quiet band
 * (ADS-B at 2 MS/s, 8-bit: 3 times the noise) keep the test.
 */
GPUFFT_HD inline bool sensing_quiet_is_floor(const sensing_consts& k,
                                             const sensing_time_power& t,
                                             double mean_floor)
{
    return t.quiet <= 4.0 * mean_floor * k.quiet_noise;
}

//! The mean over the sub-bands of a track's floor (exp of prior[0 .. subbands)), in
//! order (the CUDA backend's one thread sums them the same).
GPUFFT_HD inline double sensing_track_mean_floor(const sensing_consts& k,
                                                 const double* prior)
{
    double sum = 0;
    for (int i = 0; i < k.subbands; ++i)
        sum += exp(prior[i]);
    return sum / k.subbands;
}

//! The frame's level: 0 where it rose as a burst over the floor (sensing_burst_rise,
//! sensing_quiet_is_floor with the track prior's floor), else `level`.
inline double sensing_burst_level(const sensing_consts& k,
                                  double level,
                                  const sensing_time_power& t,
                                  double prior_quiet,
                                  const double* prior)
{
    if (sensing_burst_rise(k, level, t, prior_quiet) &&
        sensing_quiet_is_floor(k, t, sensing_track_mean_floor(k, prior)))
        return 0.0;
    return level;
}

//! Whether shifted bin s is inside the DC mask.
GPUFFT_HD inline bool sensing_masked(const sensing_consts& k, std::int64_t s)
{
    const std::int64_t b = s - k.half;
    return k.mask_dc && b >= -k.dc_mask && b <= k.dc_mask;
}

//! Whether shifted bin s of power p stands above the threshold eta x the floor.
GPUFFT_HD inline bool sensing_above(
    const sensing_consts& k, double eta, const double* f, std::int64_t s, float p)
{
    return double(p) > eta * sensing_floor_at(k, f, s) && !sensing_masked(k, s);
}

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_SENSING_MATH_H */
