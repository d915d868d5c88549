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
#include "large_fft_accumulator_impl.h"
#include <gnuradio/io_signature.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace gr {
namespace gpufft {

namespace {
const pmt::pmt_t k_rx_time = pmt::mp("rx_time");
const pmt::pmt_t k_rx_freq = pmt::mp("rx_freq");
const pmt::pmt_t k_rx_rate = pmt::mp("rx_rate");
const pmt::pmt_t k_spectrum = pmt::mp("spectrum");
const pmt::pmt_t k_progress = pmt::mp("progress");

// A few microseconds would do; waiting longer only delays taking new input, and
// waiting less turns the wait for a frame into a spin.
constexpr auto worker_poll = std::chrono::microseconds(500);

pmt::pmt_t time_pmt(const stream::stream_time& t)
{
    return pmt::make_tuple(
        pmt::from_uint64(std::uint64_t(std::max<std::int64_t>(0, t.secs))),
        pmt::from_double(t.frac));
}

std::string power_of_two_or_number(std::int64_t n)
{
    if (n > 0 && (n & (n - 1)) == 0) {
        int e = 0;
        while ((std::int64_t(1) << e) < n)
            ++e;
        return std::to_string(n) + " (2^" + std::to_string(e) + ")";
    }
    return std::to_string(n);
}

// start() runs on the block's own thread, where it cannot make tb.start() raise, so a
// path that cannot be written is refused when the block is made: the file itself if it
// exists, else its directory.
void check_writable(const std::string& path)
{
    if (path.empty())
        return;
    const auto slash = path.find_last_of('/');
    const std::string dir = slash == std::string::npos ? "."
                            : slash == 0               ? "/"
                                                       : path.substr(0, slash);
    const bool exists = ::access(path.c_str(), F_OK) == 0;
    if (::access(exists ? path.c_str() : dir.c_str(), exists ? W_OK : W_OK | X_OK) != 0)
        throw std::invalid_argument("filterbank_path: cannot write '" + path +
                                    "': " + std::strerror(errno));
}
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
                            const std::vector<int>& devices)
{
    if (file_format != "fil" && file_format != "h5")
        throw std::invalid_argument("file_format must be \"fil\" (SIGPROC) or \"h5\" "
                                    "(HDF5 filterbank), got \"" +
                                    file_format + "\"");
    if (file_format == "h5" && !accumulator::fbh5_supported())
        throw std::invalid_argument(
            "file_format: \"h5\" needs HDF5, which this build of gr-gpufft lacks "
            "(install libhdf5-dev, then configure and build gr-gpufft again), or use "
            "\"fil\"");
    check_writable(filterbank_path);
    stream::pipeline_config c;
    c.fft_size = fft_size;
    c.n_integrations = n_integrations;
    c.output_bins = output_bins;
    c.band_start = band_start;
    c.band_stop = band_stop;
    c.overlap = overlap;
    c.window = power::parse_window(window);
    c.mode = stream::parse_mode(mode);
    if (!(samp_rate > 0) || !std::isfinite(samp_rate))
        throw std::invalid_argument("samp_rate must be a finite number > 0 Hz, got " +
                                    std::to_string(samp_rate));
    if (!std::isfinite(center_freq))
        throw std::invalid_argument("center_freq must be finite");
    large_fft_options o;
    o.backend = parse_backend(backend);
    o.device_id = device_id;
    o.memory_budget = std::size_t(memory_budget);
    o.devices = devices;
    return gnuradio::make_block_sptr<large_fft_accumulator_impl>(c,
                                                                 output_db,
                                                                 samp_rate,
                                                                 center_freq,
                                                                 filterbank_path,
                                                                 source_name,
                                                                 file_format == "h5",
                                                                 o);
}

namespace {
// Checked before the base class is built, so bad parameters throw before GNU Radio
// sees a block with an impossible output size.
const stream::pipeline_config& checked(const stream::pipeline_config& c)
{
    stream::validate(c);
    return c;
}
} // namespace

large_fft_accumulator_impl::large_fft_accumulator_impl(
    const stream::pipeline_config& config,
    bool output_db,
    double samp_rate,
    double center_freq,
    const std::string& filterbank_path,
    const std::string& source_name,
    bool filterbank_h5,
    const large_fft_options& engine_options)
    : gr::block("large_fft_accumulator",
                gr::io_signature::make(1, 1, sizeof(gr_complex)),
                gr::io_signature::make(
                    1, 1, sizeof(float) * std::size_t(checked(config).output_bins))),
      d_config(config),
      d_filterbank_path(filterbank_path),
      d_source_name(source_name),
      d_filterbank_h5(filterbank_h5),
      d_n_integrations(config.n_integrations),
      d_mode(int(config.mode)),
      d_output_db(output_db),
      d_samp_rate(samp_rate),
      d_center_freq(center_freq),
      d_timeline(samp_rate, center_freq),
      d_reducer(config.fft_size, config.band_start, config.band_stop, config.output_bins)
{
    // The engine is made here, so one that cannot do this size (budget too small, CUDA
    // asked for and missing) fails when the block is made, not mid-run.
    spectrum_integrator_options io;
    io.backend = engine_options.backend;
    io.device_id = engine_options.device_id;
    io.memory_budget = engine_options.memory_budget;
    io.devices = engine_options.devices;
    io.threads = d_config.threads;
    io.window = power::to_string(d_config.window);
    io.mode = d_config.mode;
    io.log = block_log_handler(d_logger);
    d_integrator = std::make_shared<spectrum_integrator>(d_config.fft_size,
                                                         d_config.band_start,
                                                         d_config.band_stop,
                                                         d_config.output_bins,
                                                         io);
    d_config.pinned = d_integrator->backend() == gpufft::backend::cuda;
    d_config.device_id = d_integrator->device_id();
    // On the CPU the engine's working memory is host memory too, beside the two frames.
    const std::uint64_t phys = stream::host_physical_memory();
    const std::uint64_t frames = stream::frame_memory_bytes(d_config.fft_size);
    if (!d_config.pinned && phys > 0 &&
        frames + d_integrator->memory_budget() > phys / 10 * 9)
        throw std::invalid_argument(
            "fft_size / memory_budget: two frames (" + std::to_string(frames >> 20) +
            " MiB) and the CPU engine's working memory (" +
            std::to_string(d_integrator->memory_budget() >> 20) +
            " MiB) exceed 90% of this host's " + std::to_string(phys >> 20) +
            " MiB; lower fft_size or set a smaller memory_budget");
    d_logger->info("fft_size {:s} on the {:s} backend, {:s}",
                   power_of_two_or_number(d_config.fft_size),
                   backend(),
                   d_integrator->on_device() ? "integrated on the GPU"
                                             : "window and band reduction on the host");

    message_port_register_out(k_spectrum);
    message_port_register_out(k_progress);
    message_port_register_in(pmt::mp("cmd"));
    set_msg_handler(pmt::mp("cmd"), [this](const pmt::pmt_t& msg) {
        handle_cmd(
            msg,
            { { "n_integrations",
                [this](const pmt::pmt_t& v) {
                    set_n_integrations(int(pmt::to_long(v)));
                } },
              { "mode",
                [this](const pmt::pmt_t& v) { set_mode(pmt::symbol_to_string(v)); } },
              { "output_db",
                [this](const pmt::pmt_t& v) { set_output_db(pmt::to_bool(v)); } } },
            d_logger);
    });
    // Tags are re-made per output item (time of the integration's first sample).
    set_tag_propagation_policy(TPP_DONT);
}

large_fft_accumulator_impl::~large_fft_accumulator_impl() = default;

std::int64_t large_fft_accumulator_impl::band_stop() const
{
    return d_config.band_stop == 0 ? d_config.fft_size : d_config.band_stop;
}

std::string large_fft_accumulator_impl::backend() const
{
    return to_string(d_integrator->backend());
}

void large_fft_accumulator_impl::set_n_integrations(int n_integrations)
{
    if (n_integrations < 1)
        throw std::invalid_argument("n_integrations must be >= 1, got " +
                                    std::to_string(n_integrations));
    std::lock_guard<std::mutex> lock(d_pipeline_mutex);
    d_n_integrations = n_integrations;
    if (d_pipeline)
        d_pipeline->set_n_integrations(n_integrations);
}

void large_fft_accumulator_impl::set_mode(const std::string& mode)
{
    const auto m = stream::parse_mode(mode);
    std::lock_guard<std::mutex> lock(d_pipeline_mutex);
    d_mode = int(m);
    if (d_pipeline)
        d_pipeline->set_mode(m);
}

std::string large_fft_accumulator_impl::mode() const
{
    return stream::to_string(stream::accumulate_mode(d_mode.load()));
}

double large_fft_accumulator_impl::fraction_filled() const
{
    std::lock_guard<std::mutex> lock(d_pipeline_mutex);
    return d_pipeline ? double(d_pipeline->samples_in_frame()) / double(d_config.fft_size)
                      : 0.0;
}

std::uint64_t large_fft_accumulator_impl::integrations_done() const
{
    std::lock_guard<std::mutex> lock(d_pipeline_mutex);
    return d_integrations_before + (d_pipeline ? d_pipeline->integrations_done() : 0);
}

std::uint64_t large_fft_accumulator_impl::frames_skipped() const
{
    std::lock_guard<std::mutex> lock(d_pipeline_mutex);
    return d_skipped_before + (d_pipeline ? d_pipeline->frames_skipped() : 0);
}

bool large_fft_accumulator_impl::start()
{
    // start() runs on the block's thread, where an exception would leave the rest of
    // the flowgraph waiting forever: log the reason and let general_work() end the run.
    std::unique_ptr<stream::spectrometer_pipeline> pipeline;
    try {
        if (!d_filterbank_path.empty()) {
            // Fail now with the path in the message, not at the first spectrum.
            std::FILE* f = std::fopen(d_filterbank_path.c_str(), "wb");
            if (!f)
                throw std::runtime_error("filterbank_path: cannot write '" +
                                         d_filterbank_path + "'");
            std::fclose(f);
        }
        const std::uint64_t need = stream::frame_memory_bytes(d_config.fft_size);
        const std::uint64_t available = stream::host_available_memory();
        if (available > 0 && need > available)
            d_logger->warn("the two frames need {:.1f} GiB but only {:.1f} GiB of host "
                           "memory is available now: expect swapping",
                           double(need) / double(1ull << 30),
                           double(available) / double(1ull << 30));
        stream::pipeline_config c = d_config;
        c.n_integrations = d_n_integrations;
        c.mode = stream::accumulate_mode(d_mode.load());
        pipeline = std::make_unique<stream::spectrometer_pipeline>(c, d_integrator);
        if (d_config.pinned && !pipeline->pinned())
            d_logger->warn("could not page-lock the frames: host-to-GPU copies will be "
                           "slower");
    } catch (const std::exception& e) {
        d_logger->error("cannot start: {:s}", e.what());
    }
    {
        std::lock_guard<std::mutex> lock(d_pipeline_mutex);
        d_pipeline = std::move(pipeline);
    }
    d_timeline = stream::stream_timeline(d_samp_rate, d_center_freq);
    d_first_work = true;
    d_ended = false;
    d_time_from_host = false;
    d_filterbank.reset();
    d_warned_retune = false;
    d_freq_out.reset();
    d_rate_out.reset();
    d_last_logged_done = 0;
    d_last_progress = {}; // the first call publishes at once
    d_last_log = std::chrono::steady_clock::now();
    return block::start();
}

// Nothing is lost without a word at the end of a stream: spectra the worker finished
// that general_work() can no longer emit, the frames of an integration that did not
// complete, and the samples of a frame that never filled.
void large_fft_accumulator_impl::report_unfinished(
    stream::spectrometer_pipeline& pipeline)
{
    pipeline.finish(); // after the frame it is transforming, if any
    stream::integrated_spectrum s;
    int unsent = 0;
    while (pipeline.pop(s))
        ++unsent;
    if (unsent > 0)
        d_logger->warn("stopped with {:d} finished spectra not yet output; they are lost",
                       unsent);
    stream::integrated_spectrum partial;
    if (pipeline.take_partial(partial)) {
        // Published, not output: a stream item would claim a full integration.
        d_logger->info("stopped {:d} of {:d} frames into integration {:d}: published on "
                       "'spectrum' with partial = true",
                       partial.frames,
                       partial.n_integrations,
                       partial.index);
        std::vector<float> out(partial.power.size());
        publish_spectrum(partial, out.data(), true);
    }
    if (pipeline.samples_in_frame() > d_config.overlap)
        d_logger->info("stopped with a frame {:.1f}% filled; its samples are not in any "
                       "output",
                       100.0 * double(pipeline.samples_in_frame()) /
                           double(d_config.fft_size));
}

bool large_fft_accumulator_impl::stop()
{
    std::unique_ptr<stream::spectrometer_pipeline> pipeline;
    {
        std::lock_guard<std::mutex> lock(d_pipeline_mutex);
        pipeline = std::move(d_pipeline);
        if (pipeline) {
            d_integrations_before += pipeline->integrations_done();
            d_skipped_before += pipeline->frames_skipped();
        }
    }
    if (pipeline && !d_ended)
        report_unfinished(*pipeline); // stopped before the input ended
    pipeline.reset();
    if (d_filterbank) {
        d_logger->info("wrote {:d} spectra to {:s}",
                       d_filterbank->spectra_written(),
                       d_filterbank->path());
        d_filterbank.reset();
    }
    return block::stop();
}

void large_fft_accumulator_impl::forecast(int, gr_vector_int& ninput_items_required)
{
    // While the worker holds a frame that completes a spectrum, ask for no input: the
    // scheduler then calls general_work() even after the input has ended, so the last
    // spectrum is not lost when a finite stream stops. Without a pipeline (start()
    // failed) general_work() ends the run at once, input or not.
    // When the input has ended, ask for none too: general_work() then sees the end of
    // the stream and publishes the unfinished integration while the blocks downstream
    // still run (from stop() it would reach no one).
    ninput_items_required[0] =
        (!d_pipeline || d_pipeline->pending() || input_ended()) ? 0 : 1;
}

bool large_fft_accumulator_impl::input_ended()
{
    return detail() && detail()->ninputs() > 0 && detail()->input(0)->done() &&
           detail()->input(0)->items_available() == 0;
}

void large_fft_accumulator_impl::read_tags(std::uint64_t begin, std::uint64_t end)
{
    std::vector<gr::tag_t> tags;
    get_tags_in_range(tags, 0, begin, end);
    for (const auto& t : tags) {
        const std::int64_t at = std::int64_t(t.offset - d_offset_base);
        // A malformed tag is reported and ignored: it must not stop the flowgraph.
        try {
            if (pmt::eqv(t.key, k_rx_time)) {
                d_timeline.set_time(
                    at,
                    { std::int64_t(pmt::to_uint64(pmt::tuple_ref(t.value, 0))),
                      pmt::to_double(pmt::tuple_ref(t.value, 1)) });
                d_time_from_host = false;
            } else if (pmt::eqv(t.key, k_rx_freq)) {
                d_timeline.set_freq(at, pmt::to_double(t.value));
            } else if (pmt::eqv(t.key, k_rx_rate)) {
                d_timeline.set_rate(at, pmt::to_double(t.value));
            }
        } catch (const std::exception&) {
            d_logger->warn("ignored a malformed {:s} tag at sample {:d}: {:s}",
                           pmt::symbol_to_string(t.key),
                           t.offset,
                           pmt::write_string(t.value));
        }
    }
}

int large_fft_accumulator_impl::general_work(int noutput_items,
                                             gr_vector_int& ninput_items,
                                             gr_vector_const_void_star& input_items,
                                             gr_vector_void_star& output_items)
{
    const auto* in = static_cast<const gr_complex*>(input_items[0]);
    auto* out = static_cast<float*>(output_items[0]);
    const std::uint64_t read = nitems_read(0);
    if (!d_pipeline || d_ended)
        return WORK_DONE; // start() failed and said why, or the stream was flushed

    if (d_first_work) {
        d_first_work = false;
        d_offset_base = read;
        // Until an rx_time tag says otherwise, the host clock dates the first sample.
        std::vector<gr::tag_t> t0;
        get_tags_in_range(t0, 0, read, read + 1, k_rx_time);
        if (t0.empty()) {
            const double now = std::chrono::duration<double>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count();
            d_timeline.set_time(0, stream::stream_time{}.plus(now));
            d_time_from_host = true;
        }
    }

    const std::int64_t available = ninput_items[0];
    std::int64_t consumed = 0;
    try {
        consumed = d_pipeline->push(in, available);
        if (consumed < available) {
            // Both frames are with the worker: give it a moment, then take what fits.
            d_pipeline->wait(worker_poll);
            consumed += d_pipeline->push(in + consumed, available - consumed);
        } else if (available == 0) {
            // Called with no input only while a spectrum is on its way (forecast).
            d_pipeline->wait(worker_poll);
        }
        read_tags(read, read + std::uint64_t(consumed));
        consume_each(int(consumed));

        int produced = 0;
        stream::integrated_spectrum s;
        while (produced < noutput_items && d_pipeline->pop(s)) {
            if (s.skipped > 0)
                d_logger->warn(
                    "integration {:d}: {:d} of {:d} frames skipped (non-finite "
                    "samples)",
                    s.index,
                    s.skipped,
                    s.n_integrations);
            if (s.frames == 0)
                continue; // nothing to show: every frame was bad
            emit(s,
                 out + std::size_t(produced) * std::size_t(d_config.output_bins),
                 nitems_written(0) + std::uint64_t(produced));
            d_timeline.forget_before(s.first_sample);
            ++produced;
        }
        if (available == 0 && produced < noutput_items && !d_pipeline->pending() &&
            input_ended()) {
            // End of stream: every full spectrum is out; flush what remains.
            report_unfinished(*d_pipeline);
            d_ended = true;
            return produced > 0 ? produced : WORK_DONE;
        }
        publish_progress(false);
        return produced;
    } catch (const std::exception& e) {
        // An engine failure (device lost, out of memory): stop this flowgraph cleanly
        // with the reason, rather than leave a thread dead and the graph hanging.
        d_logger->error("stopping: {:s}", e.what());
        consume_each(int(consumed));
        return WORK_DONE;
    }
}

void large_fft_accumulator_impl::emit(const stream::integrated_spectrum& s,
                                      float* out,
                                      std::uint64_t out_offset)
{
    // The tag rule (docs/stream.md): the tags of an integration's first frame apply.
    const stream::stream_state at = d_timeline.frame(s.first_sample, d_config.fft_size);
    const double tsamp =
        double(s.n_integrations) * double(d_config.fft_size - d_config.overlap) / at.rate;
    const std::size_t nchans = s.power.size();
    if (d_output_db)
        for (std::size_t c = 0; c < nchans; ++c)
            out[c] = 10.0f * std::log10(std::max(s.power[c], 1e-30f));
    else
        std::copy(s.power.begin(), s.power.end(), out);

    add_item_tag(0, out_offset, k_rx_time, time_pmt(at.time));
    if (d_freq_out.changed(at.freq))
        add_item_tag(0, out_offset, k_rx_freq, pmt::from_double(at.freq));
    if (d_rate_out.changed(1.0 / tsamp))
        add_item_tag(0, out_offset, k_rx_rate, pmt::from_double(1.0 / tsamp));
    publish_spectrum(s, out, false);
    if (!d_filterbank_path.empty())
        write_filterbank(s, at);
}

void large_fft_accumulator_impl::publish_spectrum(const stream::integrated_spectrum& s,
                                                  float* out,
                                                  bool partial)
{
    const stream::stream_state at = d_timeline.frame(s.first_sample, d_config.fft_size);
    const auto& reducer = d_integrator_reducer();
    const double bin_hz = at.rate / double(d_config.fft_size);
    const double fch1 = at.freq + reducer.channel_centre_bins(0) * bin_hz;
    const double foff = double(reducer.decimation()) * bin_hz;
    const double tsamp =
        double(s.n_integrations) * double(d_config.fft_size - d_config.overlap) / at.rate;
    const std::size_t nchans = s.power.size();
    if (partial)
        for (std::size_t c = 0; c < nchans; ++c)
            out[c] = d_output_db ? 10.0f * std::log10(std::max(s.power[c], 1e-30f))
                                 : s.power[c];
    const pmt::pmt_t t = time_pmt(at.time);

    pmt::pmt_t meta = pmt::make_dict();
    meta = pmt::dict_add(meta, k_rx_time, t);
    meta = pmt::dict_add(meta, k_rx_freq, pmt::from_double(at.freq));
    meta = pmt::dict_add(meta, k_rx_rate, pmt::from_double(at.rate));
    meta = pmt::dict_add(meta, pmt::mp("fch1"), pmt::from_double(fch1));
    meta = pmt::dict_add(meta, pmt::mp("foff"), pmt::from_double(foff));
    meta = pmt::dict_add(meta, pmt::mp("nchans"), pmt::from_long(long(nchans)));
    meta = pmt::dict_add(meta, pmt::mp("tsamp"), pmt::from_double(tsamp));
    meta = pmt::dict_add(meta, pmt::mp("integrations"), pmt::from_long(long(s.frames)));
    meta = pmt::dict_add(meta, pmt::mp("skipped"), pmt::from_long(long(s.skipped)));
    meta =
        pmt::dict_add(meta, pmt::mp("integration_index"), pmt::from_long(long(s.index)));
    meta =
        pmt::dict_add(meta, pmt::mp("fft_size"), pmt::from_long(long(d_config.fft_size)));
    meta = pmt::dict_add(meta, pmt::mp("mode"), pmt::mp(stream::to_string(s.mode)));
    meta = pmt::dict_add(meta, pmt::mp("db"), pmt::from_bool(d_output_db));
    meta = pmt::dict_add(meta,
                         pmt::mp("time_source"),
                         pmt::mp(d_time_from_host ? "host_clock" : "rx_time"));
    meta = pmt::dict_add(meta, pmt::mp("partial"), pmt::from_bool(partial));
    message_port_pub(k_spectrum, pmt::cons(meta, pmt::init_f32vector(nchans, out)));
}

void large_fft_accumulator_impl::write_filterbank(const stream::integrated_spectrum& s,
                                                  const stream::stream_state& at)
{
    const auto& reducer = d_reducer;
    const double bin_hz = at.rate / double(d_config.fft_size);
    if (!d_filterbank) {
        accumulator::filterbank_header h;
        h.source_name = d_source_name;
        h.rawdatafile = "gr-gpufft large_fft_accumulator";
        h.fch1 = (at.freq + reducer.channel_centre_bins(0) * bin_hz) * 1e-6;
        h.foff = double(reducer.decimation()) * bin_hz * 1e-6;
        h.nchans = int(d_config.output_bins);
        h.tstart = at.time.mjd();
        h.tsamp = double(s.n_integrations) *
                  double(d_config.fft_size - d_config.overlap) / at.rate;
        if (d_filterbank_h5) {
            accumulator::fbh5_options fo;
            fo.log = block_log_handler(d_logger);
            d_filterbank =
                std::make_unique<accumulator::fbh5_writer>(d_filterbank_path, h, fo);
        } else {
            d_filterbank =
                std::make_unique<accumulator::filterbank_writer>(d_filterbank_path, h);
        }
        d_filterbank_freq = at.freq;
        d_filterbank_integrations = s.n_integrations;
    } else if (!d_warned_retune && (at.freq != d_filterbank_freq ||
                                    s.n_integrations != d_filterbank_integrations)) {
        // A filterbank has one header per file: say so once rather than per spectrum.
        d_warned_retune = true;
        d_logger->warn("rx_freq ({:g} Hz) or n_integrations ({:d}) changed; the header "
                       "of {:s} describes {:g} Hz and {:d} integrations",
                       at.freq,
                       s.n_integrations,
                       d_filterbank_path,
                       d_filterbank_freq,
                       d_filterbank_integrations);
    }
    // Filterbank data are linear power, whatever the stream output shows.
    d_filterbank->write_spectrum(s.power.data());
}

void large_fft_accumulator_impl::publish_progress(bool force)
{
    const auto now = std::chrono::steady_clock::now();
    if (!force && now - d_last_progress < std::chrono::seconds(1))
        return;
    d_last_progress = now;
    const double filled =
        double(d_pipeline->samples_in_frame()) / double(d_config.fft_size);
    const std::int64_t frames = d_pipeline->frames_in_integration();
    const std::int64_t done = d_pipeline->integrations_done();
    pmt::pmt_t p = pmt::make_dict();
    p = pmt::dict_add(p, pmt::mp("fraction_filled"), pmt::from_double(filled));
    p = pmt::dict_add(p, pmt::mp("frames_done"), pmt::from_long(long(frames)));
    p = pmt::dict_add(p, pmt::mp("n_integrations"), pmt::from_long(d_n_integrations));
    p = pmt::dict_add(p, pmt::mp("integrations_done"), pmt::from_long(long(done)));
    p = pmt::dict_add(
        p, pmt::mp("skipped_frames"), pmt::from_long(long(d_pipeline->frames_skipped())));
    message_port_pub(k_progress, p);
    // Long frames take seconds to fill: say how far along one is when nothing has
    // come out for 10 s (not every 10 s when spectra flow).
    if (d_pipeline->integrations_done() != d_last_logged_done) {
        d_last_logged_done = d_pipeline->integrations_done();
        d_last_log = now;
    } else if (now - d_last_log >= std::chrono::seconds(10)) {
        d_last_log = now;
        d_logger->info("frame {:.0f}% filled, {:d}/{:d} frames of integration {:d} done",
                       100.0 * filled,
                       frames,
                       d_n_integrations.load(),
                       done);
    }
}

} // namespace gpufft
} // namespace gr
