/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_LARGE_FFT_ACCUMULATOR_IMPL_H
#define INCLUDED_GPUFFT_LARGE_FFT_ACCUMULATOR_IMPL_H

#include "accumulator/fbh5_writer.h"
#include "accumulator/filterbank_writer.h"
#include "stream/spectrometer_pipeline.h"
#include "stream/stream_timeline.h"
#include <gnuradio/gpufft/large_fft_accumulator.h>
#include <gnuradio/gpufft/large_fft_plan.h>
#include <gnuradio/gpufft/spectrum_integrator.h>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>

namespace gr {
namespace gpufft {

class large_fft_accumulator_impl : public large_fft_accumulator
{
public:
    large_fft_accumulator_impl(const stream::pipeline_config& config,
                               bool output_db,
                               double samp_rate,
                               double center_freq,
                               const std::string& filterbank_path,
                               const std::string& source_name,
                               bool filterbank_h5,
                               const large_fft_options& engine_options);
    ~large_fft_accumulator_impl() override;

    void set_n_integrations(int n_integrations) override;
    int n_integrations() const override { return d_n_integrations; }
    void set_mode(const std::string& mode) override;
    std::string mode() const override;
    void set_output_db(bool output_db) override { d_output_db = output_db; }
    bool output_db() const override { return d_output_db; }

    std::int64_t fft_size() const override { return d_config.fft_size; }
    std::int64_t output_bins() const override { return d_config.output_bins; }
    std::int64_t band_start() const override { return d_config.band_start; }
    std::int64_t band_stop() const override;
    std::int64_t overlap() const override { return d_config.overlap; }
    std::string window() const override { return power::to_string(d_config.window); }
    std::string file_format() const override { return d_filterbank_h5 ? "h5" : "fil"; }
    std::string backend() const override;
    std::string describe() const override { return d_integrator->describe(); }

    double fraction_filled() const override;
    std::uint64_t integrations_done() const override;
    std::uint64_t frames_skipped() const override;

    bool start() override;
    bool stop() override;
    void forecast(int noutput_items, gr_vector_int& ninput_items_required) override;
    int general_work(int noutput_items,
                     gr_vector_int& ninput_items,
                     gr_vector_const_void_star& input_items,
                     gr_vector_void_star& output_items) override;

private:
    void report_unfinished(stream::spectrometer_pipeline& pipeline);
    bool input_ended();
    void read_tags(std::uint64_t begin, std::uint64_t end);
    void emit(const stream::integrated_spectrum& s, float* out, std::uint64_t out_offset);
    void write_filterbank(const stream::integrated_spectrum& s,
                          const stream::stream_state& at);
    void publish_progress(bool force);
    void publish_spectrum(const stream::integrated_spectrum& s, float* out, bool partial);
    const power::band_reducer& d_integrator_reducer() const { return d_reducer; }

    stream::pipeline_config d_config;
    const std::string d_filterbank_path;
    const std::string d_source_name;
    const bool d_filterbank_h5; // HDF5 filterbank rather than SIGPROC .fil
    // Window, FFT, |X|^2, band reduction and accumulation: fused on the GPU when a
    // frame fits there, else the large FFT and a host reduction. Shared with the
    // pipeline, which lives from start() to stop().
    std::shared_ptr<spectrum_integrator> d_integrator;

    std::atomic<int> d_n_integrations;
    std::atomic<int> d_mode;
    std::atomic<bool> d_output_db;

    // Created in start(), destroyed in stop(): the frames may be tens of GiB, and a
    // flowgraph that is only built (GRC, tests) should not hold them.
    mutable std::mutex d_pipeline_mutex;
    std::unique_ptr<stream::spectrometer_pipeline> d_pipeline;
    std::atomic<std::uint64_t> d_integrations_before{ 0 }; // of earlier runs
    std::atomic<std::uint64_t> d_skipped_before{ 0 };

    const double d_samp_rate;
    const double d_center_freq;
    stream::stream_timeline d_timeline;
    bool d_first_work = true;
    bool d_ended = false; // the input ended and the pipeline was flushed in work()
    std::uint64_t d_offset_base = 0; // nitems_read(0) at the pipeline's first sample
    bool d_time_from_host = false;
    std::unique_ptr<accumulator::spectrum_file_writer> d_filterbank;
    double d_filterbank_freq = 0.0; // rx_freq and n_integrations the header describes
    int d_filterbank_integrations = 0;
    bool d_warned_retune = false;
    std::chrono::steady_clock::time_point d_last_progress;
    std::chrono::steady_clock::time_point d_last_log;
    std::int64_t d_last_logged_done = 0;
    stream::change_gate d_freq_out, d_rate_out; // rx_freq / rx_rate out on change only
    power::band_reducer d_reducer;
};

} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_LARGE_FFT_ACCUMULATOR_IMPL_H */
