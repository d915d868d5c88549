/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_ROBUST_BACKEND_H
#define INCLUDED_GPUFFT_ROBUST_BACKEND_H

#include "sparse_params.h"
#include <gnuradio/gpufft/backend.h>
#include <complex>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gr {
namespace gpufft {
namespace detail {

/*!
 * What a robust-mode backend finds in one frame: the coefficients of the windowed
 * spectrum (the samples times the time window) that stand above the detection
 * threshold, and the noise.
 */
struct robust_frame {
    std::vector<std::int64_t> bins; //!< unordered
    std::vector<std::complex<double>> values;
    //! Noise power of one bin of the windowed spectrum (|X|^2 units).
    double bin_noise = 0;
    //! Noise power of one reported value (the sparse path's estimates carry the noise
    //! of n / B bins; the dense path's are bins).
    double value_noise = 0;
};

//! One backend of robust mode (sublinear path or dense FFT + threshold).
class robust_backend
{
public:
    virtual ~robust_backend() = default;
    //! Throws std::invalid_argument on non-finite samples among those read.
    virtual void run(const std::complex<float>* x, memory where, robust_frame& out) = 0;
    virtual std::string notes() const { return {}; }
};

std::unique_ptr<robust_backend> make_robust_cpu(const sparse_params& p);
std::unique_ptr<robust_backend> make_dense_threshold_cpu(const sparse_params& p);
#ifdef GPUFFT_HAVE_CUDA
std::unique_ptr<robust_backend>
make_robust_cuda(const sparse_params& p, int device_id, sparse_fft_transfer transfer);
std::unique_ptr<robust_backend> make_dense_threshold_cuda(const sparse_params& p,
                                                          int device_id);
#endif

//! The time window's transform at nu bins from a tone: X_w[f] = A W(f - f0).
std::complex<double> window_transform(const sparse_params& p, double nu);

/*!
 * Groups the coefficients of a frame into tones, strongest first, at most p.k: the
 * strongest coefficient left is a tone's peak; its frequency and amplitude are fitted
 * to the coefficients within the window's main lobe (least squares against
 * window_transform over the fractional offset), the tone's model is taken out of the
 * coefficients nearby, and the next strongest above the threshold follows.
 */
void group_tones(const sparse_params& p,
                 const robust_frame& f,
                 std::vector<sparse_tone>& tones);

/*!
 * The coefficients of the plain (unwindowed) spectrum the tones make: for each tone the
 * bins around it whose |X|^2 stands above the threshold, then the k largest, ascending.
 */
void tone_coefficients(const sparse_params& p,
                       const std::vector<sparse_tone>& tones,
                       double raw_bin_noise,
                       std::vector<std::int64_t>& bins,
                       std::vector<std::complex<float>>& values);

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_ROBUST_BACKEND_H */
