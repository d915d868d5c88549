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
 * \brief Sparse FFT of a complex stream: the k largest DFT coefficients of every frame.
 * \ingroup gpufft
 *
 * \details
 * Cuts the incoming complex stream into frames of \p fft_size samples (a new frame
 * every \p hop samples: hop < fft_size overlaps frames, hop > fft_size skips samples
 * between them) and runs one sparse FFT per frame on the GPU (CUDA) or the CPU.
 *
 * Message port \c coefficients: one PMT dict per frame with
 *  - \c frame (uint64): frame index, counting from 0
 *  - \c offset (uint64): absolute input sample index of the frame's first sample
 *  - \c fft_size (uint64), \c sample_rate (double, Hz), \c center_freq (double, Hz)
 *  - \c bins (s32vector): DFT bins, ascending, in [0, fft_size); s32 (fft_size is an
 *    int) so that pmt.to_python() converts the whole dict
 *  - \c freqs (f64vector): their frequencies in Hz, center_freq + signed_bin * rate / n
 *    (bins above fft_size/2 are negative offsets, as numpy.fft.fftfreq orders them)
 *  - \c values (c32vector): the unnormalized DFT values X[f] = sum_t x[t] e^{-2 pi i f
 * t/n}
 *  - \c power_db (f32vector): 20 log10(|X[f]| / fft_size), dB relative to a
 *    full-scale complex tone
 *  - \c rx_time (tuple (uint64 seconds, double fraction)): time of the frame's first
 *    sample, only when the stream carried an \c rx_time tag
 * \c center_freq comes from the latest \c rx_freq tag (0 without one); \c sample_rate is
 * the parameter, or the latest \c rx_rate tag when the stream carries one.
 *
 * A frame holding a NaN or an infinity is logged, reported as a dict with \c frame,
 * \c offset and an \c error string (and empty \c bins, \c freqs, \c values), and
 * skipped: it produces no output item.
 *
 * Optional output 0: one float vector of \p display_bins items per frame, the sparse
 * spectrum in dB (20 log10(|X| / fft_size)), DC in the middle (fftshift order), each
 * value the maximum over its group of fft_size / display_bins bins; groups without a
 * coefficient hold \ref floor_db. A QT GUI vector sink shows it as a spectrum, a time
 * raster sink (after a vector-to-stream) as a waterfall. \c rx_time, \c rx_freq and
 * \c rx_rate tags are carried to the output items (rx_time recomputed for each frame).
 */
class GPUFFT_API sparse_fft : virtual public gr::block
{
public:
    typedef std::shared_ptr<sparse_fft> sptr;

    //! Value of display groups that hold no coefficient, in dB.
    static constexpr float floor_db = -200.0f;

    /*!
     * \param fft_size frame length n (samples), >= 16 (the engine may ask for more)
     * \param k coefficients per frame, 1 <= k < fft_size
     * \param sample_rate input sample rate in Hz (> 0), used for frequencies and times
     * \param display_bins length of the dB vector output, 1 .. min(fft_size, 65536)
     * \param hop samples between the starts of consecutive frames; 0 means fft_size
     * \param backend "auto" (CUDA when a GPU is usable, else CPU), "cpu" or "cuda"
     * \param device_id CUDA device (the GPUFFT_DEVICE environment variable overrides)
     *
     * Throws std::invalid_argument (ValueError in Python) naming the bad parameter.
     */
    static sptr make(int fft_size,
                     int k,
                     double sample_rate,
                     int display_bins = 1024,
                     int hop = 0,
                     const std::string& backend = "auto",
                     int device_id = 0);

    //! Change k; takes effect at the next frame. Throws for k outside [1, fft_size).
    virtual void set_k(int k) = 0;
    virtual int k() const = 0;

    //! Change the sample rate used for frequencies and times (an rx_rate tag wins).
    virtual void set_sample_rate(double sample_rate) = 0;
    virtual double sample_rate() const = 0;

    virtual int fft_size() const = 0;
    virtual int hop() const = 0;
    virtual int display_bins() const = 0;
    //! The backend in use: "cpu" or "cuda".
    virtual std::string backend() const = 0;
    //! One line from the engine: backend, device, parameters it chose.
    virtual std::string describe() const = 0;

    //! Frames transformed so far.
    virtual std::uint64_t frames_processed() const = 0;
    //! Frames skipped because they held non-finite samples or the transform failed.
    virtual std::uint64_t frames_skipped() const = 0;
};

} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_SPARSE_FFT_H */
