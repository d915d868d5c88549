/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_POWER_SPECTRAL_WINDOW_H
#define INCLUDED_GPUFFT_POWER_SPECTRAL_WINDOW_H

#include <array>
#include <complex>
#include <cstdint>
#include <string>

namespace gr {
namespace gpufft {
namespace power {

enum class window_type { none, hann, hamming, blackman, blackman_harris, flattop };

//! "none" (or "rectangular"), "hann", "hamming", "blackman", "blackman-harris",
//! "flattop"; anything else throws std::invalid_argument naming the choices.
window_type parse_window(const std::string& name);
std::string to_string(window_type w);

/*!
 * A periodic (DFT-even) cosine-sum window w[n] = sum_k (-1)^k a_k cos(2 pi k n / N),
 * applied without storing it: a stored float window of a 2^32-point frame would take
 * 16 GiB. Values come from phasor recurrences re-anchored every few thousand samples,
 * accurate to ~1e-12, and the sums the normalisation needs are exact closed forms.
 */
class spectral_window
{
public:
    spectral_window(window_type type, std::int64_t n);

    window_type type() const { return d_type; }
    std::int64_t size() const { return d_n; }
    bool is_rectangular() const { return d_type == window_type::none; }

    //! w[i], computed directly (reference for tests and callers that need a few values).
    double value(std::int64_t i) const;
    //! sum_n w[n]: the coherent gain, so a tone's |X|^2 is (A * sum w)^2.
    double sum() const;
    //! sum_n w[n]^2: the noise gain, so white noise's E|X|^2 is sigma^2 * sum w^2.
    double sum_of_squares() const;

    /*!
     * The cosine-sum coefficients with their signs folded in, w[n] = sum_{k < terms()}
     * coefficients()[k] * cos(2 pi k n / N): what the GPU path computes the window from.
     */
    const std::array<double, 5>& coefficients() const { return d_a; }
    int terms() const { return d_terms; }

    //! Multiplies x[0 .. end-begin) by w[begin .. end).
    void apply(std::complex<float>* x, std::int64_t begin, std::int64_t end) const;
    //! Multiplies a whole frame of size() samples by the window, on `threads` threads.
    void apply_frame(std::complex<float>* frame, int threads) const;

private:
    window_type d_type;
    std::int64_t d_n;
    std::array<double, 5> d_a{}; // a_0 .. a_4, signs folded in
    int d_terms = 1;
};

} // namespace power
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_POWER_SPECTRAL_WINDOW_H */
