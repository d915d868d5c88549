/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "stream/stream_timeline.h"
#include <algorithm>
#include <cmath>

namespace gr {
namespace gpufft {
namespace stream {

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

stream_timeline::stream_timeline(double rate, double freq)
{
    d_base.state.rate = rate;
    d_base.state.freq = freq;
}

void stream_timeline::set_time(std::int64_t offset, stream_time t)
{
    d_changes.push_back({ offset, kind::time, t, 0.0 });
}

void stream_timeline::set_freq(std::int64_t offset, double hz)
{
    d_changes.push_back({ offset, kind::freq, {}, hz });
}

void stream_timeline::set_rate(std::int64_t offset, double samples_per_second)
{
    // A rate that is not finite and > 0 cannot date samples. The blocks refuse such an
    // rx_rate tag before it gets here, with a warning (block_stream.h, tag_rate); this
    // guard keeps the timeline sound for any other caller.
    if (samples_per_second > 0 && std::isfinite(samples_per_second))
        d_changes.push_back({ offset, kind::rate, {}, samples_per_second });
}

void stream_timeline::apply(base& b, const change& c)
{
    switch (c.what) {
    case kind::time:
        b.state.has_time = true;
        b.state.time = c.time;
        b.time_offset = c.offset;
        break;
    case kind::freq:
        b.state.freq = c.value;
        b.state.freq_tagged = true;
        break;
    case kind::rate:
        // Re-anchor the clock at the rate change so earlier samples keep their times.
        if (b.state.has_time) {
            b.state.time =
                b.state.time.plus(double(c.offset - b.time_offset) / b.state.rate);
            b.time_offset = c.offset;
        }
        b.state.rate = c.value;
        b.state.rate_tagged = true;
        break;
    }
}

stream_state stream_timeline::at(std::int64_t offset) const
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

stream_state stream_timeline::frame(std::int64_t first, std::int64_t length) const
{
    const std::int64_t last = first + std::max<std::int64_t>(length, 1) - 1;
    stream_state s = at(last);
    // The latest rx_time inside the frame, if any, dates it (carried back to `first`).
    for (auto c = d_changes.rbegin(); c != d_changes.rend(); ++c) {
        if (c->offset > last || c->what != kind::time)
            continue;
        if (c->offset > first) {
            s.time = c->time.plus(-double(c->offset - first) / s.rate);
            return s;
        }
        break;
    }
    const stream_state head = at(first);
    s.has_time = head.has_time;
    s.time = head.time;
    return s;
}

void stream_timeline::set_default_rate(double samples_per_second)
{
    if (!(samples_per_second > 0 && std::isfinite(samples_per_second)))
        return;
    // An rx_rate tag outranks the setting: the stream says what it is.
    if (!d_base.state.rate_tagged)
        d_base.state.rate = samples_per_second;
}

void stream_timeline::forget_before(std::int64_t offset)
{
    while (!d_changes.empty() && d_changes.front().offset <= offset) {
        apply(d_base, d_changes.front());
        d_changes.pop_front();
    }
}

} // namespace stream
} // namespace gpufft
} // namespace gr
