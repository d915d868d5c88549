/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_STREAM_SPARSE_FRAME_ANALYZER_H
#define INCLUDED_GPUFFT_STREAM_SPARSE_FRAME_ANALYZER_H

#include "../sparse/sparse_spectrum.h"
#include "engine_failure.h"
#include "not_sparse_warning.h"
#include <gnuradio/gpufft/log.h>
#include <gnuradio/gpufft/sparse_fft_plan.h>
#include <atomic>
#include <complex>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace gr {
namespace gpufft {
namespace stream {

//! The sparse_fft block's parameters, as make() takes them.
struct sparse_frame_settings {
    int fft_size = 1024;
    int k = 16;
    double samp_rate = 1.0; //!< Hz
    int display_bins = 1024;
    int hop = 0; //!< 0: fft_size
    std::string backend = "auto";
    int device_id = 0;
    std::string mode = "robust";
    double min_snr_db = 20.0;
    double false_alarm = 0.01;
};

//! Throws std::invalid_argument naming samp_rate unless it is finite and > 0.
void check_samp_rate(double samp_rate);

/*!
 * The sparse_fft block without GNU Radio: one sparse FFT per frame with the k in force,
 * and what the frame's message reports (entries, noise floor or not-sparse flag).
 *
 * k and samp_rate may be set from any thread (a GUI, the cmd port); analyze() runs in
 * one thread (the scheduler's) and rebuilds the plan there when k changed, so a plan is
 * never swapped under a running transform. A k the engine then refuses is logged and
 * the old k kept.
 */
class sparse_frame_analyzer
{
public:
    /*!
     * Checks every setting (std::invalid_argument naming it and its valid range) and
     * makes the plan, which throws for what the engine refuses.
     */
    sparse_frame_analyzer(const sparse_frame_settings& settings, log_handler log);

    int fft_size() const { return d_fft_size; }
    //! Samples between frame starts (hop 0 resolved to fft_size).
    int hop() const { return d_hop; }
    int display_bins() const { return d_display_bins; }
    sparse_fft_mode mode() const { return d_mode; }
    //! "robust" or "exact".
    std::string mode_name() const;
    double min_snr_db() const { return d_min_snr_db; }
    double false_alarm() const { return d_false_alarm; }

    //! Checks k for the mode; takes effect at the next analyze().
    void set_k(int k);
    int k() const;
    void set_samp_rate(double samp_rate);
    double samp_rate() const;
    //! Of the plan in use: "cpu" or "cuda", and the engine's describe() line.
    std::string backend() const;
    std::string describe() const;

    /*!
     * Transforms the fft_size samples at `frame` (frame number `index`, for the
     * warnings). False when the frame is skipped, error() saying why: non-finite
     * samples, or the engine refused the frame. Otherwise entries() hold the frame's
     * tones (robust) or coefficients (exact), frequencies at center_freq and `rate`.
     * A GPU out of memory under backend "auto" moves the plan to the CPU (logged once);
     * any other engine failure throws engine_stopped (engine_failure.h).
     */
    bool analyze(const std::complex<float>* frame,
                 std::uint64_t index,
                 double center_freq,
                 double rate);
    const sparse_output::frame_entries& entries() const { return d_entries; }
    //! Robust mode: the frame's noise floor per bin in dBFS.
    double noise_floor_db() const { return d_noise_floor_db; }
    //! Exact mode: the frame was not exactly sparse.
    bool not_sparse() const { return d_not_sparse; }
    const std::string& error() const { return d_error; }

    std::uint64_t frames_processed() const { return d_processed; }
    std::uint64_t frames_skipped() const { return d_skipped; }

private:
    std::unique_ptr<sparse_fft_plan> make_plan(int k, gpufft::backend b) const;
    void use_plan(std::unique_ptr<sparse_fft_plan> plan, int k);
    void update_plan();

    const int d_fft_size;
    const int d_hop;
    const int d_display_bins;
    const int d_device_id;
    const sparse_fft_mode d_mode;
    const double d_min_snr_db;
    const double d_false_alarm;
    const log_handler d_log;

    // Set from any thread; analyze() reads them under the lock.
    mutable std::mutex d_mutex;
    int d_k;
    double d_samp_rate;
    std::string d_backend_name; // of the plan in use
    std::string d_description;

    // Touched only by the constructor and analyze().
    cpu_fallback d_fallback;
    std::unique_ptr<sparse_fft_plan> d_plan;
    int d_plan_k;
    std::vector<sparse_tone> d_tones;
    sparse_output::frame_entries d_entries;
    double d_noise_floor_db = 0.0;
    bool d_not_sparse = false;
    std::string d_error;
    not_sparse_warning d_not_sparse_warning;

    std::atomic<std::uint64_t> d_processed{ 0 };
    std::atomic<std::uint64_t> d_skipped{ 0 };
};

} // namespace stream
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_STREAM_SPARSE_FRAME_ANALYZER_H */
