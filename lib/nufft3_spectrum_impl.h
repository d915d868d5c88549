/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_NUFFT3_SPECTRUM_IMPL_H
#define INCLUDED_GPUFFT_NUFFT3_SPECTRUM_IMPL_H

#include "block_stream.h"
#include "stream/engine_failure.h"
#include "stream/log_limiter.h"
#include "stream/stream_timeline.h"
#include "stream/time_input.h"
#include <gnuradio/gpufft/nufft3_plan.h>
#include <gnuradio/gpufft/nufft3_spectrum.h>
#include <pmt/pmt.h>
#include <atomic>
#include <complex>
#include <mutex>
#include <vector>

namespace gr {
namespace gpufft {

class nufft3_spectrum_impl : public nufft3_spectrum
{
public:
    nufft3_spectrum_impl(int frame_len,
                         const std::vector<double>& frequencies,
                         double eps,
                         std::int64_t epoch,
                         double nominal_rate,
                         const std::string& backend,
                         int device_id);

    void set_frequencies(const std::vector<double>& frequencies) override;
    std::vector<double> frequencies() const override;
    int frame_len() const override { return d_frame_len; }
    std::int64_t epoch() const override { return d_epoch; }
    std::string backend() const override;
    std::uint64_t frames_processed() const override { return d_processed; }
    std::uint64_t frames_skipped() const override { return d_skipped; }

    bool stop() override;
    void forecast(int noutput_items, gr_vector_int& ninput_items_required) override;
    int general_work(int noutput_items,
                     gr_vector_int& ninput_items,
                     gr_vector_const_void_star& input_items,
                     gr_vector_void_star& output_items) override;

private:
    void follow_tags(std::uint64_t first, const double* t);
    nufft3_plan make_plan(gpufft::backend b) const;

    const int d_frame_len;
    const double d_eps;
    const int d_device_id;
    const std::int64_t d_epoch;
    const stream::time_input d_time;
    mutable std::mutex d_mutex; // guards d_freqs against set_frequencies()
    std::vector<double> d_freqs;
    stream::cpu_fallback d_fallback;
    nufft3_plan d_plan;
    std::atomic<gpufft::backend> d_backend; // of d_plan, read from any thread
    std::vector<double> d_t, d_x, d_s;
    std::vector<std::complex<double>> d_c, d_F;
    stream::stream_clock d_clock;               // epoch, or the latest input rx_time
    input_tuning d_tuning;                      // rx_freq / rx_rate of the input
    stream::change_gate d_freq_out, d_rate_out; // rx_freq / rx_rate out on change only
    std::atomic<std::uint64_t> d_processed{ 0 }, d_skipped{ 0 };
    stream::log_limiter d_skip_log; // skipped frames: one warning per 10 s
    bool d_stopped = false;         // the engine failed; the stream ends
};

} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_NUFFT3_SPECTRUM_IMPL_H */
