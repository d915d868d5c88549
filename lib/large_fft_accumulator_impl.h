/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_LARGE_FFT_ACCUMULATOR_IMPL_H
#define INCLUDED_GPUFFT_LARGE_FFT_ACCUMULATOR_IMPL_H

#include "block_stream.h"
#include "stream/filterbank_recorder.h"
#include "stream/spectrometer_runner.h"
#include "stream/spectrometer_setup.h"
#include "stream/spectrum_axes.h"
#include "stream/stream_timeline.h"
#include <gnuradio/gpufft/large_fft_accumulator.h>
#include <gnuradio/gpufft/spectrum_integrator.h>
#include <atomic>
#include <memory>

namespace gr {
namespace gpufft {

class large_fft_accumulator_impl : public large_fft_accumulator
{
public:
    explicit large_fft_accumulator_impl(const stream::spectrometer_setup& setup);
    ~large_fft_accumulator_impl() override;

    void set_n_integrations(int n) override { d_runner.set_n_integrations(n); }
    int n_integrations() const override { return d_runner.n_integrations(); }
    void set_mode(const std::string& mode) override { d_runner.set_mode(mode); }
    std::string mode() const override { return stream::to_string(d_runner.mode()); }
    void set_output_db(bool output_db) override { d_output_db = output_db; }
    bool output_db() const override { return d_output_db; }

    std::int64_t fft_size() const override { return d_config.fft_size; }
    std::int64_t output_bins() const override { return d_config.output_bins; }
    std::int64_t band_start() const override { return d_config.band_start; }
    std::int64_t band_stop() const override
    {
        return d_config.band_stop == 0 ? d_config.fft_size : d_config.band_stop;
    }
    std::int64_t overlap() const override { return d_config.overlap; }
    std::string window() const override { return power::to_string(d_config.window); }
    std::string input_type() const override { return stream::to_string(d_config.input); }
    std::string file_format() const override
    {
        return d_setup.filterbank_h5 ? "h5" : "fil";
    }
    std::string backend() const override { return to_string(d_integrator->backend()); }
    std::string describe() const override { return d_integrator->describe(); }

    double fraction_filled() const override { return d_runner.fraction_filled(); }
    std::uint64_t integrations_done() const override
    {
        return d_runner.integrations_done();
    }
    std::uint64_t frames_skipped() const override { return d_runner.frames_skipped(); }

    bool check_topology(int ninputs, int noutputs) override;
    bool start() override;
    bool stop() override;
    void forecast(int noutput_items, gr_vector_int& ninput_items_required) override;
    int general_work(int noutput_items,
                     gr_vector_int& ninput_items,
                     gr_vector_const_void_star& input_items,
                     gr_vector_void_star& output_items) override;

private:
    void report_unfinished(stream::spectrometer_pipeline& pipeline);
    void emit(const stream::integrated_spectrum& s, float* out, std::uint64_t out_offset);
    //! A sink's emit(): the message and the file, no stream item.
    void emit_message(const stream::integrated_spectrum& s);
    void write_file(const stream::integrated_spectrum& s,
                    const stream::stream_state& at,
                    const stream::spectrum_axes& axes);
    void publish_spectrum(const stream::integrated_spectrum& s,
                          const stream::stream_state& at,
                          const stream::spectrum_axes& axes,
                          const float* out,
                          bool partial);
    //! The stream state of the integration's first frame (the tag rule) and its axes.
    stream::stream_state state_of(const stream::integrated_spectrum& s,
                                  stream::spectrum_axes& axes)
    {
        return stream::spectrum_state(d_clock.timeline(), d_reducer, d_config, s, axes);
    }

    stream::spectrometer_setup d_setup; // pinned frames and their device: the engine's
    const stream::pipeline_config& d_config = d_setup.config;
    // Window, FFT, |X|^2, band reduction and accumulation: fused on the GPU when a
    // frame fits there, else the large FFT and a host reduction.
    const std::shared_ptr<spectrum_integrator> d_integrator;
    const power::band_reducer d_reducer;
    stream::spectrometer_runner d_runner; // the pipeline of a run, live settings
    std::atomic<bool> d_output_db;

    // Touched only by start(), stop() and work().
    block_clock d_clock;     // rx_* tags, dated by the host until an rx_time tag comes
    bool d_ended = false;    // the input ended and the pipeline was flushed in work()
    bool d_is_sink = false;  // no stream output connected (check_topology())
    int d_min_piece = 1;     // input items asked for a call (check_topology())
    std::int64_t d_held = 0; // a sink's samples taken but not yet consumed
    std::vector<float> d_scratch; // a sink's spectrum as published
    stream::filterbank_recorder d_filterbank;
    stream::change_gate d_freq_out, d_rate_out; // rx_freq / rx_rate out on change only
};

} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_LARGE_FFT_ACCUMULATOR_IMPL_H */
