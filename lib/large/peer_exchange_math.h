/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The radix-G step of the peer exchange (peer_exchange.h), written once for the kernel
// and the host reference of the tests. A row of N2 = G S2 elements is held as G
// segments of S2; its DFT at k2 = G m + r is the S2-point DFT over j of
//   u_r[j] = exp(sign 2 pi i j r / N2) * sum_s v_s[j] exp(sign 2 pi i s r / G),
// so after this step each segment r needs only an S2-point FFT of its own.

#ifndef INCLUDED_GPUFFT_LARGE_PEER_EXCHANGE_MATH_H
#define INCLUDED_GPUFFT_LARGE_PEER_EXCHANGE_MATH_H

#include "large/stockham.h" // xy, sincos_pi, GPUFFT_HD
#include <cstdint>

namespace gr {
namespace gpufft {
namespace detail {

//! The most devices the radix step takes (its values live in registers).
constexpr int peer_max_parts = 16;

/*!
 * v[0..parts) (element j of each segment) replaced by u[0..parts); parts <= 16.
 * Angles are reduced exactly in integers and evaluated in double.
 */
template <typename T>
GPUFFT_HD inline void
segment_butterfly(xy<T>* v, int parts, std::int64_t j, std::int64_t s2, int sign)
{
    xy<double> u[peer_max_parts];
    const std::int64_t n2 = s2 * parts;
    for (int r = 0; r < parts; ++r) {
        double ax = 0, ay = 0;
        for (int s = 0; s < parts; ++s) {
            double sn, cs;
            sincos_pi(double(2 * sign * ((s * r) % parts)) / double(parts), &sn, &cs);
            ax += double(v[s].x) * cs - double(v[s].y) * sn;
            ay += double(v[s].x) * sn + double(v[s].y) * cs;
        }
        double sn, cs;
        sincos_pi(double(2 * sign) * double((j * r) % n2) / double(n2), &sn, &cs);
        u[r] = { ax * cs - ay * sn, ax * sn + ay * cs };
    }
    for (int r = 0; r < parts; ++r)
        v[r] = { T(u[r].x), T(u[r].y) };
}

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_LARGE_PEER_EXCHANGE_MATH_H */
