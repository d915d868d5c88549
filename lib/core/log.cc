/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <gnuradio/gpufft/log.h>
#include <cstdio>

namespace gr {
namespace gpufft {

void log_message(const log_handler& handler, log_level level, const std::string& message)
{
    if (handler) {
        handler(level, message);
        return;
    }
    // One fputs per line, so lines from concurrent plans do not interleave.
    const std::string line = "gr-gpufft: " + message + "\n";
    std::fputs(line.c_str(), stderr);
}

std::string to_string(log_level level)
{
    switch (level) {
    case log_level::debug:
        return "debug";
    case log_level::info:
        return "info";
    case log_level::warning:
        return "warning";
    case log_level::error:
        return "error";
    }
    return "unknown";
}

} // namespace gpufft
} // namespace gr
