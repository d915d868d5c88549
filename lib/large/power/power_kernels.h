/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The fused spectrometer's kernels behind plain C++ launchers (no CUDA types here
// beyond an opaque stream). Spectra are complex<float>, sums are double.

#ifndef INCLUDED_GPUFFT_LARGE_POWER_KERNELS_H
#define INCLUDED_GPUFFT_LARGE_POWER_KERNELS_H

#include "cuda/sample_convert_kernels.h"
#include <cstdint>

namespace gr {
namespace gpufft {
namespace detail {

//! w[i] = sum_{k < terms} a[k] cos(2 pi k i / n) (spectral_window's coefficients).
struct cosine_window {
    double a[5] = { 1, 0, 0, 0, 0 };
    int terms = 1;
    std::int64_t n = 1;
};

/*!
 * x[i] *= w[begin + i] for i < count, with 0 <= begin and begin + count <= w.n (nothing
 * to multiply for a one-term window), and *flag (device int) |= 1 when one of those
 * samples is not finite.
 */
void launch_window(void* x,
                   std::int64_t begin,
                   std::int64_t count,
                   const cosine_window& w,
                   int* flag,
                   void* stream);

/*!
 * The load of an integer frame fused with its window: x[i] = ((in[2i] - offset) *
 * scale, (in[2i+1] - offset) * scale) * w[begin + i] for i < count, `in` the chunk's
 * interleaved integer I/Q of `type` (device memory, aligned to a sample) and `x` its
 * complex float frame, with 0 <= begin and begin + count <= w.n. The numbers are those
 * of cuda::launch_convert_iq() followed by launch_window(): one pass, not two. Integers
 * are finite, so no flag.
 */
void launch_window_iq(cuda::iq_integer type,
                      const void* in,
                      void* x,
                      std::int64_t begin,
                      std::int64_t count,
                      const cosine_window& w,
                      float scale,
                      float offset,
                      void* stream);

/*!
 * power[c] += sum |X[k]|^2 over channel c: the DC-centred bins [band_start + c *
 * decim, band_start + (c + 1) * decim) of the natural-order spectrum X of n bins, for
 * c < bins. `power` must be zeroed first (long channels are summed in pieces); *flag
 * |= 1 when a sum is not finite.
 */
void launch_band_power(const void* spectrum,
                       std::int64_t n,
                       std::int64_t band_start,
                       std::int64_t decim,
                       std::int64_t bins,
                       double* power,
                       int* flag,
                       void* stream);

/*!
 * Unless *flag is set: acc[c] = scale * power[c] (op 0), acc[c] += scale * power[c]
 * (op 1) or acc[c] = max(acc[c], scale * power[c]) (op 2), for c < bins.
 */
void launch_accumulate(const double* power,
                       double* acc,
                       std::int64_t bins,
                       double scale,
                       int op,
                       const int* flag,
                       void* stream);

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_LARGE_POWER_KERNELS_H */
