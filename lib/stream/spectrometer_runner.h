/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_STREAM_SPECTROMETER_RUNNER_H
#define INCLUDED_GPUFFT_STREAM_SPECTROMETER_RUNNER_H

#include "stream/progress_timer.h"
#include "stream/spectrometer_pipeline.h"
#include <gnuradio/gpufft/log.h>
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>

namespace gr {
namespace gpufft {
namespace stream {

//! Where the running integration stands (the accumulator's `progress` message).
struct spectrometer_progress {
    double fraction_filled = 0.0; //!< of the frame being filled
    std::int64_t frames_done = 0; //!< of the current integration
    int n_integrations = 1;
    std::int64_t integrations_done = 0; //!< this run
    std::int64_t skipped_frames = 0;    //!< this run
};

/*!
 * The accumulator's runs: a spectrometer_pipeline made at start() and dropped at stop()
 * (its frames may be tens of GiB: a flowgraph that is only built should not hold them),
 * the settings that change while it runs (from any thread), counts over all runs, the
 * input taken from the stream, progress, and what is left at the end of a stream.
 */
class spectrometer_runner
{
public:
    spectrometer_runner(const pipeline_config& config,
                        std::shared_ptr<spectrum_integrator> integrator,
                        log_handler log);

    //! From the next integration to start filling; throws naming n_integrations < 1.
    void set_n_integrations(int n_integrations);
    int n_integrations() const { return d_n_integrations; }
    //! "mean" or "max"; throws naming the choices.
    void set_mode(const std::string& mode);
    accumulate_mode mode() const { return accumulate_mode(d_mode.load()); }

    double fraction_filled() const;
    //! Over all runs.
    std::uint64_t integrations_done() const;
    std::uint64_t frames_skipped() const;

    /*!
     * A new run: makes the pipeline with the settings in force (warning when host
     * memory is short or the frames could not be page-locked). On a throw there is no
     * pipeline.
     */
    void start();
    //! The run's pipeline, null between runs or when start() failed. Only for the
    //! thread that calls start() and stop().
    spectrometer_pipeline* pipeline() { return d_pipeline.get(); }
    //! Ends the run: hands back its pipeline (null if none), its counts kept.
    std::unique_ptr<spectrometer_pipeline> stop();

    /*!
     * Copies up to `n` samples (of the config's input type) into the frames; when both
     * are with the worker, or nothing is offered while a spectrum is on its way, waits
     * a moment for it first. Returns the samples taken.
     */
    std::int64_t take(const void* in, std::int64_t n);

    /*!
     * At most once a second: true with `p` filled in. Logs where the run stands when no
     * integration finished for 10 s (long frames take seconds to fill).
     */
    bool progress_due(spectrometer_progress& p);

    /*!
     * The end of a stream: finishes the worker, hands each finished spectrum not yet
     * output to `finished` (the block writes it to the file and publishes it; no
     * stream item can carry it any more) and logs what no output will hold (an
     * unfinished integration, a partly filled frame). `stream_lost` says the block has
     * a stream output those spectra missed, which is logged too. True with the
     * unfinished integration in `partial` when there is one.
     */
    bool wind_down(spectrometer_pipeline& pipeline,
                   const std::function<void(const integrated_spectrum&)>& finished,
                   bool stream_lost,
                   integrated_spectrum& partial);
    //! The same with the finished spectra dropped (logged as lost to the stream).
    bool wind_down(spectrometer_pipeline& pipeline, integrated_spectrum& partial)
    {
        return wind_down(pipeline, nullptr, true, partial);
    }

private:
    const pipeline_config d_config;
    const std::shared_ptr<spectrum_integrator> d_integrator;
    const log_handler d_log;
    std::atomic<int> d_n_integrations;
    std::atomic<int> d_mode;
    mutable std::mutex d_mutex; // d_pipeline against the getters' threads
    std::unique_ptr<spectrometer_pipeline> d_pipeline;
    std::atomic<std::uint64_t> d_integrations_before{ 0 }; // of earlier runs
    std::atomic<std::uint64_t> d_skipped_before{ 0 };
    progress_timer d_progress;
};

} // namespace stream
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_STREAM_SPECTROMETER_RUNNER_H */
