/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "sensing/sensing_backend.h"
#include "sensing/sensing_params.h"
#include "sparse/common/sparse_params.h"
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace gr {
namespace gpufft {

bandwidth_rule parse_bandwidth_rule(const std::string& name)
{
    if (name == "obw99")
        return bandwidth_rule::obw99;
    if (name == "xdb")
        return bandwidth_rule::xdb;
    throw std::invalid_argument("bandwidth_rule must be \"obw99\" or \"xdb\", not \"" +
                                name + "\"");
}

std::string to_string(bandwidth_rule r)
{
    return r == bandwidth_rule::obw99 ? "obw99" : "xdb";
}

namespace detail {

namespace {

[[noreturn]] void bad(const std::string& what) { throw std::invalid_argument(what); }

// The censoring point over the floor: bins above 4 x the floor (6 dB, 1.8 % of pure
// noise) leave the floor's log-mean, so a carrier filling part of a sub-band barely
// moves it, while the mean keeps 98 % of the noise bins (its scatter grows by ~5 %).
constexpr double censor_at = 4.0;

// E[ln u | u < c] for u ~ Exp(1), by Simpson's rule on [0, c] in t = u^(1/4) (which
// takes the log's singularity at 0 away).
double censored_log_mean(double c)
{
    const int m = 4000; // even
    const double T = std::pow(c, 0.25), h = T / m;
    auto g = [](double t) {
        if (t <= 0)
            return 0.0;
        const double u = t * t * t * t;
        return std::log(u) * std::exp(-u) * 4.0 * t * t * t;
    };
    double s = g(0) + g(T);
    for (int i = 1; i < m; ++i)
        s += g(i * h) * ((i & 1) ? 4.0 : 2.0);
    return (s * h / 3.0) / (1.0 - std::exp(-c));
}

// The tracked floor's reset and slack, in standard deviations of a sub-band's
// estimate (sensing_track_floor).
constexpr double track_jump_sd = 4.0;
constexpr double track_slack_sd = 1.0;
// A sub-band's floor this far over its track (dB) is a signal's plateau, held
// (sensing_track_floor): an 802.11 packet's stands 10-30 dB over the noise. A smaller
// rise is followed as before: a roll-off whose depth steps by up to 12 dB every 20
// frames gave 1.1 % of noise frames a signal with the track followed, 7.8 % with any
// rise over the jump held (n = 4096), 1.9 % with 6 dB.
constexpr double hold_rise_db = 6.0;
// A band's rise over its frame's quiet samples' (sensing_burst_level), in standard
// deviations of their change from frame to frame.
constexpr double quiet_jump_sd = 4.0;

bool power_of_two(std::int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

} // namespace

void throw_non_finite_frame()
{
    throw std::invalid_argument("x holds a sample that is not finite (NaN or infinity): "
                                "the frame's spectrum is not defined");
}

double sensing_eta(std::int64_t n, double false_alarm, double floor_log_var)
{
    // A bin of noise u (exponential, mean F) passes eta F' with F' the estimated floor,
    // ln F' = ln F + z, z ~ N(0, v): E[exp(-eta e^z)] ~ exp(-eta + eta^2 v / 2) for
    // small v. The threshold that keeps n of them at false_alarm solves
    // eta - eta^2 v / 2 = ln(n / false_alarm) (the root near it; a few iterations).
    return sensing_eta_from_base(sensing_eta_base(n, false_alarm), floor_log_var);
}

double sensing_eta_from_base(double base, double floor_log_var)
{
    double eta = base;
    for (int i = 0; i < 8; ++i)
        eta = base + 0.5 * eta * eta * floor_log_var;
    return eta;
}

double sensing_floor_log_var(const sensing_consts& k)
{
    // Between sub-band centres the floor is a weighted mean of two estimates: their
    // variance times 2/3 on average.
    const double v = sensing_subband_log_var(k);
    return k.subbands > 1 ? v * 2.0 / 3.0 : v;
}

double sensing_subband_log_var(const sensing_consts& k)
{
    // The floor of a sub-band is a (censored) mean of the logs of its samples: the log
    // of an exponential has variance pi^2 / 6, the censoring at 4 x leaves it about
    // the same, and the window correlates a bin's power with its neighbours' (by
    // |rho_m|^2, rho_m = sum c_j c_{j+m} / sum c_j^2), which the samples only escape
    // when they are `stride` bins apart.
    double c2 = 0;
    for (int j = 0; j < k.taps; ++j)
        c2 += k.c[j] * k.c[j];
    double inflation = 1;
    for (int m = 1; m < k.taps; ++m) {
        if (m % k.stride != 0)
            continue;
        double r = 0;
        for (int j = 0; j + m < k.taps; ++j)
            r += k.c[j] * k.c[j + m];
        inflation += 2 * (r / c2) * (r / c2);
    }
    const double samples = double((k.sub_bins + k.stride - 1) / k.stride);
    return 1.6449340668482264 * inflation / samples;
}

double sensing_track_level(const sensing_consts& k,
                           const double* raw,
                           const double* prior,
                           double* scratch)
{
    const int S = k.subbands;
    for (int i = 0; i < S; ++i)
        scratch[i] = std::log(raw[i]) - prior[i];
    int low = 0, high = 0;
    sensing_level_ranks(S, low, high);
    std::nth_element(scratch, scratch + low, scratch + S);
    const double at_low = scratch[low];
    std::nth_element(scratch + low, scratch + high, scratch + S);
    double lo = 0, hi = 0;
    if (!sensing_level_cluster(k, at_low, scratch[high], lo, hi))
        return 0.0;
    // The cluster's values to the front, then its middle as the median was taken.
    const auto end = std::partition(
        scratch, scratch + S, [&](double v) { return v >= lo && v <= hi; });
    const auto m = end - scratch;
    std::nth_element(scratch, scratch + m / 2, end);
    const double upper = scratch[m / 2];
    if (m % 2)
        return upper;
    const double lower = *std::max_element(scratch, scratch + m / 2);
    return 0.5 * (lower + upper);
}

void check_max_signals(std::int64_t n, int max_signals)
{
    if (max_signals < 0 || std::int64_t(max_signals) > n / 4)
        bad("max_signals must be 0 (automatic) or in [1, n / 4 = " +
            std::to_string(n / 4) + "], not " + std::to_string(max_signals));
}

int resolve_max_signals(std::int64_t n, int max_signals)
{
    check_max_signals(n, max_signals);
    return max_signals > 0 ? max_signals : int(std::min<std::int64_t>(256, n / 4));
}

void check_false_alarm(double false_alarm)
{
    if (!(false_alarm > 0.0 && false_alarm <= 0.5))
        bad("false_alarm must be in (0, 0.5], not " + std::to_string(false_alarm));
}

void check_floor_frames(int floor_frames)
{
    if (floor_frames < 1 || floor_frames > sensing_max_floor_frames)
        bad("floor_frames must be in [1, " + std::to_string(sensing_max_floor_frames) +
            "], not " + std::to_string(floor_frames));
}

void check_watch_frames(int watch_frames)
{
    if (watch_frames < 0 || watch_frames > sensing_max_watch_frames)
        bad("watch_frames must be in [0, " + std::to_string(sensing_max_watch_frames) +
            "], not " + std::to_string(watch_frames));
}

sensing_params make_sensing_params(std::int64_t n, const sensing_options& o)
{
    if (n < sensing_min_size || n > (std::int64_t(1) << 40))
        bad("n must be in [" + std::to_string(sensing_min_size) + ", 2^40], not " +
            std::to_string(n));
    check_max_signals(n, o.max_signals);
    check_false_alarm(o.false_alarm);
    if (o.device_id < 0)
        bad("device_id must be >= 0, not " + std::to_string(o.device_id));
    if (!(o.bandwidth_db > 0.0 && o.bandwidth_db <= 100.0))
        bad("bandwidth_db must be in (0, 100], not " + std::to_string(o.bandwidth_db));
    if (o.dc_mask_bins < 0 || std::int64_t(o.dc_mask_bins) >= n / 4)
        bad("dc_mask_bins must be in [0, n / 4 = " + std::to_string(n / 4) + "), not " +
            std::to_string(o.dc_mask_bins) + " (a DC mask wider than the band)");
    if (o.gap_bins < 0 || std::int64_t(o.gap_bins) > n / 4)
        bad("gap_bins must be in [0, n / 4 = " + std::to_string(n / 4) + "], not " +
            std::to_string(o.gap_bins));
    if (o.narrow_bins < 0 || o.narrow_bins > 64)
        bad("narrow_bins must be in [0, 64], not " + std::to_string(o.narrow_bins));
    if (o.max_tone_fits < 0 || o.max_tone_fits > 65536)
        bad("max_tone_fits must be in [0, 65536], not " +
            std::to_string(o.max_tone_fits));
    check_floor_frames(o.floor_frames);
    check_watch_frames(o.watch_frames);
    if (o.threads < 0)
        bad("threads must be >= 0, not " + std::to_string(o.threads));

    sensing_params p;
    auto& k = p.k;
    k.n = n;
    k.half = n / 2;

    // The names are the sparse FFT's (one owner); sensing takes its two cosine windows.
    sparse_fft_window window = sparse_fft_window::none;
    try {
        window = parse_sparse_fft_window(o.window);
    } catch (const std::invalid_argument&) {
    }
    double a[4] = { 0, 0, 0, 0 };
    int terms = 0;
    if (window == sparse_fft_window::blackman_harris) {
        const double bh[4] = { 0.35875, 0.48829, 0.14128, 0.01168 };
        for (int m = 0; m < 4; ++m)
            a[m] = bh[m];
        terms = 4;
        p.lobe = 4;
    } else if (window == sparse_fft_window::hann) {
        a[0] = a[1] = 0.5;
        terms = 2;
        p.lobe = 2;
    } else {
        bad("window must be \"blackman_harris\" or \"hann\", not \"" + o.window + "\"");
    }
    // w[t] = a0 - a1 cos(2 pi t / n) + a2 cos(4 pi t / n) - ...: c_0 = a0 and
    // c_{+-m} = (-1)^m a_m / 2.
    k.taps = 2 * terms - 1;
    const int h = terms - 1;
    p.power_sum = 0;
    for (int m = -h; m <= h; ++m) {
        const int am = m < 0 ? -m : m;
        const double cm = am == 0 ? a[0] : ((am % 2) ? -0.5 : 0.5) * a[am];
        k.c[m + h] = cm;
        p.power_sum += cm * cm;
    }
    p.a0 = a[0];

    // Floor sub-bands: 64 of them (the opening's quarter band is then 16), each at
    // least 512 bins, and at least 8 of at least 256 bins in small frames, so that a
    // front end's roll-off is followed there too. Narrower sub-bands follow a roll-off
    // closer, but a weak carrier that fills most of one lifts its floor (up to
    // `ceiling`) and so loses bins to the threshold, and their floors scatter more,
    // which the threshold allows for. One floor for a 1024-bin frame gave the GNSS L1
    // recording 7 false signals in 15 frames, four gave none. Under a roll-off of 12
    // dB at the band's edges (an RTL-SDR's, x^4 in frequency), four sub-bands made 1.3
    // false signals a frame of noise at n = 4096 (1024 bins each; 20 dB: one signal the
    // band wide) and 1.0 at 2048 (512 bins); eight make 0.01. A 6 dB carrier over 400
    // of 4096 bins comes back one band in 63 % of frames (90 % with four, 38 % with
    // sixteen of 256). At n = 1024 eight of 128 bins would follow the roll-off too
    // (0.66 false signals a frame with four), but cost the OOK recording 17 more missed
    // weak lines of 1869: four of 256 stay, and floor_subbands = 8 is the remedy.
    std::int64_t sub = 0;
    if (o.floor_subbands > 0) {
        if (o.floor_subbands > sensing_max_subbands || !power_of_two(o.floor_subbands))
            bad("floor_subbands must be 0 (automatic) or a power of two in [1, " +
                std::to_string(sensing_max_subbands) + "], not " +
                std::to_string(o.floor_subbands));
        sub = (n + o.floor_subbands - 1) / o.floor_subbands;
        if (sub < 64)
            bad("floor_subbands = " + std::to_string(o.floor_subbands) +
                " leaves fewer than 64 bins a sub-band at n = " + std::to_string(n));
    } else {
        sub = std::max<std::int64_t>(
            { 256, std::min<std::int64_t>(512, n / 8), (n + 63) / 64 });
    }
    k.sub_bins = std::min<std::int64_t>(sub, n);
    k.subbands = int((n + k.sub_bins - 1) / k.sub_bins);
    k.inv_sub_bins = 1.0 / double(k.sub_bins);
    k.opening = k.subbands / 4;
    // Rounded up: a sub-band never gives more than sensing_floor_samples samples (the
    // CUDA kernel's shared array, the CPU's buffer); sizes that are not powers of two
    // (1000003: 15626 bins a sub-band) overran both when rounded down.
    k.stride = std::max<std::int64_t>(
        1, (k.sub_bins + sensing_floor_samples - 1) / sensing_floor_samples);

    k.eta = sensing_eta(n, o.false_alarm, sensing_floor_log_var(k));
    // The floor tracked over frames (sensing_track_floor): a frame's estimate more
    // than track_jump_sd standard deviations of its difference from the track, which
    // is sqrt(v (1 + 1 / frames)), starts the track again (noise alone: once in 4e4
    // sub-band frames); the floor used is never under the frame's own less
    // track_slack_sd of its scatter.
    const double sub_sd = std::sqrt(sensing_subband_log_var(k));
    k.track_frames = double(o.floor_frames);
    k.track_jump = track_jump_sd * sub_sd * std::sqrt(1.0 + 1.0 / k.track_frames);
    k.track_slack = std::exp(-track_slack_sd * sub_sd);
    // A rise held as long as the track is (floor_frames, at least 1 with a track):
    // a burst of up to that many frames stands over the floor before it.
    k.track_hold = k.track_frames > 1 ? k.track_frames : 0.0;
    k.track_hold_rise = std::max(k.track_jump, std::log(10.0) / 10.0 * hold_rise_db);
    // Sub-frame powers from at most sensing_time_block_samples samples each; a quiet
    // power's log scatters by about 1 / sqrt(samples) (noise), the change of two
    // frames' by sqrt(2) that: a burst is a rise quiet_jump_sd of those over it.
    const std::int64_t block = std::max<std::int64_t>(1, n / sensing_time_blocks);
    k.time_stride = (block + sensing_time_block_samples - 1) / sensing_time_block_samples;
    const double read = double((block + k.time_stride - 1) / k.time_stride);
    k.quiet_jump = std::max(std::log(10.0) / 10.0, quiet_jump_sd * std::sqrt(2.0 / read));
    // White noise of power v a sample gives |X_w|^2 of v sum_t w_t^2 = v n sum c_m^2.
    k.quiet_noise = read / (double(n) * p.power_sum);
    k.cut = censor_at;
    k.log_cut = std::log(censor_at);
    k.censored_bias = censored_log_mean(censor_at);
    // 3 dB: a roll-off that drops 3 dB within a quarter of the band keeps its shape.
    k.ceiling = std::pow(10.0, 0.3);
    // Zeros (digital silence, a frame of zeros) hold the floor at the least normal
    // float, far below the float rounding of any real frame.
    k.floor_min = 1.1754944e-38;
    k.log_floor_min = std::log(k.floor_min);
    k.mask_dc = o.dc_mask_bins > 0;
    k.dc_mask = o.dc_mask_bins;

    p.gap_bins = o.gap_bins > 0 ? o.gap_bins : p.lobe;
    p.max_fill_gap = std::max<std::int64_t>(16, std::min<std::int64_t>(n / 8, 65536));
    p.narrow_bins = o.narrow_bins;
    p.max_tone_fits = o.max_tone_fits;
    set_robust_window(p.tone, n, window);
    k.narrow = o.narrow_bins;
    k.fit_half = window == sparse_fft_window::hann
                     ? 2
                     : 3; // robust mode's main lobe (robust_params)
    p.rule = o.bandwidth_rule;
    p.xdb_ratio = std::pow(10.0, -o.bandwidth_db / 10.0);
    return p;
}

} // namespace detail
} // namespace gpufft
} // namespace gr
