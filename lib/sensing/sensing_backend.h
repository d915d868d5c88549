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

//! Runs of more than this many a frame are cut there (the frame is `truncated`).
constexpr std::int64_t sensing_max_runs = 1 << 16;

/*!
 * One backend's passes over a frame. spectrum(): the FFT, the opened floor of every
 * sub-band and the runs of bins above the threshold, ascending; bands(): each band's
 * sums, edges and (narrow ones) the windowed bins around its peak for the tone fit.
 */
class sensing_backend
{
public:
    virtual ~sensing_backend() = default;
    //! False when the runs overflowed sensing_max_runs (the first ones are kept).
    virtual bool spectrum(const std::complex<float>* x,
                          memory where,
                          std::vector<double>& floors,
                          std::vector<sensing_run>& runs) = 0;
    virtual void bands(std::vector<sensing_band>& bands) = 0;
    /*!
     * level[i]: the mean of P / floor over the bins between runs[i] and runs[i + 1]
     * (gaps longer than max_gap get 0, unread). A backend may give a bound of it
     * instead where the bound is under sensing_gap_fill_level(): the join is decided
     * the same.
     */
    virtual void gap_levels(const std::vector<sensing_run>& runs,
                            std::int64_t max_gap,
                            std::vector<double>& level) = 0;
    virtual std::int64_t memory_bytes() const = 0;
};

//! std::invalid_argument for a frame with a NaN or an infinity (both backends).
[[noreturn]] void throw_non_finite_frame();

std::unique_ptr<sensing_backend> make_sensing_cpu(const sensing_params& p, int threads);
std::unique_ptr<sensing_backend> make_sensing_cuda(const sensing_params& p, int device);

/*!
 * A band's sums and edges from its bins' powers P(s) and floors (the CPU backend; the
 * CUDA one runs the same in bands_kernel): power over [first, last], the rest (excess,
 * moment, peak and the edges by the rule) over the core [core_first, core_last].
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

#endif /* INCLUDED_GPUFFT_SENSING_BACKEND_H */
