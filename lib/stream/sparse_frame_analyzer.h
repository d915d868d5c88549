/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_STREAM_SPARSE_FRAME_ANALYZER_H
#define INCLUDED_GPUFFT_STREAM_SPARSE_FRAME_ANALYZER_H

#include "stream/engine_failure.h"
#include "stream/log_limiter.h"
#include "stream/not_sparse_warning.h"
#include "stream/sample_format.h"
#include "stream/sparse_spectrum.h"
#include "stream/transmission_tracker.h"
#include <gnuradio/gpufft/log.h>
#include <gnuradio/gpufft/sensing_plan.h>
#include <gnuradio/gpufft/sparse_fft_plan.h>
#include <atomic>
#include <complex>
#include <cstdint>
#include <functional>
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
    //! Bins either side of DC left out of the signals, [0, fft_size / 4).
    int dc_mask_bins = 0;
    //! "obw99" or "xdb" (sensing_plan's bandwidth rule).
    std::string bandwidth_rule = "obw99";
    //! Frames a transmission may go unseen and go on, [0, 1000].
    int hold_frames = 1;
    //! The input's sample type (stream/sample_format.h): "fc32", "sc16", "sc8", "cu8".
    std::string input_type = "fc32";
    //! Robust mode's sensing: frames the noise floor is tracked over, [1, 1024]
    //! (sensing_options::floor_frames, whose default this is); 1 is used instead while
    //! frames overlap by half or more (floor_frames_in_force).
    int floor_frames = 8;
    //! Robust mode's sensing: frames a signal is held for, [0, 8]; 0: none
    //! (sensing_options::watch_frames, whose default this is).
    int watch_frames = 2;
};

//! Throws std::invalid_argument naming samp_rate unless it is finite and > 0.
void check_samp_rate(double samp_rate);

/*!
 * Host memory the sparse_fft block allocates for these settings on backend `used` (cpu
 * or cuda), in bytes: the engine (on the CPU a dense FFT's spectra, or the sparse path's
 * hashes; on CUDA they are device memory, which the engines check themselves) and the
 * block's own frame buffer (a sample's bytes of input_type, plus 8 a sample for the
 * converted frame of an integer type). `what` gets the parts in words, for the error
 * message.
 */
std::uint64_t sparse_block_memory(const sparse_frame_settings& settings,
                                  gpufft::backend used = backend::cpu,
                                  std::string* what = nullptr);

//! Which engine gave a frame's signals.
enum class frame_path {
    sensing, //!< robust mode, dense: sensing_plan (bands with bandwidth, tone fits)
    sparse,  //!< robust mode, the sparse plan (sublinear, or n < sensing_min_size)
    exact    //!< exact mode: one 1-bin signal per coefficient
};

/*!
 * The sparse_fft block without GNU Radio: one transform per frame with the settings in
 * force, the frame's signals (sensing_result, bins signed about DC), the same in Hz,
 * the transmissions they end (transmission_tracker), and the coefficients message's
 * entries.
 *
 * Robust mode: where the sparse plan's cost model picks a dense FFT, the frame goes to
 * a sensing_plan (max_signals = k) instead: its signals are the frame's signals, and
 * the entries are their tone fits (docs/sparse_fft_block.md). Where it picks the
 * sublinear path, each tone becomes a 1-bin-wide signal. Exact mode: each coefficient
 * a 1-bin signal.
 *
 * k, mode, min_snr_db, false_alarm, floor_frames, watch_frames and samp_rate may be set
 * from any thread (a GUI, the cmd port); analyze() runs in one thread (the scheduler's)
 * and rebuilds the engine there when one of the others changed (a new sensing plan
 * starts its floor's track and its held signals afresh), so an engine is never
 * swapped under a running transform. Settings the engine then refuses are logged and
 * the old ones kept.
 */
class sparse_frame_analyzer
{
public:
    /*!
     * Checks every setting (std::invalid_argument naming it and its valid range),
     * refuses settings whose memory the host cannot give (std::invalid_argument naming
     * fft_size and the bytes needed) and makes the engine, which throws for what it
     * refuses.
     */
    sparse_frame_analyzer(const sparse_frame_settings& settings, log_handler log);

    int fft_size() const { return d_fft_size; }
    //! Samples between frame starts (hop 0 resolved to fft_size).
    int hop() const { return d_hop; }
    int display_bins() const { return d_display_bins; }
    int dc_mask_bins() const { return d_dc_mask; }
    std::string bandwidth_rule() const { return to_string(d_rule); }
    int hold_frames() const { return d_tracker.hold_frames(); }

    //! The mode asked for (set_mode), "robust" or "exact".
    std::string mode_name() const;
    sparse_fft_mode mode() const;
    //! The mode of the last frame analyzed (of the engine in use).
    sparse_fft_mode frame_mode() const { return d_current.mode; }
    frame_path path() const { return d_path; }
    double min_snr_db() const;
    double false_alarm() const;
    //! The floor_frames asked for (set_floor_frames); the sensing plan gets 1 while
    //! frames overlap by half or more (describe() shows the value in force).
    int floor_frames() const;
    int watch_frames() const;

    //! Each checks its value (std::invalid_argument naming it); the new value takes
    //! effect at the next analyze().
    void set_k(int k);
    int k() const;
    void set_mode(const std::string& mode);
    void set_min_snr_db(double min_snr_db);
    void set_false_alarm(double false_alarm);
    void set_floor_frames(int floor_frames);
    void set_watch_frames(int watch_frames);
    void set_samp_rate(double samp_rate);
    double samp_rate() const;
    //! Of the engine in use: "cpu" or "cuda", and its describe() line.
    std::string backend() const;
    std::string describe() const;

    /*!
     * Transforms the fft_size samples at `frame` (frame number `index`, whose first
     * sample is `first_sample` of the stream; -1: index * hop). False when the frame is
     * skipped, error() saying why: non-finite samples, or the engine refused the frame;
     * the tracker then sees no frame (its hold bridges the gap). Otherwise result()
     * holds the frame's signals, signals_hz() the same at center_freq and `rate`,
     * ended() the transmissions this frame ended, and entries() the coefficients
     * message's entries. A GPU out of memory under backend "auto" moves the engine to
     * the CPU (logged once); any other engine failure throws engine_stopped.
     *
     * `where` memory::device: `frame` is in the CUDA engine's device memory (a block's
     * integer input converted there, stream/frame_converter.h), and is not checked for
     * non-finite samples (integers have none); when the engine runs on the CPU (moved
     * there under backend "auto"), `on_host()` gives the same frame in host memory.
     */
    bool analyze(const std::complex<float>* frame,
                 std::uint64_t index,
                 double center_freq,
                 double rate,
                 std::int64_t first_sample = -1,
                 memory where = memory::host,
                 const std::function<const std::complex<float>*()>& on_host = {});
    const sensing_result& result() const { return d_result; }
    const std::vector<frame_signal>& signals_hz() const { return d_signals_hz; }
    const std::vector<transmission>& ended() const { return d_ended; }
    //! Ends every open transmission (end of stream) and returns them, in order of start.
    std::vector<transmission> flush();
    const sparse_output::frame_entries& entries() const { return d_entries; }
    //! Robust mode: the frame's noise floor per bin in dBFS, rectangular window (the
    //! coefficients message's noise_floor_db; -300 for a frame of zeros).
    double noise_floor_db() const { return d_noise_floor_db; }
    //! Exact mode: the frame was not exactly sparse.
    bool not_sparse() const { return d_not_sparse; }
    const std::string& error() const { return d_error; }

    std::uint64_t frames_processed() const { return d_processed; }
    std::uint64_t frames_skipped() const { return d_skipped; }
    //! Frames whose signals hit the cap k.
    std::uint64_t frames_truncated() const { return d_truncated; }

private:
    //! What an engine is made from; a change rebuilds it.
    struct engine_key {
        int k = 0;
        sparse_fft_mode mode = sparse_fft_mode::robust;
        double min_snr_db = 0, false_alarm = 0;
        int floor_frames = 0, watch_frames = 0;
        bool operator==(const engine_key& o) const
        {
            return k == o.k && mode == o.mode && min_snr_db == o.min_snr_db &&
                   false_alarm == o.false_alarm && floor_frames == o.floor_frames &&
                   watch_frames == o.watch_frames;
        }
    };
    struct engine {
        std::unique_ptr<sparse_fft_plan> sparse;
        std::unique_ptr<sensing_plan> sensing;
        frame_path path = frame_path::sparse;
        std::string backend, description;
    };
    engine make_engine(const engine_key& key, gpufft::backend b) const;
    void use_engine(engine e, const engine_key& key);
    void update_engine();
    void signals_from_tones(std::int64_t n);
    void signals_from_coefficients(std::int64_t n);
    void entries_from_signals(std::int64_t n, double center_freq, double rate);
    void note_truncated(std::uint64_t index);

    const int d_fft_size;
    const int d_hop;
    const int d_display_bins;
    const int d_device_id;
    const int d_dc_mask;
    const gpufft::bandwidth_rule d_rule;
    const log_handler d_log;

    // Set from any thread; analyze() reads them under the lock.
    mutable std::mutex d_mutex;
    engine_key d_wanted;
    double d_samp_rate;
    std::string d_backend_name; // of the engine in use
    std::string d_description;

    // Touched only by the constructor, analyze() and flush().
    cpu_fallback d_fallback;
    gpufft::backend d_resolved; // "auto" resolved once, so it is logged once
    engine d_engine;
    //! The centre frequency and rate of the last frame (a change resets the floor).
    bool d_tuned = false;
    double d_tuned_freq = 0.0, d_tuned_rate = 0.0;
    engine_key d_current;
    frame_path d_path = frame_path::sparse;
    std::vector<sparse_tone> d_tones;
    sensing_result d_result;
    std::vector<frame_signal> d_signals_hz;
    std::vector<transmission> d_ended;
    transmission_tracker d_tracker;
    sparse_output::frame_entries d_entries;
    double d_noise_floor_db = 0.0;
    bool d_not_sparse = false;
    std::string d_error;
    not_sparse_warning d_not_sparse_warning;
    log_limiter d_truncated_log{ 10.0 };

    std::atomic<std::uint64_t> d_processed{ 0 };
    std::atomic<std::uint64_t> d_skipped{ 0 };
    std::atomic<std::uint64_t> d_truncated{ 0 };
};

} // namespace stream
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_STREAM_SPARSE_FRAME_ANALYZER_H */
