/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The peer-exchange schedule (lib/large/peer_exchange.h) without a GPU: its layout
// choices, the round-robin pairings, and the whole schedule emulated on the host (slabs,
// column DFTs, twiddle, pairwise slot swaps, the radix step of peer_exchange_math.h,
// row DFTs, the transposed copy out) against FFTW, for device counts 2 to 5 and sizes
// that are not powers of two.

#include "large/large_fft_checks.h"
#include "large/peer_exchange.h"
#include "large/peer_exchange_math.h"
#include <cmath>
#include <cstdio>
#include <set>

using namespace gr::gpufft;
using namespace gpufft_test;
using i64 = std::int64_t;
using detail::peer_layout;

namespace {

// The n-point DFT of `v` (stride 1) in double, exponent sign `sign`.
std::vector<std::complex<double>> dft(const std::vector<std::complex<double>>& v,
                                      int sign)
{
    const i64 n = i64(v.size());
    std::vector<std::complex<double>> out(v.size());
    for (i64 k = 0; k < n; ++k) {
        std::complex<double> s = 0;
        for (i64 j = 0; j < n; ++j) {
            const double a = 2.0 * M_PI * double((j * k) % n) / double(n);
            s += v[j] * std::complex<double>(std::cos(a), sign * std::sin(a));
        }
        out[k] = s;
    }
    return out;
}

// The schedule as the CUDA executor runs it, one std::vector per device.
std::vector<std::complex<double>>
emulate(const peer_layout& l, const std::vector<std::complex<double>>& x, int sign)
{
    const int G = l.parts;
    const i64 slot = l.slot();
    std::vector<std::vector<std::complex<double>>> slab(G);
    for (int g = 0; g < G; ++g) {
        auto& s = slab[g];
        s.resize(std::size_t(l.slab()));
        for (i64 r = 0; r < l.n1; ++r) // copy in: columns [g S2, (g+1) S2)
            for (i64 c = 0; c < l.s2; ++c)
                s[r * l.s2 + c] = x[r * l.n2 + g * l.s2 + c];
        for (i64 c = 0; c < l.s2; ++c) { // column DFTs and the twiddle
            std::vector<std::complex<double>> col(l.n1);
            for (i64 r = 0; r < l.n1; ++r)
                col[r] = s[r * l.s2 + c];
            col = dft(col, sign);
            for (i64 k1 = 0; k1 < l.n1; ++k1) {
                const i64 e = (k1 * (g * l.s2 + c)) % l.n;
                const double a = 2.0 * M_PI * double(e) / double(l.n);
                s[k1 * l.s2 + c] =
                    col[k1] * std::complex<double>(std::cos(a), sign * std::sin(a));
            }
        }
    }
    for (const auto& partner : detail::exchange_rounds(G)) // slot p of g <-> slot g of p
        for (int g = 0; g < G; ++g)
            if (partner[g] > g)
                for (i64 e = 0; e < slot; ++e)
                    std::swap(slab[g][partner[g] * slot + e],
                              slab[partner[g]][g * slot + e]);
    std::vector<std::complex<double>> y(x.size());
    for (int g = 0; g < G; ++g) {
        auto& s = slab[g];
        for (i64 e = 0; e < slot; ++e) { // the radix step
            detail::xy<double> v[detail::peer_max_parts];
            for (int q = 0; q < G; ++q)
                v[q] = { s[q * slot + e].real(), s[q * slot + e].imag() };
            detail::segment_butterfly(v, G, e % l.s2, l.s2, sign);
            for (int q = 0; q < G; ++q)
                s[q * slot + e] = { v[q].x, v[q].y };
        }
        for (i64 row = 0; row < l.n1; ++row) { // row DFTs of S2
            std::vector<std::complex<double>> v(s.begin() + row * l.s2,
                                                s.begin() + (row + 1) * l.s2);
            v = dft(v, sign);
            std::copy(v.begin(), v.end(), s.begin() + row * l.s2);
        }
        for (int r = 0; r < G; ++r) // copy out: slot r, row i, column m
            for (i64 i = 0; i < l.s1; ++i)
                for (i64 m = 0; m < l.s2; ++m)
                    y[r * l.n1 + g * l.s1 + i + m * G * l.n1] =
                        s[r * slot + i * l.s2 + m];
    }
    return y;
}

} // namespace

GPUFFT_TEST(rounds_pair_every_device_once)
{
    for (int parts = 2; parts <= 9; ++parts) {
        const auto rounds = detail::exchange_rounds(parts);
        std::set<std::pair<int, int>> met;
        for (const auto& partner : rounds) {
            GPUFFT_CHECK_EQ(int(partner.size()), parts);
            for (int g = 0; g < parts; ++g) {
                const int p = partner[g];
                if (p < 0)
                    continue;
                GPUFFT_CHECK(p != g);
                GPUFFT_CHECK_EQ(partner[p], g);
                if (g < p)
                    GPUFFT_CHECK(met.insert({ g, p }).second);
            }
        }
        GPUFFT_CHECK_EQ(int(met.size()), parts * (parts - 1) / 2);
        GPUFFT_CHECK_EQ(int(rounds.size()), parts - 1 + parts % 2);
    }
}

GPUFFT_TEST(layout_choices)
{
    std::string why;
    const std::size_t gib = std::size_t(1) << 30;
    // the cases: 2^32 complex64 on 4 GPUs at 16 GiB, on 2 at 24 GiB
    auto l = detail::plan_peer_exchange(i64(1) << 32, 4, 8, 16 * gib, why);
    GPUFFT_CHECK(l.has_value());
    GPUFFT_CHECK_EQ(l->n1, i64(1) << 16);
    GPUFFT_CHECK_EQ(l->n2, i64(1) << 16);
    GPUFFT_CHECK_LE(l->device_bytes() + std::size_t(l->chunk) * 8, 16 * gib);
    GPUFFT_CHECK(detail::plan_peer_exchange(i64(1) << 32, 2, 8, 24 * gib, why));
    // 16 GiB of slab does not fit 16 GiB with its temporaries
    GPUFFT_CHECK(!detail::plan_peer_exchange(i64(1) << 32, 2, 8, 16 * gib, why));
    GPUFFT_CHECK(why.find("budget") != std::string::npos);
    // a prime has no factors for the devices
    GPUFFT_CHECK(!detail::plan_peer_exchange(1000003, 2, 8, 16 * gib, why));
    GPUFFT_CHECK(why.find("factors") != std::string::npos);
    GPUFFT_CHECK(!detail::plan_peer_exchange(1 << 20, 17, 8, 16 * gib, why));
    // every batch divides what it batches
    for (i64 n : { i64(6000), i64(1) << 31, i64(3) << 20, i64(10000000) })
        for (int parts : { 2, 3, 4 }) {
            auto m = detail::plan_peer_exchange(n, parts, 8, 64 * gib, why);
            if (!m)
                continue;
            GPUFFT_CHECK_EQ(m->n1 * m->n2, n);
            GPUFFT_CHECK_EQ(m->s2 % m->col_batch, 0);
            GPUFFT_CHECK_EQ(m->s1 % m->row_batch, 0);
            GPUFFT_CHECK_EQ(m->s2 % m->out_cols, 0);
            GPUFFT_CHECK_EQ((m->s2 / m->col_batch) % m->in_parts, 0);
            GPUFFT_CHECK_LE(m->out_cols * m->s1, m->chunk);
            GPUFFT_CHECK_LE(m->row_batch * m->s2, m->chunk);
        }
}

GPUFFT_TEST(emulated_schedule_matches_fftw)
{
    for (auto [n, parts] : { std::pair<i64, int>{ 4096, 2 },
                             { 4096, 4 },
                             { 6000, 2 },
                             { 6000, 5 },
                             { 3 * 3 * 64, 3 },
                             { 2 * 2 * 7 * 5, 2 } }) {
        std::string why;
        auto l = detail::plan_peer_exchange(n, parts, 8, std::size_t(1) << 30, why);
        GPUFFT_CHECK(l.has_value());
        for (int sign : { -1, 1 }) {
            const auto seed = fresh_seed();
            std::printf("n %lld on %d devices (%lld x %lld), sign %d, seed %llu\n",
                        (long long)n,
                        parts,
                        (long long)l->n1,
                        (long long)l->n2,
                        sign,
                        (unsigned long long)seed);
            const auto xf = random_complex<double>(std::size_t(n), seed);
            std::vector<std::complex<double>> x(xf.begin(), xf.end());
            const auto got = emulate(*l, x, sign);
            const auto ref = fftw_dft_nd(xf, { n }, sign);
            GPUFFT_CHECK_LE(rel_l2_error(got.data(), ref.data(), n), 1e-12);
        }
    }
}

GPUFFT_TEST_MAIN()
