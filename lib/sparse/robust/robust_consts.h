/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Robust mode's constants and robust_consts, the trivially copyable set every kernel
// and the planner share (no arithmetic: sparse_params.h includes only this).

#ifndef INCLUDED_GPUFFT_ROBUST_CONSTS_H
#define INCLUDED_GPUFFT_ROBUST_CONSTS_H

#include "sparse/common/sparse_math.h"

namespace gr {
namespace gpufft {
namespace detail {

//! Hashes per loop at most: the unshifted one plus one per location round.
constexpr int robust_max_hashes = 32;
//! Terms of the cosine-sum time windows (Blackman-Harris has four).
constexpr int robust_window_terms = 4;
//! The bucket noise is the median over at most this many (loop, bucket) powers of the
//! unshifted hashes: every robust_noise_stride()-th. Its median then scatters by ~1%
//! (0.07 dB), and one thread block selects it in shared memory.
constexpr int robust_noise_samples = 8192;
//! A tone is tested as window leakage of the stronger ones within this many bins.
constexpr int robust_tone_reach = 64;

//! The stride over the loops x B unshifted buckets that leaves <= robust_noise_samples.
GPUFFT_HD inline std::int64_t robust_noise_stride(std::int64_t loop_buckets)
{
    return (loop_buckets + robust_noise_samples - 1) / robust_noise_samples;
}

//! Everything a robust-mode kernel needs; trivially copyable (kernel argument).
struct robust_consts {
    std::int64_t n = 0;
    std::int64_t B = 0;  //!< buckets; divides n
    std::int64_t nb = 0; //!< n / B
    int loops = 0;       //!< independent permutations
    int rounds = 0;      //!< refinement rounds of the location (Dmax)
    int cands = 0;       //!< candidate locations per round (t)
    int hashes = 0;      //!< per loop: 1 + rounds (one shifted hash a round)
    //! Time offset of each hash of a loop: offset[0] = 0, round d's at 1 + d.
    std::int64_t offset[robust_max_hashes] = {};
    double ghat_scale = 0; //!< of window_response()
    double span0 = 0;      //!< half-width of the first search interval, in buckets
    double shrink = 0;     //!< the interval shrinks by this factor per round
    double vote_turns = 0; //!< a shift votes for a candidate within this phase error
    //! Time window a_0 - a_1 cos + a_2 cos 2 - a_3 cos 3 (a_m = 0 past its terms).
    float window_a[robust_window_terms] = {};
    int window_terms = 0; //!< 0: no window
    //! The window's transform W(nu) = sum_m c_m D(nu - m), D the transform of n ones:
    //! wt[m + 3] = c_m (-1)^m exp(i pi m (n - 1) / n) / n (see robust_window_transform).
    double wt_r[2 * robust_window_terms - 1] = {};
    double wt_i[2 * robust_window_terms - 1] = {};
    double wc[2 * robust_window_terms - 1] = {}; //!< c_m itself
    int lobe = 0;      //!< half-width of the main lobe in bins (a tone's coefficients)
    int joint_fit = 1; //!< the dense path fits close tones together (robust_pairs.h)
};

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_ROBUST_CONSTS_H */
