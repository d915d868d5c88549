/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_ROBUST_CHECK_H
#define INCLUDED_GPUFFT_ROBUST_CHECK_H

#include "sparse/common/sparse_math.h" // GPUFFT_HD
#include <gnuradio/gpufft/dense_fft_plan.h>
#include <complex>
#include <cstdint>
#include <vector>

namespace gr {
namespace gpufft {
namespace detail {

/*!
 * The sublinear path's self-check (docs/sparse_fft_robust.md, "Self-check"): a frame
 * whose answer the buckets cannot vouch for is redone on the dense path. Two tests, both
 * O(B loops + segments x L log L), never O(n):
 *
 * floor: the buckets' noise P is the median bucket, and a bucket sums n / B bins drawn
 *   at random by the permutation, so P is the *mean* power of the bins that are not
 *   tones. Where a modulated carrier or a wideband signal fills part of the band, that
 *   mean stands far above the band's median bin, which is the floor the dense path
 *   uses, and the threshold with it: a carrier 60-80 dB over the floor then came back
 *   as nothing. robust_floor_probe measures the median bin from a few short windowed
 *   periodograms; a bucket floor more than robust_floor_excess over it fails the frame.
 * residual: after the found coefficients are taken out, a bucket of the unshifted hash
 *   that still holds more than robust_residual_margin x the detection threshold
 *   (eta x P) and more than robust_unexplained of what it held before is energy the
 *   answer does not explain (a tone not located, or a wideband signal); the frame fails
 *   when most loops hold one. The margin keeps out a found tone's lobe coefficients
 *   that stay just under their own threshold (eta x P over the filter's gain at their
 *   place: up to ~2 x eta P; 50 tones at 59 dB per bin left dozens at 1-2 x), and the
 *   share what a found tone's estimate leaves behind (a few % of its bucket). The
 *   planner sizes B so that a tone at min_snr_db stands ~2.8 x eta P in its bucket, so
 *   one at min_snr_db + 6 dB that was not found stands ~11 x.
 *
 * The leak_floor raise of P (the filter's dynamic range under a very strong bucket) is
 * not a failure: the strong tone behind it is found, so the answer is not empty.
 */
enum class robust_check { passed, floor, residual };

//! A bucket floor over the probe's by more than this (3 dB) fails the frame: a tone at
//! min_snr_db + 3 dB over the band's median floor still clears the sparse threshold.
constexpr double robust_floor_excess = 2.0;

//! The verdict from the figures the backends measure. raw_floor: the buckets' median
//! noise before any leak_floor raise, and probe_floor: robust_floor_probe::floor(), both
//! per bin of an n-point FFT (rectangular window, |X|^2 units); unexplained_loops: the
//! loops whose unshifted hash holds a bucket robust_bucket_unexplained() flags.
robust_check
robust_verdict(double raw_floor, double probe_floor, int unexplained_loops, int loops);

//! A residual bucket keeps more than this share of its power before the subtraction,
//! and more than robust_residual_margin x eta P.
constexpr double robust_unexplained = 0.25;
constexpr double robust_residual_margin = 4.0;

//! The residual test of one bucket: |residual|^2 res2 against eta P (eta_P) and its
//! power before the subtraction z2. Host and device (robust_kernels.cu) use the same
//! rule.
GPUFFT_HD inline bool robust_bucket_unexplained(double res2, double z2, double eta_P)
{
    return res2 > robust_residual_margin * eta_P && res2 > robust_unexplained * z2;
}

//! Words for logs and docs: "passed", "floor", "residual".
const char* to_string(robust_check c);

/*!
 * The band's median floor from `segments` windowed periodograms of `length` contiguous
 * samples spread evenly over the frame, averaged per bin (Welch), so that it follows
 * the frame's time average as the dense FFT does. Reads segments x length samples.
 */
class robust_floor_probe
{
public:
    //! k: a plan's k; the segments are long enough that k tones' main lobes fill at
    //! most an eighth of their bins.
    robust_floor_probe(std::int64_t n, std::int64_t k);

    std::int64_t segments() const { return d_segments; }
    std::int64_t length() const { return d_length; }
    //! First sample index of segment s.
    std::int64_t start(std::int64_t s) const;
    //! Samples read per frame.
    std::int64_t samples_read() const { return d_segments * d_length; }

    //! The floor of the frame x (host memory, n samples); throws std::invalid_argument
    //! on a non-finite sample among those read.
    double floor(const std::complex<float>* x);
    //! The same from the segments already copied one after the other (CUDA device
    //! input): segments() x length() samples.
    double floor_of_segments(const std::complex<float>* segments);
    /*!
     * The floor from the segments' periodograms already summed per bin (a GPU's):
     * power[length()], reordered in place.
     */
    double floor_of_power(float* power) const;
    //! The floor from the median of those per-bin sums (rank length() / 2).
    double floor_of_median(float median) const;
    //! The window each segment is multiplied by, length() values.
    const std::vector<float>& window() const { return d_window; }

private:
    std::int64_t d_n, d_segments, d_length;
    std::vector<float> d_window;
    double d_scale = 0; //!< median of the averaged bins -> floor per bin of n
    dense_fft_plan d_fft;
    std::vector<std::complex<float>> d_in, d_out;
    std::vector<float> d_power;
};

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_ROBUST_CHECK_H */
