/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The CPU backend's passes over the spectrum, each a loop that vectorises, built twice
// (AVX2 + FMA, and the baseline x86-64) and chosen at run time where the compiler can:
// the same arithmetic as sensing_math.h, value for value up to the rounding of fused
// multiply-adds (which the CUDA backend uses too).

#ifndef INCLUDED_GPUFFT_SENSING_CPU_LOOPS_H
#define INCLUDED_GPUFFT_SENSING_CPU_LOOPS_H

#include "sensing/sensing_backend.h"
#include "sensing/sensing_math.h"
#include <complex>
#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

namespace gr {
namespace gpufft {
namespace detail {

/*!
 * An allocator of 64-byte aligned arrays: FFTW's SIMD codelets need aligned arrays (an
 * ESTIMATE plan for a 16-byte aligned one, as malloc gives, ran 25 % slower at 2^16),
 * and the loops here load whole vectors.
 */
template <typename T>
struct sensing_aligned_allocator {
    using value_type = T;
    sensing_aligned_allocator() = default;
    template <typename U>
    sensing_aligned_allocator(const sensing_aligned_allocator<U>&)
    {
    }
    T* allocate(std::size_t count)
    {
        return static_cast<T*>(::operator new(count * sizeof(T), std::align_val_t(64)));
    }
    void deallocate(T* p, std::size_t) { ::operator delete(p, std::align_val_t(64)); }
    template <typename U>
    bool operator==(const sensing_aligned_allocator<U>&) const
    {
        return true;
    }
    template <typename U>
    bool operator!=(const sensing_aligned_allocator<U>&) const
    {
        return false;
    }
};
template <typename T>
using sensing_aligned_vector = std::vector<T, sensing_aligned_allocator<T>>;

/*!
 * The window in time of k's spectral kernel: w[t] = sum_m c_m exp(2 pi i m t / n), real
 * as c is symmetric, so that the FFT of w x is X_w[q] = sum_m c_m X[q - m], the
 * sensing_power() of the CUDA backend. w: n floats.
 */
void sensing_make_window(const sensing_consts& k, float* w);

//! out[t] = x[t] w[t], t < n (the window applied to the samples); with power, also
//! each of the sensing_time_blocks sub-frames' sum of |x[t]|^2 over every stride-th
//! sample from its first to power[i] (stride 1: in float lanes, a few ulps from the sum
//! in double; else in double, in order).
void sensing_window(const std::complex<float>* x,
                    const float* w,
                    std::int64_t n,
                    std::complex<float>* out,
                    double* power = nullptr,
                    std::int64_t stride = 1);

//! P[i] = |X[i]|^2, i < len.
void sensing_magnitude_squared(const std::complex<float>* X, std::int64_t len, float* P);

//! sums[j] = the sum of P[64 j .. 64 j + 63] (the last one of what is left), j <
//! ceil(len / 64).
void sensing_block_sums(const float* P, std::int64_t len, float* sums);

/*!
 * sensing_magnitude_squared() and sensing_block_sums() in one pass, the same values,
 * and top[j] = the largest of P[64 j .. 64 j + 63], len a multiple of 64: the power
 * is summed while it is in registers, and the threshold pass passes over stretches
 * whose largest value is under its level without reading them.
 */
void sensing_power_sums(
    const std::complex<float>* X, std::int64_t len, float* P, float* sums, float* top);

/*!
 * iv[j] = sensing_log_power(P[j stride]) in fixed point (2^-16 nepers), j < m, values
 * under `least` held at it, and their sum (the floor's first, uncensored pass). False
 * (iv and total unspecified) when a value is not finite.
 */
bool sensing_log_fixed(const float* P,
                       std::int64_t stride,
                       std::int64_t m,
                       float least,
                       std::int32_t* iv,
                       std::int64_t& total);

//! The sum and count of iv[j] < cut, j < m.
void sensing_censored_sum(const std::int32_t* iv,
                          std::int64_t m,
                          std::int32_t cut,
                          std::int64_t& total,
                          std::int64_t& count);

/*!
 * The i < len with P[i] > low, ascending, into idx (len entries at most); returns their
 * count. Stretches of 64 bins with none are passed over by a vectorised test.
 */
std::int64_t
sensing_candidates(const float* P, std::int64_t len, float low, std::int32_t* idx);

//! sensing_candidates() for len a multiple of 64, top[j] the largest of P[64 j ..
//! 64 j + 63] (sensing_power_sums()): stretches with top[j] <= low are not read.
std::int64_t sensing_candidates_top(
    const float* P, const float* top, std::int64_t len, float low, std::int32_t* idx);

/*!
 * sum over s in [a, b) of P[s] / (f0 + (x(s) - i) (f1 - f0)), x(s) = (s + 0.5) inv -
 * 0.5: the bins of one stretch where the floor is one line (sensing_floor_at); b - a <
 * 2^31. Each term in float (8 a vector; 1e-7 relative), summed in double per 1024 bins:
 * the sum is read against a level 2 dB or more over the floor, so 1e-5 of it is no
 * matter.
 */
double sensing_ratio_sum(const float* P,
                         std::int64_t a,
                         std::int64_t b,
                         double inv,
                         double i,
                         double f0,
                         double f1);

/*!
 * The threshold pass of a block of shifted bins [s0, s0 + len), len a multiple of 64,
 * top[j] the largest of P[64 j .. 64 j + 63] (sensing_power_sums()), P and top from
 * the block's first bin: cand[j] = the bits of P[64 j + i] > low in the stretches with
 * top[j] > low (0 elsewhere), and their count returned. Where that count is at most
 * `dense`, above[j] = cand[j] and the bits of double(P) > k.eta x sensing_floor_at(k,
 * f, s) (the same floors, bit for bit: sensing_above() without the DC mask). -1 where
 * the CPU has no AVX-512 (nothing written).
 */
std::int64_t sensing_top_bits(const sensing_consts& k,
                              const double* f,
                              const float* P,
                              const float* top,
                              std::int64_t s0,
                              std::int64_t len,
                              float low,
                              std::int64_t dense,
                              std::uint64_t* cand,
                              std::uint64_t* above);

/*!
 * Bit i % 64 of words[i / 64] set where double(P[i]) > eta F[i] (sensing_above()'s test
 * on floors from sensing_floor_line()), i < len, len a multiple of 64 or the words'
 * last bits clear.
 */
void sensing_above_bits(
    const float* P, const double* F, double eta, std::int64_t len, std::uint64_t* words);

/*!
 * A band's sums and edges (the reference: tests/sensing/sensing_band_reference.h), its
 * floors in a buffer (F[s], s in [b.first, b.last]), the power P and the windowed
 * spectrum X (natural order, for a narrow core's lobe) in arrays: the same sums, in the
 * same order, so the same values to the bit, with the core's lanes 4 wide, the peak's bin
 * found 8 bins a test and the edges' blocks vectorised (the template's loops, through its
 * lambdas, ran one scalar bin at a time: 20 % of detect() on an LTE carrier of 30000
 * bins). blocks_scratch: (core bins) / 64 doubles for the core's sums of whole 64 bins
 * (null: a buffer of the calling thread's).
 */
void sensing_band_sums_buffered(sensing_band& b,
                                const sensing_consts& k,
                                const float* P,
                                const double* F,
                                const std::complex<float>* X,
                                bandwidth_rule rule,
                                double xdb_ratio,
                                double* blocks_scratch = nullptr);

//! out[t - a] = f0 + (x(t) - i) (f1 - f0), x(t) = (t + 0.5) inv - 0.5, t in [a, b): one
//! line of sensing_floor_at(), the same arithmetic; b - a < 2^31.
void sensing_floor_line(std::int64_t a,
                        std::int64_t b,
                        double inv,
                        double i,
                        double f0,
                        double f1,
                        double* out);

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_SENSING_CPU_LOOPS_H */
