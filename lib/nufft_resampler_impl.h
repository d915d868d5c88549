/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_NUFFT_RESAMPLER_IMPL_H
#define INCLUDED_GPUFFT_NUFFT_RESAMPLER_IMPL_H

#include "block_stream.h"
#include "nufft/band_limited_fit.h"
#include "stream/engine_failure.h"
#include "stream/log_limiter.h"
#include "stream/resample_grid.h"
#include "stream/stream_timeline.h"
#include "stream/time_input.h"
#include <gnuradio/gpufft/nufft_resampler.h>
#include <pmt/pmt.h>
#include <atomic>
#include <complex>
#include <mutex>
#include <vector>

namespace gr {
namespace gpufft {

class nufft_resampler_impl : public nufft_resampler
{
public:
    nufft_resampler_impl(double output_rate,
                         double bandwidth,
                         int frame_len,
                         int overlap,
                         double eps,
                         std::int64_t epoch,
                         double nominal_rate,
                         const std::string& backend,
                         int device_id);

    double output_rate() const override;
    double bandwidth() const override;
    void set_output_rate(double output_rate) override;
    void set_bandwidth(double bandwidth) override;
    std::uint64_t gaps_found() const override { return d_gaps; }
    int frame_len() const override { return d_frame_len; }
    int overlap() const override { return d_overlap; }
    std::string backend() const override { return to_string(d_backend.load()); }
    std::uint64_t frames_processed() const override { return d_processed; }
    std::uint64_t frames_skipped() const override { return d_skipped; }

    void forecast(int noutput_items, gr_vector_int& ninput_items_required) override;
    bool stop() override;
    int general_work(int noutput_items,
                     gr_vector_int& ninput_items,
                     gr_vector_const_void_star& input_items,
                     gr_vector_void_star& output_items) override;

private:
    //! Fits one frame and appends its central output samples to d_pending.
    void process_frame(const gr_complex* x, const double* t);
    void skip_frame(const char* why);
    nufft::band_limited_fit make_fit(gpufft::backend b) const;
    //! Writes pending samples (with their tags) after `produced`; returns the new count.
    int flush(gr_complex* out, int noutput_items, int produced);
    //! Takes the output rate and bandwidth set since the last frame (work thread).
    void apply_settings();
    //! Tags the outputs of this frame near the gaps of its input times, and warns.
    void mark_gaps(const double* t, double centre);

    // Output rate and bandwidth in use (work thread), and as set (guarded by
    // d_settings_mutex; taken at the next frame).
    double d_rate, d_bandwidth;
    mutable std::mutex d_settings_mutex;
    double d_set_rate, d_set_bandwidth;
    const double d_eps;
    const int d_frame_len, d_overlap, d_device_id;
    const std::int64_t d_epoch;
    const stream::time_input d_time;
    stream::cpu_fallback d_fallback;
    nufft::band_limited_fit d_fit;
    std::atomic<gpufft::backend> d_backend; // of d_fit, read from any thread

    stream::resample_grid d_grid; // output sample n at origin + n / d_rate

    std::vector<double> d_times, d_t, d_tau; // input times; centred; output times
    std::vector<std::complex<double>> d_x, d_y;
    std::vector<gr_complex> d_pending; // computed, not yet written
    std::size_t d_pending_pos = 0;
    //! "gap" tags of the pending outputs: (index in d_pending, value).
    std::vector<std::pair<std::size_t, pmt::pmt_t>> d_pending_gaps;
    std::atomic<std::uint64_t> d_gaps{ 0 };
    stream::log_limiter d_gap_log, d_skip_log; // one warning per 10 s each
    bool d_pending_starts_grid = false;
    stream::stream_clock d_clock; // epoch, or the latest input rx_time
    bool d_clock_moved = false;   // an rx_time since the last output was dated
    input_tuning d_tuning; // rx_freq of the input (rx_rate: the output rate is ours)
    stream::change_gate d_freq_out, d_rate_out; // rx_freq / rx_rate out on change only
    std::atomic<std::uint64_t> d_processed{ 0 }, d_skipped{ 0 };
    // Input samples seen but not consumed after the last call: the tail a stream ends
    // with, reported by stop().
    std::int64_t d_unconsumed = 0;
    bool d_stopped = false; // the engine failed; the stream ends
};

} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_NUFFT_RESAMPLER_IMPL_H */
