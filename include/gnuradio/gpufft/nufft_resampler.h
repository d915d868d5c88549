/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_NUFFT_RESAMPLER_H
#define INCLUDED_GPUFFT_NUFFT_RESAMPLER_H

#include <gnuradio/block.h>
#include <gnuradio/gpufft/api.h>
#include <cstdint>
#include <string>

namespace gr {
namespace gpufft {

/*!
 * \brief Irregularly timed complex samples to a uniform-rate, band-limited stream.
 * \ingroup gpufft
 * \details
 * Input 0: complex samples. Input 1: their times (non-decreasing): a jittered ADC,
 * timestamped packets. Two forms: \p nominal_rate = 0, float64 seconds after the
 * integer \p epoch; \p nominal_rate > 0, float32 deviations from a grid of that many
 * samples per second (sample n at epoch + n / nominal_rate + deviation[n]), which stock
 * GRC blocks produce and the GRC block takes by default (nominal_rate = samp_rate).
 * Output: complex samples at \p output_rate, band-limited to [-bandwidth/2, bandwidth/2].
 *
 * Frame by frame (\p frame_len input samples, consecutive frames overlapping by
 * 2 \p overlap), the samples are fitted in weighted least squares (Voronoi weights) by a
 * band-limited trigonometric model (band 1.25 x bandwidth, period 1.25 x the frame),
 * solved by conjugate gradients on its Toeplitz normal equations; the type-3 NUFFT engine
 * computes the normal equations' right side and Toeplitz column, and the model's values
 * on the output grid. Only the output times inside the frame's centre (past \p overlap
 * input samples at each side) are kept, so frame edges leave no artefacts; output starts
 * at the time of input sample \p overlap. Needs a mean input rate above about 1.6 x
 * bandwidth, and no gap between neighbouring input times longer than 2 / bandwidth
 * (nufft::band_limited_fit::gap_limit): the outputs within 1 / bandwidth of a longer
 * gap are unreliable, so each such gap is logged (at most once per 10 s) and the first
 * of those outputs tagged \c gap, value a dict {"duration": seconds, "samples": count}.
 *
 * Tags: \c rx_time (uint64 seconds, double fraction) and \c rx_rate on the first output
 * sample and after any discontinuity; the latest \c rx_freq is carried. A frame holding
 * a NaN or infinite sample or time, or decreasing times, is logged and skipped: its span
 * produces no output, and the next output carries a new \c rx_time (warnings at most
 * once per 10 s). Message port \c cmd: a dict with "output_rate" and/or "bandwidth".
 */
class GPUFFT_API nufft_resampler : virtual public gr::block
{
public:
    typedef std::shared_ptr<nufft_resampler> sptr;

    /*!
     * \param output_rate output samples per second (> 0)
     * \param bandwidth two-sided bandwidth in Hz kept, 0 < bandwidth <= output_rate
     * \param frame_len input samples per frame, 64 .. 2^24
     * \param overlap input samples discarded at each frame edge, 8 .. frame_len / 4
     * \param eps transform and conjugate-gradient tolerance
     * \param epoch integer seconds the time offsets on input 1 count from
     * \param nominal_rate 0: input 1 is float64 offsets; > 0: float32 deviations from
     *        a grid of this rate (samples per second)
     * \param backend "auto", "cpu" or "cuda"
     * \param device_id CUDA device (the GPUFFT_DEVICE environment variable overrides)
     */
    static sptr make(double output_rate,
                     double bandwidth,
                     int frame_len = 4096,
                     int overlap = 512,
                     double eps = 1e-6,
                     std::int64_t epoch = 0,
                     double nominal_rate = 0,
                     const std::string& backend = "auto",
                     int device_id = 0);

    virtual double output_rate() const = 0;
    virtual double bandwidth() const = 0;
    /*!
     * Set at run time (also through the \c cmd port: a dict with "output_rate" and/or
     * "bandwidth"): taken at the next frame, which starts a new output grid (its first
     * output carries \c rx_time, and \c rx_rate where the rate changed). Throws
     * std::invalid_argument unless 0 < bandwidth <= output_rate.
     */
    virtual void set_output_rate(double output_rate) = 0;
    virtual void set_bandwidth(double bandwidth) = 0;
    //! Gaps in the input times longer than 2 / bandwidth found so far (tagged "gap").
    virtual std::uint64_t gaps_found() const = 0;
    virtual int frame_len() const = 0;
    virtual int overlap() const = 0;
    virtual std::string backend() const = 0;
    virtual std::uint64_t frames_processed() const = 0;
    virtual std::uint64_t frames_skipped() const = 0;
};

} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_NUFFT_RESAMPLER_H */
