/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Band-limited least-squares fit of irregularly timed samples (the numerics of the
// nufft_resampler block, kept free of GNU Radio so the engine tests can reach it).

#ifndef INCLUDED_GPUFFT_NUFFT_BAND_LIMITED_FIT_H
#define INCLUDED_GPUFFT_NUFFT_BAND_LIMITED_FIT_H

#include <gnuradio/gpufft/dense_fft_plan.h>
#include <gnuradio/gpufft/nufft3_plan.h>
#include <complex>
#include <memory>
#include <vector>

namespace gr {
namespace gpufft {
namespace nufft {

/*!
 * Fits x(t) ~ sum_k a_k exp(2 pi i f_k t), f_k = (k - K/2) / P, |f_k| <= 1.25 B / 2 and
 * P = 1.25 x the span of the samples, in least squares weighted by each sample's Voronoi
 * width (the ACT method of Feichtinger, Groechenig and Strohmer). The normal equations
 * are Toeplitz: their column and right side come from one type-3 NUFFT plan (two
 * executes), and conjugate gradients solve them with circulant-embedded FFT products. The
 * period longer than the span and the band wider than B let a band-limited signal that is
 * not periodic be matched away from the span's edges (to about 90-130 dB in tests).
 */
class band_limited_fit
{
public:
    band_limited_fit(double bandwidth,
                     double eps,
                     gpufft::backend b,
                     int device_id,
                     const log_handler& log = {});

    /*!
     * Fit n samples at times t (non-decreasing, relative to a centre near the middle of
     * the span, so they stay small). Throws std::invalid_argument when the span is empty
     * or the samples are too few for the band (K >= n).
     */
    void fit(const double* t, const std::complex<double>* x, int n);
    //! The fitted model at m times (same origin as the fit).
    void evaluate(const double* tau, int m, std::complex<double>* y);

    gpufft::backend backend() const { return d_analysis.backend(); }
    /*!
     * The longest gap between neighbouring sample times that the fit bridges at
     * `bandwidth`, 2 / bandwidth: past it the outputs within about 1 / bandwidth of the
     * gap lose their accuracy (test_band_limited_fit,
     * gaps_past_the_limit_break_the_reconstruction: 64-94 dB at 2 / bandwidth, 48-65 dB
     * at 2.5, under 11 dB from 4 on, eps 1e-6, tones filling the band).
     */
    static double gap_limit(double bandwidth) { return 2.0 / bandwidth; }
    int coefficients() const { return d_K; }
    int iterations() const { return d_iterations; }

private:
    void toeplitz_product(const std::complex<double>* v, std::complex<double>* out);

    double d_bandwidth, d_eps;
    nufft3_plan d_analysis; // sources t_j, targets 2 pi d df: Toeplitz column, right side
    nufft3_plan d_synthesis; // sources f_k, targets 2 pi tau: the model's values
    int d_K = 0, d_iterations = 0;
    std::vector<double> d_freq, d_w, d_s, d_s_out;
    std::vector<std::complex<double>> d_a, d_c, d_g, d_h, d_col_hat, d_buf, d_r, d_p,
        d_Tp;
    std::unique_ptr<dense_fft_plan> d_fwd, d_inv;
};

} // namespace nufft
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_NUFFT_BAND_LIMITED_FIT_H */
