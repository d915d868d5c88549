/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The FFTs of a large-FFT pass as two kernels that each read and write the pass once:
// the index math shared by the CUDA kernels (four_step_fft.cu) and the host reference
// the CPU tests run.
//
// Why: a pass runs beside the PCIe copies of its neighbours, and every sweep of the pass
// through L2 slows them (docs/large_fft.md, "What limits 1-D out of card"). The column
// round took a transpose, four Stockham stages, a twiddle and a transpose back: fifteen
// sweeps of 1.2 GB per pass at 2^32. Here the length L = L1 L2 (L1, L2 <= 256) is split
// once more, four-step style, and each kernel does one factor in shared memory:
//
//   data [batch][L1][L2][W], element n = L2 n1 + n2 of the transform of column (b, w);
//   kernel A (in place): the L1-point DFTs over n1, times exp(sign 2 pi i n2 k1 / L);
//   kernel B: the L2-point DFTs over n2, output k = k1 + L1 k2 written to its own
//   layout (natural [L][W] order, or transposed for the row round), times the pass's
//   four-step twiddle if it has one.
//
// A kernel's block holds `cw` neighbouring columns (128 bytes of each row) of one
// factor, so every load and store is a full 128-byte line; a sub-transform of m points
// is two register stages of radix R1 = min(16, m) and R2 = m / R1 with shared memory
// between them.

#ifndef INCLUDED_GPUFFT_LARGE_FOUR_STEP_H
#define INCLUDED_GPUFFT_LARGE_FOUR_STEP_H

#include "large/large_fft_kernels.h" // twiddle_params
#include "large/stockham.h"          // xy, sincos_pi, GPUFFT_HD
#include <type_traits>
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace gr {
namespace gpufft {
namespace detail {

struct four_step_geometry {
    std::int64_t batch = 1, L1 = 2, L2 = 2, W = 1;
    //! Output element (b, k, w) lands at b out_b + map(k) out_k + w, where
    //! map(k) = (k % blocks) (L / blocks) + k / blocks (the row round's squares).
    std::int64_t out_b = 0, out_k = 1, blocks = 1;

    GPUFFT_HD std::int64_t L() const { return L1 * L2; }
    GPUFFT_HD std::int64_t in_index(std::int64_t b, std::int64_t l, std::int64_t w) const
    {
        return (b * L() + l) * W + w;
    }
    GPUFFT_HD std::int64_t out_index(std::int64_t b, std::int64_t k, std::int64_t w) const
    {
        const std::int64_t mk = (k % blocks) * (L() / blocks) + k / blocks;
        return b * out_b + mk * out_k + w;
    }
};

//! Lengths the two kernels take: powers of two from 4 to 2^16.
inline bool four_step_supports(std::int64_t L)
{
    return L >= 4 && L <= (std::int64_t(1) << 16) && (L & (L - 1)) == 0;
}

//! L = L1 L2 with L1 >= L2, both powers of two.
inline void four_step_split(std::int64_t L, std::int64_t* L1, std::int64_t* L2)
{
    int bits = 0;
    while ((std::int64_t(1) << bits) < L)
        ++bits;
    *L1 = std::int64_t(1) << ((bits + 1) / 2);
    *L2 = std::int64_t(1) << (bits / 2);
}

//! The first radix of an m-point sub-transform (m a power of two up to 256).
GPUFFT_HD constexpr int sub_radix1(int m) { return m < 16 ? m : 16; }

//! v times exp(sign 2 pi i e / n) for 0 <= e < n <= 2^16 (the angle exact in T).
template <typename T>
GPUFFT_HD inline xy<T> turn(xy<T> v, std::int64_t e, std::int64_t n, int sign)
{
    T s, c;
    sincos_pi(T(2 * sign) * T(e) / T(n), &s, &c);
    return { v.x * c - v.y * s, v.x * s + v.y * c };
}

/*!
 * The pass's four-step twiddle of element (k, j): exp(sign 2 pi i e / n) with
 * e = k ((b0 + j) / div) mod n, reduced exactly in integers and evaluated in double, so
 * it is accurate to double rounding for any n < 2^62.
 */
GPUFFT_HD inline xy<double>
pass_twiddle(std::int64_t k, std::int64_t j, const twiddle_params& tw)
{
    const std::int64_t e = (k * ((tw.b0 + j) / tw.div)) % tw.n;
    double s, c;
    sincos_pi(double(tw.sign) * 2.0 * double(e) / double(tw.n), &s, &c);
    return { c, s };
}

//! v times w, in double (the pass twiddle's accuracy kept for float data).
template <typename T>
GPUFFT_HD inline xy<T> times(xy<T> v, xy<double> w)
{
    return { T(double(v.x) * w.x - double(v.y) * w.y),
             T(double(v.x) * w.y + double(v.y) * w.x) };
}

/*!
 * Stage 1 of an M-point sub-transform of one column (M = R1 R2), part b < R2: the
 * R1-point DFT of elements R2 a + b, turned by exp(sign 2 pi i b p / M), written back to
 * the same places (R2 p + b).
 */
#if defined(__CUDACC__)
#pragma nv_exec_check_disable
#endif
template <typename T, int M, typename Get, typename Set>
GPUFFT_HD inline void sub_stage1(int b, int sign, Get get, Set set)
{
    constexpr int R1 = sub_radix1(M), R2 = M / R1;
    xy<T> v[R1];
#pragma unroll
    for (int a = 0; a < R1; ++a)
        v[a] = get(R2 * a + b);
    small_dft<T, R1>(v, sign);
#pragma unroll
    for (int p = 0; p < R1; ++p)
        set(R2 * p + b, p ? turn(v[p], b * p, M, sign) : v[p]);
}

/*!
 * Stage 2, part p < R1: the R2-point DFT of elements R2 p + b; output k = p + R1 q goes
 * to out(k, value).
 */
#if defined(__CUDACC__)
#pragma nv_exec_check_disable
#endif
template <typename T, int M, typename Get, typename Out>
GPUFFT_HD inline void sub_stage2(int p, int sign, Get get, Out out)
{
    constexpr int R1 = sub_radix1(M), R2 = M / R1;
    xy<T> u[R2];
#pragma unroll
    for (int b = 0; b < R2; ++b)
        u[b] = get(R2 * p + b);
    small_dft<T, R2>(u, sign);
#pragma unroll
    for (int q = 0; q < R2; ++q)
        out(p + R1 * q, u[q]);
}

//! Calls f(std::integral_constant<int, m>) for m a power of two from 2 to 256.
template <typename F>
void with_sub_length(std::int64_t m, F&& f)
{
    with_power_of_two<2, 256>(m, std::forward<F>(f));
}

//! Both stages of an m-point sub-transform of `col` on the host, in the kernels' order;
//! output k goes to out(k, value).
template <typename T, typename Out>
void sub_transform_host(std::int64_t m, std::vector<xy<T>>& col, int sign, Out out)
{
    with_sub_length(m, [&](auto len) {
        constexpr int M = decltype(len)::value, R1 = sub_radix1(M);
        auto get = [&](int i) { return col[i]; };
        auto set = [&](int i, xy<T> v) { col[i] = v; };
        for (int b = 0; b < M / R1; ++b)
            sub_stage1<T, M>(b, sign, get, set);
        for (int p = 0; p < R1; ++p)
            sub_stage2<T, M>(p, sign, get, out);
    });
}

/*!
 * The host reference of both kernels: `data` (the geometry's input, overwritten by
 * kernel A's result as on the card) and `out` (kernel B's). `turn_out(k, w, v)` applies
 * the pass's twiddle to output (k, w). The CPU tests check the index math with it.
 */
template <typename T, typename TurnOut>
void four_step_host(
    const four_step_geometry& g, xy<T>* data, xy<T>* out, int sign, TurnOut turn_out)
{
    const std::int64_t L = g.L();
    std::vector<xy<T>> col(std::size_t(std::max(g.L1, g.L2)));
    // kernel A, column (b, j)
    for (std::int64_t b = 0; b < g.batch; ++b)
        for (std::int64_t j = 0; j < g.L2 * g.W; ++j) {
            const std::int64_t n2 = j / g.W;
            auto at = [&](std::int64_t n1) {
                return data + g.in_index(b, 0, 0) + n1 * g.L2 * g.W + j;
            };
            for (std::int64_t n1 = 0; n1 < g.L1; ++n1)
                col[n1] = *at(n1);
            sub_transform_host(g.L1, col, sign, [&](int k1, xy<T> v) {
                *at(k1) = turn(v, (n2 * k1) % L, L, sign);
            });
        }
    // kernel B, column (b, w), row k1
    for (std::int64_t b = 0; b < g.batch; ++b)
        for (std::int64_t w = 0; w < g.W; ++w)
            for (std::int64_t k1 = 0; k1 < g.L1; ++k1) {
                for (std::int64_t n2 = 0; n2 < g.L2; ++n2)
                    col[n2] = data[g.in_index(b, k1 * g.L2 + n2, w)];
                sub_transform_host(g.L2, col, sign, [&](int k2, xy<T> v) {
                    const std::int64_t k = k1 + g.L1 * k2;
                    out[g.out_index(b, k, w)] = turn_out(k, w, v);
                });
            }
}

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_LARGE_FOUR_STEP_H */
