/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// A power-of-two FFT of contiguous rows as Stockham autosort stages, the math shared by
// the CUDA kernels (stockham_fft.cu) and the host reference the CPU tests run.
//
// Why the large FFT has its own: its passes run beside PCIe copies, and every byte a
// kernel moves through L2 with the default cache policy evicts what the copy engines
// keep there, which slows the copies by a fifth at 2^32 (docs/large_fft.md). cuFFT's
// loads and stores use the default policy; these stages load and store with the
// evict-first hint. The pass is bound by PCIe, not by the FFT, so simple radix-16 stages
// (one read and one write of the data each) are fast enough.
//
// Stage s with radix R reads element j + r n / R (r < R, j < n / R) of its input, turns
// it by the twiddle of the ns-point transforms done so far (ns = product of the earlier
// radices), takes a radix-R DFT over r and writes output q to element
// (j / ns) ns R + j % ns + q ns: natural order in, natural order out.

#ifndef INCLUDED_GPUFFT_LARGE_STOCKHAM_H
#define INCLUDED_GPUFFT_LARGE_STOCKHAM_H

#include <type_traits>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/host_device.h"

namespace gr {
namespace gpufft {
namespace detail {

//! Lengths the Stockham stages take: powers of two from 2 to 2^24.
inline bool stockham_supports(std::int64_t n)
{
    return n >= 2 && n <= (std::int64_t(1) << 24) && (n & (n - 1)) == 0;
}

/*!
 * The radices (powers of two up to 16) of n = 2^bits: an even number of stages, so that
 * ping-ponging between the data and a scratch buffer leaves the result in the data; the
 * bits spread evenly, larger radices first.
 */
inline std::vector<int> stockham_radices(std::int64_t n)
{
    int bits = 0;
    while ((std::int64_t(1) << bits) < n)
        ++bits;
    const int stages = 2 * ((bits + 7) / 8);
    std::vector<int> radices;
    for (int s = 0; s < stages; ++s)
        radices.push_back(1 << (bits / stages + (s < bits % stages ? 1 : 0)));
    return radices;
}

//! Calls f(std::integral_constant<int, n>) for n a power of two from P to Max (a
//! compile-time length from a run-time one); throws std::logic_error for any other n.
template <int P, int Max, typename F>
void with_power_of_two(std::int64_t n, F&& f)
{
    if constexpr (P > Max) {
        throw std::logic_error("power of two " + std::to_string(n) + " out of range");
    } else {
        if (n == P)
            return f(std::integral_constant<int, P>{});
        return with_power_of_two<2 * P, Max>(n, std::forward<F>(f));
    }
}

//! Calls f(std::integral_constant<int, radix>) for a radix of stockham_radices().
template <typename F>
void with_radix(int radix, F&& f)
{
    with_power_of_two<1, 16>(radix, std::forward<F>(f));
}

template <typename T>
struct xy {
    T x, y;
};

GPUFFT_HD inline void sincos_pi(double a, double* s, double* c)
{
#if defined(__CUDA_ARCH__)
    sincospi(a, s, c);
#else
    constexpr double pi = 3.14159265358979323846;
    *s = std::sin(pi * a);
    *c = std::cos(pi * a);
#endif
}

GPUFFT_HD inline void sincos_pi(float a, float* s, float* c)
{
#if defined(__CUDA_ARCH__)
    sincospif(a, s, c);
#else
    double sd, cd;
    sincos_pi(double(a), &sd, &cd);
    *s = float(sd);
    *c = float(cd);
#endif
}

//! cos(2 pi m / 16) for 0 <= m < 16: the constants of the radix-8 and radix-16 DFTs,
//! folded at compile time (a sincos call per constant would cost registers and time).
GPUFFT_HD constexpr double cos16(int m)
{
    constexpr double c1 = 0.92387953251128675613, c2 = 0.70710678118654752440,
                     c3 = 0.38268343236508977173;
    switch (m & 15) {
    case 0:
        return 1;
    case 1:
    case 15:
        return c1;
    case 2:
    case 14:
        return c2;
    case 3:
    case 13:
        return c3;
    case 4:
    case 12:
        return 0;
    case 5:
    case 11:
        return -c3;
    case 6:
    case 10:
        return -c2;
    case 7:
    case 9:
        return -c1;
    default:
        return -1;
    }
}

template <typename T>
GPUFFT_HD inline xy<T> add(xy<T> a, xy<T> b)
{
    return { a.x + b.x, a.y + b.y };
}

template <typename T>
GPUFFT_HD inline xy<T> sub(xy<T> a, xy<T> b)
{
    return { a.x - b.x, a.y - b.y };
}

/*!
 * v[q] = sum_r v[r] exp(sign 2 pi i r q / R), in place, R = 1, 2, 4, 8 or 16: radix 2
 * and 4 directly, 8 = 2 x 4 and 16 = 4 x 4 as one more split with constant twiddles.
 */
#if defined(__CUDACC__)
#pragma nv_exec_check_disable
#endif
template <typename T, int R>
GPUFFT_HD inline void small_dft(xy<T>* v, int sign)
{
    if constexpr (R == 2) {
        const xy<T> a = v[0];
        v[0] = add(a, v[1]);
        v[1] = sub(a, v[1]);
    } else if constexpr (R == 4) {
        const xy<T> a0 = add(v[0], v[2]), a1 = sub(v[0], v[2]);
        const xy<T> b0 = add(v[1], v[3]), d = sub(v[1], v[3]);
        const xy<T> b1 = { -T(sign) * d.y, T(sign) * d.x }; // d exp(sign i pi / 2)
        v[0] = add(a0, b0);
        v[2] = sub(a0, b0);
        v[1] = add(a1, b1);
        v[3] = sub(a1, b1);
    } else if constexpr (R == 8 || R == 16) {
        // element B a + b: A-point DFTs over a, turned by exp(sign 2 pi i b p / R), then
        // B-point DFTs over b give output p + A q
        constexpr int A = R == 8 ? 2 : 4, B = R / A;
        xy<T> t[R];
#pragma unroll
        for (int b = 0; b < B; ++b) {
            xy<T> u[A];
#pragma unroll
            for (int a = 0; a < A; ++a)
                u[a] = v[B * a + b];
            small_dft<T, A>(u, sign);
#pragma unroll
            for (int p = 0; p < A; ++p) {
                const int m = b * p * (16 / R);
                const T c = T(cos16(m)), s = T(sign) * T(cos16(m - 4));
                t[B * p + b] = { u[p].x * c - u[p].y * s, u[p].x * s + u[p].y * c };
            }
        }
#pragma unroll
        for (int p = 0; p < A; ++p) {
            xy<T> u[B];
#pragma unroll
            for (int b = 0; b < B; ++b)
                u[b] = t[B * p + b];
            small_dft<T, B>(u, sign);
#pragma unroll
            for (int q = 0; q < B; ++q)
                v[p + A * q] = u[q];
        }
    } else {
        static_assert(R == 1, "small_dft: R must be 1, 2, 4, 8 or 16");
    }
}

/*!
 * One butterfly of a stage: index j of n / R, radix R, ns points done, sign -1 (forward)
 * or +1. `load(i)` returns input element i of the row as xy<T>; `store(i, v)` writes
 * output element i.
 */
#if defined(__CUDACC__)
#pragma nv_exec_check_disable
#endif
template <typename T, int R, typename Load, typename Store>
GPUFFT_HD inline void stockham_butterfly(
    std::int64_t j, std::int64_t n, std::int64_t ns, int sign, Load load, Store store)
{
    const std::int64_t m = n / R, k = j % ns;
    xy<T> v[R];
#pragma unroll
    for (int r = 0; r < R; ++r)
        v[r] = load(j + r * m);
        // exp(sign 2 pi i k r / (ns R)); 2 k r < 2 n <= 2^25 is even, so exact in float
#pragma unroll
    for (int r = 1; r < R; ++r) {
        T s, c;
        sincos_pi(T(2 * sign * k * r) / T(ns * R), &s, &c);
        v[r] = { v[r].x * c - v[r].y * s, v[r].x * s + v[r].y * c };
    }
    small_dft<T, R>(v, sign);
    const std::int64_t d = (j / ns) * ns * R + k;
#pragma unroll
    for (int q = 0; q < R; ++q)
        store(d + q * ns, v[q]);
}

/*!
 * The host reference of a whole transform: `batch` rows of n in `data`, `scratch` as
 * large; the result in `data`. The CPU tests check the stage math with it.
 */
template <typename T>
void stockham_fft_host(
    xy<T>* data, xy<T>* scratch, std::int64_t n, std::int64_t batch, int sign)
{
    xy<T>*src = data, *dst = scratch;
    std::int64_t ns = 1;
    for (const int radix : stockham_radices(n)) {
        for (std::int64_t b = 0; b < batch; ++b) {
            const xy<T>* x = src + b * n;
            xy<T>* y = dst + b * n;
            auto load = [x](std::int64_t i) { return x[i]; };
            auto store = [y](std::int64_t i, xy<T> v) { y[i] = v; };
            with_radix(radix, [&](auto R) {
                for (std::int64_t j = 0; j < n / radix; ++j)
                    stockham_butterfly<T, decltype(R)::value>(
                        j, n, ns, sign, load, store);
            });
        }
        ns *= radix;
        std::swap(src, dst);
    }
}

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_LARGE_STOCKHAM_H */
