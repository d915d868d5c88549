/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "block_logger.h"
#include "block_stream.h"
#include "nufft_resampler_impl.h"
#include <gnuradio/io_signature.h>
#include <cmath>
#include <stdexcept>

namespace gr {
namespace gpufft {

namespace {

void check(bool ok, const std::string& what)
{
    if (!ok)
        throw std::invalid_argument(what);
}

// A frame is one NUFFT plan's sources and one input buffer of GNU Radio's: 2^24 samples
// (128 MiB of complex64 plus their times) is far past any use and still allocatable.
constexpr int max_frame_len = 1 << 24;

void check_rates(double output_rate, double bandwidth)
{
    check(std::isfinite(output_rate) && output_rate > 0,
          "output_rate: must be a finite rate > 0 (Hz)");
    check(std::isfinite(bandwidth) && bandwidth > 0 && bandwidth <= output_rate,
          "bandwidth: must satisfy 0 < bandwidth <= output_rate");
}

const pmt::pmt_t& key_gap()
{
    static const pmt::pmt_t k = pmt::mp("gap");
    return k;
}

} // namespace

nufft_resampler::sptr nufft_resampler::make(double output_rate,
                                            double bandwidth,
                                            int frame_len,
                                            int overlap,
                                            double eps,
                                            std::int64_t epoch,
                                            double nominal_rate,
                                            const std::string& backend,
                                            int device_id)
{
    check_rates(output_rate, bandwidth);
    check(frame_len >= 64 && frame_len <= max_frame_len,
          "frame_len: " + std::to_string(frame_len) + " is outside [64, " +
              std::to_string(max_frame_len) + "] input samples per frame");
    check(overlap >= 8 && overlap <= frame_len / 4,
          "overlap: must satisfy 8 <= overlap <= frame_len / 4");
    return gnuradio::make_block_sptr<nufft_resampler_impl>(output_rate,
                                                           bandwidth,
                                                           frame_len,
                                                           overlap,
                                                           eps,
                                                           epoch,
                                                           nominal_rate,
                                                           backend,
                                                           device_id);
}

nufft_resampler_impl::nufft_resampler_impl(double output_rate,
                                           double bandwidth,
                                           int frame_len,
                                           int overlap,
                                           double eps,
                                           std::int64_t epoch,
                                           double nominal_rate,
                                           const std::string& backend,
                                           int device_id)
    : gr::block(
          "nufft_resampler",
          gr::io_signature::make2(
              2, 2, sizeof(gr_complex), stream::time_input(nominal_rate).item_size()),
          gr::io_signature::make(1, 1, sizeof(gr_complex))),
      d_rate(output_rate),
      d_bandwidth(bandwidth),
      d_set_rate(output_rate),
      d_set_bandwidth(bandwidth),
      d_eps(eps),
      d_frame_len(frame_len),
      d_overlap(overlap),
      d_device_id(device_id),
      d_epoch(epoch),
      d_time(nominal_rate),
      d_fallback(parse_backend(backend), "nufft_resampler", block_log_handler(d_logger)),
      d_fit(d_fallback.make([this](gpufft::backend b) { return make_fit(b); })),
      d_backend(d_fit.backend()),
      d_grid(output_rate, overlap),
      d_times(frame_len),
      d_t(frame_len),
      d_x(frame_len),
      d_clock(epoch)
{
    // GNU Radio sizes the input buffers by the relative rate, and a frame must fit
    // there; the true rate (output_rate over the input's) varies with the input times,
    // and nothing else reads it (tags are not propagated).
    set_relative_rate(1, std::uint64_t(frame_len));
    set_tag_propagation_policy(TPP_DONT); // times are recomputed for the output grid
    message_port_register_in(pmt::mp("cmd"));
    set_msg_handler(pmt::mp("cmd"), [this](const pmt::pmt_t& msg) {
        handle_cmd(
            msg,
            { { "output_rate",
                [this](const pmt::pmt_t& v) { set_output_rate(pmt::to_double(v)); } },
              { "bandwidth",
                [this](const pmt::pmt_t& v) { set_bandwidth(pmt::to_double(v)); } } },
            d_logger);
    });
}

double nufft_resampler_impl::output_rate() const
{
    std::lock_guard<std::mutex> lock(d_settings_mutex);
    return d_set_rate;
}

double nufft_resampler_impl::bandwidth() const
{
    std::lock_guard<std::mutex> lock(d_settings_mutex);
    return d_set_bandwidth;
}

void nufft_resampler_impl::set_output_rate(double output_rate)
{
    std::lock_guard<std::mutex> lock(d_settings_mutex);
    check_rates(output_rate, d_set_bandwidth);
    d_set_rate = output_rate;
}

void nufft_resampler_impl::set_bandwidth(double bandwidth)
{
    std::lock_guard<std::mutex> lock(d_settings_mutex);
    check_rates(d_set_rate, bandwidth);
    d_set_bandwidth = bandwidth;
}

void nufft_resampler_impl::apply_settings()
{
    double rate, bw;
    {
        std::lock_guard<std::mutex> lock(d_settings_mutex);
        rate = d_set_rate;
        bw = d_set_bandwidth;
    }
    if (rate != d_rate) {
        d_rate = rate;
        d_grid.set_rate(rate); // a new grid: its first output is dated
    }
    if (bw != d_bandwidth) {
        d_bandwidth = bw;
        d_fit = make_fit(d_fallback.backend());
        d_backend = d_fit.backend();
        d_grid.break_grid();
    }
}

nufft::band_limited_fit nufft_resampler_impl::make_fit(gpufft::backend b) const
{
    return nufft::band_limited_fit(
        d_bandwidth, d_eps, b, d_device_id, block_log_handler(d_logger));
}

void nufft_resampler_impl::forecast(int, gr_vector_int& ninput_items_required)
{
    // Outputs still pending go out without new input, so a stream's last frame is
    // written even after its input ended.
    const bool pending = d_pending_pos < d_pending.size();
    for (auto& n : ninput_items_required)
        n = pending ? 0 : d_frame_len;
}

void nufft_resampler_impl::skip_frame(const char* why)
{
    ++d_skipped;
    d_grid.break_grid();
    // A stream wrong at every frame (times in ms, say) would log each one.
    if (d_skip_log.allow())
        d_logger->warn("frame at sample {:d} skipped ({:s}); {:d} skipped so far ({:d} "
                       "since the last of these warnings, at most one per 10 s)",
                       nitems_read(0),
                       why,
                       std::uint64_t(d_skipped),
                       d_skip_log.held());
}

void nufft_resampler_impl::mark_gaps(const double* t, double centre)
{
    const double limit = nufft::band_limited_fit::gap_limit(d_bandwidth);
    // The outputs within 1 / bandwidth of a gap lose their accuracy with it
    // (test_band_limited_fit).
    const double reach = 1.0 / d_bandwidth;
    for (const auto& g : d_grid.gaps(t, d_frame_len, limit)) {
        ++d_gaps;
        std::size_t first = d_tau.size(), count = 0;
        for (std::size_t i = 0; i < d_tau.size(); ++i) {
            const double at = d_tau[i] + centre;
            if (at > g.start - reach && at < g.end + reach) {
                first = std::min(first, i);
                ++count;
            }
        }
        if (count > 0) {
            pmt::pmt_t v = pmt::make_dict();
            v = pmt::dict_add(v, pmt::mp("duration"), pmt::from_double(g.end - g.start));
            v = pmt::dict_add(v, pmt::mp("samples"), pmt::from_uint64(count));
            d_pending_gaps.emplace_back(first, v);
        }
        if (d_gap_log.allow())
            d_logger->warn(
                "a gap of {:g} s in the input times (at {:.6f} s after the "
                "epoch) is longer than 2 / bandwidth = {:g} s: the {:d} outputs "
                "around it are unreliable and tagged \"gap\"; {:d} gaps so "
                "far ({:d} since the last of these warnings, at most one per "
                "10 s)",
                g.end - g.start,
                g.start,
                limit,
                count,
                std::uint64_t(d_gaps),
                d_gap_log.held());
    }
}

void nufft_resampler_impl::process_frame(const gr_complex* x, const double* t)
{
    const int L = d_frame_len;
    if (!stream::finite_frame(x, t, L)) {
        skip_frame("NaN or infinite sample or time");
        return;
    }
    if (const char* why = stream::resample_grid::bad_times(t, L)) {
        skip_frame(why);
        return;
    }
    // Times relative to the frame's centre keep the transform's phases small.
    const double centre = 0.5 * (t[0] + t[L - 1]);
    for (int j = 0; j < L; ++j) {
        d_t[j] = t[j] - centre;
        d_x[j] = std::complex<double>(x[j].real(), x[j].imag());
    }
    // The outputs in [t[overlap], t[L - overlap]): the next frame starts there.
    const bool starts_grid = d_grid.points(t, L, centre, d_tau);
    std::string refused;
    const bool fitted = d_fallback.run(
        [&] {
            d_fit.fit(d_t.data(), d_x.data(), L);
            d_y.resize(d_tau.size());
            d_fit.evaluate(d_tau.data(), int(d_tau.size()), d_y.data());
        },
        [&] {
            d_fit = make_fit(d_fallback.backend());
            d_backend = d_fit.backend();
        },
        refused);
    if (!fitted) {
        skip_frame(refused.c_str());
        return;
    }
    d_pending_starts_grid = starts_grid;
    d_pending_gaps.clear();
    mark_gaps(t, centre);
    d_pending.resize(d_y.size());
    for (std::size_t i = 0; i < d_y.size(); ++i)
        d_pending[i] = gr_complex(float(d_y[i].real()), float(d_y[i].imag()));
    d_pending_pos = 0;
    d_grid.commit(d_y.size());
    ++d_processed;
}

int nufft_resampler_impl::flush(gr_complex* out, int noutput_items, int produced)
{
    if (d_pending_pos >= d_pending.size() || produced >= noutput_items)
        return produced;
    const std::uint64_t item = nitems_written(0) + produced;
    if (d_pending_pos == 0 && (d_pending_starts_grid || d_clock_moved)) {
        // A new grid, or an input rx_time moved the clock: date the first output.
        const double start = d_grid.time_of(d_grid.first_point());
        const stream::absolute_time at = d_clock.at(start);
        add_item_tag(0, item, key_rx_time(), time_pmt(at.seconds, at.fraction));
        d_clock_moved = false;
    }
    if (d_pending_pos == 0 && d_rate_out.changed(d_rate))
        add_item_tag(0, item, key_rx_rate(), pmt::from_double(d_rate));
    if (d_pending_pos == 0 && d_tuning.have_freq && d_freq_out.changed(d_tuning.freq))
        add_item_tag(0, item, key_rx_freq(), pmt::from_double(d_tuning.freq));
    const std::size_t n = std::min<std::size_t>(d_pending.size() - d_pending_pos,
                                                std::size_t(noutput_items - produced));
    for (const auto& g : d_pending_gaps)
        if (g.first >= d_pending_pos && g.first < d_pending_pos + n)
            add_item_tag(0, item + (g.first - d_pending_pos), key_gap(), g.second);
    std::copy(d_pending.begin() + d_pending_pos,
              d_pending.begin() + d_pending_pos + n,
              out + produced);
    d_pending_pos += n;
    return produced + int(n);
}

int nufft_resampler_impl::general_work(int noutput_items,
                                       gr_vector_int& ninput_items,
                                       gr_vector_const_void_star& input_items,
                                       gr_vector_void_star& output_items)
{
    auto* out = static_cast<gr_complex*>(output_items[0]);
    if (d_stopped)
        return WORK_DONE;
    d_unconsumed = std::min(ninput_items[0], ninput_items[1]);
    // What the last frame computed goes out first; a frame's output count depends on
    // its time span, so it can exceed the room given in one call.
    int produced = flush(out, noutput_items, 0);
    if (d_pending_pos < d_pending.size() ||
        std::min(ninput_items[0], ninput_items[1]) < d_frame_len)
        return produced;

    const int hop = d_frame_len - 2 * d_overlap;
    d_time.read(input_items[1], nitems_read(1), d_frame_len, d_times.data());
    // Tags in the samples this call consumes apply to this frame (docs/stream.md).
    std::vector<gr::tag_t> tags;
    get_tags_in_range(tags, 0, nitems_read(0), nitems_read(0) + hop);
    if (follow_time_input_tags(
            tags, nitems_read(0), d_times.data(), d_clock, d_tuning, d_logger))
        d_clock_moved = true;
    apply_settings();
    try {
        process_frame(static_cast<const gr_complex*>(input_items[0]), d_times.data());
    } catch (const stream::engine_stopped& e) {
        d_logger->error("{:s}", e.what()); // docs/reliability.md, "Faults inside blocks"
        d_stopped = true;
        return produced > 0 ? produced : WORK_DONE;
    }
    consume_each(hop);
    d_unconsumed -= hop;
    return flush(out, noutput_items, produced);
}

bool nufft_resampler_impl::stop()
{
    // A frame needs frame_len samples, so the last ones of a stream never make one. Of
    // what was left, the first `overlap` were covered by the last frame's outputs.
    const std::int64_t tail = d_unconsumed - (d_processed > 0 ? d_overlap : 0);
    if (tail > 0)
        d_logger->warn("stopped with the last {:d} input samples not resampled: a frame "
                       "needs frame_len = {:d}",
                       tail,
                       d_frame_len);
    if (d_pending_pos < d_pending.size())
        d_logger->warn("stopped with {:d} resampled outputs not yet written",
                       d_pending.size() - d_pending_pos);
    return block::stop();
}

} // namespace gpufft
} // namespace gr
