/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "tag_timeline.h"
#include <cmath>

namespace gr {
namespace gpufft {
namespace accumulator {

stream_time stream_time::plus(double seconds) const
{
    // Whole and fractional parts apart, so hours of samples keep sub-ns precision.
    const double whole = std::floor(seconds);
    stream_time t{ secs + std::int64_t(whole), frac + (seconds - whole) };
    const double carry = std::floor(t.frac);
    t.secs += std::int64_t(carry);
    t.frac -= carry;
    return t;
}

tag_timeline::tag_timeline(double rate, double freq)
{
    d_base.state.rate = rate;
    d_base.state.freq = freq;
}

void tag_timeline::set_time(std::int64_t offset, stream_time t)
{
    d_changes.push_back({ offset, kind::time, t, 0.0 });
}

void tag_timeline::set_freq(std::int64_t offset, double hz)
{
    d_changes.push_back({ offset, kind::freq, {}, hz });
}

void tag_timeline::set_rate(std::int64_t offset, double samples_per_second)
{
    if (samples_per_second > 0 && std::isfinite(samples_per_second))
        d_changes.push_back({ offset, kind::rate, {}, samples_per_second });
}

void tag_timeline::apply(base& b, const change& c)
{
    switch (c.what) {
    case kind::time:
        b.state.has_time = true;
        b.state.time = c.time;
        b.time_offset = c.offset;
        break;
    case kind::freq:
        b.state.freq = c.value;
        break;
    case kind::rate:
        // Re-anchor the clock at the rate change so earlier samples keep their times.
        if (b.state.has_time) {
            b.state.time =
                b.state.time.plus(double(c.offset - b.time_offset) / b.state.rate);
            b.time_offset = c.offset;
        }
        b.state.rate = c.value;
        break;
    }
}

stream_state tag_timeline::at(std::int64_t offset) const
{
    base b = d_base;
    for (const auto& c : d_changes) {
        if (c.offset > offset)
            break;
        apply(b, c);
    }
    if (b.state.has_time)
        b.state.time = b.state.time.plus(double(offset - b.time_offset) / b.state.rate);
    return b.state;
}

void tag_timeline::forget_before(std::int64_t offset)
{
    while (!d_changes.empty() && d_changes.front().offset <= offset) {
        apply(d_base, d_changes.front());
        d_changes.pop_front();
    }
}

} // namespace accumulator
} // namespace gpufft
} // namespace gr
