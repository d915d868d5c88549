/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "block_logger.h"
#include "block_stream.h"
#include "large_fft_accumulator_impl.h"
#include "large_fft_accumulator_messages.h"
#include <gnuradio/io_signature.h>
#include <limits>

namespace gr {
namespace gpufft {

namespace {
const pmt::pmt_t k_spectrum = pmt::mp("spectrum");
const pmt::pmt_t k_progress = pmt::mp("progress");
} // namespace

large_fft_accumulator::sptr
large_fft_accumulator::make(std::int64_t fft_size,
                            int n_integrations,
                            std::int64_t output_bins,
                            std::int64_t band_start,
                            std::int64_t band_stop,
                            std::int64_t overlap,
                            const std::string& window,
                            const std::string& mode,
                            bool output_db,
                            double samp_rate,
                            double center_freq,
                            const std::string& filterbank_path,
                            const std::string& source_name,
                            const std::string& backend,
                            int device_id,
                            std::uint64_t memory_budget,
                            const std::string& file_format,
                            const std::vector<int>& devices,
                            double src_raj,
                            double src_dej,
                            double az_start,
                            double za_start,
                            const std::string& input_type)
{
    stream::spectrometer_settings s;
    s.fft_size = fft_size;
    s.n_integrations = n_integrations;
    s.output_bins = output_bins;
    s.band_start = band_start;
    s.band_stop = band_stop;
    s.overlap = overlap;
    s.window = window;
    s.mode = mode;
    s.output_db = output_db;
    s.samp_rate = samp_rate;
    s.center_freq = center_freq;
    s.filterbank_path = filterbank_path;
    s.source_name = source_name;
    s.backend = backend;
    s.device_id = device_id;
    s.memory_budget = memory_budget;
    s.file_format = file_format;
    s.devices = devices;
    s.pointing.src_raj = src_raj;
    s.pointing.src_dej = src_dej;
    s.pointing.az_start = az_start;
    s.pointing.za_start = za_start;
    s.input_type = input_type;
    // Checked before the block is built, so GNU Radio never sees an impossible output.
    return gnuradio::make_block_sptr<large_fft_accumulator_impl>(
        stream::checked_spectrometer_setup(s));
}

large_fft_accumulator_impl::large_fft_accumulator_impl(
    const stream::spectrometer_setup& s)
    : gr::block("large_fft_accumulator",
                // fc32: a gr_complex; sc16, sc8, cu8: a vector of 2 shorts or chars.
                gr::io_signature::make(1, 1, stream::sample_bytes(s.config.input)),
                // The stream output is optional: a flowgraph may want only the file or
                // the messages (check_topology()).
                gr::io_signature::make(
                    0, 1, sizeof(float) * std::size_t(s.config.output_bins))),
      d_setup(s),
      // Made now, so that an engine that cannot do this size (budget too small, CUDA
      // asked for and missing) fails when the block is made, not mid-run.
      d_integrator(
          stream::make_spectrometer_integrator(d_setup, block_log_handler(d_logger))),
      d_reducer(d_config.fft_size,
                d_config.band_start,
                d_config.band_stop,
                d_config.output_bins),
      d_runner(d_config, d_integrator, block_log_handler(d_logger)),
      d_output_db(s.output_db),
      d_clock(s.samp_rate, s.center_freq),
      d_filterbank(s.filterbank_path,
                   s.source_name,
                   s.filterbank_h5,
                   block_log_handler(d_logger),
                   s.pointing)
{
    d_logger->info("{:s}", stream::describe_spectrometer(d_config, *d_integrator));
    if (!s.format_warning.empty())
        d_logger->warn("{:s}", s.format_warning);
    message_port_register_out(k_spectrum);
    message_port_register_out(k_progress);
    message_port_register_in(pmt::mp("cmd"));
    set_msg_handler(pmt::mp("cmd"),
                    [this](const pmt::pmt_t& msg) { apply_cmd(*this, msg, d_logger); });
    // Tags are re-made per output item (time of the integration's first sample).
    set_tag_propagation_policy(TPP_DONT);
}

large_fft_accumulator_impl::~large_fft_accumulator_impl() = default;

bool large_fft_accumulator_impl::check_topology(int /*ninputs*/, int noutputs)
{
    // With the stream output, a rate of one item per hop (it is one per hop times
    // n_integrations) makes GNU Radio give the upstream buffer room for two frames,
    // as it does for stream_to_vector: work() then takes a frame in a few large
    // copies, not in the 4096-sample pieces of the default buffer, each of which
    // costs a scheduler round and a thread wake-up (issue #30). Without it the block
    // is a sink, and GNU Radio hands a sink available * relative_rate items to work
    // on: the rate must be 1 then, or the last samples would never be taken.
    // The declared hop is capped at 2^20 samples: GNU Radio would otherwise give a
    // 2^30-point frame's upstream a 16 GiB buffer; pieces of 2^20 cost nothing.
    d_is_sink = noutputs == 0;
    const std::uint64_t hop = std::min<std::uint64_t>(
        std::uint64_t(d_config.fft_size - d_config.overlap), std::uint64_t(1) << 20);
    set_relative_rate(1, d_is_sink ? 1 : hop);
    d_min_piece = d_is_sink ? 1 : std::max<int>(1, int(hop / 4));
    return true;
}

bool large_fft_accumulator_impl::start()
{
    // start() runs on the block's thread, where an exception would leave the rest of
    // the flowgraph waiting forever: log the reason and let general_work() end the run.
    try {
        d_filterbank.start(); // fails now, with the path, not at the first spectrum
        d_runner.start();
    } catch (const std::exception& e) {
        d_logger->error("cannot start: {:s}", e.what());
    }
    d_clock.restart();
    d_ended = false;
    d_held = 0;
    d_freq_out.reset();
    d_rate_out.reset();
    return block::start();
}

// Nothing is lost without a word at the end of a stream: spectra the worker finished
// that general_work() can no longer emit, the frames of an integration that did not
// complete, and the samples of a frame that never filled.
void large_fft_accumulator_impl::report_unfinished(
    stream::spectrometer_pipeline& pipeline)
{
    stream::integrated_spectrum partial;
    // Spectra the worker finished that no stream item can carry any more (the run was
    // stopped before its input ended) still go to the file and the 'spectrum' port.
    const auto finished = [this](const stream::integrated_spectrum& s) {
        stream::spectrum_axes axes;
        const stream::stream_state at = state_of(s, axes);
        std::vector<float> out(s.power.size());
        stream::output_power(s.power, d_output_db, out.data());
        publish_spectrum(s, at, axes, out.data(), false);
        write_file(s, at, axes);
    };
    if (d_runner.wind_down(pipeline, finished, !d_is_sink, partial)) {
        std::vector<float> out(partial.power.size());
        stream::spectrum_axes axes;
        const stream::stream_state at = state_of(partial, axes);
        stream::output_power(partial.power, d_output_db, out.data());
        publish_spectrum(partial, at, axes, out.data(), true);
    }
}

bool large_fft_accumulator_impl::stop()
{
    auto pipeline = d_runner.stop();
    if (pipeline && !d_ended)
        report_unfinished(*pipeline); // stopped before the input ended
    pipeline.reset();
    d_filterbank.finish();
    return block::stop();
}

void large_fft_accumulator_impl::forecast(int, gr_vector_int& ninput_items_required)
{
    // Ask for no input while the worker holds a frame that completes a spectrum (so
    // general_work() still runs after a finite input ends and the spectrum is not lost),
    // without a pipeline (general_work() ends the run), and once the input has ended
    // (general_work() then publishes the unfinished integration while the blocks
    // downstream still run; from stop() it would reach no one).
    // Otherwise a quarter hop (check_topology()), so that the upstream block is woken
    // a few times a frame rather than for each piece it writes; once the upstream has
    // ended, whatever is left.
    const auto* pipeline = d_runner.pipeline();
    if (!pipeline || pipeline->pending() || input_ended(*this, 0)) {
        ninput_items_required[0] = 0;
        return;
    }
    const auto* in = detail() ? detail()->input(0).get() : nullptr;
    ninput_items_required[0] =
        in && in->done() ? std::min(d_min_piece, in->items_available()) : d_min_piece;
}

int large_fft_accumulator_impl::general_work(int noutput_items,
                                             gr_vector_int& ninput_items,
                                             gr_vector_const_void_star& input_items,
                                             gr_vector_void_star& output_items)
{
    const auto* in = static_cast<const unsigned char*>(input_items[0]);
    const std::size_t sample = stream::sample_bytes(d_config.input);
    // A sink has no output buffer: every finished spectrum goes to the file and the
    // messages, as many as are ready.
    auto* out = d_is_sink ? nullptr : static_cast<float*>(output_items[0]);
    const int room = d_is_sink ? std::numeric_limits<int>::max() : noutput_items;
    const std::uint64_t read = nitems_read(0);
    auto* pipeline = d_runner.pipeline();
    if (!pipeline || d_ended)
        return WORK_DONE; // start() failed and said why, or the stream was flushed

    const std::int64_t available = ninput_items[0];
    // A sink keeps the last sample it took unconsumed (d_held) until its input has
    // ended: GNU Radio ends a sink whose input is done and empty without calling it,
    // and the held sample makes it call once more, where the last spectra and the
    // unfinished integration go out while the blocks downstream of the messages
    // still run.
    const bool upstream_done = d_is_sink && detail()->input(0)->done();
    const std::int64_t held = std::min<std::int64_t>(d_held, available);
    std::int64_t pushed = held;
    std::int64_t consumed = 0;
    try {
        pushed += d_runner.take(in + std::size_t(held) * sample, available - held);
        // Once its input has ended, a sink that returns with input left is ended by
        // GNU Radio unread: with the worker's frames all queued (a loaded host), 2060
        // samples of a 4096-point stream never reached it and the last integration was
        // reported unfinished. So take the rest now, the worker's queue drained first
        // where it is full (push() takes nothing only while every frame is queued; a
        // worker failure is rethrown).
        while (upstream_done && pushed < available) {
            const auto rest = [&] {
                return d_runner.take(in + std::size_t(pushed) * sample,
                                     available - pushed);
            };
            std::int64_t more = rest();
            if (more == 0) {
                pipeline->drain();
                if ((more = rest()) == 0)
                    break;
            }
            pushed += more;
        }
        std::vector<gr::tag_t> tags;
        get_tags_in_range(
            tags, 0, read + std::uint64_t(held), read + std::uint64_t(pushed));
        d_clock.follow(read, tags, d_logger);
        const bool hold =
            d_is_sink && !upstream_done && pushed == available && pushed > 0;
        consumed = hold ? pushed - 1 : pushed;
        d_held = hold ? 1 : 0;
        consume_each(int(consumed));

        const bool sink_end = d_is_sink && upstream_done && pushed == available;
        if (sink_end)
            pipeline->drain(); // every frame of the stream, before the last pops

        int produced = 0;
        stream::integrated_spectrum s;
        while (produced < room && pipeline->pop(s)) {
            if (s.skipped > 0)
                d_logger->warn("integration {:d}: {:d} of {:d} frames skipped "
                               "(non-finite samples)",
                               s.index,
                               s.skipped,
                               s.n_integrations);
            if (s.frames == 0)
                continue; // nothing to show: every frame was bad
            if (d_is_sink)
                emit_message(s);
            else
                emit(s,
                     out + std::size_t(produced) * std::size_t(d_config.output_bins),
                     nitems_written(0) + std::uint64_t(produced));
            d_clock.timeline().forget_before(s.first_sample);
            ++produced;
        }
        if (sink_end || (!d_is_sink && available == 0 && produced < room &&
                         !pipeline->pending() && input_ended(*this, 0))) {
            // End of stream: every full spectrum is out; flush what remains.
            pipeline->drain();
            report_unfinished(*pipeline);
            d_ended = true;
            return produced > 0 && !d_is_sink ? produced : WORK_DONE;
        }
        stream::spectrometer_progress p;
        if (d_runner.progress_due(p) && has_subscribers(*this, k_progress))
            message_port_pub(k_progress, progress_message(p));
        return d_is_sink ? 0 : produced;
    } catch (const std::exception& e) {
        // An engine failure (device lost, out of memory): stop this flowgraph cleanly
        // with the reason, rather than leave a thread dead and the graph hanging.
        d_logger->error("stopping: {:s}", e.what());
        consume_each(int(std::max(consumed, pushed)));
        return WORK_DONE;
    }
}

void large_fft_accumulator_impl::emit(const stream::integrated_spectrum& s,
                                      float* out,
                                      std::uint64_t out_offset)
{
    stream::spectrum_axes axes;
    const stream::stream_state at = state_of(s, axes);
    stream::output_power(s.power, d_output_db, out);
    add_item_tag(
        0,
        out_offset,
        key_rx_time(),
        time_pmt(std::uint64_t(std::max<std::int64_t>(0, at.time.secs)), at.time.frac));
    if (d_freq_out.changed(at.freq))
        add_item_tag(0, out_offset, key_rx_freq(), pmt::from_double(at.freq));
    if (d_rate_out.changed(1.0 / axes.tsamp))
        add_item_tag(0, out_offset, key_rx_rate(), pmt::from_double(1.0 / axes.tsamp));
    publish_spectrum(s, at, axes, out, false);
    write_file(s, at, axes);
}

void large_fft_accumulator_impl::emit_message(const stream::integrated_spectrum& s)
{
    stream::spectrum_axes axes;
    const stream::stream_state at = state_of(s, axes);
    d_scratch.resize(s.power.size());
    stream::output_power(s.power, d_output_db, d_scratch.data());
    publish_spectrum(s, at, axes, d_scratch.data(), false);
    write_file(s, at, axes);
}

void large_fft_accumulator_impl::write_file(const stream::integrated_spectrum& s,
                                            const stream::stream_state& at,
                                            const stream::spectrum_axes& axes)
{
    // Filterbank data are linear power, whatever the stream output shows.
    d_filterbank.write(s, at.freq, axes, at.time.mjd());
}

void large_fft_accumulator_impl::publish_spectrum(const stream::integrated_spectrum& s,
                                                  const stream::stream_state& at,
                                                  const stream::spectrum_axes& axes,
                                                  const float* out,
                                                  bool partial)
{
    if (!has_subscribers(*this, k_spectrum))
        return;
    spectrum_pdu_flags f;
    f.fft_size = d_config.fft_size;
    f.db = d_output_db;
    f.time_from_host = d_clock.time_from_host();
    f.partial = partial;
    message_port_pub(k_spectrum, spectrum_pdu(s, at, axes, f, out));
}

} // namespace gpufft
} // namespace gr
