/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Location of one bucket's tone by phase voting over time-shifted hashes
// (sFFT 4.0's LocateInner), and the lobe neighbours a strong tone spawns.
// Written once for host and device (plain C++ when not compiled by nvcc): the CPU and
// CUDA backends run the same arithmetic, which makes their results comparable for the
// same seed.

#ifndef INCLUDED_GPUFFT_ROBUST_LOCATE_H
#define INCLUDED_GPUFFT_ROBUST_LOCATE_H

#include "sparse/robust/robust_consts.h"

namespace gr {
namespace gpufft {
namespace detail {

//! Round d's candidates around e in an interval w wide: `count` of them from `first`,
//! `step` apart; the last round takes the integers of its interval.
GPUFFT_HD inline void robust_round_candidates(const robust_consts& c,
                                              int d,
                                              double e,
                                              double w,
                                              int& count,
                                              double& step,
                                              double& first)
{
    count = c.cands;
    step = w / double(count);
    first = e - 0.5 * double(count - 1) * step;
    if (d == c.rounds - 1) {
        count = int(ceil(w)) + 1;
        count = count < c.cands ? count : c.cands;
        step = 1.0;
        first = floor(e - 0.5 * double(count - 1) + 0.5);
    }
}

//! Round d's shift for a bucket starting at `base`: the predicted phase, in turns, of
//! its first candidate (t0) and the turn from one candidate to the next (dt).
GPUFFT_HD inline void robust_shift_turns(const robust_consts& c,
                                         int d,
                                         std::int64_t base,
                                         double first,
                                         double step,
                                         double& t0,
                                         double& dt)
{
    const std::uint64_t n = std::uint64_t(c.n);
    const std::uint64_t a = std::uint64_t(c.offset[1 + d]);
    t0 = double(mulmod(a, std::uint64_t(base), n)) / double(n) +
         double(a) * first / double(n);
    dt = double(a) * step / double(n);
}

//! The permuted frequency at offset e from a bucket's start `base`; false when it lies in
//! a neighbour's bucket (which reports it).
GPUFFT_HD inline bool
robust_located(const robust_consts& c, std::int64_t base, double e, std::int64_t& g)
{
    if (fabs(e) > 0.5 * double(c.nb))
        return false;
    std::int64_t gg = (base + std::int64_t(llround(e))) % c.n;
    if (gg < 0)
        gg += c.n;
    g = gg;
    return true;
}

//! Candidate q of a round if its phase error |y0 + q dt| (turns, wrapped) is below
//! `err`: then it becomes `best` and its error the new `err`.
GPUFFT_HD inline void robust_try_candidate(
    std::int64_t q, int count, double y0, double dt, int& best, double& err)
{
    if (q < 0 || q >= count)
        return;
    const double e = fabs(wrap_turns(y0 + double(q) * dt));
    if (e < err) {
        err = e;
        best = int(q);
    }
}

/*!
 * The candidate of a round whose predicted phase y0 + q dt (turns, q = 0..count-1) is
 * nearest the measured one, 0, when that error is below `tol` turns (the shift's vote),
 * else -1; the lowest q on ties. The planner draws each shift so the predicted phase
 * turns by less than one turn across the round's candidates, so the nearest is next to
 * where y0 + q dt crosses an integer, or at an end: a few candidates are tried, not all.
 */
GPUFFT_HD inline int robust_nearest_candidate(double y0, double dt, int count, double tol)
{
    int best = -1;
    double err = tol;
    robust_try_candidate(0, count, y0, dt, best, err);
    const double y_end = y0 + double(count - 1) * dt;
    for (double m = ceil(y0); m <= y_end; m += 1.0) {
        const std::int64_t q = std::int64_t(floor((m - y0) / dt));
        robust_try_candidate(q, count, y0, dt, best, err);
        robust_try_candidate(q + 1, count, y0, dt, best, err);
    }
    robust_try_candidate(count - 1, count, y0, dt, best, err);
    return best;
}

/*!
 * LocateSignal/LocateInner for one bucket b of one loop. hash(h, re, im) gives the bucket
 * in hash h of the loop (h = 0 unshifted; h = 1 + d shifted by offset[1 + d] for round
 * d); u[h] conj(u[0]) turns by g offset[h] / n for a tone at permuted frequency g. Each
 * round spreads `cands` candidates over the current interval; its shift votes for those
 * whose predicted phase agrees with the measured one within vote_turns, and the best
 * (the nearest in phase) centres the next interval, `shrink` times narrower; the last
 * round tests integers. With one shift a round the paper's vote and score pick the
 * candidate nearest in phase, found in closed form (robust_nearest_candidate). Returns
 * false when no candidate wins a round, the bucket is below min_power, or the location
 * lies in a neighbour's bucket (which reports it).
 */
template <typename Hash>
GPUFFT_HD inline bool robust_locate(const robust_consts& c,
                                    const Hash& hash,
                                    std::int64_t b,
                                    double min_power,
                                    std::int64_t& g)
{
    double u0r, u0i;
    hash(0, u0r, u0i);
    if (!(u0r * u0r + u0i * u0i > min_power))
        return false;
    const std::int64_t base = b * c.nb;
    // Round d's measured phase in turns (false when u[1 + d] conj(u[0]) is 0). It does
    // not depend on the location so far, so round d + 1's is read and computed while
    // round d searches.
    const auto measured_turns = [&](int d, double& turns) {
        double ur, ui;
        hash(1 + d, ur, ui);
        const double re = ur * u0r + ui * u0i;
        const double im = ui * u0r - ur * u0i;
        turns = atan2(im, re) * 0.15915494309189533577;
        return re * re + im * im > 0;
    };
    double next = 0;
    bool next_ok = c.rounds > 0 && measured_turns(0, next);
    double e = 0; // centre of the interval, frequencies from the bucket's centre
    double w = 2.0 * c.span0 * double(c.nb);
    for (int d = 0; d < c.rounds; ++d) {
        const double measured = next;
        const bool ok = next_ok;
        if (d + 1 < c.rounds)
            next_ok = measured_turns(d + 1, next);
        if (!ok)
            return false;
        int count;
        double step, first, t0, dt;
        robust_round_candidates(c, d, e, w, count, step, first);
        robust_shift_turns(c, d, base, first, step, t0, dt);
        const int best = robust_nearest_candidate(t0 - measured, dt, count, c.vote_turns);
        if (best < 0)
            return false;
        e = first + double(best) * step;
        w /= c.shrink;
    }
    return robust_located(c, base, e, g);
}

/*!
 * With a time window a tone is a lobe of adjacent coefficients. A coefficient accepted
 * with `power` over `threshold` makes its two neighbours candidates of the next round
 * when it stands robust_lobe_spawn above the threshold: a lobe coefficient whose
 * location failed in every loop (its buckets shared with stronger or still unfound
 * coefficients) is then estimated anyway, instead of leaving a hole that drags the
 * tone's fit off its peak. Weaker ones are the lobe's edges, whose outer neighbours
 * fall below the threshold; they would only cost estimates.
 */
constexpr double robust_lobe_spawn = 100.0;

GPUFFT_HD inline bool
robust_spawns_neighbours(const robust_consts& c, double power, double threshold)
{
    return c.window_terms > 0 && power > robust_lobe_spawn * threshold;
}

//! Bin f - 1 (side 0) or f + 1 (side 1), mod n: robust_spawns_neighbours().
GPUFFT_HD inline std::int64_t
robust_lobe_neighbour(const robust_consts& c, std::int64_t f, int side)
{
    const std::int64_t b = side ? f + 1 : f - 1;
    return b < 0 ? b + c.n : (b >= c.n ? b - c.n : b);
}

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_ROBUST_LOCATE_H */
