/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "core/memory_error.h"
#include "core/parallel_for.h"
#include "large/device_budget.h"
#include "large/large_fft_plan_impl.h"
#include "large/power/integrator_backend.h"
#include <gnuradio/gpufft/device.h>
#include <gnuradio/gpufft/large_fft_plan.h>
#include <gnuradio/gpufft/spectrum_integrator.h>
#include <stdexcept>
#include <vector>

namespace gr {
namespace gpufft {

namespace detail {

std::unique_ptr<spectrum_integrator::impl>
make_integrator_backend(std::int64_t fft_size,
                        std::int64_t band_start,
                        std::int64_t band_stop,
                        std::int64_t output_bins,
                        const spectrum_integrator_options& o,
                        bool repeat_devices,
                        bool relay)
{
    if (o.threads < 0)
        throw std::invalid_argument("threads must be >= 0 (0: all cores), got " +
                                    std::to_string(o.threads));
    if (fft_size < 1)
        throw std::invalid_argument("fft_size must be >= 1, got " +
                                    std::to_string(fft_size));
    const power::fftw_planning planning = power::parse_fftw_planner(o.fftw_planner);
    const stream::sample_format input = stream::parse_sample_format(o.input_type);
    const std::int64_t stop = band_stop == 0 ? fft_size : band_stop;
    const power::band_reducer band(fft_size,
                                   band_start,
                                   band_stop,
                                   output_bins == 0 ? stop - band_start : output_bins);
    const power::spectral_window window(power::parse_window(o.window), fft_size);
    const int threads = o.threads > 0 ? o.threads : detail::hardware_threads();

    detail::check_device_list(o.devices, repeat_devices);
    if (o.backend == backend::cpu)
        detail::check_no_devices_on_cpu(o.devices);
    if (!o.devices.empty() && o.backend != backend::cpu && cuda_device_count() > 0)
        detail::resolve_devices(o.devices, o.device_id); // names `devices`
    const int first = o.devices.empty() ? o.device_id : o.devices[0];
    const gpufft::backend used = resolve_backend(o.backend, first, o.log);
    large_fft_options lo;
    lo.backend = used;
    lo.device_id = first;
    lo.memory_budget = o.memory_budget;
    lo.threads = o.threads;
    lo.log = o.log;
    std::string too_large; // why whole frames were not dealt to the devices
    if (used == backend::cuda) {
#ifdef GPUFFT_HAVE_CUDA
        // A frame that fits each device's budget runs fused, whole frames dealt to the
        // devices when several are listed (a frame's copy to one overlaps the previous
        // frame's transform on another); a larger one has its passes dealt out to all
        // the devices by the large plan.
        const auto devices = detail::resolve_devices(o.devices, o.device_id);
        const std::size_t budget =
            detail::resolve_devices_budget(o.memory_budget, devices, !o.devices.empty());
        if (devices.size() > 1) {
            if (auto whole = detail::make_multi_device_integrator(
                    band, window, devices, budget, input, relay))
                return whole;
        } else if (auto fused = detail::make_device_integrator(
                       band, window, devices[0], budget, input)) {
            return fused;
        }
        lo.memory_budget = budget;
        lo.devices = o.devices;
        if (devices.size() > 1)
            too_large = "passes of each frame dealt to devices by the large plan: a " +
                        std::to_string(fft_size) +
                        "-point frame and its cuFFT work area do not fit one device's "
                        "budget of " +
                        std::to_string(budget >> 20) + " MiB\n";
#endif
    }
    // A frame that fits beside its FFTW work array on the CPU: one FFTW execute and a
    // fused VOLK pass per frame.
    if (used == backend::cpu)
        if (auto fused = detail::make_cpu_integrator(
                band, window, threads, o.memory_budget, planning, o.fftw_wisdom)) {
            fused->input = input; // converted on the host by accumulate_samples()
            return fused;
        }
    // The host path: the (possibly out-of-card) large FFT, host reduction.
    large_fft_config config;
    config.repeat_devices = repeat_devices;
    auto plan = std::make_shared<large_fft_plan>(detail::make_large_fft_plan(
        std::vector<std::int64_t>{ fft_size }, direction::forward, lo, config));
    const std::string text = plan->describe();
    auto host = detail::make_host_integrator(
        band,
        window,
        [plan](std::complex<float>* x) { plan->execute(x, x); },
        threads,
        plan->backend(),
        plan->device_id(),
        plan->memory_budget(),
        "spectrum_integrator: " + too_large + "window and band reduction on the host (" +
            std::to_string(threads) + " threads) after\n" + text);
    host->input = input;
    return host;
}

} // namespace detail

integration_mode parse_integration_mode(const std::string& name)
{
    if (name == "mean" || name == "average" || name == "avg")
        return integration_mode::mean;
    if (name == "max" || name == "max-hold" || name == "max_hold" || name == "maxhold")
        return integration_mode::max_hold;
    throw std::invalid_argument("mode: '" + name + "' is not one of mean, max");
}

std::string to_string(integration_mode m)
{
    return m == integration_mode::mean ? "mean" : "max";
}

spectrum_integrator::spectrum_integrator(std::int64_t fft_size,
                                         std::int64_t band_start,
                                         std::int64_t band_stop,
                                         std::int64_t output_bins,
                                         const spectrum_integrator_options& options)
    : d_impl(detail::with_memory_context(
          "spectrum_integrator",
          [&] {
              return "fft_size = " + detail::size_string(fft_size) +
                     ", output_bins = " + std::to_string(output_bins);
          },
          [&] {
              return detail::make_integrator_backend(
                  fft_size, band_start, band_stop, output_bins, options, false);
          })),
      d_mode(options.mode)
{
}

spectrum_integrator::spectrum_integrator(std::unique_ptr<impl> backend_impl,
                                         integration_mode mode)
    : d_impl(std::move(backend_impl)), d_mode(mode)
{
    if (!d_impl)
        throw std::invalid_argument("spectrum_integrator: null backend");
}

spectrum_integrator::~spectrum_integrator() = default;
spectrum_integrator::spectrum_integrator(spectrum_integrator&&) noexcept = default;
spectrum_integrator&
spectrum_integrator::operator=(spectrum_integrator&&) noexcept = default;

namespace {
// The sizes in words, for out-of-memory errors.
auto integrator_sizes(const spectrum_integrator& s)
{
    return [&s] {
        return "fft_size = " + detail::size_string(s.fft_size()) +
               ", output_bins = " + std::to_string(s.output_bins());
    };
}

//! How the next frame meets the accumulator: the first one of an integration stores.
accumulate_op next_op(std::int64_t frames, integration_mode mode)
{
    return frames == 0                      ? accumulate_op::store
           : mode == integration_mode::mean ? accumulate_op::add
                                            : accumulate_op::max;
}
} // namespace

bool spectrum_integrator::accumulate(std::complex<float>* frame)
{
    if (!frame)
        throw std::invalid_argument("accumulate: null frame");
    const accumulate_op op = next_op(d_frames, d_mode);
    const bool ok =
        detail::with_memory_context("spectrum_integrator.accumulate",
                                    integrator_sizes(*this),
                                    [&] { return d_impl->accumulate(frame, op); });
    if (!ok)
        return false;
    ++d_frames;
    return true;
}

bool spectrum_integrator::accumulate_samples(const void* samples)
{
    if (!samples)
        throw std::invalid_argument("accumulate_samples: null frame");
    impl& b = *d_impl;
    if (b.converts_on_device()) {
        const bool ok = detail::with_memory_context(
            "spectrum_integrator.accumulate_samples", integrator_sizes(*this), [&] {
                return b.accumulate_integers(samples, next_op(d_frames, d_mode));
            });
        d_frames += ok ? 1 : 0;
        return ok;
    }
    // The host paths transform in place: the frame goes through a copy of their own
    // (fc32) or is converted into one (VOLK), made at the first call.
    const std::int64_t n = fft_size();
    b.sample_scratch.resize(std::size_t(n));
    stream::convert_samples(b.input, samples, b.sample_scratch.data(), n);
    return accumulate(b.sample_scratch.data());
}

std::int64_t spectrum_integrator::read(float* out)
{
    if (d_frames == 0)
        return 0;
    if (!out)
        throw std::invalid_argument("read: null output");
    std::vector<double>& acc = d_impl->read_scratch;
    detail::with_memory_context("spectrum_integrator.read", integrator_sizes(*this), [&] {
        d_impl->read(acc.data());
    });
    const double norm = d_mode == integration_mode::mean ? 1.0 / double(d_frames) : 1.0;
    for (std::size_t c = 0; c < acc.size(); ++c)
        out[c] = float(acc[c] * norm);
    return d_frames;
}

void spectrum_integrator::reset() { d_frames = 0; }

void spectrum_integrator::reset(integration_mode mode)
{
    d_mode = mode;
    d_frames = 0;
}

std::int64_t spectrum_integrator::fft_size() const { return d_impl->band.fft_size(); }
std::int64_t spectrum_integrator::band_start() const { return d_impl->band.band_start(); }
std::int64_t spectrum_integrator::band_stop() const { return d_impl->band.band_stop(); }
std::int64_t spectrum_integrator::output_bins() const
{
    return d_impl->band.output_bins();
}
std::int64_t spectrum_integrator::frames() const { return d_frames; }
integration_mode spectrum_integrator::mode() const { return d_mode; }
std::string spectrum_integrator::input_type() const
{
    return stream::to_string(d_impl->input);
}
bool spectrum_integrator::converts_on_device() const
{
    return d_impl->converts_on_device();
}
backend spectrum_integrator::backend() const { return d_impl->backend(); }
int spectrum_integrator::device_id() const { return d_impl->device_id(); }
std::size_t spectrum_integrator::memory_budget() const { return d_impl->memory_budget(); }
bool spectrum_integrator::on_device() const { return d_impl->on_device(); }
std::string spectrum_integrator::describe() const { return d_impl->describe(); }

} // namespace gpufft
} // namespace gr
