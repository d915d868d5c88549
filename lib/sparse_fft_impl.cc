/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "block_logger.h"
#include "block_stream.h"
#include "sparse_fft_impl.h"
#include "sparse_fft_messages.h"
#include <gnuradio/gpufft/device.h>
#include <gnuradio/io_signature.h>
#include <algorithm>

namespace gr {
namespace gpufft {

namespace {
const pmt::pmt_t port_coefficients = pmt::mp("coefficients");
const pmt::pmt_t port_detections = pmt::mp("detections");
const pmt::pmt_t port_transmissions = pmt::mp("transmissions");
const pmt::pmt_t port_cmd = pmt::mp("cmd");

// The CUDA engine's frames are staged (stream/block_frames.h): with frames held in
// place, GNU Radio's default buffer (2 frames) lets the upstream block write only one
// frame ahead, and it waits for every transform plus the driver's copy of the frame from
// pageable memory. The device whose context allocates the page-locked frame.
int staging_device(const stream::sparse_frame_analyzer& a, int device_id)
{
    return a.backend() == "cuda" ? resolve_device_id(device_id) : -1;
}
} // namespace

sparse_fft::sptr sparse_fft::make(int fft_size,
                                  int k,
                                  double samp_rate,
                                  int display_bins,
                                  int hop,
                                  const std::string& backend,
                                  int device_id,
                                  const std::string& mode,
                                  double min_snr_db,
                                  double false_alarm,
                                  int dc_mask_bins,
                                  const std::string& bandwidth_rule,
                                  int hold_frames,
                                  const std::string& input_type,
                                  int floor_frames,
                                  int watch_frames)
{
    stream::sparse_frame_settings s;
    s.fft_size = fft_size;
    s.k = k;
    s.samp_rate = samp_rate;
    s.display_bins = display_bins;
    s.hop = hop;
    s.backend = backend;
    s.device_id = device_id;
    s.mode = mode;
    s.min_snr_db = min_snr_db;
    s.false_alarm = false_alarm;
    s.dc_mask_bins = dc_mask_bins;
    s.bandwidth_rule = bandwidth_rule;
    s.hold_frames = hold_frames;
    s.input_type = input_type;
    s.floor_frames = floor_frames;
    s.watch_frames = watch_frames;
    // Checked here too: the input's item size is needed before the block is built.
    stream::parse_sample_format(input_type);
    return gnuradio::make_block_sptr<sparse_fft_impl>(s);
}

sparse_fft_impl::sparse_fft_impl(const stream::sparse_frame_settings& s)
    : gr::block(
          "sparse_fft",
          // fc32: a gr_complex; sc16, sc8, cu8: a vector of 2 shorts or 2 chars.
          gr::io_signature::make(
              1, 1, stream::sample_bytes(stream::parse_sample_format(s.input_type))),
          // The display output is optional: a flowgraph may use the messages only.
          gr::io_signature::make(
              0, 1, sizeof(float) * static_cast<size_t>(std::max(s.display_bins, 1)))),
      // Checks every parameter; throws for what the engine rejects (ValueError).
      d_analyzer(s, block_log_handler(d_logger)),
      d_sample(stream::sample_bytes(stream::parse_sample_format(s.input_type))),
      d_converter(stream::parse_sample_format(s.input_type), d_analyzer.fft_size()),
      d_frames(std::int64_t(d_sample) * d_analyzer.fft_size(),
               std::int64_t(d_sample) * d_analyzer.hop(),
               staging_device(d_analyzer, s.device_id) >= 0,
               staging_device(d_analyzer, s.device_id)),
      d_timeline(s.samp_rate, 0.0)
{
    // One output item per hop input samples. GNU Radio sizes the upstream buffer from
    // this (at least 2 * hop samples), which the forecast below relies on.
    set_relative_rate(1, static_cast<uint64_t>(hop()));
    if (d_frames.staged())
        d_logger->debug(d_frames.pinned()
                            ? "frames staged in page-locked host memory"
                            : "frames staged in pageable host memory (no page-locked "
                              "memory to be had): the copies to the GPU run slower");
    // An integer input goes to a CUDA engine as it is and is converted there.
    if (d_converter.format() != stream::sample_format::fc32 && backend() == "cuda")
        d_gpu_device = resolve_device_id(s.device_id);
    // Tags are re-timed per frame, not passed through by offset.
    set_tag_propagation_policy(TPP_DONT);
    message_port_register_out(port_detections);
    message_port_register_out(port_transmissions);
    // Deprecated (use detections), kept one release.
    message_port_register_out(port_coefficients);
    message_port_register_in(port_cmd);
    set_msg_handler(port_cmd, [this](const pmt::pmt_t& msg) {
        const cmd_setter rate = [this](const pmt::pmt_t& v) {
            set_samp_rate(pmt::to_double(v));
        };
        // sample_rate: the deprecated name, accepted for one more release.
        handle_cmd(
            msg,
            { { "k", [this](const pmt::pmt_t& v) { set_k(int(pmt::to_long(v))); } },
              { "samp_rate", rate },
              { "sample_rate", rate },
              { "min_snr_db",
                [this](const pmt::pmt_t& v) { set_min_snr_db(pmt::to_double(v)); } },
              { "false_alarm",
                [this](const pmt::pmt_t& v) { set_false_alarm(pmt::to_double(v)); } },
              { "floor_frames",
                [this](const pmt::pmt_t& v) { set_floor_frames(int(pmt::to_long(v))); } },
              { "watch_frames",
                [this](const pmt::pmt_t& v) { set_watch_frames(int(pmt::to_long(v))); } },
              { "mode",
                [this](const pmt::pmt_t& v) {
                    set_mode(pmt::is_symbol(v) ? pmt::symbol_to_string(v)
                                               : pmt::write_string(v));
                } } },
            d_logger);
    });
}

sparse_fft_impl::~sparse_fft_impl() = default;

bool sparse_fft_impl::check_topology(int /*ninputs*/, int noutputs)
{
    // Without the display output the block is a sink, and GNU Radio hands a sink
    // available * relative_rate output items: with 1/hop that is 0 for the last
    // hop - 1 samples of a stream, and the flowgraph would never finish. A sink
    // copies whatever arrives into its frame buffer, so rate 1 is right for it.
    d_is_sink = noutputs == 0;
    set_relative_rate(1, d_is_sink ? 1 : static_cast<uint64_t>(hop()));
    return true;
}

void sparse_fft_impl::forecast(int /*noutput_items*/,
                               gr_vector_int& ninput_items_required)
{
    // Frames are assembled inside the block, so any amount of input makes progress.
    // In place (CPU engines), asking for what completes the next frame lets a whole
    // frame be read in place, without a copy; the cap at hop keeps the request within
    // the upstream buffer, which GNU Radio sizes from the relative rate (1/hop; 1 for a
    // sink, whose buffer may be shorter than a frame). Staged (CUDA), every piece is
    // copied out and consumed at once, so asking for a whole frame would only hold the
    // upstream buffer longer; a quarter hop keeps the calls few (an upstream block
    // writing small pieces would otherwise call work() for each).
    // Once the input has ended, ask for none: general_work() then runs once more and
    // sends the open transmissions while the blocks downstream still run (from stop()
    // they would reach no one).
    if (!d_flushed && detail() && detail()->ninputs() > 0 && detail()->input(0)->done()) {
        ninput_items_required[0] = 0;
        return;
    }
    const std::int64_t next = d_frames.needed() / std::int64_t(d_sample);
    const std::int64_t cap = d_is_sink           ? 1
                             : d_frames.staged() ? std::max(1, hop() / 4)
                                                 : hop();
    ninput_items_required[0] = static_cast<int>(std::clamp<std::int64_t>(next, 1, cap));
}

bool sparse_fft_impl::start()
{
    // A block run again (a new flowgraph, or the same one after stop()) counts its
    // samples from 0 again: frames, tags and the end-of-stream flush start afresh. The
    // transmissions open at stop() went out then.
    d_frames.reset();
    d_timeline = stream::stream_timeline(d_analyzer.samp_rate(), 0.0);
    d_freq_out.reset();
    d_rate_out.reset();
    d_seen_until = 0;
    d_flushed = false;
    d_last_time = frame_time();
    return block::start();
}

bool sparse_fft_impl::stop()
{
    // The samples after the last frame never make one: say how many (docs/stream.md).
    const std::uint64_t end =
        std::max(d_seen_until, nitems_read(0) + unread_samples(*this, 0));
    const std::uint64_t covered = d_frames.covered_until() / d_sample;
    if (end > covered)
        d_logger->info("stopped with {:d} samples after the last frame ({:d} frames): "
                       "too few for a frame of fft_size = {:d}",
                       end - covered,
                       d_frames.frames(),
                       fft_size());
    // Stopped before the input ended (tb.stop()): the open transmissions still go out,
    // though the blocks downstream may no longer run.
    flush_transmissions();
    return block::stop();
}

void sparse_fft_impl::publish_transmissions(
    const std::vector<stream::transmission>& ended)
{
    if (ended.empty() || !has_subscribers(*this, port_transmissions))
        return;
    for (const auto& t : ended) {
        stream::stream_time start;
        if (d_last_time.has_time)
            start = d_last_time.time.plus(-double(d_last_time.first - t.start_sample) /
                                          d_last_time.rate);
        message_port_pub(port_transmissions,
                         transmission_pdu(t, d_last_time.has_time, start));
    }
}

void sparse_fft_impl::flush_transmissions()
{
    if (d_flushed)
        return;
    d_flushed = true;
    publish_transmissions(d_analyzer.flush());
}

bool sparse_fft_impl::process_frame(const void* raw,
                                    float* display,
                                    std::uint64_t out_offset,
                                    std::uint64_t offset)
{
    const std::uint64_t index = offset / std::uint64_t(hop());
    d_timeline.set_default_rate(d_analyzer.samp_rate());
    // The tag rule (docs/stream.md): tags inside the frame apply to it.
    const stream::stream_state st = d_timeline.frame(std::int64_t(offset), fft_size());
    d_timeline.forget_before(std::int64_t(offset));
    // The analyzer may move the engine to the CPU mid-frame (backend "auto", the GPU
    // full): it then asks for the frame on the host.
    const auto on_host = [&] { return d_converter.on_host(raw); };
    bool gpu = d_gpu_device >= 0 && backend() == "cuda";
    if (d_gpu_device >= 0 && !gpu) { // the engine moved to the CPU: convert there
        d_converter.release_device();
        d_gpu_device = -1;
    }
    const gr_complex* frame = nullptr;
    if (gpu) {
        try {
            frame = d_converter.on_device(raw, d_gpu_device);
        } catch (const std::exception& e) {
            // The engine takes host frames as well: the stream goes on, converted on
            // the host; a GPU that is truly gone fails in the engine, which stops it.
            d_logger->warn(
                "input_type {:s}: cannot convert on the GPU ({:s}); frames are "
                "converted on the host from now on",
                input_type(),
                e.what());
            d_converter.release_device();
            d_gpu_device = -1;
            gpu = false;
        }
    }
    if (!frame)
        frame = on_host();
    if (!d_analyzer.analyze(frame,
                            index,
                            st.freq,
                            st.rate,
                            std::int64_t(offset),
                            gpu ? memory::device : memory::host,
                            on_host)) {
        d_logger->error("frame {} (samples {}..{}) skipped: {}",
                        index,
                        offset,
                        offset + static_cast<std::uint64_t>(fft_size()) - 1,
                        d_analyzer.error());
        if (has_subscribers(*this, port_coefficients))
            message_port_pub(port_coefficients,
                             skipped_frame_message(index, offset, d_analyzer.error()));
        return false;
    }
    d_last_time = { st.has_time, std::int64_t(offset), st.time, st.rate };
    if (has_subscribers(*this, port_detections))
        message_port_pub(port_detections, detections_pdu(index, offset, d_analyzer, st));
    publish_transmissions(d_analyzer.ended());
    if (has_subscribers(*this, port_coefficients))
        message_port_pub(port_coefficients,
                         coefficients_message(index, offset, d_analyzer, st));
    if (display == nullptr)
        return false;
    const auto& e = d_analyzer.entries();
    sparse_output::display_spectrum(fft_size(),
                                    e.bins.data(),
                                    e.values.data(),
                                    e.bins.size(),
                                    display,
                                    display_bins(),
                                    floor_db);
    if (st.has_time)
        add_item_tag(0,
                     out_offset,
                     key_rx_time(),
                     time_pmt(std::uint64_t(std::max<std::int64_t>(0, st.time.secs)),
                              st.time.frac),
                     alias_pmt());
    if (st.freq_tagged && d_freq_out.changed(st.freq))
        add_item_tag(
            0, out_offset, key_rx_freq(), pmt::from_double(st.freq), alias_pmt());
    if (st.rate_tagged && d_rate_out.changed(st.rate))
        add_item_tag(
            0, out_offset, key_rx_rate(), pmt::from_double(st.rate), alias_pmt());
    return true;
}

int sparse_fft_impl::general_work(int noutput_items,
                                  gr_vector_int& ninput_items,
                                  gr_vector_const_void_star& input_items,
                                  gr_vector_void_star& output_items)
{
    const auto* in = static_cast<const unsigned char*>(input_items[0]);
    float* out = output_items.empty() ? nullptr : static_cast<float*>(output_items[0]);
    const std::int64_t available = ninput_items[0];
    if (d_flushed) { // the stream ended (or the engine failed): nothing more to do
        consume(0, int(available));
        return WORK_DONE;
    }
    // The input has ended when upstream is done and nothing came after the items this
    // call was given (done() read first: items written after ninput_items was taken
    // would otherwise be lost).
    const bool upstream_done = detail()->input(0)->done();
    const bool last_call =
        upstream_done && detail()->input(0)->items_available() == available;
    const std::uint64_t read = nitems_read(0);
    const std::uint64_t end = read + std::uint64_t(available);
    if (end > d_seen_until) {
        std::vector<gr::tag_t> tags;
        get_tags_in_range(tags, 0, d_seen_until, end);
        follow_tags(tags, 0, d_timeline, d_logger);
        d_seen_until = end;
    }
    // A sink keeps the last sample it was offered until its input has ended: GNU
    // Radio ends a sink whose input is done and empty without calling it, and the
    // held sample makes it call once more, where the open transmissions go out.
    const bool hold = d_is_sink && !upstream_done && available > 0;
    const std::int64_t offered = hold ? available - 1 : available;
    const std::uint64_t written = out ? nitems_written(0) : 0;
    int produced = 0;
    std::int64_t used = 0;
    try {
        const auto bytes = std::int64_t(d_sample);
        used = d_frames.feed(
                   in,
                   offered * bytes,
                   [&] { return !out || produced < noutput_items; },
                   [&](const unsigned char* frame, std::uint64_t first) {
                       float* display =
                           out ? out + std::size_t(produced) * std::size_t(display_bins())
                               : nullptr;
                       if (process_frame(frame,
                                         display,
                                         written + std::uint64_t(produced),
                                         first / d_sample))
                           produced++;
                   }) /
               bytes;
    } catch (const stream::engine_stopped& e) {
        // A failed GPU ends the flowgraph with the reason, rather than a frame skipped
        // per call forever (docs/reliability.md, "Faults inside blocks").
        d_logger->error("{:s}", e.what());
        flush_transmissions();
        return WORK_DONE;
    }
    consume(0, int(used));
    if (last_call && used == available) {
        // End of stream: the samples left make no frame; the open transmissions end.
        flush_transmissions();
        return produced > 0 ? produced : WORK_DONE;
    }
    return produced;
}

} // namespace gpufft
} // namespace gr
