/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The Stockham stages behind the large FFT's evict-first FFTs (lib/large/stockham.h): the
// radix plan, and the stage math through its host reference against FFTW in double, on
// fresh random rows, forward and backward, in double and single precision. The CUDA
// kernels run the same butterfly (test_large_fft_cuda checks them on the GPU).

#include "large/stockham.h"
#include "reference.h"
#include "test_harness.h"
#include <gnuradio/gpufft/dense_fft_plan.h>

using namespace gr::gpufft;
using namespace gpufft_test;

GPUFFT_TEST(radix_plans)
{
    for (int bits = 1; bits <= 24; ++bits) {
        const std::int64_t n = std::int64_t(1) << bits;
        GPUFFT_CHECK(detail::stockham_supports(n));
        const auto radices = detail::stockham_radices(n);
        GPUFFT_CHECK_EQ(radices.size() % 2, std::size_t(0));
        std::int64_t product = 1;
        for (const int r : radices) {
            GPUFFT_CHECK(r == 1 || r == 2 || r == 4 || r == 8 || r == 16);
            product *= r;
        }
        GPUFFT_CHECK_EQ(product, n);
    }
    for (std::int64_t n : { 0, 1, 3, 12, 1 << 25 })
        GPUFFT_CHECK(!detail::stockham_supports(n));
}

template <typename T>
double stockham_error(std::int64_t n, std::int64_t batch, int sign)
{
    const auto x = random_complex<T>(std::size_t(n * batch), fresh_seed());
    std::vector<detail::xy<T>> data(x.size()), scratch(x.size());
    for (std::size_t i = 0; i < x.size(); ++i)
        data[i] = { x[i].real(), x[i].imag() };
    for (auto& v : scratch) // unwritten elements of a stage would carry NaN through
        v = { poison<T>().real(), poison<T>().imag() };
    detail::stockham_fft_host(data.data(), scratch.data(), n, batch, sign);

    std::vector<std::complex<double>> xd(x.begin(), x.end()), ref(x.size());
    dense_fft_options o;
    o.backend = backend::cpu;
    o.precision = precision::double_;
    dense_fft_plan(n, batch, sign < 0 ? direction::forward : direction::backward, o)
        .execute(xd.data(), ref.data());
    std::vector<std::complex<double>> y(x.size());
    for (std::size_t i = 0; i < y.size(); ++i)
        y[i] = { double(data[i].x), double(data[i].y) };
    return rel_l2_error(y.data(), ref.data(), y.size());
}

GPUFFT_TEST(stages_match_fftw)
{
    for (int bits : { 1, 2, 3, 4, 5, 7, 8, 9, 12, 15, 16, 17 }) {
        const std::int64_t n = std::int64_t(1) << bits;
        const std::int64_t batch = bits > 12 ? 2 : 5;
        for (int sign : { -1, 1 }) {
            GPUFFT_CHECK_LE(stockham_error<double>(n, batch, sign), 1e-14);
            GPUFFT_CHECK_LE(stockham_error<float>(n, batch, sign), 1e-6);
        }
    }
}

GPUFFT_TEST_MAIN()
