/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_SPARSE_FFT_IMPL_H
#define INCLUDED_GPUFFT_SPARSE_FFT_IMPL_H

#include "stream/block_frames.h"
#include "stream/frame_converter.h"
#include "stream/sparse_frame_analyzer.h"
#include "stream/stream_timeline.h"
#include <gnuradio/gpufft/sparse_fft.h>

namespace gr {
namespace gpufft {

class sparse_fft_impl : public sparse_fft
{
public:
    explicit sparse_fft_impl(const stream::sparse_frame_settings& settings);
    ~sparse_fft_impl() override;

    void set_k(int k) override { d_analyzer.set_k(k); }
    int k() const override { return d_analyzer.k(); }
    void set_samp_rate(double samp_rate) override { d_analyzer.set_samp_rate(samp_rate); }
    double samp_rate() const override { return d_analyzer.samp_rate(); }
    int fft_size() const override { return d_analyzer.fft_size(); }
    int hop() const override { return d_analyzer.hop(); }
    int display_bins() const override { return d_analyzer.display_bins(); }
    std::string backend() const override { return d_analyzer.backend(); }
    std::string mode() const override { return d_analyzer.mode_name(); }
    double min_snr_db() const override { return d_analyzer.min_snr_db(); }
    double false_alarm() const override { return d_analyzer.false_alarm(); }
    std::string describe() const override { return d_analyzer.describe(); }
    void set_mode(const std::string& mode) override { d_analyzer.set_mode(mode); }
    void set_min_snr_db(double v) override { d_analyzer.set_min_snr_db(v); }
    void set_false_alarm(double v) override { d_analyzer.set_false_alarm(v); }
    int floor_frames() const override { return d_analyzer.floor_frames(); }
    int watch_frames() const override { return d_analyzer.watch_frames(); }
    void set_floor_frames(int v) override { d_analyzer.set_floor_frames(v); }
    void set_watch_frames(int v) override { d_analyzer.set_watch_frames(v); }
    int dc_mask_bins() const override { return d_analyzer.dc_mask_bins(); }
    std::string bandwidth_rule() const override { return d_analyzer.bandwidth_rule(); }
    int hold_frames() const override { return d_analyzer.hold_frames(); }
    std::string input_type() const override { return to_string(d_converter.format()); }
    std::uint64_t frames_truncated() const override
    {
        return d_analyzer.frames_truncated();
    }
    std::uint64_t frames_processed() const override
    {
        return d_analyzer.frames_processed();
    }
    std::uint64_t frames_skipped() const override { return d_analyzer.frames_skipped(); }

    bool check_topology(int ninputs, int noutputs) override;
    bool start() override;
    bool stop() override;
    void forecast(int noutput_items, gr_vector_int& ninput_items_required) override;
    int general_work(int noutput_items,
                     gr_vector_int& ninput_items,
                     gr_vector_const_void_star& input_items,
                     gr_vector_void_star& output_items) override;

private:
    //! Transforms one frame (`raw`: fft_size samples of input_type); returns true when
    //! it wrote a display vector to `display`.
    bool process_frame(const void* raw,
                       float* display,
                       std::uint64_t out_offset,
                       std::uint64_t offset);

    //! Publishes a transmissions PDU for each of `ended`.
    void publish_transmissions(const std::vector<stream::transmission>& ended);
    //! End of stream: every open transmission goes out while downstream still runs.
    void flush_transmissions();

    // Parameters, the engine, the setters, the frame's signals and entries.
    stream::sparse_frame_analyzer d_analyzer;
    bool d_is_sink = false; // display output not connected (see check_topology)
    bool d_flushed = false; // the open transmissions went out (end of stream)

    // The latest frame's start and time: a transmission's rx_time is carried back
    // from it at the stream's rate.
    struct frame_time {
        bool has_time = false;
        std::int64_t first = 0;
        stream::stream_time time;
        double rate = 1.0;
    } d_last_time;

    // Touched only by work(). Frames are cut as bytes (d_sample of them a sample), so
    // one assembler serves every input type; d_converter makes them complex float, on
    // the GPU when d_gpu_device >= 0 (the CUDA engine, an integer input type). On the
    // CUDA engine the frames are staged: copied out of GNU Radio's buffer as they
    // arrive, into page-locked memory (stream/block_frames.h).
    const std::size_t d_sample;
    stream::frame_converter d_converter;
    int d_gpu_device = -1;
    stream::block_frames d_frames;
    stream::stream_timeline d_timeline;
    stream::change_gate d_freq_out, d_rate_out; // rx_freq / rx_rate out on change only
    std::uint64_t d_seen_until = 0;             // input offered so far (tags read)
};

} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_SPARSE_FFT_IMPL_H */
