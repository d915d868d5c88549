/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "block_stream.h"
#include "large_fft_accumulator_messages.h"
#include <algorithm>

namespace gr {
namespace gpufft {

pmt::pmt_t spectrum_pdu(const stream::integrated_spectrum& s,
                        const stream::stream_state& at,
                        const stream::spectrum_axes& axes,
                        const spectrum_pdu_flags& flags,
                        const float* out)
{
    const std::size_t nchans = s.power.size();
    const auto add = [](pmt::pmt_t& d, const char* key, const pmt::pmt_t& v) {
        d = pmt::dict_add(d, pmt::mp(key), v);
    };
    pmt::pmt_t meta = pmt::make_dict();
    meta = pmt::dict_add(
        meta,
        key_rx_time(),
        time_pmt(std::uint64_t(std::max<std::int64_t>(0, at.time.secs)), at.time.frac));
    meta = pmt::dict_add(meta, key_rx_freq(), pmt::from_double(at.freq));
    meta = pmt::dict_add(meta, key_rx_rate(), pmt::from_double(at.rate));
    add(meta, "fch1", pmt::from_double(axes.fch1));
    add(meta, "foff", pmt::from_double(axes.foff));
    add(meta, "nchans", pmt::from_long(long(nchans)));
    add(meta, "tsamp", pmt::from_double(axes.tsamp));
    add(meta, "integrations", pmt::from_long(long(s.frames)));
    add(meta, "skipped", pmt::from_long(long(s.skipped)));
    add(meta, "integration_index", pmt::from_long(long(s.index)));
    add(meta, "fft_size", pmt::from_long(long(flags.fft_size)));
    add(meta, "mode", pmt::mp(stream::to_string(s.mode)));
    add(meta, "db", pmt::from_bool(flags.db));
    add(meta, "time_source", pmt::mp(flags.time_from_host ? "host_clock" : "rx_time"));
    add(meta, "partial", pmt::from_bool(flags.partial));
    return pmt::cons(meta, pmt::init_f32vector(nchans, out));
}

pmt::pmt_t progress_message(const stream::spectrometer_progress& p)
{
    pmt::pmt_t d = pmt::make_dict();
    d = pmt::dict_add(d, pmt::mp("fraction_filled"), pmt::from_double(p.fraction_filled));
    d = pmt::dict_add(d, pmt::mp("frames_done"), pmt::from_long(long(p.frames_done)));
    d = pmt::dict_add(d, pmt::mp("n_integrations"), pmt::from_long(p.n_integrations));
    d = pmt::dict_add(
        d, pmt::mp("integrations_done"), pmt::from_long(long(p.integrations_done)));
    d = pmt::dict_add(
        d, pmt::mp("skipped_frames"), pmt::from_long(long(p.skipped_frames)));
    return d;
}

void apply_cmd(large_fft_accumulator& block,
               const pmt::pmt_t& msg,
               const gr::logger_ptr& logger)
{
    handle_cmd(
        msg,
        { { "n_integrations",
            [&](const pmt::pmt_t& v) {
                block.set_n_integrations(int(pmt::to_long(v)));
            } },
          { "mode",
            [&](const pmt::pmt_t& v) { block.set_mode(pmt::symbol_to_string(v)); } },
          { "output_db",
            [&](const pmt::pmt_t& v) { block.set_output_db(pmt::to_bool(v)); } } },
        logger);
}

} // namespace gpufft
} // namespace gr
