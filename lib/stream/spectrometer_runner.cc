/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "stream/spectrometer_runner.h"
#include "stream/spectrometer_setup.h"
#include <cstdio>
#include <stdexcept>

namespace gr {
namespace gpufft {
namespace stream {

namespace {
// A few microseconds would do; waiting longer only delays taking new input, and
// waiting less turns the wait for a frame into a spin.
constexpr auto worker_poll = std::chrono::microseconds(500);

template <typename... Args>
std::string format(const char* f, Args... args)
{
    char text[256];
    std::snprintf(text, sizeof text, f, args...);
    return text;
}
} // namespace

spectrometer_runner::spectrometer_runner(const pipeline_config& config,
                                         std::shared_ptr<spectrum_integrator> integrator,
                                         log_handler log)
    : d_config(config),
      d_integrator(std::move(integrator)),
      d_log(std::move(log)),
      d_n_integrations(config.n_integrations),
      d_mode(int(config.mode))
{
}

void spectrometer_runner::set_n_integrations(int n_integrations)
{
    if (n_integrations < 1)
        throw std::invalid_argument("n_integrations must be >= 1, got " +
                                    std::to_string(n_integrations));
    std::lock_guard<std::mutex> lock(d_mutex);
    d_n_integrations = n_integrations;
    if (d_pipeline)
        d_pipeline->set_n_integrations(n_integrations);
}

void spectrometer_runner::set_mode(const std::string& mode)
{
    const auto m = parse_integration_mode(mode);
    std::lock_guard<std::mutex> lock(d_mutex);
    d_mode = int(m);
    if (d_pipeline)
        d_pipeline->set_mode(m);
}

double spectrometer_runner::fraction_filled() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_pipeline ? double(d_pipeline->samples_in_frame()) / double(d_config.fft_size)
                      : 0.0;
}

std::uint64_t spectrometer_runner::integrations_done() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_integrations_before + (d_pipeline ? d_pipeline->integrations_done() : 0);
}

std::uint64_t spectrometer_runner::frames_skipped() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_skipped_before + (d_pipeline ? d_pipeline->frames_skipped() : 0);
}

void spectrometer_runner::start()
{
    const std::string memory = frame_memory_warning(d_config.fft_size);
    if (!memory.empty())
        log_message(d_log, log_level::warning, memory);
    pipeline_config c = d_config;
    c.n_integrations = d_n_integrations;
    c.mode = mode();
    auto pipeline = std::make_unique<spectrometer_pipeline>(c, d_integrator);
    if (d_config.pinned && !pipeline->pinned())
        log_message(d_log,
                    log_level::warning,
                    "could not page-lock the frames: host-to-GPU copies will be slower");
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        d_pipeline = std::move(pipeline);
    }
    d_progress.reset(progress_timer::clock::now());
}

std::unique_ptr<spectrometer_pipeline> spectrometer_runner::stop()
{
    std::lock_guard<std::mutex> lock(d_mutex);
    auto pipeline = std::move(d_pipeline);
    if (pipeline) {
        d_integrations_before += pipeline->integrations_done();
        d_skipped_before += pipeline->frames_skipped();
    }
    return pipeline;
}

std::int64_t spectrometer_runner::take(const void* in, std::int64_t n)
{
    std::int64_t taken = d_pipeline->push(in, n);
    if (taken < n || n == 0) {
        d_pipeline->wait(worker_poll);
        taken += d_pipeline->push(static_cast<const unsigned char*>(in) +
                                      std::size_t(taken) * sample_bytes(d_config.input),
                                  n - taken);
    }
    return taken;
}

bool spectrometer_runner::progress_due(spectrometer_progress& p)
{
    const auto now = progress_timer::clock::now();
    if (!d_pipeline || !d_progress.message_due(now))
        return false;
    p.fraction_filled =
        double(d_pipeline->samples_in_frame()) / double(d_config.fft_size);
    p.frames_done = d_pipeline->frames_in_integration();
    p.n_integrations = d_n_integrations;
    p.integrations_done = d_pipeline->integrations_done();
    p.skipped_frames = d_pipeline->frames_skipped();
    if (d_progress.log_due(now, p.integrations_done))
        log_message(d_log,
                    log_level::info,
                    format("frame %.0f%% filled, %lld/%d frames of integration %lld done",
                           100.0 * p.fraction_filled,
                           static_cast<long long>(p.frames_done),
                           p.n_integrations,
                           static_cast<long long>(p.integrations_done)));
    return true;
}

bool spectrometer_runner::wind_down(
    spectrometer_pipeline& pipeline,
    const std::function<void(const integrated_spectrum&)>& finished,
    bool stream_lost,
    integrated_spectrum& partial)
{
    pipeline.finish(); // after the frame it is transforming, if any
    int unsent = 0;
    while (pipeline.pop(partial)) {
        if (partial.frames == 0)
            continue; // every frame was bad: general_work() shows none either
        ++unsent;
        if (finished)
            finished(partial);
    }
    if (unsent > 0 && stream_lost)
        log_message(d_log,
                    log_level::warning,
                    format("stopped with %d finished spectra not yet output on the "
                           "stream; %s",
                           unsent,
                           finished ? "they went to the file and the 'spectrum' port only"
                                    : "they are lost"));
    const bool has_partial = pipeline.take_partial(partial);
    if (has_partial)
        // Published, not output: a stream item would claim a full integration.
        log_message(d_log,
                    log_level::info,
                    format("stopped %lld of %d frames into integration %lld: published "
                           "on 'spectrum' with partial = true",
                           static_cast<long long>(partial.frames),
                           partial.n_integrations,
                           static_cast<long long>(partial.index)));
    if (pipeline.samples_in_frame() > d_config.overlap)
        log_message(d_log,
                    log_level::info,
                    format("stopped with a frame %.1f%% filled; its samples are not in "
                           "any output",
                           100.0 * double(pipeline.samples_in_frame()) /
                               double(d_config.fft_size)));
    return has_partial;
}

} // namespace stream
} // namespace gpufft
} // namespace gr
