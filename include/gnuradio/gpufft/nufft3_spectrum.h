/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_NUFFT3_SPECTRUM_H
#define INCLUDED_GPUFFT_NUFFT3_SPECTRUM_H

#include <gnuradio/block.h>
#include <gnuradio/gpufft/api.h>
#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace gpufft {

/*!
 * \brief Spectrum of irregularly timed complex samples at arbitrary frequencies.
 * \ingroup gpufft
 * \details
 * Input 0: complex samples. Input 1: their sample times, in one of two forms:
 *  - \p nominal_rate = 0: float64 seconds after the integer \p epoch (seconds, e.g. a
 *    Unix time): absolute time = epoch + offset, so the offsets stay small and precise
 *    over hours of streaming (one float64 of Unix seconds would resolve only 0.24 us);
 *  - \p nominal_rate > 0: float32 deviations (seconds) from a nominal grid, sample n
 *    (counted from the start of the stream) at epoch + n / nominal_rate + deviation[n]
 *    (the grid is computed in integer samples and double, so it does not drift). This is
 *    the form GRC flowgraphs can feed (GRC has no float64 stream source), and the GRC
 *    block's default (nominal_rate = samp_rate).
 *
 * Every \p frame_len samples, one output vector of frequencies.size() complex values:
 *   F[k] = sum_j x[j] exp(-2 pi i f_k (t_j - t_0))
 * with t_0 the frame's first sample time (the phase reference), computed by the type-3
 * NUFFT engine (nufft3_plan, double precision, tolerance \p eps) on the GPU or the CPU.
 * Times need not be sorted or uniform.
 *
 * Tags on each output vector: \c rx_time (uint64 seconds, double fraction) = epoch + t_0;
 * the latest \c rx_freq and \c rx_rate seen on input 0 are carried (an rx_rate tag that
 * is not finite and > 0 is ignored with a warning). A frame with a NaN or infinite sample
 * or time is logged (at most once per 10 s) and skipped (no output item for it).
 */
class GPUFFT_API nufft3_spectrum : virtual public gr::block
{
public:
    typedef std::shared_ptr<nufft3_spectrum> sptr;

    /*!
     * \param frame_len samples per frame, 1 .. 2^24
     * \param frequencies output frequencies in Hz (at least one, finite)
     * \param eps relative l2 tolerance of the transform, 1e-12 .. 1e-1
     * \param epoch integer seconds the time offsets on input 1 count from
     * \param nominal_rate 0: input 1 is float64 offsets; > 0: float32 deviations from
     *        a grid of this rate (samples per second)
     * \param backend "auto" (CUDA when a GPU is usable, else CPU), "cpu" or "cuda"
     * \param device_id CUDA device (the GPUFFT_DEVICE environment variable overrides)
     *
     * Throws std::invalid_argument (ValueError in Python) naming the bad parameter.
     */
    static sptr make(int frame_len,
                     const std::vector<double>& frequencies,
                     double eps = 1e-6,
                     std::int64_t epoch = 0,
                     double nominal_rate = 0,
                     const std::string& backend = "auto",
                     int device_id = 0);

    //! New frequencies (same count: the output vector length is fixed); next frame on.
    virtual void set_frequencies(const std::vector<double>& frequencies) = 0;
    virtual std::vector<double> frequencies() const = 0;

    virtual int frame_len() const = 0;
    virtual std::int64_t epoch() const = 0;
    //! The backend in use: "cpu" or "cuda".
    virtual std::string backend() const = 0;
    //! Frames transformed so far.
    virtual std::uint64_t frames_processed() const = 0;
    //! Frames skipped because they held non-finite samples or times.
    virtual std::uint64_t frames_skipped() const = 0;
};

} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_NUFFT3_SPECTRUM_H */
