/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_SPARSE_FFT_IMPL_H
#define INCLUDED_GPUFFT_SPARSE_FFT_IMPL_H

#include "sparse/sparse_spectrum.h"
#include "stream/frame_assembler.h"
#include "stream/stream_timeline.h"
#include <gnuradio/gpufft/backend.h>
#include <gnuradio/gpufft/sparse_fft.h>
#include <gnuradio/gpufft/sparse_fft_plan.h>
#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

namespace gr {
namespace gpufft {

class sparse_fft_impl : public sparse_fft
{
public:
    sparse_fft_impl(int fft_size,
                    int k,
                    double sample_rate,
                    int display_bins,
                    int hop,
                    const std::string& backend,
                    int device_id,
                    const std::string& mode,
                    double min_snr_db,
                    double false_alarm);
    ~sparse_fft_impl() override;

    void set_k(int k) override;
    int k() const override;
    void set_sample_rate(double sample_rate) override;
    double sample_rate() const override;
    int fft_size() const override { return d_fft_size; }
    int hop() const override { return d_hop; }
    int display_bins() const override { return d_display_bins; }
    std::string backend() const override;
    std::string mode() const override;
    double min_snr_db() const override { return d_min_snr_db; }
    double false_alarm() const override { return d_false_alarm; }
    std::string describe() const override;
    std::uint64_t frames_processed() const override { return d_processed; }
    std::uint64_t frames_skipped() const override { return d_skipped; }

    bool check_topology(int ninputs, int noutputs) override;
    bool stop() override;
    void forecast(int noutput_items, gr_vector_int& ninput_items_required) override;
    int general_work(int noutput_items,
                     gr_vector_int& ninput_items,
                     gr_vector_const_void_star& input_items,
                     gr_vector_void_star& output_items) override;

private:
    std::unique_ptr<sparse_fft_plan> make_plan(int k) const;
    void update_plan();
    //! Transforms one frame; returns true when it wrote a display vector to `display`.
    bool process_frame(const gr_complex* frame,
                       float* display,
                       std::uint64_t out_offset,
                       std::uint64_t offset);
    //! Exact mode: a rate-limited warning for frames that were not exactly sparse.
    void note_not_sparse(std::uint64_t index);
    void report_skip(std::uint64_t index, std::uint64_t offset, const std::string& why);

    const int d_fft_size;
    const int d_hop;
    const int d_display_bins;
    const gpufft::backend d_requested_backend;
    const int d_device_id;
    const sparse_fft_mode d_mode;
    const double d_min_snr_db;
    const double d_false_alarm;
    bool d_is_sink = false; // display output not connected (see check_topology)

    // Setters run in the caller's thread (GUI, XML-RPC); work() reads these under
    // the lock once per frame and rebuilds the plan itself.
    mutable std::mutex d_mutex;
    int d_k;
    double d_sample_rate;
    std::string d_backend_name; // of the plan in use
    std::string d_description;

    // Touched only by the constructor and work().
    std::unique_ptr<sparse_fft_plan> d_plan;
    int d_plan_k;
    stream::frame_assembler d_frames;
    stream::stream_timeline d_timeline;
    stream::change_gate d_freq_out, d_rate_out; // rx_freq / rx_rate out on change only
    std::uint64_t d_seen_until = 0;             // input offered so far (tags read)
    std::vector<sparse_tone> d_tones;           // robust mode: the frame's tones
    sparse_output::frame_entries d_entries;     // the frame's message entries
    // Exact mode: frames found not sparse, and since the last warning.
    std::uint64_t d_not_sparse_frames = 0;
    std::uint64_t d_not_sparse_unreported = 0;
    std::uint64_t d_not_sparse_warned_at = 0; // frame index of the last warning
    bool d_not_sparse_warned = false;

    std::atomic<std::uint64_t> d_processed{ 0 };
    std::atomic<std::uint64_t> d_skipped{ 0 };
};

} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_SPARSE_FFT_IMPL_H */
