/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "stream/transmission_tracker.h"
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace gr {
namespace gpufft {
namespace stream {

std::vector<frame_signal> to_hz(const std::vector<sensed_signal>& signals,
                                std::int64_t fft_size,
                                double rate,
                                double center_freq)
{
    const double bin = rate / double(fft_size);
    std::vector<frame_signal> out;
    out.reserve(signals.size());
    for (const auto& s : signals) {
        frame_signal f;
        f.center_hz = center_freq + s.center_bin * bin;
        f.lower_hz = center_freq + s.lower_bin * bin;
        f.upper_hz = center_freq + s.upper_bin * bin;
        f.peak_power_dbfs = s.peak_power_dbfs;
        f.total_power_dbfs = s.total_power_dbfs;
        f.snr_db = s.snr_db;
        f.dc = s.dc;
        f.held = s.held;
        f.core_lower_hz = center_freq + (double(s.first_bin) - 0.5) * bin;
        f.core_upper_hz = center_freq + (double(s.last_bin) + 0.5) * bin;
        out.push_back(f);
    }
    return out;
}

transmission_tracker::transmission_tracker(int hold_frames, int line_memory)
    : d_hold(hold_frames), d_line_memory(line_memory), d_memory(line_memory * hold_frames)
{
    if (hold_frames < 0 || hold_frames > 1000)
        throw std::invalid_argument("hold_frames must be in [0, 1000], not " +
                                    std::to_string(hold_frames));
    if (line_memory < 0 || line_memory > 1000)
        throw std::invalid_argument("line_memory must be in [0, 1000], not " +
                                    std::to_string(line_memory));
}

bool transmission_tracker::may_still_be_on(int found, int span, int missed)
{
    // Seen in `found` of `span` frames, a line's rate p is Beta(found + 1, span - found
    // + 1) under a uniform prior; missing it `missed` frames in a row has the chance
    // E[(1 - p)^missed] = B(a, b + missed) / B(a, b). Unlike (1 - found / (span + 1))^m
    // it keeps what few sightings leave open: seen once, a line may flicker at 1 frame
    // in 20 as well as be on in every frame.
    const double a = std::max(0, found) + 1.0;
    const double b = std::max(0, span - std::max(0, found)) + 1.0;
    const double m = std::max(0, missed);
    const double log_chance =
        std::lgamma(b + m) + std::lgamma(a + b) - std::lgamma(b) - std::lgamma(a + b + m);
    return log_chance > std::log(flicker_miss_chance);
}

bool transmission_tracker::steady(const open_tx& o)
{
    const std::int64_t span = o.last_frame - o.first_frame + 1;
    if (o.held == 0 && o.t.frames >= 2 && o.t.frames >= span)
        return true;
    // Its last sightings in a row: too many for the rate it was seen at before them.
    const std::int64_t found_before = o.t.frames - o.held - o.streak;
    const std::int64_t span_before = span - o.streak;
    if (o.streak < 2 || found_before < 1 || span_before < 1)
        return false;
    const double p = double(found_before) / double(span_before + 1);
    return double(o.streak) * std::log(p) < std::log(streak_chance);
}

bool transmission_tracker::is_line(const open_tx& o, double bin_hz) const
{
    // Only a line that flickered, or was seen once, is remembered: a burst, a pulse of a
    // train, a carrier seen in every frame of its span, has ended when it is gone (the
    // next pulse on the same bins is another transmission), and so has a wide band.
    return d_memory > 0 && !steady(o) &&
           o.t.upper_hz - o.t.lower_hz <= line_bins * bin_hz;
}

bool transmission_tracker::line_ended(const open_tx& o) const
{
    const auto missed = d_frame - o.last_frame; // frames without it, this one included
    return missed > d_memory ||
           !may_still_be_on(o.t.frames - o.held,
                            int(o.last_frame - o.first_frame + 1),
                            int(std::min<std::int64_t>(missed, 1 << 30)));
}

int transmission_tracker::hold_of(const open_tx& o) const
{
    // Seen in `frames` of the frames from its first to its last: a signal near the
    // threshold (an intermod product, a spur's skirt) is found in a fraction p of them,
    // and misses k frames in a row with chance (1 - p)^k while it is still on.
    // A transmission seen in every frame of its span (2 at least) keeps the plain
    // hold: a burst, a pulse of a train, a steady carrier. Otherwise p is estimated
    // as frames / (span + 1) (Laplace's rule: a signal seen once has shown nothing of
    // its rate yet, p = 1/2, and holds 7 frames). Frames seen only by the plan's held
    // test (a lower threshold on the bins of a signal of the frames before) do not
    // count in p: a weak line that the held test follows for a stretch and then loses
    // in a fade is found by the band's threshold in a fraction p of its frames only,
    // and is one emitter over its fades, while a burst or a pulse, found by the band's
    // threshold in every frame, keeps the plain hold.
    const double span = double(o.last_frame - o.first_frame + 1);
    const double found = double(o.t.frames - o.held);
    if (steady(o))
        return d_hold;
    const double p = std::min(1.0, found / (span + 1));
    if (p <= 0)
        return flicker_hold_factor * d_hold;
    const double k = std::ceil(std::log(flicker_miss_chance) / std::log1p(-p));
    return int(std::clamp(k, double(d_hold), double(flicker_hold_factor * d_hold)));
}

void transmission_tracker::core_of(const frame_signal& s, double& lo, double& hi)
{
    const bool known = s.core_lower_hz != 0 || s.core_upper_hz != 0;
    lo = known ? std::min(s.core_lower_hz, s.lower_hz) : s.lower_hz;
    hi = known ? std::max(s.core_upper_hz, s.upper_hz) : s.upper_hz;
}

void transmission_tracker::add_core(open_tx& o, const frame_signal& s) const
{
    double lo = 0, hi = 0;
    core_of(s, lo, hi);
    if (!o.cores.empty() && o.cores.back().frame == d_frame) {
        o.cores.back().lo = std::min(o.cores.back().lo, lo);
        o.cores.back().hi = std::max(o.cores.back().hi, hi);
        return;
    }
    // only the frames inside_wide() reads are kept
    const std::int64_t oldest = d_frame - std::max(1, d_hold);
    o.cores.erase(
        std::remove_if(o.cores.begin(),
                       o.cores.end(),
                       [&](const open_tx::core_frame& c) { return c.frame < oldest; }),
        o.cores.end());
    o.cores.push_back({ d_frame, lo, hi });
}

bool transmission_tracker::inside_wide(
    const open_tx& o, double lo, double hi, double bin_hz, bool at_edge) const
{
    if (o.t.upper_hz - o.t.lower_hz <= line_bins * bin_hz)
        return false; // a line in its strongest frame (a pulse its keying widened once)
    const std::int64_t oldest = d_frame - std::max(1, d_hold);
    double ext_lo = 0, ext_hi = 0;
    bool any = false;
    for (const auto& c : o.cores)
        if (c.frame >= oldest) {
            ext_lo = any ? std::min(ext_lo, c.lo) : c.lo;
            ext_hi = any ? std::max(ext_hi, c.hi) : c.hi;
            any = true;
        }
    if (!any || ext_hi - ext_lo <= line_bins * bin_hz || lo < ext_lo - bin_hz ||
        hi > ext_hi + bin_hz)
        return false;
    return !at_edge || lo <= ext_lo + bin_hz || hi >= ext_hi - bin_hz;
}

void transmission_tracker::wide_hull(const open_tx& o,
                                     double bin_hz,
                                     double& lo,
                                     double& hi) const
{
    // inside_wide() holds [lo, hi] within the cores' extent and a bin; the strongest
    // frame's edges hold it within themselves.
    lo = o.t.lower_hz;
    hi = o.t.upper_hz;
    const std::int64_t oldest = d_frame - std::max(1, d_hold);
    for (const auto& c : o.cores)
        if (c.frame >= oldest) {
            lo = std::min(lo, c.lo - bin_hz);
            hi = std::max(hi, c.hi + bin_hz);
        }
}

void transmission_tracker::add(open_tx& o,
                               const frame_signal& s,
                               std::int64_t first,
                               std::int64_t len)
{
    const double p = std::pow(10.0, s.total_power_dbfs / 10.0);
    if (o.t.frames == 0 || p > o.best_power) {
        o.best_power = p;
        o.t.lower_hz = s.lower_hz;
        o.t.upper_hz = s.upper_hz;
    }
    o.power_sum += p;
    o.weighted_center += p * s.center_hz;
    o.snr_sum += s.snr_db;
    o.t.peak_power_dbfs = o.t.frames == 0
                              ? s.peak_power_dbfs
                              : std::max(o.t.peak_power_dbfs, s.peak_power_dbfs);
    o.t.dc = o.t.dc || s.dc;
    add_core(o, s);
    o.span_lo = o.t.frames == 0 ? s.lower_hz : std::min(o.span_lo, s.lower_hz);
    o.span_hi = o.t.frames == 0 ? s.upper_hz : std::max(o.span_hi, s.upper_hz);
    o.last_peak_dbfs = s.peak_power_dbfs;
    // (last_frame is still its last sighting before this frame)
    o.streak =
        s.held ? 0 : (o.t.frames > 0 && o.last_frame == d_frame - 1 ? o.streak + 1 : 1);
    o.t.frames++;
    o.held += s.held ? 1 : 0;
    o.lo = s.lower_hz;
    o.hi = s.upper_hz;
    o.end_sample = std::max(o.end_sample, first + len);
    o.missed = 0;
    o.hidden_by = -1;
    o.frame_power = p;
    o.last_frame = d_frame;
}

void transmission_tracker::add_piece(open_tx& o, const frame_signal& s, bool core) const
{
    const double p = std::pow(10.0, s.total_power_dbfs / 10.0);
    o.power_sum += p;
    o.weighted_center += p * s.center_hz;
    o.t.peak_power_dbfs = std::max(o.t.peak_power_dbfs, s.peak_power_dbfs);
    o.t.dc = o.t.dc || s.dc;
    o.lo = std::min(o.lo, s.lower_hz);
    o.hi = std::max(o.hi, s.upper_hz);
    o.span_lo = std::min(o.span_lo, s.lower_hz);
    o.span_hi = std::max(o.span_hi, s.upper_hz);
    o.last_peak_dbfs = std::max(o.last_peak_dbfs, s.peak_power_dbfs);
    if (core)
        add_core(o, s);
    o.frame_power += p;
    // this frame's pieces together may make it the strongest frame
    if (o.frame_power > o.best_power) {
        o.best_power = o.frame_power;
        o.t.lower_hz = o.lo;
        o.t.upper_hz = o.hi;
    }
}

void transmission_tracker::merge(open_tx& into, const open_tx& o)
{
    if (o.t.start_sample < into.t.start_sample) {
        into.t.start_sample = o.t.start_sample;
        into.t.id = std::min(into.t.id, o.t.id);
    }
    if (o.best_power > into.best_power) {
        into.best_power = o.best_power;
        into.t.lower_hz = o.t.lower_hz;
        into.t.upper_hz = o.t.upper_hz;
    }
    into.power_sum += o.power_sum;
    into.weighted_center += o.weighted_center;
    into.snr_sum += o.snr_sum;
    into.t.frames += o.t.frames;
    into.held += o.held;
    into.t.peak_power_dbfs = std::max(into.t.peak_power_dbfs, o.t.peak_power_dbfs);
    into.t.dc = into.t.dc || o.t.dc;
    into.end_sample = std::max(into.end_sample, o.end_sample);
    if (o.last_frame > into.last_frame)
        into.streak = o.streak;
    into.first_frame = std::min(into.first_frame, o.first_frame);
    into.last_frame = std::max(into.last_frame, o.last_frame);
    into.cores.insert(into.cores.end(), o.cores.begin(), o.cores.end());
    into.edges.insert(into.edges.end(), o.edges.begin(), o.edges.end());
    into.edge_stride = std::max(into.edge_stride, o.edge_stride);
    thin_edges(into);
    // (A row does not sweep by a merge: a spur's row that took in a chirp's frames
    // where a band joined them would take in every signal in the chirp's channel.)
    into.span_lo = std::min(into.span_lo, o.span_lo);
    into.span_hi = std::max(into.span_hi, o.span_hi);
}

void transmission_tracker::record_edges(open_tx& o) const
{
    if (o.edge_count++ % o.edge_stride != 0)
        return;
    o.edges.push_back({ d_frame, d_last_first, o.lo, o.hi });
    thin_edges(o);
}

void transmission_tracker::thin_edges(open_tx& o)
{
    if (o.edges.size() < edge_record_cap)
        return;
    std::size_t w = 0;
    for (std::size_t r = 0; r < o.edges.size(); r += 2)
        o.edges[w++] = o.edges[r];
    o.edges.resize(w);
    o.edge_stride *= 2;
}

void transmission_tracker::reported_edges(open_tx& o, double& lower, double& upper)
{
    lower = o.t.lower_hz;
    upper = o.t.upper_hz;
    // Pieces tracked apart and merged later hold one entry each for a frame: that
    // frame's edges are their union.
    auto& e = o.edges;
    std::sort(e.begin(), e.end(), [](const auto& a, const auto& b) {
        return a.frame < b.frame;
    });
    std::size_t m = 0;
    for (std::size_t r = 0; r < e.size(); ++r) {
        if (m > 0 && e[m - 1].frame == e[r].frame) {
            e[m - 1].lo = std::min(e[m - 1].lo, e[r].lo);
            e[m - 1].hi = std::max(e[m - 1].hi, e[r].hi);
        } else {
            e[m++] = e[r];
        }
    }
    e.resize(m);
    if (m < std::size_t(edge_frames))
        return;
    std::vector<double> los(m), his(m);
    for (std::size_t i = 0; i < m; ++i) {
        los[i] = e[i].lo;
        his[i] = e[i].hi;
    }
    const auto cut =
        std::size_t((o.sweeps >= sweep_steps ? sweep_edge_trim : edge_trim) * double(m));
    std::nth_element(los.begin(), los.begin() + cut, los.end());
    std::nth_element(his.begin(), his.begin() + (m - 1 - cut), his.end());
    lower = los[cut];
    upper = his[m - 1 - cut];
}

void transmission_tracker::close(open_tx& o,
                                 double rate,
                                 std::vector<transmission>& ended)
{
    auto t = o.t;
    reported_edges(o, t.lower_hz, t.upper_hz);
    t.sample_count = o.end_sample - t.start_sample;
    t.start_s = double(t.start_sample) / rate;
    t.duration_s = double(t.sample_count) / rate;
    t.center_hz = o.power_sum > 0 ? o.weighted_center / o.power_sum
                                  : 0.5 * (t.lower_hz + t.upper_hz);
    t.bandwidth_hz = t.upper_hz - t.lower_hz;
    t.mean_snr_db = t.frames > 0 ? o.snr_sum / t.frames : 0.0;
    ended.push_back(t);
}

bool transmission_tracker::beside_a_line(const open_tx& o, double bin_hz) const
{
    if (o.t.frames != 1 || o.t.dc || o.t.upper_hz - o.t.lower_hz > line_bins * bin_hz)
        return false;
    const auto near = [&](const open_tx& p) {
        if (&p == &o || p.t.dc || p.t.frames < 2 || p.first_frame > o.first_frame ||
            p.last_frame < o.first_frame ||
            p.t.upper_hz - p.t.lower_hz > line_bins * bin_hz)
            return false;
        const double gap =
            std::max(p.t.lower_hz - o.t.upper_hz, o.t.lower_hz - p.t.upper_hz);
        return gap <= beside_bins * bin_hz;
    };
    return std::any_of(d_active.begin(), d_active.end(), near) ||
           std::any_of(d_dormant.begin(), d_dormant.end(), near);
}

void transmission_tracker::split_apart(const std::vector<frame_signal>& signals,
                                       const std::vector<char>& s_used,
                                       const std::vector<std::size_t>& s_to,
                                       std::vector<char>& t_used,
                                       std::vector<char>& merged,
                                       std::vector<char>& hidden)
{
    const double line = line_bins * d_bin_hz;
    auto& p = d_pieces;
    p.clear();
    for (std::size_t j = 0; j < signals.size(); ++j)
        if (s_used[j] == 1 && !merged[s_to[j]])
            p.push_back({ s_to[j], j });
    std::sort(p.begin(), p.end(), [&](const auto& a, const auto& b) {
        return a.first != b.first
                   ? a.first < b.first
                   : signals[a.second].lower_hz < signals[b.second].lower_hz;
    });
    const std::size_t rows = d_active.size();
    for (std::size_t a = 0, b = 0; a < p.size(); a = b) {
        b = a;
        while (b < p.size() && p[b].first == p[a].first)
            ++b;
        const std::size_t i = p[a].first;
        if (i >= rows)
            continue;
        // The widest gap between its wide pieces (lines inside a gap, an image or a
        // spur, take no side), clear where it is wider than split_gap_ratio times the
        // narrower side.
        bool any = false;
        double wide_lo = 0, reach = 0, widest = 0, gap_lo = 0, gap_hi = 0;
        for (std::size_t k = a; k < b; ++k) {
            const frame_signal& s = signals[p[k].second];
            if (s.upper_hz - s.lower_hz <= line)
                continue;
            if (any && s.lower_hz - reach > widest) {
                widest = s.lower_hz - reach;
                gap_lo = reach;
                gap_hi = s.lower_hz;
            }
            wide_lo = any ? wide_lo : s.lower_hz;
            reach = any ? std::max(reach, s.upper_hz) : s.upper_hz;
            any = true;
        }
        open_tx& o = d_active[i];
        if (!(widest > split_gap_ratio * std::min(gap_lo - wide_lo, reach - gap_hi))) {
            o.split_streak = 0;
            continue;
        }
        // The same two emitters frame after frame: the gap where it was, each side as
        // wide as it was within split_width_ratio. A carrier whose load leaves a gap
        // (the LTE FDD capture: its lower part and a sliver at its upper edge, 0.1-0.8
        // MHz, for frames on end) has sides that change from frame to frame.
        const double low_width = gap_lo - wide_lo, high_width = reach - gap_hi;
        const auto alike = [](double a, double b) {
            return a <= split_width_ratio * b && b <= split_width_ratio * a;
        };
        const bool same = o.split_streak > 0 && o.split_frame == d_frame - 1 &&
                          gap_lo < o.split_hi && gap_hi > o.split_lo &&
                          alike(low_width, o.split_low_width) &&
                          alike(high_width, o.split_high_width);
        o.split_streak = same ? o.split_streak + 1 : 1;
        o.split_frame = d_frame;
        o.split_lo = gap_lo;
        o.split_hi = gap_hi;
        o.split_low_width = low_width;
        o.split_high_width = high_width;
        if (o.split_streak < split_frames)
            continue;
        // Lines inside the gap take no side: the next frame's open rows of their own.
        d_low.clear();
        d_high.clear();
        for (std::size_t k = a; k < b; ++k) {
            const double c = signals[p[k].second].center_hz;
            if (c <= gap_lo)
                d_low.push_back(p[k].second);
            else if (c >= gap_hi)
                d_high.push_back(p[k].second);
        }
        open_tx up = o;
        up.t.id = d_next_id++;
        restart_as(o, signals, d_low);
        restart_as(up, signals, d_high);
        d_active.push_back(std::move(up)); // o is not used past here
        t_used.push_back(1);
        merged.push_back(0);
        hidden.push_back(0);
    }
}

void transmission_tracker::restart_as(open_tx& o,
                                      const std::vector<frame_signal>& signals,
                                      const std::vector<std::size_t>& group) const
{
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    double core_lo = lo, core_hi = hi, power = 0, moment = 0, peak = hi;
    bool dc = false;
    for (const std::size_t j : group) {
        const frame_signal& s = signals[j];
        const double pw = std::pow(10.0, s.total_power_dbfs / 10.0);
        double c_lo = 0, c_hi = 0;
        core_of(s, c_lo, c_hi);
        lo = std::min(lo, s.lower_hz);
        hi = std::max(hi, s.upper_hz);
        core_lo = std::min(core_lo, c_lo);
        core_hi = std::max(core_hi, c_hi);
        power += pw;
        moment += pw * s.center_hz;
        peak = std::max(peak, s.peak_power_dbfs);
        dc = dc || s.dc;
    }
    // Its start: the first of the frames up to this one whose recorded edges (pieces'
    // entries of a frame together) met lo..hi, but for stretches no longer than the
    // hold (a frame where the apart rule hid one of two rows, and the other kept its
    // own edges); where the first record met them, the row's start (the record starts
    // there, or at the row's last split). A neighbour that began beside a carrier and
    // joined its band in its first frame starts there, not at the carrier's start.
    auto& e = o.edges;
    std::sort(e.begin(), e.end(), [](const auto& x, const auto& y) {
        return x.frame < y.frame;
    });
    std::int64_t start_frame = d_frame, start_sample = d_last_first;
    bool first_met = false;
    for (std::size_t r = e.size(); r > 0;) {
        const std::int64_t f = e[r - 1].frame;
        bool met = false;
        for (; r > 0 && e[r - 1].frame == f; --r)
            met = met || (e[r - 1].hi >= lo && e[r - 1].lo <= hi);
        if (met) {
            start_frame = f;
            start_sample = e[r].sample;
        } else if (start_frame - f > std::int64_t(d_hold) + 1) {
            break;
        }
        first_met = met && r == 0;
    }
    if (first_met || start_frame <= o.first_frame) {
        start_frame = o.first_frame;
        start_sample = o.t.start_sample;
    }
    const int frames =
        start_frame == o.first_frame
            ? o.t.frames
            : int(std::min<std::int64_t>(o.t.frames, d_frame - start_frame + 1));
    o.snr_sum *= double(frames) / double(std::max(1, o.t.frames));
    o.t.frames = frames;
    o.held = std::min(o.held, frames);
    o.streak = std::min<std::int64_t>(o.streak, frames);
    o.first_frame = start_frame;
    o.t.start_sample = start_sample;
    o.lo = o.t.lower_hz = lo;
    o.hi = o.t.upper_hz = hi;
    o.best_power = o.frame_power = o.power_sum = power;
    o.weighted_center = moment;
    o.t.peak_power_dbfs = peak;
    o.t.dc = dc;
    o.cores.assign(1, { d_frame, core_lo, core_hi });
    // The frames recorded were the joined band's: its edges start again here.
    e.clear();
    o.edge_stride = 1;
    o.edge_count = 0;
    o.split_streak = 0;
    o.hidden_by = -1;
    o.span_lo = lo;
    o.span_hi = hi;
    // (a row split off moves afresh: its last step and widest step were the joined
    // band's)
    o.sweeps = 0;
    o.jumps = 0;
    o.step_hz = 0;
    o.sweep_width = 0;
}

void transmission_tracker::update(std::int64_t first_sample,
                                  std::int64_t frame_len,
                                  double rate,
                                  double bin_hz,
                                  const std::vector<frame_signal>& signals,
                                  std::vector<transmission>& ended)
{
    if (!(rate > 0) || !(bin_hz > 0) || frame_len < 1)
        throw std::invalid_argument(
            "transmission_tracker: rate and bin_hz must be > 0 and frame_len >= 1");
    // A frame from before the last one would give rows that end before they start.
    if (first_sample < d_last_first)
        throw std::invalid_argument(
            "first_sample: frames must come in order; got " +
            std::to_string(first_sample) + " after " + std::to_string(d_last_first) +
            " (flush() ends a stream; the next may start anywhere)");
    d_last_first = first_sample;
    d_rate = rate;
    d_bin_hz = bin_hz;
    // Every (transmission, signal) pair whose edges overlap within a bin, the largest
    // overlaps taken first: each side is used once.
    struct pair_overlap {
        double overlap;
        std::size_t t, s;
        bool predicted = false; //!< where a sweeping transmission's last step puts it
    };
    const auto t_width = [&](std::size_t i) {
        return std::max(bin_hz, d_active[i].hi - d_active[i].lo);
    };
    const auto s_width = [&](std::size_t j) {
        return std::max(bin_hz, signals[j].upper_hz - signals[j].lower_hz);
    };
    // A frame's signals are disjoint bands in ascending order (as the plan gives them):
    // those a transmission's edges may overlap are then one run of them, found by
    // binary search (two bins wider than the test, which decides each as before);
    // in any other order every pair is tried. All pairs at 256 signals were a sixth of
    // update()'s time.
    const auto by_lower = [](const frame_signal& a, const frame_signal& b) {
        return a.lower_hz < b.lower_hz;
    };
    const bool ordered = std::is_sorted(signals.begin(), signals.end(), by_lower) &&
                         std::is_sorted(signals.begin(),
                                        signals.end(),
                                        [](const frame_signal& a, const frame_signal& b) {
                                            return a.upper_hz < b.upper_hz;
                                        });
    std::vector<pair_overlap> pairs;
    for (std::size_t i = 0; i < d_active.size(); ++i) {
        std::size_t j0 = 0, j1 = signals.size();
        if (ordered) {
            j0 = std::size_t(std::partition_point(signals.begin(),
                                                  signals.end(),
                                                  [&](const frame_signal& x) {
                                                      return x.upper_hz <
                                                             d_active[i].lo - 2 * bin_hz;
                                                  }) -
                             signals.begin());
            j1 = std::size_t(std::partition_point(signals.begin(),
                                                  signals.end(),
                                                  [&](const frame_signal& x) {
                                                      return x.lower_hz <=
                                                             d_active[i].hi + 2 * bin_hz;
                                                  }) -
                             signals.begin());
        }
        for (std::size_t j = j0; j < j1; ++j) {
            const double lo = std::max(d_active[i].lo, signals[j].lower_hz);
            const double hi = std::min(d_active[i].hi, signals[j].upper_hz);
            if (hi - lo >= -bin_hz)
                pairs.push_back({ hi - lo, i, j });
        }
    }
    // A sweeping transmission seen in the frame before pairs first (before the DC
    // spike's pairs and any overlap of last edges) with a signal where its last step
    // puts it (its last edges moved by that step, within a bin): a chirp's preamble
    // repeats each segment at one place every symbol, and a row seen there once, a
    // flickering line while its hold lasts, took the next by overlap (LoRa at SF 11:
    // 99 rows for 7 packets, 38 since).
    // A line seen in occlude_frames frames or more (on DC: the spike's row).
    const auto steady_line = [&](const open_tx& o) {
        return o.t.frames >= occlude_frames && o.hi - o.lo <= line_bins * bin_hz;
    };
    // (Not a line on the last edges of a steady line, a stationary one: that line's,
    // which its overlap pairs it with. A CW spur 7.5 kHz past a LoRa channel's top lay
    // where the chirp was looked for; the chirp's row took it, and then the spur's
    // row.)
    const auto on_a_steady_line = [&](std::size_t i, std::size_t j) {
        const auto& s = signals[j];
        if (s_width(j) > line_bins * bin_hz)
            return false;
        for (std::size_t k = 0; k < d_active.size(); ++k) {
            const auto& l = d_active[k];
            if (k != i && l.sweeps == 0 && steady_line(l) &&
                d_frame - l.last_frame <= std::int64_t(d_hold) + 1 &&
                l.lo <= s.upper_hz + bin_hz && l.hi >= s.lower_hz - bin_hz)
                return true;
        }
        return false;
    };
    for (std::size_t i = 0; i < d_active.size(); ++i) {
        const auto& o = d_active[i];
        // (a step, no further than is_step() allows: not a wrap or a symbol's jump)
        if (!sweeping(o) || o.last_frame != d_frame - 1 || o.step_hz == 0 ||
            std::fabs(o.step_hz) > 2 * t_width(i) + bin_hz)
            continue;
        for (std::size_t j = 0; j < signals.size(); ++j) {
            const double lo = std::max(o.lo + o.step_hz, signals[j].lower_hz);
            const double hi = std::min(o.hi + o.step_hz, signals[j].upper_hz);
            if (hi - lo >= -bin_hz && !on_a_steady_line(i, j))
                pairs.push_back({ hi - lo, i, j, true });
        }
    }
    // Largest overlaps first. Before them, the DC spike (a dc signal no wider than a
    // line) and the rows on DC, the nearest in width first: the spike keeps its row.
    // By overlap alone, a burst's row on DC (a message a few kHz off DC, its last edges
    // the spike's and more) took the spike, a hair wider than its own row's last edges,
    // and with it the spike's row.
    const auto spike_pair = [&](const pair_overlap& p) {
        return signals[p.s].dc && d_active[p.t].t.dc &&
               s_width(p.s) <= line_bins * bin_hz;
    };
    const auto mismatch = [&](const pair_overlap& p) {
        return std::fabs(std::log(t_width(p.t) / s_width(p.s)));
    };
    std::sort(
        pairs.begin(), pairs.end(), [&](const pair_overlap& a, const pair_overlap& b) {
            if (a.predicted != b.predicted)
                return a.predicted;
            const bool sa = spike_pair(a), sb = spike_pair(b);
            if (sa != sb)
                return sa;
            if (sa)
                return mismatch(a) < mismatch(b);
            return a.overlap > b.overlap;
        });
    std::vector<char> t_used(d_active.size(), 0), s_used(signals.size(), 0);
    std::vector<std::size_t> s_to(signals.size(), 0);
    // The radio's DC spike, a line a few bins wide on DC, is no carrier's continuation
    // when it is under an eighth of the carrier's last width (and the frame's other
    // signals over the carrier cover no eighth of it either): the spike alone, seen
    // while a TDD carrier is off, would otherwise chain its bursts into one row. Nor
    // does a carrier continue the spike's transmission.
    std::vector<double> cover(d_active.size(), 0.0), cover_all(d_active.size(), 0.0);
    for (const auto& p : pairs) {
        if (p.predicted) // (the overlap of its last edges is a pair of its own)
            continue;
        if (!signals[p.s].dc)
            cover[p.t] += std::max(0.0, p.overlap);
        cover_all[p.t] += std::max(0.0, p.overlap);
    }
    // The signal is the spike, the transmission a carrier it does not continue.
    const auto spike_signal = [&](const pair_overlap& p) {
        const double a = t_width(p.t), b = s_width(p.s);
        return signals[p.s].dc && b * width_ratio < a && cover[p.t] * width_ratio < a;
    };
    const auto spike = [&](const pair_overlap& p) {
        const double a = t_width(p.t), b = s_width(p.s);
        if (signals[p.s].dc && b * width_ratio < a)
            return spike_signal(p);
        return a * width_ratio < b && d_active[p.t].t.dc; // the spike's row, a carrier
    };
    // Each transmission as the frame before left it: a signal that continues it may
    // leave its last edges (the spike's row) or its strongest frame's (a sliver, a
    // joined frame of two emitters, below) as they were.
    auto& before = d_before;
    before.resize(d_active.size());
    for (std::size_t i = 0; i < d_active.size(); ++i) {
        const auto& o = d_active[i];
        before[i] = { o.lo,         o.hi,      o.best_power, o.t.lower_hz,
                      o.t.upper_hz, o.span_lo, o.span_hi,    o.last_frame };
    }
    // (and the edges its moves covered: a sweep does not cover what it was joined to)
    const auto keep_last_edges = [&](std::size_t i) {
        d_active[i].lo = before[i].lo;
        d_active[i].hi = before[i].hi;
        d_active[i].span_lo = before[i].span_lo;
        d_active[i].span_hi = before[i].span_hi;
    };
    const auto keep_strongest = [&](std::size_t i) {
        d_active[i].best_power = before[i].best;
        d_active[i].t.lower_hz = before[i].lower;
        d_active[i].t.upper_hz = before[i].upper;
    };
    for (const auto& p : pairs) {
        if (t_used[p.t] || s_used[p.s] || spike(p))
            continue;
        t_used[p.t] = s_used[p.s] = 1;
        s_to[p.s] = p.t;
        auto& o = d_active[p.t];
        // The spike's row (on DC, a line, seen in occlude_frames frames or more) keeps
        // the spike's edges when a burst over DC, under width_ratio times wider,
        // continues it: from the burst's, the next burst 8 times wider than the spike
        // but not than the last one continued it too, and its edges grew in steps
        // (ADS-B messages near DC: 1.1 kHz -> 7 kHz -> 23 kHz).
        const bool spike_row =
            o.t.dc && steady_line(o) && s_width(p.s) > 2 * t_width(p.t);
        // A sliver of a wide transmission (under an eighth of its last width, and all
        // this frame's signals over it no more) continues it but keeps its edges: on
        // DroneID a strong 0.86 MHz burst at the edge of the weak 12 MHz link, in the
        // link's fifth frame, was its strongest frame and gave the row its width.
        const bool sliver = s_width(p.s) * width_ratio < t_width(p.t) &&
                            cover_all[p.t] * width_ratio < t_width(p.t);
        note_move(o, signals[p.s], false);
        add(o, signals[p.s], first_sample, frame_len);
        if (spike_row)
            keep_last_edges(p.t);
        if (spike_row || sliver)
            keep_strongest(p.t);
    }
    // A band that broke into pieces this frame: a piece left over that overlaps the
    // last edges of a transmission continues it (every transmission it overlaps took
    // another piece, or the greedy pass would have paired them). Pieces taken in
    // order of their largest overlap, as above.
    for (const auto& p : pairs) {
        if (s_used[p.s] || !t_used[p.t])
            continue;
        s_used[p.s] = 1;
        s_to[p.s] = p.t;
        add_piece(d_active[p.t], signals[p.s]);
    }
    // The spike inside the last edges of a carrier in its hold is not a transmission of
    // its own while the hold lasts: it is what is left of the carrier's spectrum. (Not
    // a carrier over the spike's row: a burst whose band takes in DC is a row.)
    for (const auto& p : pairs)
        if (!s_used[p.s] && !t_used[p.t] && spike_signal(p))
            s_used[p.s] = 2;
    // Two emitters that were apart (each seen in apart_frames frames or more before,
    // whatever its age where the other is a steady line; the second first seen by the
    // first's last sighting, and seen recently; their last edges further apart than
    // half the narrower's width) are one band in a frame now and
    // then, where their skirts fill the gap between them: then the one the band
    // continued keeps its edges of the frame before, as for a sliver (keep_apart), and
    // the other is hidden or, a steady line, hidden as below. Two FM stations 400 kHz
    // apart (50 and 40 dB a bin, their skirts 2 dB over the floor across the gap) were
    // one band in 11 of 292 frames, and one row from the first; a LoRa chirp's band
    // joined a spur 90 kHz off its channel through its symbols' splatter, and its row,
    // its edges then over the spur, took the spur's line for its own until the two
    // rows merged (one row of 1.6 s across three channels).
    const auto line_before = [&](std::size_t i) {
        return d_active[i].t.frames > occlude_frames &&
               before[i].hi - before[i].lo <= line_bins * bin_hz;
    };
    const auto apart = [&](std::size_t a, std::size_t b) {
        const auto &A = d_active[a], &B = d_active[b];
        const auto &pa = before[a], &pb = before[b];
        if (A.t.dc || B.t.dc ||
            (!line_before(a) && !line_before(b) &&
             (A.t.frames <= apart_frames || B.t.frames < apart_frames)) ||
            pa.last < B.first_frame || d_frame - pb.last > std::int64_t(d_hold) + 1)
            return false;
        const double gap = std::max(pb.lo - pa.hi, pa.lo - pb.hi);
        return gap > 0.5 * std::min(pa.hi - pa.lo, pb.hi - pb.lo);
    };
    const auto keep_apart = [&](std::size_t i) {
        keep_last_edges(i);
        keep_strongest(i);
        auto& a = d_active[i];
        if (!a.cores.empty() && a.cores.back().frame == d_frame) {
            a.cores.back().lo = a.lo;
            a.cores.back().hi = a.hi;
        }
    };
    // A steady line continued by a band width_ratio times wider than the line's
    // widest frame (of those its edges record: a 2-FSK burst's row is both tones
    // wide, though a frame may show one) that it does not sit in the middle of (the
    // band's centre a quarter of its width or more from the line) keeps its edges,
    // as keep_apart() keeps them: the band joined it to another emitter
    // through their skirts. A LoRa chirp's band joined a spur 90 kHz off its channel
    // through its symbols' splatter; the spur's row took it, and with those edges as
    // its strongest frame's, the chirp's rows after it (one row of 1.6 s over the
    // channel). A carrier that starts its modulation widens about itself.
    for (std::size_t j = 0; j < signals.size(); ++j) {
        if (s_used[j] != 1)
            continue;
        const std::size_t a = s_to[j];
        const auto& A = d_active[a];
        if (!line_before(a) || A.t.dc)
            continue;
        // (the cheap tests first: most frames of a line are the line; its record,
        // up to edge_record_cap frames, is read only for a band that may be joined)
        const double w = s_width(j), line_w = before[a].hi - before[a].lo;
        if (w < width_ratio * std::max(bin_hz, line_w) ||
            std::fabs(signals[j].center_hz - 0.5 * (before[a].lo + before[a].hi)) <
                0.25 * w)
            continue;
        double widest = line_w;
        for (const auto& e : A.edges)
            widest = std::max(widest, e.hi - e.lo);
        if (w >= width_ratio * std::max(bin_hz, widest))
            keep_apart(a);
    }
    // A steady line hidden by another transmission's wide signal: a line (the DC spike
    // too) seen in at least occlude_frames frames, not seen this frame, whose last
    // edges lie inside a signal width_ratio times wider that continued another
    // transmission, is hidden, not gone: it neither joins that one nor counts the
    // frame as missed, and its row goes on when the wide signal has passed (its end
    // stays its last sighting). The OOK capture's -80 kHz CW spur, under each
    // packet's splatter for about 20 frames, ended at every packet and opened again;
    // the DC spike under ADS-B messages over DC in frames on end did, and a message's
    // row went on as the spike's.
    std::vector<char> hidden(d_active.size(), 0);
    // Or inside the edges of a wide transmission seen this frame (its strongest
    // frame's, or its cores' over its hold): a packet's splatter that reaches the line
    // in some frames only raises the floor over it in others.
    // Once hidden, it stays so while that transmission goes on.
    // The transmissions seen this frame that may hide a line: its last edges inside
    // their strongest frame's edges, or inside their cores' extent over the hold and
    // a bin (inside_wide()), both within the hull indexed here; the one that hides it
    // is the first in d_active's order that passes the test, as a test of every pair
    // found it (the one that hid it before, by id, is always tried).
    bool hull_made = false;
    const auto hide = [&](std::size_t i, std::size_t j) {
        const auto &o = d_active[i], &a = d_active[j];
        return j != i && t_used[j] &&
               ((o.hidden_by >= 0 && a.t.id == std::uint64_t(o.hidden_by)) ||
                (o.lo >= a.t.lower_hz && o.hi <= a.t.upper_hz &&
                 a.t.upper_hz - a.t.lower_hz >=
                     width_ratio * std::max(bin_hz, o.hi - o.lo)) ||
                inside_wide(a, o.lo, o.hi, bin_hz, false));
    };
    for (std::size_t i = 0; i < d_active.size(); ++i) {
        auto& o = d_active[i];
        if (t_used[i] || !steady_line(o))
            continue;
        if (!hull_made) {
            d_spans.clear();
            for (std::size_t j = 0; j < d_active.size(); ++j)
                if (t_used[j]) {
                    double lo, hi;
                    wide_hull(d_active[j], bin_hz, lo, hi);
                    d_spans.push_back({ lo, hi, j });
                }
            d_hulls.assign(d_spans);
            hull_made = true;
        }
        std::size_t by = d_active.size();
        for (std::size_t j = 0; j < d_active.size(); ++j)
            if (o.hidden_by >= 0 && d_active[j].t.id == std::uint64_t(o.hidden_by)) {
                if (hide(i, j))
                    by = j;
                break;
            }
        d_hulls.holding(o.lo, o.hi, [&](std::size_t j) {
            if (j < by && hide(i, j))
                by = j;
        });
        if (by < d_active.size()) {
            hidden[i] = 1;
            o.hidden_by = d_active[by].t.id;
            if (apart(by, i))
                keep_apart(by);
        }
    }
    for (const auto& p : pairs) {
        const auto& o = d_active[p.t];
        const auto& sig = signals[p.s];
        if (t_used[p.t] || s_used[p.s] != 1 || s_to[p.s] == p.t || !steady_line(o))
            continue;
        if (sig.lower_hz <= o.lo && sig.upper_hz >= o.hi &&
            sig.upper_hz - sig.lower_hz >= width_ratio * std::max(bin_hz, o.hi - o.lo)) {
            hidden[p.t] = 1;
            d_active[p.t].hidden_by = d_active[s_to[p.s]].t.id;
            if (apart(s_to[p.s], p.t))
                keep_apart(s_to[p.s]);
        }
    }
    // Pieces that joined again: a transmission not seen this frame whose last edges
    // overlap a signal that continued another is merged into that one (not the
    // spike's into a carrier's, nor a carrier's into the spike's; nor one on DC into
    // another: a frame has one band on DC, so two rows on it are the spike's and a
    // burst's, which a signal near the spike's width took up as a piece of both).
    // But two emitters that were apart (apart(), above) are one band now and then:
    // the other is hidden for that frame, not merged.
    std::vector<char> merged(d_active.size(), 0);
    for (const auto& p : pairs) {
        if (t_used[p.t] || merged[p.t] || hidden[p.t] || s_used[p.s] != 1 ||
            s_to[p.s] == p.t || spike(p) ||
            (d_active[p.t].t.dc && d_active[s_to[p.s]].t.dc))
            continue;
        const std::size_t into = s_to[p.s];
        if (apart(into, p.t)) {
            hidden[p.t] = 1;
            keep_apart(into);
            continue;
        }
        merge(d_active[into], d_active[p.t]);
        merged[p.t] = 1;
    }
    // A transmission seen this frame whose edges lie inside the strongest frame's
    // edges of an older one, seen this frame too, is a piece of it that paired on its
    // own: a narrow transmission inside a carrier took one piece of the carrier when it
    // broke (the LTE FDD carrier, whose load leaves a gap in some frames, ran as two
    // rows side by side). It is merged into the older one (not the DC spike).
    // Each transmission's reach (its strongest frame's edges and the tolerance): the
    // ones that hold a transmission's edges come from an index, not a test of every
    // pair (half of update()'s time at 256 signals); the one it merges into is still
    // the first in d_active's order. A merge can move the edges of the one merged
    // into: the index is made again after one.
    const auto tol_of = [&](const open_tx& a) {
        return std::max(bin_hz, 0.01 * (a.t.upper_hz - a.t.lower_hz));
    };
    const auto index_reaches = [&] {
        d_spans.clear();
        for (std::size_t j = 0; j < d_active.size(); ++j) {
            const auto& a = d_active[j];
            d_spans.push_back({ a.t.lower_hz - tol_of(a), a.t.upper_hz + tol_of(a), j });
        }
        d_reaches.assign(d_spans);
    };
    index_reaches();
    for (std::size_t i = 0; i < d_active.size(); ++i) {
        if (!t_used[i] || merged[i])
            continue;
        const auto& b = d_active[i];
        std::size_t into_j = d_active.size();
        d_reaches.holding(b.lo, b.hi, [&](std::size_t j) {
            if (j >= into_j)
                return;
            const auto& a = d_active[j];
            if (j == i || !t_used[j] || merged[j] || a.t.id > b.t.id)
                return;
            const double wa = a.t.upper_hz - a.t.lower_hz, wb = b.hi - b.lo;
            const double tol = tol_of(a);
            if (b.lo >= a.t.lower_hz - tol && b.hi <= a.t.upper_hz + tol && wb < wa &&
                !(b.t.dc && wb * width_ratio < wa))
                into_j = j;
        });
        if (into_j == d_active.size())
            continue;
        auto& into = d_active[into_j];
        const double lo = std::min(into.lo, b.lo), hi = std::max(into.hi, b.hi);
        merge(into, b);
        into.lo = lo; // both seen this frame: its last edges are their union
        into.hi = hi;
        merged[i] = 1;
        index_reaches();
    }
    // A wide burst's own spectrum at its onset, seen as a line beside it: a line
    // transmission (not the DC spike) seen once, in the first frame of a wide one seen
    // this frame, that lies inside the wide one's extent (its cores' union, this frame
    // and its hold's) is part of it. The onset frame of a wM-Bus FSK burst held lines
    // 60 and 100 kHz beyond the burst's bins of that frame, inside those of the next.
    for (std::size_t i = 0; i < d_active.size(); ++i) {
        auto& b = d_active[i];
        if (merged[i] || b.t.dc || b.t.frames != 1 ||
            b.t.upper_hz - b.t.lower_hz > line_bins * bin_hz)
            continue;
        for (std::size_t j = 0; j < d_active.size(); ++j) {
            auto& a = d_active[j];
            if (j == i || !t_used[j] || merged[j] || a.first_frame != b.first_frame ||
                !inside_wide(a, b.t.lower_hz, b.t.upper_hz, bin_hz, false))
                continue;
            const double lo = std::min(a.lo, b.lo), hi = std::max(a.hi, b.hi);
            const bool seen = t_used[i] != 0;
            merge(a, b);
            if (seen) { // both seen this frame: its last edges are their union
                a.lo = lo;
                a.hi = hi;
            }
            merged[i] = 1;
            break;
        }
    }
    // A moving signal (before a dormant line's: a chirp's pieces where it wraps are
    // narrow, at one place, and would revive a line there).
    continue_moving(
        signals, first_sample, frame_len, s_used, s_to, t_used, merged, hidden);
    // A signal that would open a transmission on the bins of a dormant line (its last
    // edges overlap within a bin, the signal no wider than a line) continues it: the
    // line came back while it may still have been on (a dormant line that may not has
    // ended, below). Largest overlaps first; each line takes one signal.
    std::vector<pair_overlap> line_pairs;
    for (std::size_t i = 0; i < d_dormant.size(); ++i)
        for (std::size_t j = 0; j < signals.size(); ++j) {
            if (s_used[j] || s_width(j) > line_bins * bin_hz)
                continue;
            const double lo = std::max(d_dormant[i].lo, signals[j].lower_hz);
            const double hi = std::min(d_dormant[i].hi, signals[j].upper_hz);
            if (hi - lo >= -bin_hz)
                line_pairs.push_back({ hi - lo, i, j });
        }
    std::sort(line_pairs.begin(),
              line_pairs.end(),
              [](const pair_overlap& a, const pair_overlap& b) {
                  return a.overlap > b.overlap;
              });
    std::vector<char> revived(d_dormant.size(), 0);
    for (const auto& p : line_pairs) {
        if (revived[p.t] || s_used[p.s])
            continue;
        revived[p.t] = 1;
        s_used[p.s] = 3;
        add(d_dormant[p.t], signals[p.s], first_sample, frame_len);
    }
    // A narrow signal (not the DC spike) that would open a transmission at the edge
    // of a wide one's extent (inside it, reaching its edge within a bin) seen this
    // frame is part of it: the burst's own spectrum at its edge, apart from its band
    // this frame (the wM-Bus bursts' line at their lower edge, -161 kHz, in frames
    // where the band began 35 kHz higher). Deeper inside the extent a line is another
    // emitter's as much as the burst's, and stays a row of its own.
    for (std::size_t j = 0; j < signals.size(); ++j) {
        if (s_used[j] || signals[j].dc || s_width(j) > line_bins * bin_hz)
            continue;
        for (std::size_t i = 0; i < d_active.size(); ++i)
            if (t_used[i] && !merged[i] &&
                inside_wide(d_active[i],
                            signals[j].lower_hz,
                            signals[j].upper_hz,
                            bin_hz,
                            true)) {
                s_used[j] = 4;
                add_piece(d_active[i], signals[j], false);
                break;
            }
    }
    // A row whose pieces, frame after frame, are two groups with a clear gap between
    // them is two emitters that one band took in at first (their first frame's band
    // joined them through their skirts, or through an image between them): apart in
    // split_frames frames in a row, with the gap in one place, it is split there, each
    // row from that frame's pieces on. Two FM stations 400 kHz apart (12 and 33 dB),
    // an IQ image between them, were one band in the first of 292 frames and one row
    // to the end; a carrier whose load leaves a gap in it (the LTE captures: a gap of
    // 1.5 MHz between pieces of 8-9 MHz, moving from frame to frame) is no split.
    split_apart(signals, s_used, s_to, t_used, merged, hidden);
    // Transmissions not seen: ended after their hold without them, or dormant lines.
    auto& keep = d_keep;
    auto& asleep = d_asleep;
    auto& ending = d_ending;
    keep.clear();
    asleep.clear();
    ending.clear();
    std::vector<transmission> now_ended;
    for (std::size_t i = 0; i < d_active.size(); ++i) {
        auto& o = d_active[i];
        if (merged[i])
            continue;
        if (!t_used[i] && !hidden[i] && ++o.missed > hold_of(o)) {
            if (is_line(o, bin_hz) && !line_ended(o))
                asleep.push_back(std::move(o));
            else
                ending.push_back(std::move(o));
        } else {
            keep.push_back(std::move(o));
        }
    }
    for (std::size_t i = 0; i < d_dormant.size(); ++i) {
        auto& o = d_dormant[i];
        if (revived[i])
            keep.push_back(std::move(o));
        else if (line_ended(o))
            ending.push_back(std::move(o));
        else
            asleep.push_back(std::move(o));
    }
    d_active.swap(keep);
    d_dormant.swap(asleep);
    for (auto& o : ending)
        if (!beside_a_line(o, bin_hz))
            close(o, rate, now_ended);
    for (std::size_t j = 0; j < signals.size(); ++j) {
        if (s_used[j])
            continue;
        open_tx o;
        o.t.id = d_next_id++;
        o.t.start_sample = first_sample;
        o.first_frame = d_frame;
        add(o, signals[j], first_sample, frame_len);
        d_active.push_back(std::move(o));
    }
    for (auto& o : d_active)
        if (o.last_frame == d_frame)
            record_edges(o);
    std::sort(now_ended.begin(),
              now_ended.end(),
              [](const transmission& a, const transmission& b) { return a.id < b.id; });
    ended.insert(ended.end(), now_ended.begin(), now_ended.end());
    ++d_frame;
}

void transmission_tracker::flush(std::vector<transmission>& ended)
{
    std::vector<transmission> now_ended;
    std::vector<char> beside(d_active.size() + d_dormant.size(), 0);
    for (std::size_t i = 0; i < beside.size(); ++i) {
        const auto& o =
            i < d_active.size() ? d_active[i] : d_dormant[i - d_active.size()];
        beside[i] = beside_a_line(o, d_bin_hz);
    }
    for (std::size_t i = 0; i < beside.size(); ++i)
        if (!beside[i])
            close(i < d_active.size() ? d_active[i] : d_dormant[i - d_active.size()],
                  d_rate,
                  now_ended);
    d_active.clear();
    d_dormant.clear();
    d_last_first = std::numeric_limits<std::int64_t>::min();
    std::sort(now_ended.begin(),
              now_ended.end(),
              [](const transmission& a, const transmission& b) { return a.id < b.id; });
    ended.insert(ended.end(), now_ended.begin(), now_ended.end());
}

} // namespace stream
} // namespace gpufft
} // namespace gr
