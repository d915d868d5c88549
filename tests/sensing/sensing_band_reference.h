/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// A band's sums and edges written plainly, bin by bin through accessors: the reference
// the CPU backend's vectorised sensing_band_sums_buffered (sensing_cpu_loops.cc) must
// match to the bit, and the rules the CUDA band kernels follow.

#ifndef INCLUDED_GPUFFT_TEST_SENSING_BAND_REFERENCE_H
#define INCLUDED_GPUFFT_TEST_SENSING_BAND_REFERENCE_H

#include "sensing/sensing_backend.h"
#include <algorithm>
#include <cstdint>

namespace gr {
namespace gpufft {
namespace detail {

/*!
 * A band's sums and edges from its bins' powers P(s) and floors: power over [first,
 * last], the rest (excess, moment, peak and the edges by the rule) over the core
 * [core_first, core_last].
 */
template <typename Power, typename Floor, typename Windowed>
void sensing_band_sums(sensing_band& b,
                       const sensing_consts& k,
                       const Power& power,
                       const Floor& floor,
                       const Windowed& windowed,
                       bandwidth_rule rule,
                       double xdb_ratio)
{
    // Sums in locals, written to b at the end: through b (a reference the floor's
    // buffer may alias, for all the compiler knows) every bin stored and reloaded them.
    // The core in eight lanes (a carrier's thousands of bins: no chain of dependent
    // additions a bin), then the first bin of the peak found again.
    double excess = 0, moment = 0, total = 0, floor_at_peak = b.floor_at_peak;
    float peak = -1;
    std::int64_t peak_bin = b.peak_bin;
    for (std::int64_t s = b.first; s < b.core_first; ++s)
        total += double(power(s)) - floor(s);
    double lt[8] = {}, le[8] = {}, lm[8] = {};
    float lp[8] = { -1, -1, -1, -1, -1, -1, -1, -1 };
    std::int64_t s = b.core_first;
    for (; s + 8 <= b.core_last + 1; s += 8)
        for (int k = 0; k < 8; ++k) {
            const float P = power(s + k);
            const double d = double(P) - floor(s + k);
            const double e = d > 0 ? d : 0.0;
            lt[k] += d;
            le[k] += e;
            lm[k] += double(s + k) * e;
            lp[k] = P > lp[k] ? P : lp[k];
        }
    for (; s <= b.core_last; ++s) {
        const float P = power(s);
        const double d = double(P) - floor(s);
        const double e = d > 0 ? d : 0.0;
        total += d;
        excess += e;
        moment += double(s) * e;
        peak = P > peak ? P : peak;
    }
    for (int k = 0; k < 8; ++k) {
        total += lt[k];
        excess += le[k];
        moment += lm[k];
        peak = lp[k] > peak ? lp[k] : peak;
    }
    for (std::int64_t t = b.core_last + 1; t <= b.last; ++t)
        total += double(power(t)) - floor(t);
    for (std::int64_t t = b.core_first; t <= b.core_last; ++t)
        if (power(t) == peak) {
            peak_bin = t;
            floor_at_peak = floor(t);
            break;
        }
    b.excess = excess;
    b.moment = moment;
    b.power = total;
    b.peak = peak;
    b.peak_bin = peak_bin;
    b.floor_at_peak = floor_at_peak;
    if (b.core_last - b.core_first + 1 <= k.narrow)
        for (int j = -k.fit_half; j <= k.fit_half; ++j) {
            double* v = b.lobe + 2 * (j + k.fit_half);
            windowed(b.peak_bin + j, v[0], v[1]);
        }
    if (rule == bandwidth_rule::xdb) {
        const double level = double(b.peak) * xdb_ratio;
        std::int64_t lo = b.peak_bin, hi = b.peak_bin;
        for (std::int64_t s = b.core_first; s <= b.core_last; ++s)
            if (double(power(s)) >= level) {
                lo = std::min(lo, s);
                hi = std::max(hi, s);
            }
        b.lower = double(lo) - 0.5;
        b.upper = double(hi) + 0.5;
        return;
    }
    if (!(b.excess > 0)) {
        b.lower = double(b.core_first) - 0.5;
        b.upper = double(b.core_last) + 0.5;
        return;
    }
    // obw99: 0.5 % of the excess below the lower edge and above the upper one, each
    // bin's share spread evenly over its width.
    const double lo_t = 0.005 * b.excess, hi_t = 0.995 * b.excess;
    double cum = 0;
    bool have_lo = false;
    b.upper = double(b.core_last) + 0.5;
    const auto excess_at = [&](std::int64_t s) {
        const float P = power(s);
        const double f = floor(s);
        return double(P) > f ? double(P) - f : 0.0;
    };
    // A wide core is walked 64 bins at a time: a block whose excess leaves the running
    // sum under the next target is added whole (eight partial sums, no chain of
    // dependent additions a bin), and only the block where a target is crossed bin by
    // bin (the running sum is monotonic, so no edge lies in a block passed over).
    bool done = false;
    for (std::int64_t s0 = b.core_first; s0 <= b.core_last && !done; s0 += 64) {
        const std::int64_t s1 = std::min(b.core_last + 1, s0 + 64);
        if (s1 - s0 == 64) {
            double lane[8] = {};
            for (std::int64_t s = s0; s < s1; s += 8)
                for (int k = 0; k < 8; ++k)
                    lane[k] += excess_at(s + k);
            const double block = ((lane[0] + lane[1]) + (lane[2] + lane[3])) +
                                 ((lane[4] + lane[5]) + (lane[6] + lane[7]));
            if (cum + block < (have_lo ? hi_t : lo_t)) {
                cum += block;
                continue;
            }
        }
        for (std::int64_t s = s0; s < s1; ++s) {
            const double e = excess_at(s);
            const double next = cum + e;
            if (!have_lo && next >= lo_t && e > 0) {
                b.lower = double(s) - 0.5 + (lo_t - cum) / e;
                have_lo = true;
            }
            if (next >= hi_t && e > 0) {
                b.upper = double(s) - 0.5 + (hi_t - cum) / e;
                done = true;
                break;
            }
            cum = next;
        }
    }
    if (!have_lo)
        b.lower = double(b.core_first) - 0.5;
}

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_TEST_SENSING_BAND_REFERENCE_H */
