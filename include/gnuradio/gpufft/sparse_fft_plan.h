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
#include <complex>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gr {
namespace gpufft {

/*!
 * exact: the signal is (close to) k-sparse in frequency; the k largest coefficients are
 * found and their values are exact to float precision.
 * robust: the noisy case (sFFT 4.0); not implemented yet, a plan asking for it throws.
 */
enum class sparse_fft_mode { exact, robust };

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
    sparse_fft_mode mode = sparse_fft_mode::exact;
    //! Seed of the random spectral permutations; 0 draws a fresh one per plan. Plans
    //! with the same n, k, seed and overrides use the same permutations on every backend.
    std::uint64_t seed = 0;
    //! Buckets B per hash; must divide n. 0: automatic.
    std::int64_t buckets = 0;
    //! Hashing loops (independent random permutations). 0: automatic.
    int loops = 0;
    //! Window width in samples (odd). 0: automatic (flat window, leakage ~1e-8).
    std::int64_t window = 0;
    //! Force the dense FFT + top-k path (otherwise chosen by the cost model).
    bool force_dense = false;
    //! Least-squares (CG) iterations that refine the values after the median, 1..64.
    //! 0: automatic (5).
    int value_iterations = 0;
    //! Host-input strategy of the CUDA backend.
    sparse_fft_transfer transfer = sparse_fft_transfer::automatic;
    //! Location method of the sparse path (the dense fallback ignores it).
    sparse_fft_location location = sparse_fft_location::phase;
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
 * a dense FFT + top-k instead and says so once on stderr (dense_fallback() is then true).
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
     * than k come back when the signal has fewer non-zero coefficients. Throws
     * std::invalid_argument when a sample the algorithm reads is not finite.
     */
    void execute(const std::complex<float>* x,
                 std::vector<std::int64_t>& bins,
                 std::vector<std::complex<float>>& values,
                 memory where = memory::host);

    std::int64_t size() const;
    std::int64_t k() const;
    //! The backend in use (never `automatic`).
    gpufft::backend backend() const;
    int device_id() const;
    //! True when this plan computes a dense FFT + top-k.
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

} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_SPARSE_FFT_PLAN_H */
