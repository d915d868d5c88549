/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_STREAM_SPECTROMETER_PIPELINE_H
#define INCLUDED_GPUFFT_STREAM_SPECTROMETER_PIPELINE_H

#include "large/power/band_reducer.h"
#include "large/power/spectral_window.h"
#include "stream/host_frame.h"
#include "stream/sample_format.h"
#include <gnuradio/gpufft/spectrum_integrator.h>
#include <condition_variable>
#include <atomic>
#include <chrono>
#include <complex>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace gr {
namespace gpufft {
namespace stream {

// The window and the band reduction belong to the integrator (lib/large/power); the
// pipeline configures them.
using power::band_reducer;
using power::parse_window;
using power::spectral_window;
using power::to_string;
using power::window_type;

//! mean or max_hold: the engine's integration_mode.
using accumulate_mode = gpufft::integration_mode;

//! The engine's parser and names (spectrum_integrator.h).
using gpufft::parse_integration_mode;
using gpufft::to_string;

struct pipeline_config {
    std::int64_t fft_size = 1024;
    std::int64_t overlap = 0; //!< samples shared by consecutive frames, < fft_size
    window_type window = window_type::none;
    int n_integrations = 1; //!< frames per output spectrum
    accumulate_mode mode = accumulate_mode::mean;
    std::int64_t band_start = 0;
    std::int64_t band_stop = 0; //!< 0: fft_size
    std::int64_t output_bins = 1024;
    int threads = 0;     //!< for window and reduction passes; 0: all cores
    bool pinned = false; //!< page-locked frames (CUDA engine)
    int device_id = 0;   //!< CUDA device the pinned frames belong to
    /*!
     * What push() is given: converted to complex float as it is copied into a frame,
     * or, when the integrator converts it on the GPU (converts_on_device()), kept as
     * it is so that only its 4 or 2 bytes a sample cross PCIe.
     */
    sample_format input = sample_format::fc32;
};

/*!
 * Frames in flight between the filler and the worker: 2 (one filling, one
 * transforming), or 4 for frames of at most 2^21 samples. On a machine of few cores
 * the extra two let the stream keep flowing while the worker catches up, as GNU
 * Radio's own buffers between the stages of a stock FFT chain do (issue #30); for
 * larger frames host memory matters more.
 */
int pipeline_slots(std::int64_t fft_size);

//! Bytes of host memory the frames take (pipeline_slots() of them).
std::uint64_t frame_memory_bytes(std::int64_t fft_size);

/*!
 * Throws std::invalid_argument naming the first bad parameter and its valid range,
 * including an fft_size whose two frames do not fit in this host's memory.
 */
void validate(const pipeline_config& config);

//! One integrated spectrum: mean or max over n_integrations frames, linear power.
struct integrated_spectrum {
    //! output_bins channels; a tone A*exp(i w t) on a bin centre reads A^2 in its bin
    //! (times 1/decimation after channel averaging); white noise of variance s^2 reads
    //! s^2 * sum(w^2) / sum(w)^2 per bin.
    std::vector<float> power;
    std::int64_t first_sample = 0; //!< stream index of the integration's first sample
    std::int64_t frames = 0;       //!< frames accumulated
    std::int64_t skipped = 0;      //!< frames skipped for non-finite samples
    std::int64_t index = 0;        //!< integration number, from 0
    int n_integrations = 1;        //!< frames the integration spanned
    accumulate_mode mode = accumulate_mode::mean;
};

//! In-place forward FFT of one frame of fft_size samples (the large-FFT engine).
//! Throwing std::invalid_argument means "non-finite samples": the frame is skipped.
using frame_transform = std::function<void(std::complex<float>* frame)>;

/*!
 * The accumulator's engine room, free of GNU Radio so it can be tested on its own:
 * pipeline_slots() frames in host memory (2, or 4 when small), one filled by push()
 * while a worker thread hands the others in turn to a spectrum_integrator (window,
 * transform, |X|^2, band reduction, accumulation: on the GPU when the frame fits
 * there), so the input never waits for a transform unless the worker falls every
 * other frame behind. The worker reads one
 * spectrum per n_integrations frames and queues it for pop().
 */
class spectrometer_pipeline
{
public:
    //! Host window and reduction around `transform` (the CPU path).
    spectrometer_pipeline(const pipeline_config& config, frame_transform transform);
    /*!
     * Frames go to `integrator`, whose fft_size, band and output_bins must match the
     * config's (std::invalid_argument otherwise); its window is the caller's business.
     */
    spectrometer_pipeline(const pipeline_config& config,
                          std::shared_ptr<spectrum_integrator> integrator);
    ~spectrometer_pipeline();
    //! Stops the worker after the frame it holds, if any, and joins it; the counts and
    //! the spectra not yet popped stay readable. The destructor calls it.
    void finish();
    spectrometer_pipeline(const spectrometer_pipeline&) = delete;
    spectrometer_pipeline& operator=(const spectrometer_pipeline&) = delete;

    /*!
     * Copies up to n samples (of config().input) into the frames, as complex float;
     * returns how many were taken: fewer than n only while every other frame waits for
     * the worker. Rethrows a worker failure (any exception of the transform but
     * std::invalid_argument).
     */
    std::int64_t push(const void* in, std::int64_t n);
    //! Takes the oldest finished spectrum, if any.
    bool pop(integrated_spectrum& out);
    /*!
     * After finish(): the integration that was still open, over the frames it holds
     * (its n_integrations says how many it was to have). False when none was open or
     * all its frames were skipped.
     */
    bool take_partial(integrated_spectrum& out);
    //! True while a spectrum is ready or the worker holds a frame that ends one.
    bool pending() const;
    //! Sleeps until the worker finishes a frame or `timeout` passes.
    void wait(std::chrono::microseconds timeout);
    //! Sleeps until the worker has finished every frame handed to it, or failed; then
    //! finish() loses nothing (the end of a stream that nothing reads: a sink block).
    void drain();

    //! Takes effect from the next integration to start filling.
    void set_n_integrations(int n);
    void set_mode(accumulate_mode m);

    const pipeline_config& config() const { return d_config; }
    const band_reducer& reducer() const { return d_reducer; }
    const spectrum_integrator& integrator() const { return *d_integrator; }
    const spectral_window& window() const { return d_window; }
    std::int64_t hop() const { return d_config.fft_size - d_config.overlap; }
    bool pinned() const { return d_frames[0].pinned(); }
    //! True when the frames hold the input as it came (an integer type the integrator
    //! converts on the GPU), false when they hold complex float.
    bool raw_frames() const { return d_raw; }
    int slots() const { return int(d_frames.size()); }

    // Progress, readable from any thread.
    //! Samples in the frame being filled.
    std::int64_t samples_in_frame() const { return d_fill_pos.load(); }
    //! Frames of the current integration already transformed.
    std::int64_t frames_in_integration() const { return d_frames_done.load(); }
    std::int64_t integrations_done() const { return d_integrations.load(); }
    std::int64_t frames_skipped() const { return d_skipped_total.load(); }

private:
    struct job {
        int slot;
        std::int64_t first_sample;
        bool starts_integration;
        bool closes_integration;
        int n_integrations;
        accumulate_mode mode;
    };
    void worker();
    void process(const job& j);
    void rethrow_worker_error();
    //! The bytes of frame `slot`: d_stored bytes a sample.
    unsigned char* frame_bytes(int slot) const
    {
        return reinterpret_cast<unsigned char*>(d_frames[std::size_t(slot)].data());
    }

    const pipeline_config d_config;
    const band_reducer d_reducer;
    const spectral_window d_window;
    const std::shared_ptr<spectrum_integrator> d_integrator;
    const bool d_raw;           // frames of config().input as it came
    const std::size_t d_stored; // bytes of a sample in a frame

    std::vector<host_frame> d_frames; // pipeline_slots(fft_size), used in turn

    // Filler side (the caller of push); d_fill_pos is atomic for progress readers.
    int d_fill_slot = 0;
    std::atomic<std::int64_t> d_fill_pos{ 0 };
    std::int64_t d_frame_start = 0;
    // Integration bookkeeping is done as frames are handed off, so a setting applies
    // from a definite point in the stream.
    int d_fill_frames = 0;
    int d_fill_n_integrations = 1;
    accumulate_mode d_fill_mode = accumulate_mode::mean;

    mutable std::mutex d_mutex;
    std::condition_variable d_work_cv; // worker waits for jobs
    std::condition_variable d_done_cv; // filler waits for a free frame
    std::deque<job> d_jobs;            // handed off, not finished (front: in progress)
    std::vector<bool> d_busy;          // with the worker (queued or in progress)
    std::deque<integrated_spectrum> d_ready;
    std::exception_ptr d_error;
    bool d_stop = false;

    std::atomic<int> d_next_n_integrations;
    std::atomic<int> d_next_mode;

    // Worker side.
    integrated_spectrum d_current;
    std::atomic<std::int64_t> d_frames_done{ 0 };
    std::atomic<std::int64_t> d_integrations{ 0 };
    std::atomic<std::int64_t> d_skipped_total{ 0 };

    std::thread d_thread;
};

} // namespace stream
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_STREAM_SPECTROMETER_PIPELINE_H */
