/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_NUFFT3_TRACE_H
#define INCLUDED_GPUFFT_NUFFT3_TRACE_H

#include "cuda/cuda_resources.h"
#include <gnuradio/gpufft/log.h>
#include <cstddef>
#include <iomanip>
#include <sstream>
#include <utility>
#include <vector>

namespace gr {
namespace gpufft {
namespace nufft {

/*!
 * Device times of the stages of one call, sent to `log` at log_level::debug as one line
 * "nufft3 <call>: <stage> <ms> ms ..." (nufft3_options::trace). Off, it records no events
 * and costs nothing. start() opens a call on a stream, mark() ends a stage there,
 * report() waits for the last mark and logs.
 */
class stage_trace
{
public:
    stage_trace(bool on, log_handler log) : d_on(on), d_log(std::move(log)) {}
    void start(cudaStream_t s)
    {
        if (!d_on)
            return;
        d_stream = s;
        d_names.clear();
        d_events.clear();
        mark("start");
    }
    void mark(const char* name)
    {
        if (!d_on)
            return;
        d_events.emplace_back(true);
        d_events.back().record(d_stream);
        d_names.push_back(name);
    }
    void report(const char* what)
    {
        if (!d_on || d_events.size() < 2)
            return;
        d_events.back().synchronize();
        std::ostringstream os;
        os << "nufft3 " << what << ":" << std::fixed << std::setprecision(3);
        for (std::size_t i = 1; i < d_events.size(); ++i)
            os << " " << d_names[i] << " "
               << d_events[i].elapsed_ms_since(d_events[i - 1]) << " ms";
        log_message(d_log, log_level::debug, os.str());
    }

private:
    bool d_on;
    log_handler d_log;
    cudaStream_t d_stream = nullptr;
    std::vector<const char*> d_names;
    std::vector<cuda::event> d_events;
};

} // namespace nufft
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_NUFFT3_TRACE_H */
