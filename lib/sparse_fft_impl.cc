/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "block_logger.h"
#include "block_stream.h"
#include "sparse/sparse_block_params.h"
#include "sparse/sparse_spectrum.h"
#include "sparse_fft_impl.h"
#include <gnuradio/io_signature.h>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>
#include <stdexcept>

namespace gr {
namespace gpufft {

namespace {
const pmt::pmt_t port_coefficients = pmt::mp("coefficients");
const pmt::pmt_t port_cmd = pmt::mp("cmd");
} // namespace

using namespace sparse_output;

sparse_fft::sptr sparse_fft::make(int fft_size,
                                  int k,
                                  double sample_rate,
                                  int display_bins,
                                  int hop,
                                  const std::string& backend,
                                  int device_id,
                                  const std::string& mode,
                                  double min_snr_db,
                                  double false_alarm)
{
    return gnuradio::make_block_sptr<sparse_fft_impl>(fft_size,
                                                      k,
                                                      sample_rate,
                                                      display_bins,
                                                      hop,
                                                      backend,
                                                      device_id,
                                                      mode,
                                                      min_snr_db,
                                                      false_alarm);
}

sparse_fft_impl::sparse_fft_impl(int fft_size,
                                 int k,
                                 double sample_rate,
                                 int display_bins,
                                 int hop,
                                 const std::string& backend,
                                 int device_id,
                                 const std::string& mode,
                                 double min_snr_db,
                                 double false_alarm)
    : gr::block(
          "sparse_fft",
          gr::io_signature::make(1, 1, sizeof(gr_complex)),
          // The display output is optional: a flowgraph may use the messages only.
          gr::io_signature::make(
              0, 1, sizeof(float) * static_cast<size_t>(std::max(display_bins, 1)))),
      d_fft_size(fft_size),
      d_hop(checked_hop(hop, fft_size)),
      d_display_bins(display_bins),
      d_requested_backend(checked_backend(backend)),
      d_device_id(device_id),
      d_mode(checked_mode(mode)),
      d_min_snr_db(checked_min_snr_db(min_snr_db)),
      d_false_alarm(checked_false_alarm(false_alarm)),
      d_k(k),
      d_sample_rate(sample_rate),
      d_plan_k(k),
      d_frames(fft_size, d_hop),
      d_timeline(sample_rate, 0.0)
{
    if (fft_size < sparse_fft_min_size)
        throw std::invalid_argument(
            "fft_size: must be >= " + std::to_string(sparse_fft_min_size) + ", got " +
            std::to_string(fft_size));
    check_k(k, fft_size, d_mode);
    check_sample_rate(sample_rate);
    if (display_bins < 1 || display_bins > std::min(fft_size, max_display_bins))
        throw std::invalid_argument("display_bins: must be in [1, min(fft_size, " +
                                    std::to_string(max_display_bins) + ")] = [1, " +
                                    std::to_string(std::min(fft_size, max_display_bins)) +
                                    "], got " + std::to_string(display_bins));
    if (device_id < 0)
        throw std::invalid_argument("device_id: must be >= 0, got " +
                                    std::to_string(device_id));

    d_plan = make_plan(k); // throws for what the engine rejects (ValueError in Python)
    d_backend_name = to_string(d_plan->backend());
    d_description = d_plan->describe();
    d_logger->info("{}", d_description); // says when the engine runs a dense FFT

    d_tones.reserve(static_cast<size_t>(k));
    d_entries.reserve(static_cast<size_t>(k));

    // One output item per hop input samples. GNU Radio sizes the upstream buffer from
    // this (at least 2 * hop samples), which the forecast below relies on.
    set_relative_rate(1, static_cast<uint64_t>(d_hop));
    // Tags are re-timed per frame, not passed through by offset.
    set_tag_propagation_policy(TPP_DONT);
    message_port_register_out(port_coefficients);
    message_port_register_in(port_cmd);
    set_msg_handler(port_cmd, [this](const pmt::pmt_t& msg) {
        handle_cmd(
            msg,
            { { "k", [this](const pmt::pmt_t& v) { set_k(int(pmt::to_long(v))); } },
              { "samp_rate",
                [this](const pmt::pmt_t& v) { set_sample_rate(pmt::to_double(v)); } },
              { "sample_rate",
                [this](const pmt::pmt_t& v) { set_sample_rate(pmt::to_double(v)); } } },
            d_logger);
    });
}

sparse_fft_impl::~sparse_fft_impl() = default;

std::unique_ptr<sparse_fft_plan> sparse_fft_impl::make_plan(int k) const
{
    sparse_fft_options opt;
    opt.backend = d_requested_backend;
    opt.device_id = d_device_id;
    opt.mode = d_mode;
    opt.min_snr_db = d_min_snr_db;
    opt.false_alarm = d_false_alarm;
    opt.log = block_log_handler(d_logger);
    return std::make_unique<sparse_fft_plan>(d_fft_size, k, opt);
}

void sparse_fft_impl::set_k(int k)
{
    check_k(k, d_fft_size, d_mode);
    std::lock_guard<std::mutex> lock(d_mutex);
    d_k = k;
}

int sparse_fft_impl::k() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_k;
}

void sparse_fft_impl::set_sample_rate(double sample_rate)
{
    check_sample_rate(sample_rate);
    std::lock_guard<std::mutex> lock(d_mutex);
    d_sample_rate = sample_rate;
}

double sparse_fft_impl::sample_rate() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_sample_rate;
}

std::string sparse_fft_impl::backend() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_backend_name;
}

std::string sparse_fft_impl::mode() const
{
    return d_mode == sparse_fft_mode::robust ? "robust" : "exact";
}

std::string sparse_fft_impl::describe() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_description;
}

void sparse_fft_impl::update_plan()
{
    int wanted;
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        wanted = d_k;
    }
    if (wanted == d_plan_k)
        return;
    // Built here, in the scheduler thread, so a plan is never swapped under a running
    // execute(); a setter only records the wish.
    try {
        auto plan = make_plan(wanted);
        std::lock_guard<std::mutex> lock(d_mutex);
        d_plan = std::move(plan);
        d_plan_k = wanted;
        d_backend_name = to_string(d_plan->backend());
        d_description = d_plan->describe();
    } catch (const std::exception& e) {
        d_logger->error("set_k({}) failed, keeping k={}: {}", wanted, d_plan_k, e.what());
        std::lock_guard<std::mutex> lock(d_mutex);
        d_k = d_plan_k;
        return;
    }
    d_logger->debug("k={}: {}", wanted, describe());
}

bool sparse_fft_impl::check_topology(int /*ninputs*/, int noutputs)
{
    // Without the display output the block is a sink, and GNU Radio hands a sink
    // available * relative_rate output items: with 1/hop that is 0 for the last
    // hop - 1 samples of a stream, and the flowgraph would never finish. A sink
    // copies whatever arrives into its frame buffer, so rate 1 is right for it.
    d_is_sink = noutputs == 0;
    set_relative_rate(1, d_is_sink ? 1 : static_cast<uint64_t>(d_hop));
    return true;
}

void sparse_fft_impl::forecast(int /*noutput_items*/,
                               gr_vector_int& ninput_items_required)
{
    // Frames are assembled inside the block, so any amount of input makes progress.
    // Asking for what completes the next frame lets a whole frame be read in place,
    // without a copy; the cap at hop keeps the request within the upstream buffer,
    // which GNU Radio sizes from the relative rate (1/hop; 1 for a sink, whose
    // buffer may be shorter than a frame).
    const std::int64_t next = d_frames.needed();
    const std::int64_t cap = d_is_sink ? 1 : d_hop;
    ninput_items_required[0] = static_cast<int>(std::clamp<std::int64_t>(next, 1, cap));
}

bool sparse_fft_impl::stop()
{
    // The samples after the last frame never make one: say how many (docs/stream.md).
    const std::uint64_t end =
        std::max(d_seen_until, nitems_read(0) + unread_samples(*this, 0));
    if (end > d_frames.covered_until())
        d_logger->info("stopped with {:d} samples after the last frame ({:d} frames): "
                       "too few for a frame of fft_size = {:d}",
                       end - d_frames.covered_until(),
                       d_frames.frames(),
                       d_fft_size);
    return block::stop();
}

void sparse_fft_impl::report_skip(std::uint64_t index,
                                  std::uint64_t offset,
                                  const std::string& why)
{
    d_skipped++;
    d_logger->error("frame {} (samples {}..{}) skipped: {}",
                    index,
                    offset,
                    offset + static_cast<std::uint64_t>(d_fft_size) - 1,
                    why);
    pmt::pmt_t msg = pmt::make_dict();
    msg = pmt::dict_add(msg, pmt::mp("frame"), pmt::from_uint64(index));
    msg = pmt::dict_add(msg, pmt::mp("offset"), pmt::from_uint64(offset));
    msg = pmt::dict_add(msg, pmt::mp("error"), pmt::mp(why));
    msg = pmt::dict_add(msg, pmt::mp("bins"), pmt::make_s32vector(0, 0));
    msg = pmt::dict_add(msg, pmt::mp("freqs"), pmt::make_f64vector(0, 0.0));
    msg = pmt::dict_add(msg, pmt::mp("values"), pmt::make_c32vector(0, gr_complex()));
    message_port_pub(port_coefficients, msg);
}

bool sparse_fft_impl::process_frame(const gr_complex* frame,
                                    float* display,
                                    std::uint64_t out_offset,
                                    std::uint64_t offset)
{
    const std::uint64_t index = offset / std::uint64_t(d_hop);
    update_plan();
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        d_timeline.set_default_rate(d_sample_rate);
    }
    // The tag rule (docs/stream.md): tags inside the frame apply to it.
    const stream::stream_state st = d_timeline.frame(std::int64_t(offset), d_fft_size);
    d_timeline.forget_before(std::int64_t(offset));
    const double rate = st.rate;
    const double center_freq = st.freq;

    // The engine only checks the samples it reads; a NaN anywhere in the frame makes
    // the frame's spectrum meaningless, so check them all (a vectorized pass).
    if (!sparse_output::all_finite(frame, static_cast<size_t>(d_fft_size))) {
        report_skip(index, offset, "non-finite samples (NaN or infinity) in the frame");
        return false;
    }
    const std::int64_t n = d_fft_size;
    const bool robust = d_mode == sparse_fft_mode::robust;
    double noise_floor = 0.0;
    bool not_sparse = false;
    try {
        if (robust) {
            d_plan->detect(frame, d_tones, memory::host);
            noise_floor = d_plan->noise_floor();
        } else {
            d_plan->execute(frame, d_entries.bins, d_entries.values, memory::host);
            not_sparse = d_plan->not_sparse();
        }
    } catch (const std::exception& e) {
        report_skip(index, offset, e.what());
        return false;
    }
    d_processed++;
    if (robust)
        sparse_output::entries_from_tones(n, center_freq, rate, d_tones, d_entries);
    else
        sparse_output::entries_from_coefficients(n, center_freq, rate, d_entries);
    if (not_sparse)
        note_not_sparse(index);

    const size_t count = d_entries.bins.size();
    const auto& e = d_entries;
    pmt::pmt_t msg = pmt::make_dict();
    msg = pmt::dict_add(msg, pmt::mp("frame"), pmt::from_uint64(index));
    msg = pmt::dict_add(msg, pmt::mp("offset"), pmt::from_uint64(offset));
    msg = pmt::dict_add(
        msg, pmt::mp("fft_size"), pmt::from_uint64(static_cast<uint64_t>(n)));
    msg = pmt::dict_add(msg, pmt::mp("sample_rate"), pmt::from_double(rate));
    msg = pmt::dict_add(msg, pmt::mp("center_freq"), pmt::from_double(center_freq));
    msg = pmt::dict_add(msg, pmt::mp("mode"), pmt::mp(robust ? "robust" : "exact"));
    msg =
        pmt::dict_add(msg, pmt::mp("bins"), pmt::init_s32vector(count, e.bins32.data()));
    msg =
        pmt::dict_add(msg, pmt::mp("freqs"), pmt::init_f64vector(count, e.freqs.data()));
    msg = pmt::dict_add(
        msg, pmt::mp("values"), pmt::init_c32vector(count, e.values.data()));
    msg = pmt::dict_add(
        msg, pmt::mp("power_db"), pmt::init_f32vector(count, e.power_db.data()));
    msg = pmt::dict_add(
        msg, pmt::mp("snr_db"), pmt::init_f32vector(count, e.snr_db.data()));
    if (robust)
        msg = pmt::dict_add(
            msg,
            pmt::mp("noise_floor_db"),
            pmt::from_double(sparse_output::noise_floor_db(noise_floor, n)));
    else
        msg = pmt::dict_add(msg, pmt::mp("not_sparse"), pmt::from_bool(not_sparse));
    const pmt::pmt_t t =
        time_pmt(std::uint64_t(std::max<std::int64_t>(0, st.time.secs)), st.time.frac);
    if (st.has_time)
        msg = pmt::dict_add(msg, key_rx_time(), t);
    message_port_pub(port_coefficients, msg);

    if (display == nullptr)
        return false;
    sparse_output::display_spectrum(
        n, e.bins.data(), e.values.data(), count, display, d_display_bins, floor_db);
    if (st.has_time)
        add_item_tag(0, out_offset, key_rx_time(), t, alias_pmt());
    if (st.freq_tagged && d_freq_out.changed(st.freq))
        add_item_tag(
            0, out_offset, key_rx_freq(), pmt::from_double(st.freq), alias_pmt());
    if (st.rate_tagged && d_rate_out.changed(st.rate))
        add_item_tag(
            0, out_offset, key_rx_rate(), pmt::from_double(st.rate), alias_pmt());
    return true;
}

void sparse_fft_impl::note_not_sparse(std::uint64_t index)
{
    d_not_sparse_frames++;
    d_not_sparse_unreported++;
    if (d_not_sparse_warned && index - d_not_sparse_warned_at < not_sparse_warn_every)
        return;
    d_logger->warn(
        "frame {}: not exactly sparse ({} such frame(s) since the last warning, "
        "{} in all): energy is left that the coefficients found do not "
        "explain, so only the coefficients the residual vouches for were "
        "reported. Noise or tones between bins break exact mode; use mode "
        "\"robust\" for such signals. (Warned at most once per {} frames.)",
        index,
        d_not_sparse_unreported,
        d_not_sparse_frames,
        not_sparse_warn_every);
    d_not_sparse_warned = true;
    d_not_sparse_warned_at = index;
    d_not_sparse_unreported = 0;
}

int sparse_fft_impl::general_work(int noutput_items,
                                  gr_vector_int& ninput_items,
                                  gr_vector_const_void_star& input_items,
                                  gr_vector_void_star& output_items)
{
    const auto* in = static_cast<const gr_complex*>(input_items[0]);
    float* out = output_items.empty() ? nullptr : static_cast<float*>(output_items[0]);
    const std::uint64_t read = nitems_read(0);
    const std::uint64_t end = read + std::uint64_t(ninput_items[0]);
    if (end > d_seen_until) {
        std::vector<gr::tag_t> tags;
        get_tags_in_range(tags, 0, d_seen_until, end);
        follow_tags(tags, 0, d_timeline, d_logger);
        d_seen_until = end;
    }
    const std::uint64_t written = out ? nitems_written(0) : 0;
    int produced = 0;
    const std::int64_t used = d_frames.feed(
        in,
        ninput_items[0],
        [&] { return !out || produced < noutput_items; },
        [&](const gr_complex* frame, std::uint64_t first) {
            float* display =
                out ? out + std::size_t(produced) * std::size_t(d_display_bins) : nullptr;
            if (process_frame(frame, display, written + std::uint64_t(produced), first))
                produced++;
        });
    consume(0, int(used));
    return produced;
}

} // namespace gpufft
} // namespace gr
