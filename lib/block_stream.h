/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// What every block does the same way with GNU Radio: rx_* tags into the stream
// timeline (and a clock dated by the host until an rx_time tag arrives), the end of an
// input, and the `cmd` message port (docs/stream.md).

#ifndef INCLUDED_GPUFFT_BLOCK_STREAM_H
#define INCLUDED_GPUFFT_BLOCK_STREAM_H

#include "stream/log_limiter.h"
#include "stream/stream_timeline.h"
#include "stream/time_input.h"
#include <gnuradio/block.h>
#include <gnuradio/block_detail.h>
#include <gnuradio/buffer_reader.h>
#include <gnuradio/logger.h>
#include <gnuradio/tags.h>
#include <pmt/pmt.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace gr {
namespace gpufft {

inline const pmt::pmt_t& key_rx_time()
{
    static const pmt::pmt_t k = pmt::mp("rx_time");
    return k;
}
inline const pmt::pmt_t& key_rx_freq()
{
    static const pmt::pmt_t k = pmt::mp("rx_freq");
    return k;
}
inline const pmt::pmt_t& key_rx_rate()
{
    static const pmt::pmt_t k = pmt::mp("rx_rate");
    return k;
}

inline pmt::pmt_t time_pmt(std::uint64_t secs, double frac)
{
    return pmt::make_tuple(pmt::from_uint64(secs), pmt::from_double(frac));
}

/*!
 * The rate an rx_rate tag carries; throws std::invalid_argument for a rate that is not
 * finite and > 0, so the callers' malformed-tag path logs and ignores it (docs/stream.md)
 * instead of dropping it without a word (stream_timeline) or passing it on.
 */
inline double tag_rate(const pmt::pmt_t& value)
{
    const double r = pmt::to_double(value);
    if (!(std::isfinite(r) && r > 0))
        throw std::invalid_argument("a rate must be finite and > 0");
    return r;
}

/*!
 * Logs an ignored tag, at most once per 10 s over all blocks (a source that tags every
 * buffer wrongly must not flood the log), with the count held back since the last.
 */
inline void warn_ignored_tag(const gr::logger_ptr& logger,
                             const gr::tag_t& tag,
                             const std::string& why)
{
    static stream::log_limiter limit;
    if (limit.allow())
        logger->warn(
            "ignored a malformed {:s} tag at sample {:d} ({:s}): {:s}; {:d} more "
            "since the last of these warnings (at most one per 10 s)",
            pmt::symbol_to_string(tag.key),
            tag.offset,
            pmt::write_string(tag.value),
            why,
            limit.held());
}

/*!
 * Enters the rx_time / rx_freq / rx_rate tags of `tags` into `timeline`, at offset
 * minus `base`. A malformed tag is logged and ignored: it must not stop the flowgraph.
 * Returns how many rx_time tags were entered.
 */
inline std::size_t follow_tags(std::vector<gr::tag_t> tags,
                               std::uint64_t base,
                               stream::stream_timeline& timeline,
                               const gr::logger_ptr& logger)
{
    std::size_t times = 0;
    std::stable_sort(tags.begin(), tags.end(), gr::tag_t::offset_compare);
    for (const auto& t : tags) {
        const std::int64_t at = std::int64_t(t.offset - base);
        try {
            if (pmt::eqv(t.key, key_rx_time())) {
                timeline.set_time(
                    at,
                    { std::int64_t(pmt::to_uint64(pmt::tuple_ref(t.value, 0))),
                      pmt::to_double(pmt::tuple_ref(t.value, 1)) });
                ++times;
            } else if (pmt::eqv(t.key, key_rx_freq()))
                timeline.set_freq(at, pmt::to_double(t.value));
            else if (pmt::eqv(t.key, key_rx_rate()))
                timeline.set_rate(at, tag_rate(t.value));
        } catch (const std::exception& e) {
            warn_ignored_tag(logger, t, e.what());
        }
    }
    return times;
}

//! The rx_freq and rx_rate last seen on a NUFFT block's input.
struct input_tuning {
    double freq = 0.0, rate = 0.0;
    bool have_freq = false, have_rate = false;
};

/*!
 * The NUFFT blocks' input tags, which carry times in a time input: an rx_time anchors
 * `clock` at the time `t[offset - first]` of the sample it tags; rx_freq and rx_rate go
 * into `tuning`. A malformed tag is logged and ignored. Returns whether an rx_time came.
 */
inline bool follow_time_input_tags(const std::vector<gr::tag_t>& tags,
                                   std::uint64_t first,
                                   const double* t,
                                   stream::stream_clock& clock,
                                   input_tuning& tuning,
                                   const gr::logger_ptr& logger)
{
    bool timed = false;
    for (const auto& tag : tags) {
        try {
            if (pmt::eqv(tag.key, key_rx_time())) {
                clock.anchor(pmt::to_uint64(pmt::tuple_ref(tag.value, 0)),
                             pmt::to_double(pmt::tuple_ref(tag.value, 1)),
                             t[tag.offset - first]);
                timed = true;
            } else if (pmt::eqv(tag.key, key_rx_freq())) {
                tuning.freq = pmt::to_double(tag.value);
                tuning.have_freq = true;
            } else if (pmt::eqv(tag.key, key_rx_rate())) {
                tuning.rate = tag_rate(tag.value);
                tuning.have_rate = true;
            }
        } catch (const std::exception& e) {
            warn_ignored_tag(logger, tag, e.what());
        }
    }
    return timed;
}

/*!
 * The numbers of a PMT: an f64/f32 vector, or a vector or list of numbers (what
 * pmt.to_pmt makes of a Python list). Throws std::invalid_argument otherwise.
 */
inline std::vector<double> pmt_doubles(const pmt::pmt_t& v)
{
    if (pmt::is_f64vector(v))
        return pmt::f64vector_elements(v);
    if (pmt::is_f32vector(v)) {
        const auto f = pmt::f32vector_elements(v);
        return std::vector<double>(f.begin(), f.end());
    }
    std::vector<double> out;
    if (pmt::is_vector(v)) {
        for (std::size_t i = 0; i < pmt::length(v); ++i)
            out.push_back(pmt::to_double(pmt::vector_ref(v, i)));
        return out;
    }
    if (pmt::is_null(v) || pmt::is_pair(v)) {
        for (pmt::pmt_t l = v; pmt::is_pair(l); l = pmt::cdr(l))
            out.push_back(pmt::to_double(pmt::car(l)));
        return out;
    }
    throw std::invalid_argument("expected a vector or list of numbers");
}

//! One setter of the `cmd` port: takes the PMT value, throws what the setter throws.
using cmd_setter = std::function<void(const pmt::pmt_t&)>;

/*!
 * Handles one `cmd` message: a dict (or a single (key . value) pair) whose keys name
 * setters. Unknown keys and refused values are logged as warnings; never throws, so a
 * bad message cannot stop the flowgraph.
 */
inline void handle_cmd(const pmt::pmt_t& msg,
                       const std::map<std::string, cmd_setter>& setters,
                       const gr::logger_ptr& logger)
{
    pmt::pmt_t items;
    if (pmt::is_dict(msg) && !pmt::is_null(msg))
        items = pmt::dict_items(msg);
    else if (pmt::is_pair(msg) && pmt::is_symbol(pmt::car(msg)))
        items = pmt::list1(msg);
    else {
        logger->warn("cmd: expected a dict of setting -> value, got {:s}",
                     pmt::write_string(msg));
        return;
    }
    for (; pmt::is_pair(items); items = pmt::cdr(items)) {
        const pmt::pmt_t item = pmt::car(items);
        const std::string key = pmt::is_symbol(pmt::car(item))
                                    ? pmt::symbol_to_string(pmt::car(item))
                                    : pmt::write_string(pmt::car(item));
        const auto s = setters.find(key);
        if (s == setters.end()) {
            std::string known;
            for (const auto& kv : setters)
                known += (known.empty() ? "" : ", ") + kv.first;
            logger->warn("cmd: unknown setting '{:s}' ignored; known: {:s}", key, known);
            continue;
        }
        try {
            s->second(pmt::cdr(item));
        } catch (const std::exception& e) {
            logger->warn("cmd: {:s} = {:s} ignored: {:s}",
                         key,
                         pmt::write_string(pmt::cdr(item)),
                         e.what());
        }
    }
}

/*!
 * A block's stream clock: the timeline of its rx_* tags, counted from the first sample
 * it reads. Until an rx_time tag says otherwise, the host clock at that first read
 * dates the stream (time_from_host()).
 */
class block_clock
{
public:
    block_clock(double samp_rate, double center_freq)
        : d_samp_rate(samp_rate),
          d_center_freq(center_freq),
          d_timeline(samp_rate, center_freq)
    {
    }

    //! Forgets the last run (from start()).
    void restart()
    {
        d_timeline = stream::stream_timeline(d_samp_rate, d_center_freq);
        d_started = false;
        d_from_host = false;
    }

    //! At each work call: `tags`, those of the samples consumed from offset `read` on.
    void follow(std::uint64_t read,
                const std::vector<gr::tag_t>& tags,
                const gr::logger_ptr& logger)
    {
        if (!d_started) {
            d_started = true;
            d_base = read;
            const bool dated = std::any_of(tags.begin(), tags.end(), [&](const auto& t) {
                return t.offset == read && pmt::eqv(t.key, key_rx_time());
            });
            if (!dated) {
                const auto now = std::chrono::system_clock::now().time_since_epoch();
                d_timeline.set_time(0,
                                    stream::stream_time{}.plus(
                                        std::chrono::duration<double>(now).count()));
                d_from_host = true;
            }
        }
        if (follow_tags(tags, d_base, d_timeline, logger) > 0)
            d_from_host = false;
    }

    bool time_from_host() const { return d_from_host; }
    stream::stream_timeline& timeline() { return d_timeline; }

private:
    double d_samp_rate, d_center_freq;
    stream::stream_timeline d_timeline;
    bool d_started = false;
    bool d_from_host = false;
    std::uint64_t d_base = 0; // nitems_read(0) at the first sample
};

//! Whether input `port` of `b` has ended and holds nothing more.
inline bool input_ended(const gr::block& b, int port)
{
    const auto d = b.detail();
    return d && int(d->ninputs()) > port && d->input(port)->done() &&
           d->input(port)->items_available() == 0;
}

//! Samples offered on input `port` of `b` that it has not consumed (for stop()).
inline std::uint64_t unread_samples(gr::block& b, int port)
{
    if (!b.detail() || int(b.detail()->ninputs()) <= port)
        return 0;
    return std::uint64_t(b.detail()->input(port)->items_available());
}

/*!
 * Whether message port `port` of `b` has a subscriber. message_port_pub() drops a
 * message nobody takes, after the work of making it: a frame's detections PDU is some
 * twenty PMT vectors, and an integrated spectrum's PDU a copy of every channel.
 */
inline bool has_subscribers(gr::basic_block& b, const pmt::pmt_t& port)
{
    return pmt::is_pair(b.message_subscribers(port));
}

} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_BLOCK_STREAM_H */
