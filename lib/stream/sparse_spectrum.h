/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_SPARSE_SPARSE_SPECTRUM_H
#define INCLUDED_GPUFFT_SPARSE_SPARSE_SPECTRUM_H

// Frame-level helpers of the sparse_fft block that do not need GNU Radio.

#include <gnuradio/gpufft/sparse_fft_plan.h>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gr {
namespace gpufft {
namespace sparse_output {

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

//! 20 log10(|X| / n): dB relative to a full-scale complex tone (-600 for 0).
float power_db(std::complex<float> value, std::int64_t n);
float power_db(std::complex<double> value, std::int64_t n);

//! A fractional frequency in [0, n) bins as a signed one: at or above n / 2 it is
//! negative (f - n), as numpy.fft.fftfreq orders the bins.
inline double signed_frequency(double f, std::int64_t n)
{
    return f >= 0.5 * static_cast<double>(n) ? f - static_cast<double>(n) : f;
}

//! The bin nearest a fractional frequency in [0, n): round(f) mod n.
std::int64_t nearest_bin(double f, std::int64_t n);

//! A noise floor per bin (|X|^2 units) in dBFS: 10 log10(floor / n^2), -300 for 0.
double noise_floor_db(double floor, std::int64_t n);

//! One frame's entries of the coefficients message, as parallel vectors.
struct frame_entries {
    std::vector<std::int64_t> bins; // the display's input
    std::vector<std::complex<float>> values;
    std::vector<std::int32_t> bins32; // s32: what pmt.to_python() converts
    std::vector<double> freqs;        // Hz
    std::vector<float> power_db;
    std::vector<float> snr_db;

    void reserve(std::size_t count);
};

/*!
 * Robust mode: the entries of `tones` (reordered here by nearest bin, then frequency):
 * bins = nearest_bin(frequency), values = the amplitudes, freqs = center_freq +
 * signed_frequency(frequency) * rate / n, power_db of the amplitudes, their snr_db.
 */
void entries_from_tones(std::int64_t n,
                        double center_freq,
                        double rate,
                        std::vector<sparse_tone>& tones,
                        frame_entries& e);

/*!
 * Exact mode: from e.bins and e.values (as the engine's execute() returns them) the
 * rest: freqs = center_freq + signed_bin * rate / n, power_db, and snr_db NaN (exact
 * mode has no noise estimate).
 */
void entries_from_coefficients(std::int64_t n,
                               double center_freq,
                               double rate,
                               frame_entries& e);

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

} // namespace sparse_output
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_SPARSE_SPARSE_SPECTRUM_H */
