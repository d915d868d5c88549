/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_SPECTRUM_INTEGRATOR_H
#define INCLUDED_GPUFFT_SPECTRUM_INTEGRATOR_H

#include <gnuradio/gpufft/api.h>
#include <gnuradio/gpufft/backend.h>
#include <gnuradio/gpufft/log.h>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gr {
namespace gpufft {

//! How frames combine: the mean of |X|^2 or its maximum (max-hold).
enum class integration_mode { mean, max_hold };

/*!
 * "mean" (or "average", "avg") and "max" (or "max-hold", "max_hold", "maxhold"): the one
 * parser of the mode for the engine, the blocks and the bindings; anything else throws
 * std::invalid_argument naming `mode` and the choices.
 */
GPUFFT_API integration_mode parse_integration_mode(const std::string& name);
//! "mean" or "max".
GPUFFT_API std::string to_string(integration_mode m);

struct spectrum_integrator_options {
    gpufft::backend backend = backend::automatic;
    int device_id = 0;
    /*!
     * CUDA devices (empty: `device_id` alone; `memory_budget` applies per device).
     * When a frame fits each device's budget, whole frames are dealt to them round
     * robin, each fused on its GPU with its own accumulator (merged by read(): sum for
     * mean, max for max-hold); accumulate() returns once the frame has been copied to
     * its GPU, so the next frame's copy to another GPU overlaps this one's transform.
     * A larger frame goes through the host path's large_fft_plan, which deals each
     * frame's passes out to them (large_fft_options::devices). describe() says which.
     * Checked as large_fft_options::devices is; backend cpu refuses a non-empty list.
     */
    std::vector<int> devices;
    /*!
     * Device memory the CUDA backend may use, in bytes (0: most of what is free). When
     * a frame and cuFFT's work area fit, frames are windowed, transformed and reduced
     * on the GPU and only the channels come back; otherwise the out-of-card
     * large_fft_plan transforms each frame with this budget and the host reduces it.
     * CPU backend: the large_fft_plan's host scratch budget (0: its default).
     */
    std::size_t memory_budget = 0;
    //! CPU threads (FFTW, window, reduction); 0 uses every hardware thread.
    int threads = 0;
    //! "none", "hann", "hamming", "blackman", "blackman-harris" or "flattop".
    std::string window = "none";
    integration_mode mode = integration_mode::mean;
    /*!
     * CPU backend: FFTW's planner for a frame's FFT: "auto" (FFTW_MEASURE up to 2^20
     * points, about a second per size the first time and then kept as wisdom;
     * FFTW_ESTIMATE above), "measure" or "estimate".
     */
    std::string fftw_planner = "auto";
    /*!
     * CPU backend: a file FFTW's measured plans are kept in between runs (read at the
     * start, written when a plan was measured), e.g. ~/.cache/gr-gpufft/fftwf_wisdom;
     * empty (default): none, each process measures its sizes again.
     */
    std::string fftw_wisdom;
    //! Where the plan's messages go (gnuradio/gpufft/log.h); empty: stderr.
    gpufft::log_handler log;
    /*!
     * The samples accumulate_samples() takes: "fc32" (complex float), or interleaved
     * integer I/Q as radios deliver it, scaled as recording_source scales it: "sc16"
     * (2 x int16, / 32768), "sc8" (2 x int8, / 128) or "cu8" (2 x uint8, (u - 127.5)
     * / 128). On the fused GPU path an integer frame crosses PCIe as it is (4 or 2
     * bytes a sample, not 8) and one kernel converts, scales and windows it where it
     * is loaded; its raw copy on the device counts against memory_budget. Elsewhere it
     * is converted on the host (VOLK). Anything else throws std::invalid_argument
     * naming input_type.
     */
    std::string input_type = "fc32";
};

/*!
 * Integrated power spectrum of frames of fft_size samples: each frame is windowed,
 * Fourier transformed (forward, unnormalised), and |X|^2 of the DC-centred bins
 * [band_start, band_stop) (numpy's fftshift order) is averaged over groups of
 * (band_stop - band_start) / output_bins adjacent bins and scaled by 1 / sum(w)^2, so
 * a tone A exp(i w t) on a bin centre reads A^2 in its bin. accumulate() adds one
 * frame (sum or max), read() returns the mean or max over the frames so far.
 *
 * CUDA backend, frame in card: the frame is copied to the GPU (page-locked host
 * memory makes that copy run at full PCIe speed) and windowed, transformed, squared,
 * band-reduced and accumulated there; only output_bins values come back, at read().
 * With several `devices`, whole frames go to the GPUs in turn (options::devices).
 * Otherwise (CPU backend, or a frame too large for the budget) each frame goes
 * through large_fft_plan and the host does the window and the reduction.
 *
 * Throws std::invalid_argument for a bad size, band, window or option (the message
 * names it and its valid range), std::runtime_error when CUDA is asked for and not
 * usable. One call at a time per integrator.
 */
class GPUFFT_API spectrum_integrator
{
public:
    class impl;

    //! band_stop 0 means fft_size; output_bins 0 means the band's width (no averaging).
    spectrum_integrator(
        std::int64_t fft_size,
        std::int64_t band_start = 0,
        std::int64_t band_stop = 0,
        std::int64_t output_bins = 0,
        const spectrum_integrator_options& options = spectrum_integrator_options());
    //! Wraps a backend made inside the library (the accumulator pipeline wraps its own
    //! transform this way); `impl` is not part of the public API.
    spectrum_integrator(std::unique_ptr<impl> backend_impl, integration_mode mode);
    ~spectrum_integrator();
    spectrum_integrator(spectrum_integrator&&) noexcept;
    spectrum_integrator& operator=(spectrum_integrator&&) noexcept;
    spectrum_integrator(const spectrum_integrator&) = delete;
    spectrum_integrator& operator=(const spectrum_integrator&) = delete;

    /*!
     * Adds the frame of fft_size() host samples. Returns false, leaving the
     * integration as it was, when the frame holds a NaN or infinity. The frame's
     * contents are undefined afterwards: the host path windows and transforms it in
     * place so a frame of 2^32 samples needs no second copy.
     */
    bool accumulate(std::complex<float>* frame);
    /*!
     * Adds the frame of fft_size() samples of input_type() at `samples` (host memory,
     * left as it is; page-locked memory makes the GPU's copy run at full PCIe speed).
     * Returns false as accumulate() does. An fc32 frame is copied first (accumulate()
     * transforms in place); an integer frame goes to the GPU as it is on the fused
     * path, else it is converted on the host into a frame the integrator keeps.
     */
    bool accumulate_samples(const void* samples);
    /*!
     * Writes output_bins() values: the mean (or max) power over the frames accumulated
     * since the last reset; returns that number of frames, and writes nothing when it
     * is 0.
     */
    std::int64_t read(float* out);
    //! Starts a new integration (the mode is kept, or changed to `mode`).
    void reset();
    void reset(integration_mode mode);

    std::int64_t fft_size() const;
    std::int64_t band_start() const;
    std::int64_t band_stop() const;
    std::int64_t output_bins() const;
    //! Frames accumulated since the last reset.
    std::int64_t frames() const;
    integration_mode mode() const;
    //! The sample type accumulate_samples() takes ("fc32", "sc16", "sc8" or "cu8").
    std::string input_type() const;
    //! True when accumulate_samples() converts integer frames on the GPU (the fused
    //! path and an integer input_type): only 4 or 2 bytes a sample cross PCIe.
    bool converts_on_device() const;
    //! The backend in use (never `automatic`).
    gpufft::backend backend() const;
    int device_id() const;
    //! The memory budget in effect, in bytes.
    std::size_t memory_budget() const;
    //! True when frames are reduced on the GPU (only the channels cross PCIe).
    bool on_device() const;
    //! The path in words: fused on the GPU, or the large FFT's schedule plus the host.
    std::string describe() const;

private:
    std::unique_ptr<impl> d_impl;
    integration_mode d_mode = integration_mode::mean;
    std::int64_t d_frames = 0;
};

} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_SPECTRUM_INTEGRATOR_H */
