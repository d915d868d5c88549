/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_STREAM_PROGRESS_TIMER_H
#define INCLUDED_GPUFFT_STREAM_PROGRESS_TIMER_H

#include <chrono>
#include <cstdint>

namespace gr {
namespace gpufft {
namespace stream {

/*!
 * When the accumulator reports progress: a message at most once a second (the first at
 * once), and a log line when nothing has come out for 10 s, since long frames take
 * seconds to fill (not every 10 s while spectra flow).
 */
class progress_timer
{
public:
    using clock = std::chrono::steady_clock;

    //! A new run, starting at `now`.
    void reset(clock::time_point now)
    {
        d_last_message = {};
        d_last_log = now;
        d_last_done = 0;
    }

    //! True (and counted as sent) when a message is due at `now`, or `force`.
    bool message_due(clock::time_point now, bool force = false)
    {
        if (!force && d_last_message != clock::time_point{} &&
            now - d_last_message < std::chrono::seconds(1))
            return false;
        d_last_message = now;
        return true;
    }

    //! True (and counted as logged) when `done` integrations are the same as 10 s ago.
    bool log_due(clock::time_point now, std::int64_t done)
    {
        if (done != d_last_done) {
            d_last_done = done;
            d_last_log = now;
            return false;
        }
        if (now - d_last_log < std::chrono::seconds(10))
            return false;
        d_last_log = now;
        return true;
    }

private:
    clock::time_point d_last_message{};
    clock::time_point d_last_log{};
    std::int64_t d_last_done = 0;
};

} // namespace stream
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_STREAM_PROGRESS_TIMER_H */
