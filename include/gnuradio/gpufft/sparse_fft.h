/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_SPARSE_FFT_H
#define INCLUDED_GPUFFT_SPARSE_FFT_H

#include <gnuradio/block.h>
#include <gnuradio/gpufft/api.h>
#include <cstdint>
#include <string>

namespace gr {
namespace gpufft {

/*!
 * \brief Sparse FFT of a complex stream: the tones (robust mode) or the k largest DFT
 * coefficients (exact mode) of every frame.
 * \ingroup gpufft
 *
 * \details
 * Cuts the incoming complex stream into frames of \p fft_size samples (a new frame
 * every \p hop samples: hop < fft_size overlaps frames, hop > fft_size skips samples
 * between them) and runs one sparse FFT per frame on the GPU (CUDA) or the CPU.
 *
 * \p mode "robust" (default) is for signals as a radio delivers them: a noise floor,
 * tones between FFT bins, an unknown number of them. k is an upper bound; each frame
 * reports the tones that stand above the estimated noise floor (sparse_fft_plan::detect,
 * at most k, none in pure noise), with fractional frequencies. \p min_snr_db is the
 * weakest tone to find (its power over the noise of one bin of an fft_size-point FFT):
 * the engine reads fewer samples for higher values (reading m of n samples costs about
 * 10 log10(n / m) dB) and runs a dense FFT + threshold where it cannot read fewer;
 * \p false_alarm is the chance of a false tone in a frame of pure noise.
 * \p mode "exact" is for frames that are exactly k-sparse on the frame's frequency grid
 * (no noise, on-grid tones): the k largest coefficients, exact to float precision; a
 * frame that is not exactly sparse is flagged and only the vouched-for coefficients
 * come back.
 *
 * Message port \c coefficients: one PMT dict per frame with
 *  - \c frame (uint64): frame index, counting from 0
 *  - \c offset (uint64): absolute input sample index of the frame's first sample
 *  - \c fft_size (uint64), \c samp_rate (double, Hz), \c center_freq (double, Hz);
 *    \c sample_rate (deprecated, removed in the next release): the same as samp_rate
 *  - \c mode (symbol): "robust" or "exact"
 *  - \c bins (s32vector), in [0, fft_size), ascending: exact mode the DFT bins; robust
 *    mode each tone's nearest bin, round(frequency) mod fft_size (the tones in the
 *    order of these bins); s32 so that pmt.to_python() converts the whole dict
 *  - \c freqs (f64vector): frequencies in Hz, center_freq + signed_bin * rate / n,
 *    signed_bin the bin (exact) or the tone's fractional bin (robust), less fft_size
 *    at or above fft_size / 2 (numpy.fft.fftfreq's order)
 *  - \c values (c32vector): exact mode the DFT values X[f] = sum_t x[t]
 *    e^{-2 pi i f t/n}; robust mode the tone amplitudes n a for a tone
 *    a e^{2 pi i f t/n} (an on-grid tone's X[f])
 *  - \c power_db (f32vector): 20 log10(|value| / fft_size), dB relative to a
 *    full-scale complex tone (dBFS)
 *  - \c snr_db (f32vector): robust mode each tone's power over the noise floor of one
 *    bin (rectangular window), in dB; exact mode NaN for every coefficient (no noise
 *    estimate)
 *  - \c noise_floor_db (double, robust mode only): noise power of one bin of an
 *    fft_size-point FFT, 10 log10(floor / n^2) dBFS
 *  - \c not_sparse (bool, exact mode only): the frame was not exactly sparse
 *  - \c rx_time (tuple (uint64 seconds, double fraction)): time of the frame's first
 *    sample, only when the stream carried an \c rx_time tag
 * \c center_freq comes from the latest \c rx_freq tag (0 without one); \c samp_rate is
 * the parameter, or the latest \c rx_rate tag when the stream carries one.
 *
 * A frame holding a NaN or an infinity is logged, reported as a dict with \c frame,
 * \c offset and an \c error string (and empty \c bins, \c freqs, \c values), and
 * skipped: it produces no output item.
 *
 * Optional output 0: one float vector of \p display_bins items per frame, the sparse
 * spectrum in dB (20 log10(|value| / fft_size), from the bins and values of the
 * message), DC in the middle (fftshift order), each value the maximum over its group of
 * fft_size / display_bins bins; groups without a coefficient hold \ref floor_db. A QT
 * GUI vector sink shows it as a spectrum, a time raster sink (after a vector-to-stream)
 * as a waterfall. \c rx_time, \c rx_freq and \c rx_rate tags are carried to the output
 * items (rx_time recomputed for each frame).
 */
class GPUFFT_API sparse_fft : virtual public gr::block
{
public:
    typedef std::shared_ptr<sparse_fft> sptr;

    //! Value of display groups that hold no coefficient, in dB.
    static constexpr float floor_db = -200.0f;

    /*!
     * \param fft_size frame length n (samples), >= 16 (the engine may ask for more)
     * \param k coefficients (exact) or most tones (robust) per frame: 1 <= k <
     * fft_size in exact mode, 1 <= k <= fft_size / 4 in robust mode
     * \param samp_rate input sample rate in Hz (> 0), used for frequencies and times
     * \param display_bins length of the dB vector output, 1 .. min(fft_size, 65536)
     * \param hop samples between the starts of consecutive frames; 0 means fft_size
     * \param backend "auto" (CUDA when a GPU is usable, else CPU), "cpu" or "cuda"
     * \param device_id CUDA device (the GPUFFT_DEVICE environment variable overrides)
     * \param mode "robust" (noise, off-grid tones; k an upper bound) or "exact"
     * (exactly k-sparse on-grid frames)
     * \param min_snr_db robust mode: the weakest tone to find, its power over the noise
     * of one bin of an fft_size-point FFT in dB, [0, 200]
     * \param false_alarm robust mode: chance of a false tone in a frame of pure noise,
     * (0, 0.5]
     *
     * Throws std::invalid_argument (ValueError in Python) naming the bad parameter.
     */
    static sptr make(int fft_size,
                     int k,
                     double samp_rate,
                     int display_bins = 1024,
                     int hop = 0,
                     const std::string& backend = "auto",
                     int device_id = 0,
                     const std::string& mode = "robust",
                     double min_snr_db = 20.0,
                     double false_alarm = 0.01);

    //! Change k; takes effect at the next frame. Throws for k outside [1, fft_size)
    //! (exact mode) or [1, fft_size / 4] (robust mode).
    virtual void set_k(int k) = 0;
    virtual int k() const = 0;

    //! Change the sample rate used for frequencies and times (an rx_rate tag wins).
    virtual void set_samp_rate(double samp_rate) = 0;
    virtual double samp_rate() const = 0;
    //! Deprecated names of set_samp_rate() and samp_rate(), removed in the next release.
    [[deprecated("use set_samp_rate")]] void set_sample_rate(double samp_rate)
    {
        set_samp_rate(samp_rate);
    }
    [[deprecated("use samp_rate")]] double sample_rate() const { return samp_rate(); }

    virtual int fft_size() const = 0;
    virtual int hop() const = 0;
    virtual int display_bins() const = 0;
    //! The backend in use: "cpu" or "cuda".
    virtual std::string backend() const = 0;
    //! "robust" or "exact".
    virtual std::string mode() const = 0;
    //! Robust mode's sensitivity: the weakest tone to find, dB over one bin's noise.
    virtual double min_snr_db() const = 0;
    //! Robust mode's chance of a false tone in a frame of pure noise.
    virtual double false_alarm() const = 0;
    //! One line from the engine: mode, backend and the parameters it chose, among
    //! them whether it runs sparse or a dense FFT (+ threshold in robust mode).
    virtual std::string describe() const = 0;

    //! Frames transformed so far.
    virtual std::uint64_t frames_processed() const = 0;
    //! Frames skipped because they held non-finite samples or the transform failed.
    virtual std::uint64_t frames_skipped() const = 0;
};

} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_SPARSE_FFT_H */
