/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The transmission tracker's rules for a moving signal (a chirp, a drifting carrier):
// steps, moves, sweeps and jumps (transmission_tracker.h, docs/sensing.md "A moving
// signal"). update() in transmission_tracker.cc calls continue_moving() and note_move().

#include "stream/transmission_tracker.h"
#include <algorithm>
#include <cmath>
#include <limits>

namespace gr {
namespace gpufft {
namespace stream {

double transmission_tracker::min_move(double w1, double w2) const
{
    return std::max(0.5 * std::max(w1, w2), beside_bins * d_bin_hz);
}

bool transmission_tracker::sweeping(const open_tx& o) const
{
    return o.sweeps >= sweep_steps && o.jumps < o.sweeps;
}

void transmission_tracker::note_move(open_tx& o, const frame_signal& s, bool step) const
{
    if (o.t.frames == 0 || o.last_frame != d_frame - 1)
        return;
    const double ws = std::max(d_bin_hz, s.upper_hz - s.lower_hz),
                 wo = std::max(d_bin_hz, o.hi - o.lo);
    const bool alike = std::max(ws, wo) <= sweep_width_ratio * std::min(ws, wo);
    if (step ||
        (alike && std::fabs(s.center_hz - 0.5 * (o.lo + o.hi)) >= min_move(ws, wo))) {
        ++o.sweeps;
        o.step_hz = s.center_hz - 0.5 * (o.lo + o.hi);
        // the widest: a chirp's pieces where it wraps are narrower than its steps
        o.sweep_width = std::max(o.sweep_width, ws);
    }
}

void transmission_tracker::continue_moving(const std::vector<frame_signal>& signals,
                                           std::int64_t first_sample,
                                           std::int64_t frame_len,
                                           std::vector<char>& s_used,
                                           std::vector<std::size_t>& s_to,
                                           std::vector<char>& t_used,
                                           std::vector<char>& merged,
                                           const std::vector<char>& hidden)
{
    const double bin_hz = d_bin_hz;
    const auto width = [&](double lo, double hi) { return std::max(bin_hz, hi - lo); };
    const auto alike = [&](double a, double b) {
        return std::max(a, b) <= sweep_width_ratio * std::min(a, b);
    };
    // Where a row or a signal lies in its frame, for the step test.
    struct place {
        double lo, hi, centre, peak_dbfs;
    };
    const auto row_at = [](const open_tx& o) {
        return place{ o.lo, o.hi, 0.5 * (o.lo + o.hi), o.last_peak_dbfs };
    };
    // b lies a step from a: no further than the wider's width, moved by min_move()
    // or more, as wide within sweep_width_ratio (or narrower, or wider, where the
    // flags allow it), as strong within sweep_peak_db.
    const auto is_step = [&](const place& a, const place& b, bool narrower, bool wider) {
        const double wa = width(a.lo, a.hi), wb = width(b.lo, b.hi);
        const double gap = std::max(b.lo - a.hi, a.lo - b.hi);
        return gap <= std::max(wa, wb) &&
               (alike(wa, wb) || (narrower && wb < wa) || (wider && wb > wa)) &&
               std::fabs(b.centre - a.centre) >= min_move(wa, wb) &&
               std::fabs(b.peak_dbfs - a.peak_dbfs) <= sweep_peak_db;
    };
    // The radio's DC spike is no step of a sweep, nor its row a sweep.
    const auto spike_row = [&](const open_tx& o) {
        return o.t.dc && o.t.upper_hz - o.t.lower_hz <= line_bins * bin_hz &&
               o.t.frames >= occlude_frames;
    };
    // A step that a young row took by overlap (the piece where the chirp wrapped in
    // an earlier frame lay there) is the moving row's: the young row joins it.
    for (std::size_t a = 0; a < d_active.size(); ++a) {
        open_tx& A = d_active[a];
        if (t_used[a] || merged[a] || hidden[a] || A.sweeps < 1 ||
            A.last_frame != d_frame - 1 || spike_row(A))
            continue;
        for (std::size_t b = 0; b < d_active.size(); ++b) {
            const open_tx& B = d_active[b];
            if (b == a || !t_used[b] || merged[b] || hidden[b] || B.sweeps > 0 ||
                B.t.frames > 2 || B.last_frame != d_frame || spike_row(B) ||
                !is_step(row_at(A), row_at(B), true, false))
                continue;
            const double lo = B.lo, hi = B.hi;
            merge(A, B);
            A.lo = lo;
            A.hi = hi;
            A.missed = 0;
            t_used[a] = 1;
            merged[b] = 1;
            for (std::size_t j = 0; j < signals.size(); ++j)
                if (s_used[j] && s_to[j] == b)
                    s_to[j] = a;
            break;
        }
    }
    for (std::size_t j = 0; j < signals.size(); ++j) {
        const frame_signal& s = signals[j];
        if (s_used[j])
            continue;
        const double ws = width(s.lower_hz, s.upper_hz);
        // A step: from a row seen in the frame before (and not this one), young or
        // moving already, its edges then no further than the wider's width.
        std::size_t step = d_active.size();
        double step_gap = std::numeric_limits<double>::infinity();
        bool step_piece = false;
        for (std::size_t i = 0; i < d_active.size(); ++i) {
            const open_tx& o = d_active[i];
            if (t_used[i] || merged[i] || hidden[i] || o.last_frame != d_frame - 1 ||
                (o.t.frames > 2 && o.sweeps == 0) || spike_row(o))
                continue;
            const double wo = width(o.lo, o.hi);
            const double gap = std::max(s.lower_hz - o.hi, o.lo - s.upper_hz);
            // (or from a piece narrower than it, seen once: where a chirp wrapped;
            // below; or, from a moving row, the piece at the channel's end where it
            // wraps)
            const bool end_piece = o.sweeps >= 1 && ws < wo;
            if (!is_step(row_at(o),
                         { s.lower_hz, s.upper_hz, s.center_hz, s.peak_power_dbfs },
                         o.sweeps >= 1,
                         o.sweeps == 0 && o.t.frames == 1))
                continue;
            if (gap < step_gap) {
                step = i;
                step_gap = gap;
                step_piece = !alike(ws, wo) && !end_piece;
            }
        }
        // A row that begins where a sweeping row has just left off, and steps as it
        // did, is that row: its chirp wrapped to the channel's other end, outside the
        // edges it had covered yet (its first sweep: no jump inside them yet). The
        // moving row nearest it must be that row, and the young row no further from
        // the edges covered than 4 times their width (or a widest step's): a wrap
        // that early lands up to the channel's width less what was covered away, but
        // a row nearer another chirp is that chirp's (LoRa channels 200 kHz apart: a
        // young row there joined a sweep, then the other chirp's rows).
        if (step < d_active.size() && d_active[step].sweeps == 0) {
            const open_tx& b = d_active[step];
            std::size_t near = d_active.size();
            double near_gap = std::numeric_limits<double>::infinity();
            for (std::size_t i = 0; i < d_active.size(); ++i) {
                const open_tx& a = d_active[i];
                if (i == step || merged[i] || hidden[i] || a.sweeps < 1 ||
                    a.last_frame < b.first_frame - 1 || spike_row(a))
                    continue;
                const double gap = std::max({ 0.0, a.span_lo - b.hi, b.lo - a.span_hi });
                if (gap < near_gap) {
                    near = i;
                    near_gap = gap;
                }
            }
            if (near < d_active.size()) {
                const open_tx& a = d_active[near];
                const double reach =
                    a.jumps > 0 ? a.sweep_width
                                : 4 * std::max(a.span_hi - a.span_lo, a.sweep_width);
                if (!t_used[near] && alike(a.sweep_width, ws) && near_gap <= reach) {
                    merge(d_active[near], b);
                    merged[step] = 1;
                    step = near;
                    step_piece = false;
                }
            }
        }
        if (step_piece) // a narrow piece's step that no sweeping row takes up
            step = d_active.size();
        // A young row's first step needs the frame before it too: a row seen there
        // (young, not since) that it lies a step from, the same way and as far within
        // half a width. A hopper's hop lands beside the last one now and then; three
        // hops in a row a step apart the same way are rare.
        if (step < d_active.size() && d_active[step].sweeps == 0) {
            const open_tx& o = d_active[step];
            const double wo = width(o.lo, o.hi), mo = 0.5 * (o.lo + o.hi);
            const double d2 = s.center_hz - mo;
            std::size_t from = d_active.size();
            for (std::size_t i = 0;
                 i < d_active.size() && o.t.frames == 1 && o.first_frame == d_frame - 1;
                 ++i) {
                const open_tx& P = d_active[i];
                if (i == step || t_used[i] || merged[i] || hidden[i] || P.sweeps != 0 ||
                    P.t.frames > 2 || P.last_frame != d_frame - 2 || spike_row(P))
                    continue;
                const double d1 = mo - 0.5 * (P.lo + P.hi);
                if (!is_step(row_at(P), row_at(o), false, false) || d1 * d2 <= 0 ||
                    std::fabs(d2 - d1) > 0.5 * std::max(ws, wo))
                    continue;
                from = i;
                break;
            }
            if (from == d_active.size()) {
                step = d_active.size();
            } else {
                open_tx& P = d_active[from];
                const double lo = o.lo, hi = o.hi;
                merge(P, o);
                P.lo = lo; // its last edges: the young row's, a frame later
                P.hi = hi;
                P.sweeps = 1;
                P.sweep_width = wo;
                merged[step] = 1;
                step = from;
            }
        }
        if (step < d_active.size()) {
            open_tx& o = d_active[step];
            note_move(o, s, true);
            add(o, s, first_sample, frame_len);
            t_used[step] = 1;
            s_used[j] = 5;
            s_to[j] = step;
        }
    }
    // Then the rest (a chirp's piece at one end of its channel takes its step first,
    // the piece at the other end is inside the edges covered).
    for (std::size_t j = 0; j < signals.size(); ++j) {
        const frame_signal& s = signals[j];
        if (s_used[j])
            continue;
        const double ws = width(s.lower_hz, s.upper_hz);
        // Inside the edges a sweeping row has covered, within its widest step's width
        // (a quarter of the edges' width at most): where a chirp wraps or a symbol
        // starts, its frequency jumps, and the frame's spectrum spreads past the
        // channel's edge. (A widest step that a joined band made 70 kHz took the next
        // LoRa channel's bottom, 66 kHz past the edges, as a jump.)
        for (std::size_t i = 0; i < d_active.size(); ++i) {
            open_tx& o = d_active[i];
            const double reach =
                std::max(bin_hz, std::min(o.sweep_width, 0.25 * (o.span_hi - o.span_lo)));
            if (merged[i] || hidden[i] || !sweeping(o) || spike_row(o) ||
                d_frame - o.last_frame > std::int64_t(d_hold) ||
                s.lower_hz < o.span_lo - reach || s.upper_hz > o.span_hi + reach ||
                ws > sweep_width_ratio * o.sweep_width)
                continue;
            // (edges it has covered by its moves: a signal taken in here adds none,
            // or a hopper's row that moved now and then would grow over its hops)
            const double span_lo = o.span_lo, span_hi = o.span_hi;
            if (t_used[i]) {
                add_piece(o, s);
            } else {
                add(o, s, first_sample, frame_len);
                t_used[i] = 1;
            }
            o.span_lo = span_lo;
            o.span_hi = span_hi;
            ++o.jumps;
            s_used[j] = 5;
            s_to[j] = i;
            break;
        }
    }
}

} // namespace stream
} // namespace gpufft
} // namespace gr
