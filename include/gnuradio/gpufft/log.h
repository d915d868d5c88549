/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_LOG_H
#define INCLUDED_GPUFFT_LOG_H

#include <gnuradio/gpufft/api.h>
#include <functional>
#include <string>

namespace gr {
namespace gpufft {

//! Severity of an engine message. `debug` carries traces (per-stage times); it is only
//! produced when a plan's options ask for a trace.
enum class log_level { debug, info, warning, error };

/*!
 * Where a plan's messages go: a field of every engine's options. An empty handler
 * means stderr, one line per message prefixed "gr-gpufft: " (GNU Radio blocks set it to
 * their logger, so the log level governs them). A handler may be called from the
 * thread that made the plan or runs execute(), never from a worker thread.
 */
using log_handler = std::function<void(log_level, const std::string&)>;

//! Sends `message` to `handler`, or to stderr when it is empty.
//! (Not named `log`: inside namespace gpufft that would hide std::log.)
GPUFFT_API void
log_message(const log_handler& handler, log_level level, const std::string& message);

//! "debug", "info", "warning", "error".
GPUFFT_API std::string to_string(log_level level);

} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_LOG_H */
