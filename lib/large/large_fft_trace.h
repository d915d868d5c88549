/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The large FFT's trace (large_fft_options::trace): each round's wall time and, from
// the CUDA executor, the host time spent issuing copies and every pass's copy, compute
// and host-move intervals on the GPU, as debug messages through the plan's log.

#ifndef INCLUDED_GPUFFT_LARGE_FFT_TRACE_H
#define INCLUDED_GPUFFT_LARGE_FFT_TRACE_H

#include <gnuradio/gpufft/log.h>
#include <chrono>
#include <cstddef>
#include <string>

namespace gr {
namespace gpufft {
namespace detail {

//! One pass on the GPU: [start, end) of each stage in ms from the round's first event.
struct pass_times {
    float in[2] = { 0, 0 };
    float compute[2] = { 0, 0 };
    float out[2] = { 0, 0 };
    float moves[2] = { 0, 0 };
    bool has_moves = false;
};

/*!
 * Times the rounds of one execute when `on`; does nothing otherwise. Messages go out
 * from the thread that calls end_round() and pass() (the one running execute()).
 */
class large_fft_trace
{
public:
    large_fft_trace(bool on, log_handler log) : d_on(on), d_log(std::move(log)) {}

    bool on() const { return d_on; }
    //! Starts the clock of a round.
    void begin_round();
    //! Adds host time spent issuing copies to the current round.
    void add_issue_ms(double ms) { d_issue_ms += ms; }
    //! Logs round `index` (from 0) of `rounds`: its wall time and `description`.
    void end_round(std::size_t index, std::size_t rounds, const std::string& description);
    //! Logs pass `index` of the current round.
    void pass(std::size_t index, const pass_times& t);

    //! Measures the host time of a scope (issuing copies) into the trace when on.
    class issue_clock
    {
    public:
        explicit issue_clock(large_fft_trace& t);
        ~issue_clock();
        issue_clock(const issue_clock&) = delete;
        issue_clock& operator=(const issue_clock&) = delete;

    private:
        large_fft_trace& d_trace;
        std::chrono::steady_clock::time_point d_t0;
    };

private:
    bool d_on;
    log_handler d_log;
    std::chrono::steady_clock::time_point d_t0;
    double d_issue_ms = 0;
    bool d_issued = false;
};

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_LARGE_FFT_TRACE_H */
