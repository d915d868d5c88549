/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The two-kernel pass FFT of lib/large/four_step.h through its host reference, against
// FFTW in double on fresh random columns: the column round's layout (columns side by
// side, natural order out, the four-step twiddle) and the row round's (contiguous rows,
// written transposed into squares), forward and backward, single and double precision.
// Outputs start poisoned, so an element the kernels' index math misses fails the test.
// The CUDA kernels run the same stage functions (test_large_fft_cuda runs them).

#include "large/four_step.h"
#include "reference.h"
#include "test_harness.h"
#include <gnuradio/gpufft/dense_fft_plan.h>
#include <cmath>

using namespace gr::gpufft;
using namespace gpufft_test;
using detail::four_step_geometry;

GPUFFT_TEST(splits)
{
    for (int bits = 2; bits <= 16; ++bits) {
        const std::int64_t L = std::int64_t(1) << bits;
        GPUFFT_CHECK(detail::four_step_supports(L));
        std::int64_t L1 = 0, L2 = 0;
        detail::four_step_split(L, &L1, &L2);
        GPUFFT_CHECK_EQ(L1 * L2, L);
        GPUFFT_CHECK(L1 >= L2 && L2 >= 2 && L1 <= 256);
    }
    for (std::int64_t L : { 0, 1, 2, 12, 1 << 17 })
        GPUFFT_CHECK(!detail::four_step_supports(L));
}

// exp(sign 2 pi i k ((b0 + w) / div) / n) straight from the definition, in long double
std::complex<double>
reference_twiddle(std::int64_t k, std::int64_t w, const detail::twiddle_params& tw)
{
    const long double pi = 3.141592653589793238462643383279502884L;
    const long double e =
        static_cast<long double>((k * ((tw.b0 + w) / tw.div)) % tw.n) / tw.n;
    return { double(std::cos(2 * pi * e)), double(tw.sign * std::sin(2 * pi * e)) };
}

// `where(b, k, w)`: the output position of (b, k, w), written out by each test rather
// than taken from the geometry, so that a wrong layout fails
template <typename T, typename Where>
double four_step_error(const four_step_geometry& g,
                       std::int64_t out_size,
                       int sign,
                       const detail::twiddle_params& tw,
                       Where where)
{
    const std::int64_t L = g.L(), total = g.batch * L * g.W;
    const auto x = random_complex<T>(std::size_t(total), fresh_seed());
    std::vector<detail::xy<T>> data(x.size());
    std::vector<detail::xy<T>> out(static_cast<std::size_t>(out_size));
    for (std::size_t i = 0; i < x.size(); ++i)
        data[i] = { x[i].real(), x[i].imag() };
    for (auto& v : out)
        v = { poison<T>().real(), poison<T>().imag() };
    detail::four_step_host(g, data.data(), out.data(), sign, [&](auto k, auto w, auto v) {
        if (!tw.on)
            return v;
        const auto t = reference_twiddle(k, w, tw);
        return detail::xy<T>{ T(v.x * t.real() - v.y * t.imag()),
                              T(v.x * t.imag() + v.y * t.real()) };
    });

    // FFTW on the gathered columns, then the twiddle and the output layout
    std::vector<std::complex<double>> cols(x.size()), ref(x.size());
    for (std::int64_t b = 0; b < g.batch; ++b)
        for (std::int64_t w = 0; w < g.W; ++w)
            for (std::int64_t n = 0; n < L; ++n)
                cols[std::size_t((b * g.W + w) * L + n)] =
                    x[std::size_t(g.in_index(b, n, w))];
    dense_fft_options o;
    o.backend = backend::cpu;
    o.precision = precision::double_;
    dense_fft_plan(
        L, g.batch * g.W, sign < 0 ? direction::forward : direction::backward, o)
        .execute(cols.data(), ref.data());
    std::vector<std::complex<double>> want(out.size(), { 0.0, 0.0 }), got(out.size());
    std::vector<char> hit(out.size(), 0);
    for (std::int64_t b = 0; b < g.batch; ++b)
        for (std::int64_t w = 0; w < g.W; ++w)
            for (std::int64_t k = 0; k < L; ++k) {
                const auto i = std::size_t(where(b, k, w));
                want[i] = ref[std::size_t((b * g.W + w) * L + k)] *
                          (tw.on ? reference_twiddle(k, w, tw) : 1.0);
                ++hit[i];
            }
    for (std::size_t i = 0; i < out.size(); ++i) {
        if (hit[i] != 1) // the layout itself must be a bijection onto the output
            return INFINITY;
        got[i] = { double(out[i].x), double(out[i].y) };
    }
    return rel_l2_error(got.data(), want.data(), got.size());
}

four_step_geometry split(std::int64_t L)
{
    four_step_geometry g;
    detail::four_step_split(L, &g.L1, &g.L2);
    return g;
}

// The column round in place: one [L][W] block, natural order out, twiddled.
GPUFFT_TEST(column_layout_matches_fftw)
{
    for (int bits : { 2, 3, 5, 8, 9, 12 }) {
        for (std::int64_t W : { 1, 5, 37 }) {
            auto g = split(std::int64_t(1) << bits);
            g.W = W;
            g.out_b = 0;
            g.out_k = W;
            detail::twiddle_params tw;
            tw.on = true;
            tw.b0 = 3 * W;
            tw.n = g.L() * 4 * W;
            auto where = [W](std::int64_t, std::int64_t k, std::int64_t w) {
                return k * W + w;
            };
            for (int sign : { -1, 1 }) {
                tw.sign = sign;
                GPUFFT_CHECK_LE(four_step_error<double>(g, g.L() * W, sign, tw, where),
                                1e-14);
                GPUFFT_CHECK_LE(four_step_error<float>(g, g.L() * W, sign, tw, where),
                                1e-6);
            }
        }
    }
}

// The row round: `batch` contiguous rows, output (t, k) at map(k) T + t.
GPUFFT_TEST(row_layout_matches_fftw)
{
    for (int bits : { 2, 4, 7, 10, 16 }) {
        for (std::int64_t blocks : { 1, 2, 4 }) {
            auto g = split(std::int64_t(1) << bits);
            g.batch = bits > 12 ? 3 : 19;
            g.W = 1;
            g.out_b = 1;
            g.out_k = g.batch;
            g.blocks = blocks;
            // row t's output k = m blocks + h: row m of square h, column t of the strip
            const std::int64_t T = g.batch, M = g.L() / blocks;
            auto where = [=](std::int64_t t, std::int64_t k, std::int64_t) {
                return ((k % blocks) * M + k / blocks) * T + t;
            };
            for (int sign : { -1, 1 }) {
                const detail::twiddle_params none;
                GPUFFT_CHECK_LE(
                    four_step_error<double>(g, g.batch * g.L(), sign, none, where),
                    1e-14);
                GPUFFT_CHECK_LE(
                    four_step_error<float>(g, g.batch * g.L(), sign, none, where), 1e-6);
            }
        }
    }
}

GPUFFT_TEST_MAIN()
