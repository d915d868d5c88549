/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "block_stream.h"
#include "sparse_fft_messages.h"
#include <algorithm>

namespace gr {
namespace gpufft {

pmt::pmt_t coefficients_message(std::uint64_t index,
                                std::uint64_t offset,
                                const stream::sparse_frame_analyzer& analyzer,
                                const stream::stream_state& at)
{
    const auto& e = analyzer.entries();
    const std::size_t count = e.bins.size();
    const bool robust = analyzer.mode() == sparse_fft_mode::robust;
    const auto add = [](pmt::pmt_t& d, const char* key, const pmt::pmt_t& v) {
        d = pmt::dict_add(d, pmt::mp(key), v);
    };
    pmt::pmt_t msg = pmt::make_dict();
    add(msg, "frame", pmt::from_uint64(index));
    add(msg, "offset", pmt::from_uint64(offset));
    add(msg, "fft_size", pmt::from_uint64(std::uint64_t(analyzer.fft_size())));
    add(msg, "samp_rate", pmt::from_double(at.rate));
    // Deprecated: the same value under its old name, for one release.
    add(msg, "sample_rate", pmt::from_double(at.rate));
    add(msg, "center_freq", pmt::from_double(at.freq));
    add(msg, "mode", pmt::mp(analyzer.mode_name()));
    add(msg, "bins", pmt::init_s32vector(count, e.bins32.data()));
    add(msg, "freqs", pmt::init_f64vector(count, e.freqs.data()));
    add(msg, "values", pmt::init_c32vector(count, e.values.data()));
    add(msg, "power_db", pmt::init_f32vector(count, e.power_db.data()));
    add(msg, "snr_db", pmt::init_f32vector(count, e.snr_db.data()));
    if (robust)
        add(msg, "noise_floor_db", pmt::from_double(analyzer.noise_floor_db()));
    else
        add(msg, "not_sparse", pmt::from_bool(analyzer.not_sparse()));
    if (at.has_time)
        msg =
            pmt::dict_add(msg,
                          key_rx_time(),
                          time_pmt(std::uint64_t(std::max<std::int64_t>(0, at.time.secs)),
                                   at.time.frac));
    return msg;
}

pmt::pmt_t
skipped_frame_message(std::uint64_t index, std::uint64_t offset, const std::string& why)
{
    pmt::pmt_t msg = pmt::make_dict();
    msg = pmt::dict_add(msg, pmt::mp("frame"), pmt::from_uint64(index));
    msg = pmt::dict_add(msg, pmt::mp("offset"), pmt::from_uint64(offset));
    msg = pmt::dict_add(msg, pmt::mp("error"), pmt::mp(why));
    msg = pmt::dict_add(msg, pmt::mp("bins"), pmt::make_s32vector(0, 0));
    msg = pmt::dict_add(msg, pmt::mp("freqs"), pmt::make_f64vector(0, 0.0));
    msg = pmt::dict_add(
        msg, pmt::mp("values"), pmt::make_c32vector(0, std::complex<float>()));
    return msg;
}

} // namespace gpufft
} // namespace gr
