/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_SPARSE_FFT_PLAN_H
#define INCLUDED_GPUFFT_SPARSE_FFT_PLAN_H

#include <gnuradio/gpufft/api.h>
#include <gnuradio/gpufft/backend.h>
#include <gnuradio/gpufft/log.h>
#include <complex>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gr {
namespace gpufft {

/*!
 * robust (default): signals as they come from a radio: a noise floor, tones between FFT
 *   bins, an unknown number of them (k is an upper bound). sFFT 4.0's noisy-case
 *   algorithm behind a time window with a compact transform; only tones that stand above
 *   the estimated noise floor (false_alarm) are reported (docs/sparse_fft.md, "Robust
 *   mode").
 * exact: the signal is exactly k-sparse in frequency (on-grid tones, no noise); the k
 *   largest coefficients are found and their values are exact to float precision. A frame
 *   that is not exactly sparse is flagged (sparse_fft_plan::not_sparse()) and only the
 *   coefficients the residual vouches for come back.
 */
enum class sparse_fft_mode { robust, exact };

/*!
 * Time window of robust mode, applied to the samples as they are read (never as an
 * n-sized pass), so that a tone between bins occupies a handful of bins instead of all.
 * automatic: blackman_harris in robust mode, none in exact mode.
 * blackman_harris: 4-term Blackman-Harris (sidelobes -92 dB, 7 bins for an on-grid tone).
 * hann: sidelobes -31 dB falling 18 dB per octave, 3 bins; 1.2 dB more sensitive.
 * none: rectangular; only for on-grid tones.
 */
enum class sparse_fft_window { automatic, none, hann, blackman_harris };

/*!
 * A tone found by sparse_fft_plan::detect(): x[t] ~ (amplitude / n) exp(2 pi i frequency
 * t / n).
 */
struct sparse_tone {
    //! In fractional bins, [0, n).
    double frequency = 0;
    //! n a for a tone a exp(2 pi i f t / n): an on-grid tone's amplitude is X[f].
    std::complex<double> amplitude;
    //! |amplitude|^2 over the noise floor of one bin of an n-point FFT (rectangular
    //! window), in dB.
    double snr_db = 0;
};

//! How host-resident input reaches the GPU (CUDA backend only).
enum class sparse_fft_transfer {
    automatic, //!< measured on the first host call: the faster of the two below
    gather,    //!< copy only the samples the algorithm reads, through pinned staging
    full_copy  //!< copy all n samples, then run as for device input
};

/*!
 * How tones are located in the hashed buckets (docs/sparse_fft.md, "Location").
 * phase: from the phase advance between time-shifted hashes, with peeling; O(B) per
 *   loop, the fast path.
 * voting: the papers' (sFFT 1.0/2.0, cusFFT, GPU-SFFT) location: the largest buckets of
 *   each loop vote for every frequency they could hold; frequencies voted for in every
 *   loop are estimated and checked. O(n k / B) per call: the reference, not the fast
 * path.
 */
enum class sparse_fft_location { phase, voting };

/*!
 * Options of a sparse FFT plan. Every tuning value defaults to 0 = chosen by the cost
 * model from n and k (see docs/sparse_fft.md); a non-zero value overrides it.
 */
struct sparse_fft_options {
    gpufft::backend backend = backend::automatic;
    int device_id = 0;
    sparse_fft_mode mode = sparse_fft_mode::robust;
    //! Robust mode: the weakest tone to find, as its power over the noise floor of one
    //! bin of an n-point FFT (rectangular window), in dB; [0, 200]. The planner sizes the
    //! buckets from it: reading m of n samples costs ~10 log10(n / m) dB of sensitivity,
    //! so low values lead to the dense FFT + threshold path.
    double min_snr_db = 20;
    //! Robust mode: the chance of one or more false tones in a frame of pure noise;
    //! (0, 0.5]. The per-bin threshold is the noise floor x ln(n / false_alarm).
    double false_alarm = 0.01;
    //! Robust mode: the time window for tones between bins.
    sparse_fft_window window = sparse_fft_window::automatic;
    //! Robust mode, dense path: fit tones that share the window's main lobe together on
    //! the unwindowed bins, which tells carriers apart down to about one bin. Off, each
    //! keeps its own fit and closer tones merge: faster on the GPU, where a frame with
    //! such tones spends a cluster's fit (0.1 to 1 ms) on it (docs/sparse_fft_robust.md).
    bool resolve_close_tones = true;
    //! Seed of the random spectral permutations; 0 draws a fresh one per plan. Plans
    //! with the same n, k, seed and overrides use the same permutations on every backend.
    std::uint64_t seed = 0;
    //! Buckets B per hash; must divide n and be >= k. 0: automatic.
    std::int64_t buckets = 0;
    //! Hashing loops (independent random permutations). 0: automatic.
    int loops = 0;
    //! Width of the bucket filter in samples (odd), at least its minimum for n and B
    //! (docs/sparse_fft.md). 0: automatic.
    std::int64_t filter_width = 0;
    //! Force the dense FFT + top-k path (otherwise chosen by the cost model).
    bool force_dense = false;
    //! Least-squares (CG) iterations that refine the values after the median, 1..64.
    //! 0: automatic (5).
    int value_iterations = 0;
    //! Host-input strategy of the CUDA backend.
    sparse_fft_transfer transfer = sparse_fft_transfer::automatic;
    //! Location method of the sparse path (the dense fallback ignores it).
    sparse_fft_location location = sparse_fft_location::phase;
    //! Where the plan's messages go (gnuradio/gpufft/log.h); empty: stderr.
    gpufft::log_handler log;
};

/*!
 * What a plan did with the frames it ran (sparse_fft_plan::stats()). Robust mode's
 * sublinear path checks every frame's answer against the frame itself (the buckets'
 * noise against the band's median floor, and the energy its tones leave unexplained;
 * docs/sparse_fft_robust.md, "Self-check"); a frame that fails is redone on the dense
 * FFT + threshold path. So an empty answer means "nothing above the threshold" on every
 * path.
 */
struct sparse_fft_stats {
    //! Frames run by execute() and detect().
    std::uint64_t frames = 0;
    //! Frames the sublinear path's self-check failed, redone on the dense path
    //! (unless unverified): floor_failed + residual_failed.
    std::uint64_t redone_dense = 0;
    //! The buckets' noise stood over 3 dB above the band's median floor (a modulated or
    //! wideband signal fills part of the band): the sparse threshold would sit too high.
    std::uint64_t floor_failed = 0;
    //! A bucket held energy above the threshold that the found tones do not explain,
    //! in every loop.
    std::uint64_t residual_failed = 0;
    //! Of redone_dense, the frames that kept the sparse answer because a dense path of
    //! n does not fit in this host's (or device's) memory; the log says so once.
    std::uint64_t unverified = 0;
};

/*!
 * The k largest-magnitude coefficients of the n-point DFT of x, in time sublinear in n
 * when x is (nearly) k-sparse in frequency:
 *   X[f] = sum_t x[t] exp(-2 pi i f t / n)   (unnormalized, numpy.fft.fft's convention).
 *
 * Random spectral permutation, flat window, hashing into B buckets, one batched B-point
 * FFT of every hash, phase-based location with peeling across loops (or, with
 * options.location = voting, the papers' voting across loops, confirmed by the same
 * single-tone test), values by the median over hashes refined by least squares
 * (docs/sparse_fft.md). Where the cost model says a
 * dense FFT is cheaper, or n has no usable bucket count divisor (a prime), the plan runs
 * a dense FFT + top-k instead and says so to options.log (dense_fallback() is then true).
 *
 * The CPU backend runs the same algorithm with the same permutations as the CUDA one.
 * execute() allocates nothing in steady state; one plan must not run execute() from two
 * threads at once.
 */
class GPUFFT_API sparse_fft_plan
{
public:
    //! Throws std::invalid_argument naming the parameter (n, k, mode, buckets, ...).
    sparse_fft_plan(std::int64_t n,
                    std::int64_t k,
                    const sparse_fft_options& options = sparse_fft_options());
    ~sparse_fft_plan();
    sparse_fft_plan(sparse_fft_plan&&) noexcept;
    sparse_fft_plan& operator=(sparse_fft_plan&&) noexcept;
    sparse_fft_plan(const sparse_fft_plan&) = delete;
    sparse_fft_plan& operator=(const sparse_fft_plan&) = delete;

    /*!
     * x: n samples in host memory or (CUDA backend) device memory. On return `bins`
     * holds at most k frequencies in ascending order and `values` their X[f]. Fewer
     * than k come back when the signal has fewer non-zero coefficients (exact mode) or
     * fewer stand above the noise floor (robust mode: the coefficients of the detected
     * tones, see detect()). Throws std::invalid_argument when a sample the algorithm
     * reads is not finite.
     */
    void execute(const std::complex<float>* x,
                 std::vector<std::int64_t>& bins,
                 std::vector<std::complex<float>>& values,
                 memory where = memory::host);

    /*!
     * The tones of x, at most k, strongest first: fractional frequency, complex
     * amplitude and SNR (sparse_tone). Robust mode: tones above the noise floor at the
     * plan's false_alarm; exact mode: one tone per located coefficient.
     */
    void detect(const std::complex<float>* x,
                std::vector<sparse_tone>& tones,
                memory where = memory::host);

    //! Exact mode: true when the last frame was not exactly sparse (energy left that the
    //! located coefficients do not explain); only vouched-for coefficients came back.
    bool not_sparse() const;
    //! Counts since the plan was made (sparse_fft_stats). The first frame redone on the
    //! dense path allocates that path (n-sized buffers) and plans its FFT.
    sparse_fft_stats stats() const;
    //! Robust mode: the noise floor of the last frame, per bin of an n-point FFT
    //! (rectangular window), as power (|X|^2 units); 0 in exact mode.
    double noise_floor() const;

    std::int64_t size() const;
    std::int64_t k() const;
    //! The backend in use (never `automatic`).
    gpufft::backend backend() const;
    int device_id() const;
    sparse_fft_mode mode() const;
    //! True when this plan computes a dense FFT (+ top-k, or + threshold in robust mode).
    bool dense_fallback() const;
    //! The parameters chosen by the cost model, on one line.
    std::string describe() const;
    //! Samples of x read per execute (the host-gather volume).
    std::int64_t samples_read() const;

    class impl;

private:
    std::unique_ptr<impl> d_impl;
};

//! Smallest n a plan accepts.
constexpr std::int64_t sparse_fft_min_size = 16;

/*!
 * The one owner of the sparse FFT's names and ranges: the plan, the sparse_fft block,
 * the Python binding and the bench check through these, so a bad value reads the same
 * everywhere. Each throws std::invalid_argument naming the parameter, the value and the
 * range (the names: lib/sparse/common/sparse_names.cc).
 */
//! "robust" or "exact".
GPUFFT_API sparse_fft_mode parse_sparse_fft_mode(const std::string& name);
//! The accepted mode names, for messages: "\"robust\" or \"exact\"".
GPUFFT_API std::string sparse_fft_mode_names();
GPUFFT_API std::string to_string(sparse_fft_mode m);
//! "auto", "none", "hann" or "blackman-harris" (also "blackman_harris").
GPUFFT_API sparse_fft_window parse_sparse_fft_window(const std::string& name);
GPUFFT_API std::string to_string(sparse_fft_window w);
//! "'auto', 'none', 'hann' or 'blackman-harris'", for messages.
GPUFFT_API std::string sparse_fft_window_names();
//! "auto", "gather" or "copy".
GPUFFT_API sparse_fft_transfer parse_sparse_fft_transfer(const std::string& name);
GPUFFT_API std::string to_string(sparse_fft_transfer t);
GPUFFT_API std::string sparse_fft_transfer_names();
//! "phase" or "voting".
GPUFFT_API sparse_fft_location parse_sparse_fft_location(const std::string& name);
GPUFFT_API std::string to_string(sparse_fft_location l);
GPUFFT_API std::string sparse_fft_location_names();
//! k in [1, n-1] (exact mode) or [1, n/4] (robust mode: more tones is not sparse).
GPUFFT_API void check_sparse_fft_k(std::int64_t k, std::int64_t n, sparse_fft_mode mode);
//! min_snr_db in [0, 200] dB.
GPUFFT_API void check_sparse_fft_min_snr_db(double min_snr_db);
//! false_alarm in (0, 0.5].
GPUFFT_API void check_sparse_fft_false_alarm(double false_alarm);

} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_SPARSE_FFT_PLAN_H */
