/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_SPARSE_SIGNAL_CUDA_H
#define INCLUDED_GPUFFT_SPARSE_SIGNAL_CUDA_H

#include <complex>
#include <cstdint>
#include <vector>

namespace gr {
namespace gpufft {
namespace detail {

/*!
 * Test and benchmark support: writes into device array x (n samples, current device) the
 * signal whose DFT is `values` on `bins` and zero elsewhere:
 * x[t] = (1/n) sum values[i] exp(2 pi i bins[i] t / n), by a scatter and an inverse
 * cuFFT. Lets gpufft-bench build inputs of 2^30 samples without touching host memory.
 */
void make_sparse_signal_device(std::int64_t n,
                               const std::vector<std::int64_t>& bins,
                               const std::vector<std::complex<float>>& values,
                               std::complex<float>* x);

/*!
 * Test and benchmark support: writes into device array x (n samples) tones in white
 * noise, x[t] = sum_j (amps[j] / n) exp(2 pi i freqs[j] t / n) + complex Gaussian noise
 * of variance noise_var per sample (seeded). Tones that share a fractional offset are
 * made by one scatter and one inverse cuFFT, then shifted by that offset in time, so the
 * offsets should come from a few values (one inverse FFT each).
 */
void make_noisy_tones_device(std::int64_t n,
                             const std::vector<double>& freqs,
                             const std::vector<std::complex<double>>& amps,
                             double noise_var,
                             std::uint64_t seed,
                             std::complex<float>* x);

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_SPARSE_SIGNAL_CUDA_H */
