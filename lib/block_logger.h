/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_BLOCK_LOGGER_H
#define INCLUDED_GPUFFT_BLOCK_LOGGER_H

#include <gnuradio/gpufft/log.h>
#include <gnuradio/logger.h>

namespace gr {
namespace gpufft {

//! An engine log handler that writes to a block's logger, so the engines' messages obey
//! GNU Radio's log level instead of going to stderr beside it.
inline log_handler block_log_handler(const gr::logger_ptr& logger)
{
    return [logger](log_level level, const std::string& message) {
        switch (level) {
        case log_level::debug:
            logger->debug("{:s}", message);
            break;
        case log_level::info:
            logger->info("{:s}", message);
            break;
        case log_level::warning:
            logger->warn("{:s}", message);
            break;
        case log_level::error:
            logger->error("{:s}", message);
            break;
        }
    };
}

} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_BLOCK_LOGGER_H */
