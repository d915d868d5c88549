/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_SPARSE_PARAMS_H
#define INCLUDED_GPUFFT_SPARSE_PARAMS_H

#include "sparse/common/sparse_math.h"
#include "sparse/robust/robust_consts.h"
#include <gnuradio/gpufft/sparse_fft_plan.h>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace gr {
namespace gpufft {
namespace detail {

/*!
 * A sparse FFT plan's parameters, drawn once per plan: the same on every backend for the
 * same (n, k, seed, overrides), which is what makes CPU and CUDA results comparable.
 */
struct sparse_params {
    sparse_consts c;
    std::int64_t k = 0;
    std::int64_t half_window = 0; //!< taps t = -half_window .. half_window
    std::int64_t window = 0;      //!< 2 half_window + 1
    double window_sigma = 0;      //!< the Gaussian's std. dev., in samples
    std::uint64_t seed = 0;
    std::vector<std::uint64_t> sigma, sigma_inv,
        tau;                    //!< per loop: y[t] = x[sigma t + tau]
    int rounds = 0;             //!< peeling rounds at most
    int value_passes = 0;       //!< least-squares (CG) iterations after the median
    std::int64_t max_found = 0; //!< capacity for located tones
    double threshold_rel = 0;   //!< buckets below this x the largest are empty
    bool dense = false;
    std::string dense_reason;
    //! Voting location (sparse_fft_location::voting): per loop the vote_cutoff largest
    //! non-empty level-0 buckets vote; a frequency needs vote_threshold votes.
    bool voting = false;
    std::int64_t vote_cutoff = 0;
    int vote_threshold = 0;

    //! Robust mode (sFFT 4.0): the location/estimation constants, the detection
    //! threshold factor eta = ln(n / false_alarm) over an estimate's noise, buckets
    //! below locate_eta x the bucket noise are not located, and the outer rounds.
    bool robust = false;
    robust_consts rc;
    sparse_fft_window window_kind = sparse_fft_window::none;
    double eta = 0;
    double locate_eta = 0;
    int outer_rounds = 0;
    //! The bucket noise is measured again after round 0 only: that round takes out
    //! nearly every tone, so the median changes little after later ones (the refine
    //! passes read none), and the final threshold measures it once more.
    bool noise_after_round(int round) const { return round == 0 && outer_rounds > 1; }
    //! Passes of EstimateValues over everything found, each on the residual the last
    //! one left. One pass leaves two coefficients that share buckets in most loops
    //! pulling each other (an off-grid tone's lobe then fits 0.05-0.15 bin off even
    //! without noise); a second pass removes that.
    int refine_passes = 0;
    double min_snr_db = 0;
    double false_alarm = 0;
    //! Sum of the bucket filter's squared taps, and the mean square of the time window:
    //! the bucket noise is sigma^2 x window_power x taps_power for white noise of
    //! variance sigma^2 per sample.
    double taps_power = 0;
    double window_power = 1;
    //! The sparse path's dynamic range: the filter's truncation leaks exp(-K^2 / 2) of
    //! every bucket's value into the others (K = half_window / sigma), so a floor below
    //! that squared times the strongest bucket is raised to it.
    double leak_floor = 1e-12;

    int hashes() const { return robust ? rc.loops * rc.hashes : c.loops * c.levels; }
    //! Sample index of hash h = loop * levels + level (robust: loop * rc.hashes +
    //! hash), tap t (t in [-half_window, half_window]).
    std::uint64_t sample_index(int h, std::int64_t t) const;
    //! sigma * (t + a_level) + tau for t = 0, and the step sigma * B, both mod n.
    std::uint64_t hash_start(int h) const;
    //! Samples read per execute.
    std::int64_t samples_read() const
    {
        return dense ? c.n : std::int64_t(hashes()) * window;
    }
};

//! Validates n, k and the options (std::invalid_argument naming the parameter) and runs
//! the cost model for the backend `used` (only the sparse-or-dense choice depends on it).
sparse_params choose_sparse_params(std::int64_t n,
                                   std::int64_t k,
                                   const sparse_fft_options& o,
                                   backend used);

//! The plans' random stream: splitmix64, advancing state.
std::uint64_t splitmix64(std::uint64_t& state);
//! Smallest divisor of n in [lo, hi] (and <= n/2), or 0.
std::int64_t divisor_in(std::int64_t n, std::int64_t lo, std::int64_t hi);

//! Every sample index the hashes read, hash after hash, tap after tap: the host-input
//! gather list of the CUDA backends.
std::vector<std::uint64_t> gather_indices(const sparse_params& p);

//! Draws each loop's sigma (invertible mod n), its inverse and tau from p.seed; a draw
//! that `accept` (if given) refuses for loop r is drawn again from the same stream.
void draw_permutations(sparse_params& p,
                       int loops,
                       const std::function<bool(const sparse_params&, int)>& accept = {});

//! Every check of n, k and the options (std::invalid_argument naming the parameter);
//! k, min_snr_db, false_alarm and mode through their one owner in sparse_fft_plan.h.
void validate_sparse_options(std::int64_t n, std::int64_t k, const sparse_fft_options& o);

//! Exact mode's planner: B, loops, levels and offsets, the sparse-or-dense choice.
void choose_exact_params(sparse_params& p, const sparse_fft_options& o, backend used);

//! Robust mode's planner (called by choose_sparse_params once n, k and the common
//! options are valid): B from the sensitivity asked for, the location rounds, the
//! shifts and the sparse-or-dense choice.
void choose_robust_params(sparse_params& p, const sparse_fft_options& o, backend used);

//! The time window w's constants in rc (taps, transform, main lobe) for n-point
//! frames; returns the window's mean square (1 without a window).
double set_robust_window(robust_consts& rc, std::int64_t n, sparse_fft_window w);

//! Window taps G[t + half_window]: sin(pi t / B) / (pi t) x exp(-t^2 / (2 sigma^2)).
std::vector<float> make_window(const sparse_params& p);

//! Robust mode's part of describe_params().
std::string describe_robust(const sparse_params& p);

//! One line: B, loops, levels, offsets, window, samples read, or why dense.
std::string describe_params(const sparse_params& p);

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_SPARSE_PARAMS_H */
