/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Reference transforms and error measures for tests and the bench tool: everything in
// double precision, independent of the code under test.

#ifndef INCLUDED_GPUFFT_TEST_REFERENCE_H
#define INCLUDED_GPUFFT_TEST_REFERENCE_H

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <random>
#include <vector>

namespace gpufft_test {

using cd = std::complex<double>;

//! Fresh random complex samples, uniform in the unit square (never zeros).
template <typename T>
std::vector<std::complex<T>> random_complex(std::size_t n, std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::vector<std::complex<T>> x(n);
    for (auto& v : x)
        v = std::complex<T>(T(u(rng)), T(u(rng)));
    return x;
}

//! A seed that differs between runs (tests must hold on any input), printed by callers.
//! GPUFFT_TEST_SEED=<seed> replays a printed one (every test of the run then gets it:
//! name the test, `test_x =name`), as GPUFFT_QA_SEED does for the Python QA.
inline std::uint64_t fresh_seed()
{
    if (const char* replay = std::getenv("GPUFFT_TEST_SEED"))
        return std::strtoull(replay, nullptr, 10);
    return std::random_device{}() * 2654435761ull + 1;
}

/*!
 * Direct DFT in double: X[f] = sum_t x[t] exp(sign * 2 pi i f t / n), with the phase
 * reduced exactly (f * t mod n in integers) so the reference is accurate for large n.
 */
template <typename T>
std::vector<cd> direct_dft(const std::complex<T>* x, std::int64_t n, int sign)
{
    std::vector<cd> tw(n);
    const double pi2 = 2.0 * std::acos(-1.0);
    for (std::int64_t k = 0; k < n; ++k)
        tw[k] = std::polar(1.0, sign * pi2 * double(k) / double(n));
    std::vector<cd> X(n);
    for (std::int64_t f = 0; f < n; ++f) {
        cd acc = 0;
        std::int64_t idx = 0;
        for (std::int64_t t = 0; t < n; ++t) {
            acc += cd(x[t]) * tw[idx];
            idx += f;
            if (idx >= n)
                idx -= n;
        }
        X[f] = acc;
    }
    return X;
}

//! ||a - b|| / ||b|| over n elements.
template <typename A, typename B>
double rel_l2_error(const A* a, const B* b, std::size_t n)
{
    double num = 0, den = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const cd d = cd(a[i]) - cd(b[i]);
        num += std::norm(d);
        den += std::norm(cd(b[i]));
    }
    return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

//! A value no transform produces from finite input: poisons outputs so unwritten
//! elements show up as NaN errors.
template <typename T>
std::complex<T> poison()
{
    return { std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::quiet_NaN() };
}

template <typename T>
bool all_finite(const std::complex<T>* x, std::size_t n)
{
    for (std::size_t i = 0; i < n; ++i)
        if (!std::isfinite(x[i].real()) || !std::isfinite(x[i].imag()))
            return false;
    return true;
}

} // namespace gpufft_test

#endif /* INCLUDED_GPUFFT_TEST_REFERENCE_H */
