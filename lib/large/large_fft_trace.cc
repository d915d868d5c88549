/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "large/large_fft_trace.h"
#include <cstdio>

namespace gr {
namespace gpufft {
namespace detail {

void large_fft_trace::begin_round()
{
    if (!d_on)
        return;
    d_t0 = std::chrono::steady_clock::now();
    d_issue_ms = 0;
    d_issued = false;
}

void large_fft_trace::end_round(std::size_t index,
                                std::size_t rounds,
                                const std::string& description)
{
    if (!d_on)
        return;
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - d_t0)
            .count();
    char head[128];
    if (d_issued)
        std::snprintf(head,
                      sizeof head,
                      "large_fft round %zu/%zu: %.2f ms (%.2f ms issuing copies): ",
                      index + 1,
                      rounds,
                      ms,
                      d_issue_ms);
    else
        std::snprintf(head,
                      sizeof head,
                      "large_fft round %zu/%zu: %.2f ms: ",
                      index + 1,
                      rounds,
                      ms);
    log_message(d_log, log_level::debug, head + description);
}

void large_fft_trace::pass(std::size_t index, const pass_times& t)
{
    if (!d_on)
        return;
    char line[160];
    std::snprintf(line,
                  sizeof line,
                  "large_fft   pass %3zu  in %7.1f-%7.1f  compute %7.1f-%7.1f  out "
                  "%7.1f-%7.1f  moves %7.1f-%7.1f ms",
                  index,
                  t.in[0],
                  t.in[1],
                  t.compute[0],
                  t.compute[1],
                  t.out[0],
                  t.out[1],
                  t.has_moves ? t.moves[0] : 0.f,
                  t.has_moves ? t.moves[1] : 0.f);
    log_message(d_log, log_level::debug, line);
}

large_fft_trace::issue_clock::issue_clock(large_fft_trace& t) : d_trace(t)
{
    if (d_trace.d_on)
        d_t0 = std::chrono::steady_clock::now();
}

large_fft_trace::issue_clock::~issue_clock()
{
    if (!d_trace.d_on)
        return;
    d_trace.d_issue_ms +=
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - d_t0)
            .count();
    d_trace.d_issued = true;
}

} // namespace detail
} // namespace gpufft
} // namespace gr
