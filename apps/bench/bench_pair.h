/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Timing of an engine against its baseline in turns, rep by rep: on a shared machine
// (other processes, frequency changes) the load then falls on both alike, and the ratio
// of the two minima is the figure least moved by it.

#ifndef INCLUDED_GPUFFT_BENCH_PAIR_H
#define INCLUDED_GPUFFT_BENCH_PAIR_H

#include "bench_common.h"
#include <algorithm>
#include <chrono>
#include <vector>

namespace gpufft_bench {

struct pair_stats {
    stats ours, base;
    double ratio_min = 0;    //!< ours.min / base.min
    double ratio_median = 0; //!< median over reps of ours / base of the same rep
};

//! `ours` and `base` (each synchronizing itself) in turns: warmup untimed turns first.
template <typename Ours, typename Base>
pair_stats time_pair(const Ours& ours, const Base& base, int reps, int warmup = 2)
{
    for (int i = 0; i < warmup; ++i) {
        ours(i);
        base(i);
    }
    std::vector<double> a, b, r;
    const auto timed = [](const auto& fn, int i) {
        const auto t0 = std::chrono::steady_clock::now();
        fn(i);
        return std::chrono::duration<double, std::milli>(
                   std::chrono::steady_clock::now() - t0)
            .count();
    };
    for (int i = 0; i < reps; ++i) {
        // Alternate which goes first, so neither always finds the caches the other left.
        double ta, tb;
        if (i & 1) {
            tb = timed(base, i);
            ta = timed(ours, i);
        } else {
            ta = timed(ours, i);
            tb = timed(base, i);
        }
        a.push_back(ta);
        b.push_back(tb);
        r.push_back(ta / tb);
    }
    const auto summary = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        stats s;
        s.reps = int(v.size());
        if (!v.empty()) {
            s.min_ms = v.front();
            s.max_ms = v.back();
            s.median_ms = v[v.size() / 2];
        }
        return s;
    };
    pair_stats p;
    p.ours = summary(a);
    p.base = summary(b);
    std::sort(r.begin(), r.end());
    p.ratio_median = r.empty() ? 0 : r[r.size() / 2];
    p.ratio_min = p.base.min_ms > 0 ? p.ours.min_ms / p.base.min_ms : 0;
    return p;
}

} // namespace gpufft_bench

#endif /* INCLUDED_GPUFFT_BENCH_PAIR_H */
