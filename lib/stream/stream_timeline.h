/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_STREAM_TIMELINE_H
#define INCLUDED_GPUFFT_STREAM_TIMELINE_H

#include <cstdint>
#include <deque>

namespace gr {
namespace gpufft {
namespace stream {

//! A UHD-style timestamp: whole seconds plus a fraction in [0, 1).
struct stream_time {
    std::int64_t secs = 0;
    double frac = 0.0;

    stream_time plus(double seconds) const;
    double as_double() const { return double(secs) + frac; }
    //! Modified Julian Date (days) of this Unix time.
    double mjd() const { return 40587.0 + (double(secs) + frac) / 86400.0; }
};

//! What the stream said about one sample: its time, centre frequency and rate.
struct stream_state {
    bool has_time = false; //!< an rx_time (or a start time) is known
    stream_time time;      //!< time of the sample asked for (extrapolated with the rate)
    double freq = 0.0;     //!< rx_freq, Hz
    double rate = 1.0;     //!< rx_rate, samples/s
    bool freq_tagged = false; //!< freq came from an rx_freq tag, not the default
    bool rate_tagged = false; //!< rate came from an rx_rate tag, not the default
};

/*!
 * rx_time / rx_freq / rx_rate as they change along a stream, so the metadata of any
 * recent sample can be asked for later: a spectrum's first sample lies a whole
 * integration (and, with overlap, part of a frame) behind the samples being read.
 * Changes are given in stream order (GNU Radio tag order); forget_before() folds the
 * ones nobody will ask about any more.
 */
class stream_timeline
{
public:
    stream_timeline(double rate, double freq);

    void set_time(std::int64_t offset, stream_time t);
    void set_freq(std::int64_t offset, double hz);
    void set_rate(std::int64_t offset, double samples_per_second);

    //! The state at sample `offset`, applying every change at or before it.
    stream_state at(std::int64_t offset) const;
    /*!
     * The state of the frame of `length` samples starting at `first`, by the one tag
     * rule of the blocks (docs/stream.md): every change at or before the frame's last
     * sample applies to the whole frame. Its time is that of sample `first`: from the
     * latest rx_time at or before the frame's first sample, extrapolated by the rate,
     * unless an rx_time lies inside the frame; then that one dates the frame, carried
     * back to `first` at the frame's rate.
     */
    stream_state frame(std::int64_t first, std::int64_t length) const;
    //! Sets the rate used until an rx_rate change (the block's samp_rate setting).
    void set_default_rate(double samples_per_second);
    //! Folds changes at or before `offset` into the base state.
    void forget_before(std::int64_t offset);
    //! Changes still kept (for tests).
    std::size_t pending() const { return d_changes.size(); }

private:
    enum class kind { time, freq, rate };
    struct change {
        std::int64_t offset;
        kind what;
        stream_time time;
        double value;
    };
    struct base {
        stream_state state;
        std::int64_t time_offset = 0; //!< sample that `state.time` belongs to
    };
    static void apply(base& b, const change& c);

    base d_base;
    std::deque<change> d_changes;
};

/*!
 * Says whether a value differs from the one last sent, so rx_freq / rx_rate go
 * downstream on change only (the first value always goes).
 */
class change_gate
{
public:
    bool changed(double value)
    {
        if (d_has && d_last == value)
            return false;
        d_has = true;
        d_last = value;
        return true;
    }
    void reset() { d_has = false; }

private:
    bool d_has = false;
    double d_last = 0.0;
};

} // namespace stream
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_STREAM_TIMELINE_H */
