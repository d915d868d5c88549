/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Shared by the CPU and CUDA tests of the large FFT: references and a checked run.

#ifndef INCLUDED_GPUFFT_TEST_LARGE_FFT_CHECKS_H
#define INCLUDED_GPUFFT_TEST_LARGE_FFT_CHECKS_H

#include "large/large_fft_schedule.h"
#include "reference.h"
#include "test_harness.h"
#include <gnuradio/gpufft/dense_fft_plan.h>
#include <gnuradio/gpufft/large_fft_plan.h>
#include <iostream>

namespace gpufft_test {

//! Multi-dimensional DFT in double, one direct DFT per line along each axis.
template <typename T>
std::vector<cd> direct_dft_nd(const std::vector<std::complex<T>>& x,
                              const std::vector<std::int64_t>& shape,
                              int sign)
{
    std::vector<cd> a(x.begin(), x.end());
    const std::int64_t n = std::int64_t(a.size());
    std::int64_t inner = n;
    for (std::size_t ax = 0; ax < shape.size(); ++ax) {
        const std::int64_t len = shape[ax];
        inner /= len; // stride of this axis
        const std::int64_t outer = n / (len * inner);
        std::vector<cd> line(len);
        for (std::int64_t o = 0; o < outer; ++o)
            for (std::int64_t i = 0; i < inner; ++i) {
                const std::int64_t base = o * len * inner + i;
                for (std::int64_t k = 0; k < len; ++k)
                    line[k] = a[base + k * inner];
                const auto X = direct_dft(line.data(), len, sign);
                for (std::int64_t k = 0; k < len; ++k)
                    a[base + k * inner] = X[k];
            }
    }
    return a;
}

//! direct_dft_nd() by FFTW in double along each axis: for arrays too large for a direct
//! DFT of every line.
template <typename T>
std::vector<cd> fftw_dft_nd(const std::vector<std::complex<T>>& x,
                            const std::vector<std::int64_t>& shape,
                            int sign)
{
    using namespace gr::gpufft;
    std::vector<cd> a(x.begin(), x.end());
    const std::int64_t n = std::int64_t(a.size());
    std::int64_t inner = n;
    dense_fft_options o;
    o.backend = backend::cpu;
    o.precision = precision::double_;
    for (std::size_t ax = 0; ax < shape.size(); ++ax) {
        const std::int64_t len = shape[ax];
        inner /= len;
        const std::int64_t outer = n / (len * inner);
        dense_fft_plan plan(
            len, 1, sign < 0 ? direction::forward : direction::backward, o);
        std::vector<cd> line(len), X(len);
        for (std::int64_t q = 0; q < outer; ++q)
            for (std::int64_t i = 0; i < inner; ++i) {
                const std::int64_t base = q * len * inner + i;
                for (std::int64_t k = 0; k < len; ++k)
                    line[k] = a[base + k * inner];
                plan.execute(line.data(), X.data());
                for (std::int64_t k = 0; k < len; ++k)
                    a[base + k * inner] = X[k];
            }
    }
    return a;
}

/*!
 * Transforms fresh random data with `plan` out of place and in place, each time on a
 * poisoned output, and returns the larger relative error against the direct DFT.
 */
template <typename T>
double check_plan(gr::gpufft::large_fft_plan& plan, int sign)
{
    const auto shape = plan.shape();
    const std::int64_t n = plan.size();
    const auto seed = fresh_seed();
    const auto x = random_complex<T>(std::size_t(n), seed);
    const auto ref = direct_dft_nd(x, shape, sign);

    std::vector<std::complex<T>> out(n, poison<T>());
    plan.execute(x.data(), out.data());
    const double e_oop = rel_l2_error(out.data(), ref.data(), n);

    std::vector<std::complex<T>> inplace = x;
    plan.execute(inplace.data(), inplace.data());
    const double e_ip = rel_l2_error(inplace.data(), ref.data(), n);
    if (!(e_oop < 1) || !(e_ip < 1)) // show the schedule when it is plainly wrong
        std::cerr << "seed " << seed << "\n" << plan.describe();
    // NaN (an element never written) must fail: max() would hide it
    return (e_oop != e_oop || e_ip != e_ip) ? 1e300 : std::max(e_oop, e_ip);
}

//! Budget in bytes that gives pass buffers of `pass_elems` elements on a ring of
//! `slots`.
inline std::size_t budget_for_pass(std::int64_t pass_elems,
                                   std::size_t elem_bytes,
                                   int slots = gr::gpufft::detail::large_fft_max_slots)
{
    return std::size_t(pass_elems) * gr::gpufft::detail::large_fft_budget_units(slots) *
           elem_bytes;
}

} // namespace gpufft_test

#endif /* INCLUDED_GPUFFT_TEST_LARGE_FFT_CHECKS_H */
