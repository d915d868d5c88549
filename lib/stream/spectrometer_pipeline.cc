/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "core/parallel_for.h"
#include "large/power/integrator_backend.h"
#include "stream/spectrometer_pipeline.h"
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace gr {
namespace gpufft {
namespace stream {

namespace {
constexpr std::int64_t max_output_bins = std::int64_t(1) << 18;

std::string gib(std::uint64_t bytes)
{
    char s[32];
    std::snprintf(s, sizeof s, "%.1f GiB", double(bytes) / double(1ull << 30));
    return s;
}
} // namespace

int pipeline_slots(std::int64_t fft_size)
{
    return fft_size <= (std::int64_t(1) << 21) ? 4 : 2;
}

std::uint64_t frame_memory_bytes(std::int64_t fft_size)
{
    return std::uint64_t(pipeline_slots(fft_size)) * std::uint64_t(fft_size) *
           sizeof(std::complex<float>);
}

void validate(const pipeline_config& c)
{
    if (c.fft_size < 2)
        throw std::invalid_argument("fft_size must be >= 2, got " +
                                    std::to_string(c.fft_size));
    // Two frames (one filling, one transforming) must fit with room to spare for the
    // engine's scratch memory and everything else on the host.
    const std::uint64_t phys = host_physical_memory();
    const std::uint64_t need = frame_memory_bytes(c.fft_size);
    if (phys > 0 && need > phys / 10 * 8) {
        const std::int64_t largest = std::int64_t(phys / 10 * 8 / frame_memory_bytes(1));
        throw std::invalid_argument(
            "fft_size: " + std::to_string(c.fft_size) + " samples need two frames of " +
            gib(need / 2) + " (" + gib(need) +
            ") of host memory, more than 80% of this " + "host's " + gib(phys) +
            "; fft_size must be <= " + std::to_string(largest));
    }
    if (c.overlap < 0 || c.overlap >= c.fft_size)
        throw std::invalid_argument("overlap must be in [0, fft_size) = [0, " +
                                    std::to_string(c.fft_size) + "), got " +
                                    std::to_string(c.overlap));
    if (c.n_integrations < 1)
        throw std::invalid_argument("n_integrations must be >= 1, got " +
                                    std::to_string(c.n_integrations));
    if (c.output_bins > max_output_bins)
        throw std::invalid_argument("output_bins must be in [1, " +
                                    std::to_string(max_output_bins) +
                                    "] (each output is one GNU Radio vector item), got " +
                                    std::to_string(c.output_bins));
    if (c.threads < 0)
        throw std::invalid_argument("threads must be >= 0 (0: all cores), got " +
                                    std::to_string(c.threads));
    band_reducer(c.fft_size, c.band_start, c.band_stop, c.output_bins); // checks the band
}

namespace {
const pipeline_config& validated(const pipeline_config& c)
{
    validate(c);
    return c;
}

std::shared_ptr<spectrum_integrator> host_integrator(const pipeline_config& c,
                                                     frame_transform transform)
{
    validate(c); // before the band and window below throw their own messages
    if (!transform)
        throw std::invalid_argument("spectrometer_pipeline: no transform");
    return std::make_shared<spectrum_integrator>(
        detail::make_host_integrator(
            band_reducer(c.fft_size, c.band_start, c.band_stop, c.output_bins),
            spectral_window(c.window, c.fft_size),
            std::move(transform),
            c.threads > 0 ? c.threads : detail::hardware_threads(),
            backend::cpu,
            -1,
            0,
            "spectrometer_pipeline: host window and reduction around a transform\n"),
        c.mode);
}
//! The integrator takes `input` frames as they are and converts them on the GPU.
bool takes_raw(const std::shared_ptr<spectrum_integrator>& i, sample_format input)
{
    return i && input != sample_format::fc32 && i->converts_on_device() &&
           i->input_type() == to_string(input);
}

//! Complex samples of a host_frame that holds n samples of `bytes` each.
std::int64_t frame_samples(std::int64_t n, std::size_t bytes)
{
    constexpr std::int64_t c = sizeof(std::complex<float>);
    return (n * std::int64_t(bytes) + c - 1) / c;
}
} // namespace

spectrometer_pipeline::spectrometer_pipeline(const pipeline_config& config,
                                             frame_transform transform)
    : spectrometer_pipeline(config, host_integrator(config, std::move(transform)))
{
}

spectrometer_pipeline::spectrometer_pipeline(
    const pipeline_config& config, std::shared_ptr<spectrum_integrator> integrator)
    : d_config(validated(config)),
      d_reducer(config.fft_size, config.band_start, config.band_stop, config.output_bins),
      d_window(config.window, config.fft_size),
      d_integrator(std::move(integrator)),
      d_raw(takes_raw(d_integrator, config.input)),
      d_stored(d_raw ? sample_bytes(config.input) : sizeof(std::complex<float>)),
      d_next_n_integrations(config.n_integrations),
      d_next_mode(int(config.mode))
{
    if (!d_integrator)
        throw std::invalid_argument("spectrometer_pipeline: no integrator");
    if (d_integrator->fft_size() != d_reducer.fft_size() ||
        d_integrator->band_start() != d_reducer.band_start() ||
        d_integrator->band_stop() != d_reducer.band_stop() ||
        d_integrator->output_bins() != d_reducer.output_bins())
        throw std::invalid_argument(
            "spectrometer_pipeline: the integrator's fft_size, band or output_bins "
            "differ from the pipeline's");
    d_frames.reserve(std::size_t(pipeline_slots(config.fft_size)));
    // Raw frames are a half or a quarter the size: the GPU's copy moves only those.
    for (int i = 0; i < pipeline_slots(config.fft_size); ++i)
        d_frames.emplace_back(
            frame_samples(config.fft_size, d_stored), config.pinned, config.device_id);
    d_busy.assign(d_frames.size(), false);
    d_thread = std::thread([this] { worker(); });
}

spectrometer_pipeline::~spectrometer_pipeline() { finish(); }

void spectrometer_pipeline::finish()
{
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        d_stop = true;
    }
    d_work_cv.notify_all();
    if (d_thread.joinable())
        d_thread.join();
}

void spectrometer_pipeline::rethrow_worker_error()
{
    std::lock_guard<std::mutex> lock(d_mutex);
    if (d_error)
        std::rethrow_exception(d_error);
}

std::int64_t spectrometer_pipeline::push(const void* in, std::int64_t n)
{
    const auto* bytes = static_cast<const unsigned char*>(in);
    const std::size_t sample = sample_bytes(d_config.input);
    rethrow_worker_error();
    const std::int64_t size = d_config.fft_size;
    std::int64_t taken = 0;
    while (taken < n) {
        {
            std::lock_guard<std::mutex> lock(d_mutex);
            if (d_busy[d_fill_slot])
                break; // the next frame is still with the worker
        }
        std::int64_t pos = d_fill_pos.load();
        const std::int64_t count = std::min(size - pos, n - taken);
        // fc32 is a memcpy; an integer type is converted on the way (VOLK), unless
        // the integrator converts it on the GPU: then it is kept as it came.
        if (d_raw)
            std::memcpy(frame_bytes(d_fill_slot) + std::size_t(pos) * sample,
                        bytes + std::size_t(taken) * sample,
                        std::size_t(count) * sample);
        else
            convert_samples(d_config.input,
                            bytes + std::size_t(taken) * sample,
                            d_frames[d_fill_slot].data() + pos,
                            count);
        taken += count;
        pos += count;
        if (pos < size) {
            d_fill_pos = pos;
            continue;
        }
        job j{ d_fill_slot, d_frame_start, d_fill_frames == 0, false, 0, d_fill_mode };
        if (j.starts_integration) {
            d_fill_n_integrations = d_next_n_integrations;
            d_fill_mode = accumulate_mode(d_next_mode.load());
        }
        j.n_integrations = d_fill_n_integrations;
        j.mode = d_fill_mode;
        j.closes_integration = ++d_fill_frames >= d_fill_n_integrations;
        if (j.closes_integration)
            d_fill_frames = 0;
        {
            std::lock_guard<std::mutex> lock(d_mutex);
            d_busy[d_fill_slot] = true;
            d_jobs.push_back(j);
        }
        d_work_cv.notify_one();
        d_fill_slot = (d_fill_slot + 1) % slots();
        d_frame_start += hop();
        // The worker copies this frame's last `overlap` samples to the head of the next
        // before it touches them, so filling resumes after them.
        d_fill_pos = d_config.overlap;
    }
    return taken;
}

bool spectrometer_pipeline::pop(integrated_spectrum& out)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    if (d_error)
        std::rethrow_exception(d_error);
    if (d_ready.empty())
        return false;
    out = std::move(d_ready.front());
    d_ready.pop_front();
    return true;
}

bool spectrometer_pipeline::take_partial(integrated_spectrum& out)
{
    if (d_thread.joinable())
        throw std::logic_error(
            "spectrometer_pipeline::take_partial: call finish() first");
    if (d_frames_done.load() == 0 || d_current.frames == 0)
        return false;
    d_current.power.resize(std::size_t(d_config.output_bins));
    d_integrator->read(d_current.power.data());
    out = std::move(d_current);
    d_current = integrated_spectrum();
    d_frames_done = 0;
    return true;
}

bool spectrometer_pipeline::pending() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return !d_ready.empty() ||
           std::any_of(d_jobs.begin(), d_jobs.end(), [](const job& j) {
               return j.closes_integration;
           });
}

void spectrometer_pipeline::wait(std::chrono::microseconds timeout)
{
    std::unique_lock<std::mutex> lock(d_mutex);
    if (d_jobs.empty() || !d_ready.empty() || d_error)
        return;
    d_done_cv.wait_for(lock, timeout);
}

void spectrometer_pipeline::drain()
{
    std::unique_lock<std::mutex> lock(d_mutex);
    d_done_cv.wait(lock, [this] { return d_jobs.empty() || d_error || d_stop; });
}

void spectrometer_pipeline::set_n_integrations(int n)
{
    if (n < 1)
        throw std::invalid_argument("n_integrations must be >= 1, got " +
                                    std::to_string(n));
    d_next_n_integrations = n;
}

void spectrometer_pipeline::set_mode(accumulate_mode m) { d_next_mode = int(m); }

void spectrometer_pipeline::worker()
{
    for (;;) {
        job j;
        {
            std::unique_lock<std::mutex> lock(d_mutex);
            d_work_cv.wait(lock, [this] { return d_stop || !d_jobs.empty(); });
            if (d_stop)
                return;
            j = d_jobs.front();
        }
        try {
            process(j);
        } catch (...) {
            std::lock_guard<std::mutex> lock(d_mutex);
            d_error = std::current_exception();
            d_jobs.clear();
            d_done_cv.notify_all();
            return;
        }
    }
}

void spectrometer_pipeline::process(const job& j)
{
    const std::int64_t overlap = d_config.overlap;
    if (overlap > 0)
        std::memcpy(frame_bytes((j.slot + 1) % slots()),
                    frame_bytes(j.slot) + std::size_t(hop()) * d_stored,
                    std::size_t(overlap) * d_stored);

    if (j.starts_integration) {
        d_current = integrated_spectrum();
        d_current.first_sample = j.first_sample;
        d_current.index = d_integrations;
        d_current.n_integrations = j.n_integrations;
        d_current.mode = j.mode;
        d_frames_done = 0;
        d_integrator->reset(j.mode);
    }

    // The integrator windows, transforms and reduces the frame (overwriting a complex
    // one; a raw one is copied to the GPU and converted there) and leaves a frame with
    // a NaN or infinity out of the integration.
    const bool taken = d_raw ? d_integrator->accumulate_samples(frame_bytes(j.slot))
                             : d_integrator->accumulate(d_frames[j.slot].data());
    if (taken) {
        ++d_current.frames;
    } else {
        ++d_current.skipped;
        ++d_skipped_total;
    }

    // Read outside the lock: on the GPU path this is a copy from the device.
    if (j.closes_integration && d_current.frames > 0) {
        d_current.power.resize(std::size_t(d_config.output_bins));
        d_integrator->read(d_current.power.data());
    }

    std::lock_guard<std::mutex> lock(d_mutex);
    d_busy[j.slot] = false;
    d_jobs.pop_front();
    ++d_frames_done;
    if (j.closes_integration) {
        d_ready.push_back(std::move(d_current));
        d_current = integrated_spectrum();
        d_frames_done = 0;
        ++d_integrations;
    }
    d_done_cv.notify_all();
}

} // namespace stream
} // namespace gpufft
} // namespace gr
