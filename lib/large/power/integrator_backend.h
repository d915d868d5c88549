/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_LARGE_POWER_INTEGRATOR_BACKEND_H
#define INCLUDED_GPUFFT_LARGE_POWER_INTEGRATOR_BACKEND_H

#include "large/power/band_reducer.h"
#include "large/power/fftw_wisdom.h"
#include "large/power/spectral_window.h"
#include "stream/sample_format.h"
#include <gnuradio/gpufft/spectrum_integrator.h>
#include <complex>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <vector>

namespace gr {
namespace gpufft {

//! How a frame's channel powers combine with the accumulator.
enum class accumulate_op { store, add, max };

/*!
 * One way of turning frames into accumulated channel powers. The front end keeps the
 * frame count and the mode; a backend only keeps the raw accumulator (sum or max of
 * scaled channel powers).
 */
class spectrum_integrator::impl
{
public:
    impl(const power::band_reducer& band, const power::spectral_window& w)
        : band(band),
          window(w),
          scale(1.0 / (w.sum() * w.sum())),
          read_scratch(std::size_t(band.output_bins()))
    {
    }
    virtual ~impl() = default;

    //! False, with the accumulator untouched, when the frame is not finite.
    virtual bool accumulate(std::complex<float>* frame, accumulate_op op) = 0;
    /*!
     * A frame of band.fft_size() samples of `input` (an integer type) in host memory,
     * converted on the device; only for a backend whose converts_on_device() is true.
     */
    virtual bool accumulate_integers(const void* samples, accumulate_op op)
    {
        (void)samples;
        (void)op;
        throw std::logic_error("spectrum_integrator: this path converts on the host");
    }
    //! True when accumulate_integers() takes `input` frames as they are.
    virtual bool converts_on_device() const { return false; }
    //! The raw accumulator, band.output_bins() values.
    virtual void read(double* acc) = 0;

    virtual gpufft::backend backend() const = 0;
    virtual int device_id() const = 0;
    virtual std::size_t memory_budget() const = 0;
    virtual bool on_device() const = 0;
    virtual std::string describe() const = 0;

    const power::band_reducer band;
    const power::spectral_window window;
    const double scale; //!< 1 / sum(w)^2
    //! The front end's buffer for read(), so reading allocates nothing.
    std::vector<double> read_scratch;
    //! What accumulate_samples() takes (spectrum_integrator_options::input_type).
    stream::sample_format input = stream::sample_format::fc32;
    //! accumulate_samples()'s frame when it converts on the host, made at first use.
    std::vector<std::complex<float>> sample_scratch;
};

namespace detail {

/*!
 * spectrum_integrator's choice of path (spectrum_integrator.cc), checks included.
 * `repeat_devices`: `devices` may name a GPU more than once, one GPU standing in for
 * several (internal, for the tests: large_fft_config::repeat_devices). `relay`: false
 * keeps whole frames on their own device's link (make_multi_device_integrator()).
 */
std::unique_ptr<spectrum_integrator::impl>
make_integrator_backend(std::int64_t fft_size,
                        std::int64_t band_start,
                        std::int64_t band_stop,
                        std::int64_t output_bins,
                        const spectrum_integrator_options& options,
                        bool repeat_devices,
                        bool relay = true);

//! In-place forward FFT of one frame; throwing std::invalid_argument means "not finite".
using frame_fft = std::function<void(std::complex<float>* frame)>;

/*!
 * The host path: window (spectral_window on `threads` threads), `fft` in place,
 * band_reducer, accumulate in double. `fft` is usually a large_fft_plan (CPU, or CUDA
 * out of card); the description names it.
 */
std::unique_ptr<spectrum_integrator::impl>
make_host_integrator(const power::band_reducer& band,
                     const power::spectral_window& window,
                     frame_fft fft,
                     int threads,
                     gpufft::backend used,
                     int device_id,
                     std::size_t budget,
                     std::string description);

//! The largest frame the fused CPU path takes; larger ones go through the large FFT.
constexpr std::int64_t largest_cpu_fused = std::int64_t(1) << 24;

//! Host memory of the fused CPU path: its FFTW work array and a stored window.
std::uint64_t cpu_integrator_bytes(std::int64_t fft_size, bool windowed);

/*!
 * The fused CPU path (cpu_integrator.cc): per frame one VOLK window pass into an FFTW
 * work array, one in-place FFTW execute on `threads` threads (one below 2^18 points),
 * one VOLK |X|^2 + band reduction pass. nullptr when fft_size > largest_cpu_fused or a
 * nonzero `budget` is below cpu_integrator_bytes() (the large FFT's out-of-card
 * schedule then runs within it). `planner` and `wisdom`: spectrum_integrator_options'
 * fftw_planner and fftw_wisdom (checked by the caller).
 */
std::unique_ptr<spectrum_integrator::impl>
make_cpu_integrator(const power::band_reducer& band,
                    const power::spectral_window& window,
                    int threads,
                    std::size_t budget,
                    power::fftw_planning planner,
                    const std::string& wisdom);

#ifdef GPUFFT_HAVE_CUDA
/*!
 * The fused GPU path, or nullptr when a frame and cuFFT's work area (and, for an
 * integer `input`, the raw frame it is copied into) do not fit `budget` bytes of
 * device memory. An integer `input` is converted on the device (converts_on_device()).
 */
std::unique_ptr<spectrum_integrator::impl>
make_device_integrator(const power::band_reducer& band,
                       const power::spectral_window& window,
                       int device_id,
                       std::size_t budget,
                       stream::sample_format input = stream::sample_format::fc32);

/*!
 * Whole frames dealt to `devices` (two or more entries; multi_device_integrator.cc):
 * the fused path on each, frames round robin, accumulators merged by read(); nullptr
 * when a frame does not fit `budget` bytes on one of them. With `relay`, where every
 * two devices have peer access and half a frame more fits the budget, each frame
 * crosses two devices' PCIe links at once (fused_device::issue()).
 */
std::unique_ptr<spectrum_integrator::impl>
make_multi_device_integrator(const power::band_reducer& band,
                             const power::spectral_window& window,
                             const std::vector<int>& devices,
                             std::size_t budget,
                             stream::sample_format input,
                             bool relay = true);
#endif

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_LARGE_POWER_INTEGRATOR_BACKEND_H */
