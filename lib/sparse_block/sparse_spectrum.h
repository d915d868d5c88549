/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_SPARSE_BLOCK_SPARSE_SPECTRUM_H
#define INCLUDED_GPUFFT_SPARSE_BLOCK_SPARSE_SPECTRUM_H

// Frame-level helpers of the sparse_fft block that do not need GNU Radio.

#include <complex>
#include <cstddef>
#include <cstdint>

namespace gr {
namespace gpufft {
namespace sparse_block {

//! False when any real or imaginary part is a NaN or an infinity.
bool all_finite(const std::complex<float>* x, std::size_t n);

//! A DFT bin as a signed frequency index, in numpy.fft.fftfreq's order: bins at or
//! above ceil(n / 2) are negative (bin - n).
inline std::int64_t signed_bin(std::int64_t bin, std::int64_t n)
{
    return bin < (n + 1) / 2 ? bin : bin - n;
}

//! Position of a bin in the fftshift-ed spectrum (DC at n / 2).
inline std::int64_t shifted_bin(std::int64_t bin, std::int64_t n)
{
    return (bin + n / 2) % n;
}

//! 20 log10(|X| / n): dB relative to a full-scale complex tone.
float power_db(std::complex<float> value, std::int64_t n);

/*!
 * The sparse spectrum as `display_bins` dB values, DC in the middle: display value d
 * is the largest power_db over the coefficients whose shifted bin j has
 * floor(j * display_bins / n) == d, or `floor_db` where there are none.
 */
void display_spectrum(std::int64_t n,
                      const std::int64_t* bins,
                      const std::complex<float>* values,
                      std::size_t count,
                      float* display,
                      int display_bins,
                      float floor_db);

} // namespace sparse_block
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_SPARSE_BLOCK_SPARSE_SPECTRUM_H */
