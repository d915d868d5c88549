/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Dense FFT checks shared by the CPU and CUDA test programs: one plan, fresh random
// input, every output element compared with a double-precision direct DFT.

#ifndef INCLUDED_GPUFFT_DENSE_FFT_CHECKS_H
#define INCLUDED_GPUFFT_DENSE_FFT_CHECKS_H

#include "reference.h"
#include "test_harness.h"
#include <gnuradio/gpufft/dense_fft_plan.h>

namespace gpufft_test {

//! Tolerance on the relative l2 error: a few ulps times log2(n).
template <typename T>
double dense_tolerance(std::int64_t n)
{
    const double eps = std::is_same<T, float>::value ? 6e-8 : 1.2e-16;
    return 8 * eps * (std::log2(double(n)) + 2);
}

/*!
 * `batch` transforms of length n, with stride `stride` (distance n*stride, so with a
 * stride the transforms interleave: element i of transform b sits at b + i*stride when
 * stride == batch).
 */
template <typename T>
void check_dense(gr::gpufft::backend be,
                 std::int64_t n,
                 std::int64_t batch,
                 gr::gpufft::direction dir,
                 bool in_place,
                 std::int64_t stride = 1,
                 std::int64_t distance = 0)
{
    using namespace gr::gpufft;
    dense_fft_options opt;
    opt.backend = be;
    opt.precision =
        std::is_same<T, float>::value ? precision::single : precision::double_;
    opt.stride = stride;
    opt.distance = distance;
    dense_fft_plan plan(n, batch, dir, opt);
    GPUFFT_CHECK(plan.backend() == be);
    const std::int64_t dist = distance ? distance : n * stride;
    GPUFFT_CHECK_EQ(plan.extent(), (batch - 1) * dist + (n - 1) * stride + 1);

    const std::size_t len = std::size_t(plan.extent());
    const auto seed = fresh_seed();
    const auto x = random_complex<T>(len, seed);
    std::vector<std::complex<T>> out(len, poison<T>());
    if (in_place) {
        out = x;
        plan.execute(out.data(), out.data());
    } else {
        plan.execute(x.data(), out.data());
    }

    std::vector<std::complex<T>> column(n), got(n);
    for (std::int64_t b = 0; b < batch; ++b) {
        for (std::int64_t i = 0; i < n; ++i) {
            column[i] = x[b * dist + i * stride];
            got[i] = out[b * dist + i * stride];
        }
        GPUFFT_CHECK(all_finite(got.data(), got.size()));
        const auto ref = direct_dft(column.data(), n, int(dir));
        const double err = rel_l2_error(got.data(), ref.data(), n);
        if (!(err <= dense_tolerance<T>(n)))
            GPUFFT_FAIL("n=" << n << " batch=" << batch << " transform " << b
                             << ": rel l2 error " << err << " > " << dense_tolerance<T>(n)
                             << " (seed " << seed << ")");
    }
    if (!in_place) // out of place must leave the input alone
        GPUFFT_CHECK(x == random_complex<T>(len, seed));
}

//! Forward then backward returns n * x.
template <typename T>
void check_round_trip(gr::gpufft::backend be, std::int64_t n, std::int64_t batch)
{
    using namespace gr::gpufft;
    dense_fft_options opt;
    opt.backend = be;
    opt.precision =
        std::is_same<T, float>::value ? precision::single : precision::double_;
    dense_fft_plan fwd(n, batch, direction::forward, opt);
    dense_fft_plan bwd(n, batch, direction::backward, opt);
    const auto x = random_complex<T>(std::size_t(n * batch), fresh_seed());
    std::vector<std::complex<T>> y(x.size(), poison<T>()), z(x.size(), poison<T>());
    fwd.execute(x.data(), y.data());
    bwd.execute(y.data(), z.data());
    for (auto& v : z)
        v /= T(n);
    GPUFFT_CHECK_LE(rel_l2_error(z.data(), x.data(), x.size()),
                    dense_tolerance<T>(n) * 2);
}

} // namespace gpufft_test

#endif /* INCLUDED_GPUFFT_DENSE_FFT_CHECKS_H */
