/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Rate limit of a repeated warning: a stream that is wrong in the same way at every
// frame (times given in ms, a packet gap every second, an rx_rate tag of 0 on every
// buffer) must say so without flooding the log.

#ifndef INCLUDED_GPUFFT_STREAM_LOG_LIMITER_H
#define INCLUDED_GPUFFT_STREAM_LOG_LIMITER_H

#include <chrono>
#include <cstdint>
#include <mutex>

namespace gr {
namespace gpufft {
namespace stream {

/*!
 * The first event logs; after it at most one per `interval` seconds. allow() says
 * whether this one logs, and held() how many were held back before it (to append
 * "N more since the last warning"). Thread-safe.
 */
class log_limiter
{
public:
    explicit log_limiter(double interval_s = 10.0) : d_interval(interval_s) {}

    //! At time `now_s` (any monotonic clock in seconds).
    bool allow(double now_s)
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        ++d_events;
        if (d_logged > 0 && now_s - d_last < d_interval) {
            ++d_pending;
            return false;
        }
        d_held = d_pending;
        d_pending = 0;
        d_last = now_s;
        ++d_logged;
        return true;
    }
    bool allow()
    {
        return allow(std::chrono::duration<double>(
                         std::chrono::steady_clock::now().time_since_epoch())
                         .count());
    }
    //! Events held back between the last two that logged.
    std::uint64_t held() const
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        return d_held;
    }
    //! Every event so far, logged or not.
    std::uint64_t events() const
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        return d_events;
    }

private:
    mutable std::mutex d_mutex;
    double d_interval;
    double d_last = 0;
    std::uint64_t d_events = 0, d_logged = 0, d_pending = 0, d_held = 0;
};

} // namespace stream
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_STREAM_LOG_LIMITER_H */
