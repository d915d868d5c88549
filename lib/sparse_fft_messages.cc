/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "block_stream.h"
#include "sparse_fft_messages.h"
#include <algorithm>
#include <functional>
#include <vector>

namespace gr {
namespace gpufft {

namespace {

// Each key goes into a message once: pmt::acons() puts it in front, which is what
// pmt::dict_add() does with a key the dict lacks, without dict_add()'s search of every
// key before it (6% of the CPU block's thread at 2^16, for the detections PDU's 30).
void add(pmt::pmt_t& d, const char* key, const pmt::pmt_t& v)
{
    d = pmt::acons(pmt::mp(key), v, d);
}

pmt::pmt_t rx_time_pmt(const stream::stream_time& t)
{
    return time_pmt(std::uint64_t(std::max<std::int64_t>(0, t.secs)), t.frac);
}

// One column of the frame's signals as a uniform vector: f64 for numbers and bins, u8
// for flags, c32 for amplitudes (what pmt.to_python() turns into numpy arrays).
template <typename T, typename Get>
std::vector<T> column(const std::vector<sensed_signal>& s, Get get)
{
    std::vector<T> v(s.size());
    std::transform(s.begin(), s.end(), v.begin(), get);
    return v;
}

pmt::pmt_t f64(const std::vector<double>& v)
{
    return v.empty() ? pmt::make_f64vector(0, 0.0) : pmt::init_f64vector(v.size(), v);
}

} // namespace

pmt::pmt_t coefficients_message(std::uint64_t index,
                                std::uint64_t offset,
                                const stream::sparse_frame_analyzer& analyzer,
                                const stream::stream_state& at)
{
    const auto& e = analyzer.entries();
    const std::size_t count = e.bins.size();
    const bool robust = analyzer.frame_mode() == sparse_fft_mode::robust;
    pmt::pmt_t msg = pmt::make_dict();
    add(msg, "frame", pmt::from_uint64(index));
    add(msg, "offset", pmt::from_uint64(offset));
    add(msg, "fft_size", pmt::from_uint64(std::uint64_t(analyzer.fft_size())));
    add(msg, "samp_rate", pmt::from_double(at.rate));
    // Deprecated: the same value under its old name, for one release.
    add(msg, "sample_rate", pmt::from_double(at.rate));
    add(msg, "center_freq", pmt::from_double(at.freq));
    add(msg, "mode", pmt::mp(robust ? "robust" : "exact"));
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
        msg = pmt::dict_add(msg, key_rx_time(), rx_time_pmt(at.time));
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

pmt::pmt_t detections_pdu(std::uint64_t index,
                          std::uint64_t first_sample,
                          const stream::sparse_frame_analyzer& analyzer,
                          const stream::stream_state& at)
{
    const auto& r = analyzer.result();
    const auto& s = r.signals;
    const auto& hz = analyzer.signals_hz();
    const std::size_t m = s.size();
    using sig = sensed_signal;
    pmt::pmt_t meta = pmt::make_dict();
    add(meta, "frame", pmt::from_uint64(index));
    add(meta, "first_sample", pmt::from_uint64(first_sample));
    add(meta, "fft_size", pmt::from_uint64(std::uint64_t(analyzer.fft_size())));
    add(meta, "samp_rate", pmt::from_double(at.rate));
    add(meta, "center_freq", pmt::from_double(at.freq));
    if (at.has_time)
        meta = pmt::dict_add(meta, key_rx_time(), rx_time_pmt(at.time));
    add(meta, "truncated", pmt::from_bool(r.truncated));
    add(meta, "noise_floor_dbfs", pmt::from_double(r.noise_floor_dbfs));
    add(meta, "bins_above", pmt::from_long(long(r.bins_above)));
    add(meta, "bands_found", pmt::from_long(long(r.bands_found)));
    // The frame's thresholds over the local floor: every signal's snr_db is over
    // threshold_db, or, for a held one, over held_threshold_db.
    add(meta, "threshold_db", pmt::from_double(r.threshold_db));
    add(meta, "held_threshold_db", pmt::from_double(r.held_threshold_db));

    const auto num = [&](const char* key, double sig::*field) {
        add(meta, key, f64(column<double>(s, [&](const sig& v) { return v.*field; })));
    };
    num("center_bin", &sig::center_bin);
    num("lower_bin", &sig::lower_bin);
    num("upper_bin", &sig::upper_bin);
    num("bandwidth_bins", &sig::bandwidth_bins);
    num("peak_power_dbfs", &sig::peak_power_dbfs);
    num("total_power_dbfs", &sig::total_power_dbfs);
    num("snr_db", &sig::snr_db);
    num("floor_dbfs", &sig::floor_dbfs);
    num("tone_bin", &sig::tone_bin);
    // Bins as f64 (exact to 2^53): pmt.to_python() converts no s64vector, and
    // sensing_run.detections_from_pdu() converts the whole dict with it.
    const auto bins = [&](const char* key, std::int64_t sig::*field) {
        add(meta,
            key,
            f64(column<double>(s, [&](const sig& x) { return double(x.*field); })));
    };
    bins("first_bin", &sig::first_bin);
    bins("last_bin", &sig::last_bin);
    const auto flag = [&](const char* key, bool sig::*field) {
        const auto v =
            column<std::uint8_t>(s, [&](const sig& x) { return std::uint8_t(x.*field); });
        add(meta, key, m ? pmt::init_u8vector(m, v) : pmt::make_u8vector(0, 0));
    };
    flag("dc", &sig::dc);
    flag("narrow", &sig::narrow);
    flag("tone_refined", &sig::tone_refined);
    flag("held", &sig::held);
    const auto amp = column<std::complex<float>>(
        s, [](const sig& x) { return std::complex<float>(x.tone_amplitude); });
    add(meta,
        "tone_amplitude",
        m ? pmt::init_c32vector(m, amp) : pmt::make_c32vector(0, {}));

    std::vector<double> center(m), lower(m), upper(m), width(m);
    std::vector<float> vec(4 * m);
    for (std::size_t i = 0; i < m; ++i) {
        center[i] = hz[i].center_hz;
        lower[i] = hz[i].lower_hz;
        upper[i] = hz[i].upper_hz;
        width[i] = hz[i].upper_hz - hz[i].lower_hz;
        vec[4 * i] = float(hz[i].center_hz - at.freq);
        vec[4 * i + 1] = float(width[i]);
        vec[4 * i + 2] = float(s[i].peak_power_dbfs);
        vec[4 * i + 3] = float(s[i].snr_db);
    }
    add(meta, "center_hz", f64(center));
    add(meta, "lower_hz", f64(lower));
    add(meta, "upper_hz", f64(upper));
    add(meta, "bandwidth_hz", f64(width));
    return pmt::cons(
        meta, m ? pmt::init_f32vector(vec.size(), vec) : pmt::make_f32vector(0, 0.0f));
}

pmt::pmt_t transmission_pdu(const stream::transmission& t,
                            bool has_time,
                            const stream::stream_time& start_time)
{
    pmt::pmt_t meta = pmt::make_dict();
    add(meta, "id", pmt::from_uint64(t.id));
    add(meta, "start_sample", pmt::from_long(long(t.start_sample)));
    add(meta, "sample_count", pmt::from_long(long(t.sample_count)));
    add(meta, "start_s", pmt::from_double(t.start_s));
    add(meta, "duration_s", pmt::from_double(t.duration_s));
    add(meta, "center_hz", pmt::from_double(t.center_hz));
    add(meta, "lower_hz", pmt::from_double(t.lower_hz));
    add(meta, "upper_hz", pmt::from_double(t.upper_hz));
    add(meta, "bandwidth_hz", pmt::from_double(t.bandwidth_hz));
    add(meta, "peak_power_dbfs", pmt::from_double(t.peak_power_dbfs));
    add(meta, "mean_snr_db", pmt::from_double(t.mean_snr_db));
    add(meta, "frames", pmt::from_long(t.frames));
    add(meta, "dc", pmt::from_bool(t.dc));
    if (has_time)
        meta = pmt::dict_add(meta, key_rx_time(), rx_time_pmt(start_time));
    const std::vector<float> vec = { float(t.duration_s),
                                     float(t.bandwidth_hz),
                                     float(t.peak_power_dbfs),
                                     float(t.mean_snr_db) };
    return pmt::cons(meta, pmt::init_f32vector(vec.size(), vec));
}

} // namespace gpufft
} // namespace gr
