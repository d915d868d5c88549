/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The CPU backend's vectorised passes (sensing_cpu_loops.h) and the host tone fit
// (sensing_fit.h) against the direct forms they replace: the window in time against the
// spectral kernel the CUDA backend applies, the logs against sensing_log_power(), the
// gap sums against sensing_floor_at(), the candidates against a plain scan, the fit
// against robust_fit_tone(); and the spectral kernel's unrolled sums against its plain
// loop. Fresh random inputs, the seed printed.

#include "reference.h"
#include "sensing/sensing_band_reference.h"
#include "sensing/sensing_cpu_loops.h"
#include "sensing/sensing_fit.h"
#include "sensing/sensing_params.h"
#include "sparse/common/sparse_params.h"
#include "test_harness.h"
#include <gnuradio/gpufft/dense_fft_plan.h>
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>

using namespace gr::gpufft;
using namespace gr::gpufft::detail;
using cf = std::complex<float>;

namespace {

std::mt19937_64 seeded()
{
    const std::uint64_t seed = gpufft_test::fresh_seed();
    std::printf("seed %llu\n", (unsigned long long)seed);
    return std::mt19937_64(seed);
}

sensing_params params_for(std::int64_t n, const std::string& window)
{
    sensing_options o;
    o.backend = backend::cpu;
    o.window = window;
    return make_sensing_params(n, o);
}

} // namespace

// sensing_power() dispatches on the window's taps to an unrolled sum (so the CUDA
// kernels issue a bin's loads together); each count must give the plain loop's sum in
// its order, to the bit, at the wrap around natural bin 0 too.
GPUFFT_TEST(spectral_kernel_sums_in_one_order_for_every_tap_count)
{
    auto rng = seeded();
    std::normal_distribution<float> g(0, 1);
    std::uniform_real_distribution<double> u(-1, 1);
    const std::int64_t n = 4096;
    std::vector<cf> X(static_cast<std::size_t>(n));
    for (auto& v : X)
        v = { g(rng), g(rng) };
    const auto bin = [&](std::int64_t q, float& re, float& im) {
        re = X[std::size_t(q)].real();
        im = X[std::size_t(q)].imag();
    };
    for (int taps = 1; taps <= sensing_max_taps; taps += 2) {
        sensing_consts k = params_for(n, "blackman_harris").k;
        k.taps = taps;
        for (int t = 0; t < sensing_max_taps; ++t)
            k.c[t] = t < taps ? u(rng) : 0.0;
        const int h = taps / 2;
        std::int64_t differ = 0;
        for (std::int64_t s = 0; s < n; ++s) {
            const std::int64_t q = sensing_natural(k, s);
            float re = 0, im = 0;
            for (int m = -h; m <= h; ++m) {
                const std::int64_t p = ((q - m) % n + n) % n;
                re += float(k.c[m + h]) * X[std::size_t(p)].real();
                im += float(k.c[m + h]) * X[std::size_t(p)].imag();
            }
            if (sensing_power(k, bin, s) != re * re + im * im)
                ++differ;
        }
        std::printf("taps %d: %lld of %lld bins differ from the plain loop\n",
                    taps,
                    (long long)differ,
                    (long long)n);
        GPUFFT_CHECK_EQ(differ, std::int64_t(0));
    }
}

GPUFFT_TEST(window_in_time_gives_the_spectral_kernel)
{
    auto rng = seeded();
    std::normal_distribution<float> g(0, 1);
    for (const char* window : { "blackman_harris", "hann" })
        for (std::int64_t n : { std::int64_t(4096), std::int64_t(1000003) }) {
            const auto p = params_for(n, window);
            const auto size = static_cast<std::size_t>(n);
            sensing_aligned_vector<cf> x(size), xw(size), X(size), Xw(size);
            for (auto& v : x)
                v = { g(rng), g(rng) };
            std::vector<float> w(size);
            sensing_make_window(p.k, w.data());
            sensing_window(x.data(), w.data(), n, xw.data());
            dense_fft_options fo;
            fo.backend = backend::cpu;
            dense_fft_plan fft(n, 1, direction::forward, fo);
            fft.execute(x.data(), X.data());
            fft.execute(xw.data(), Xw.data());
            const auto bin = [&](std::int64_t q, float& re, float& im) {
                re = X[std::size_t(q)].real();
                im = X[std::size_t(q)].imag();
            };
            double worst = 0;
            for (std::int64_t s = 0; s < n; ++s) {
                const float kernel = sensing_power(p.k, bin, s);
                const auto v = Xw[std::size_t(sensing_natural(p.k, s))];
                const double direct =
                    double(v.real()) * v.real() + double(v.imag()) * v.imag();
                // Relative to the mean bin power (n for unit noise and this window).
                worst = std::max(worst, std::fabs(direct - kernel) / double(n));
            }
            std::printf(
                "%s n=%lld: |X_w|^2 of w x vs the kernel, worst %.2e of a bin's mean\n",
                window,
                (long long)n,
                worst);
            GPUFFT_CHECK(worst < 1e-4);
            // And the magnitude pass itself.
            std::vector<float> M(size);
            sensing_magnitude_squared(Xw.data(), n, M.data());
            for (std::int64_t q = 0; q < n; q += 997) {
                const auto v = Xw[std::size_t(q)];
                GPUFFT_CHECK(std::fabs(M[std::size_t(q)] - std::norm(v)) <=
                             1e-6f * std::norm(v) + 1e-30f);
            }
        }
}

GPUFFT_TEST(log_pass_matches_sensing_log_power)
{
    auto rng = seeded();
    const auto p = params_for(65536, "blackman_harris");
    std::uniform_real_distribution<float> e(-45, 38);
    std::vector<float> P(5000);
    for (auto& v : P)
        v = std::pow(10.0f, e(rng));
    P[7] = 0;       // digital silence: held at the least floor
    P[11] = 1e-40f; // a subnormal, the same
    for (std::int64_t stride : { 1, 3 }) {
        const std::int64_t m = std::int64_t(P.size()) / stride;
        std::vector<std::int32_t> iv(static_cast<std::size_t>(m));
        std::int64_t total = 0, want_total = 0;
        GPUFFT_CHECK(sensing_log_fixed(
            P.data(), stride, m, float(p.k.floor_min), iv.data(), total));
        for (std::int64_t j = 0; j < m; ++j) {
            const std::int32_t want = std::int32_t(
                sensing_log_power(p.k, P[std::size_t(j * stride)]) * 65536.0f);
            // A fused multiply-add may round the last step differently: 1 unit.
            GPUFFT_CHECK(std::abs(iv[std::size_t(j)] - want) <= 1);
            want_total += iv[std::size_t(j)];
        }
        GPUFFT_CHECK_EQ(total, want_total);
        std::int64_t sum = 0, count = 0, want_sum = 0, want_count = 0;
        const std::int32_t cut = iv[3];
        sensing_censored_sum(iv.data(), m, cut, sum, count);
        for (auto v : iv)
            if (v < cut) {
                want_sum += v;
                ++want_count;
            }
        GPUFFT_CHECK_EQ(sum, want_sum);
        GPUFFT_CHECK_EQ(count, want_count);
    }
    // Stride 1 (its own vector loop) against stride 2 over the same values (the
    // compiler's loop): the same logs and sum to the bit, for lengths that leave 0-7
    // values past the last whole vector.
    for (const std::int64_t m : { 4096, 4093, 4999, 7 }) {
        std::vector<float> Q(2 * P.size());
        for (std::size_t j = 0; j < P.size(); ++j)
            Q[2 * j] = P[j];
        std::vector<std::int32_t> a(P.size()), b(P.size());
        std::int64_t ta = 0, tb = 0;
        const float least = float(p.k.floor_min);
        GPUFFT_CHECK(sensing_log_fixed(P.data(), 1, m, least, a.data(), ta));
        GPUFFT_CHECK(sensing_log_fixed(Q.data(), 2, m, least, b.data(), tb));
        GPUFFT_CHECK_EQ(ta, tb);
        for (std::int64_t j = 0; j < m; ++j)
            GPUFFT_CHECK_EQ(a[std::size_t(j)], b[std::size_t(j)]);
    }
    std::vector<std::int32_t> iv(P.size());
    std::int64_t total = 0;
    // A value not finite, in a whole vector or past the last one, is refused.
    for (const std::size_t at : { std::size_t(4000), P.size() - 1 })
        for (const float bad : { std::numeric_limits<float>::infinity(),
                                 std::numeric_limits<float>::quiet_NaN() }) {
            auto Pb = P;
            Pb[at] = bad;
            GPUFFT_CHECK(!sensing_log_fixed(Pb.data(),
                                            1,
                                            std::int64_t(Pb.size()),
                                            float(p.k.floor_min),
                                            iv.data(),
                                            total));
        }
}

GPUFFT_TEST(gap_sums_match_the_floor_at_each_bin)
{
    auto rng = seeded();
    std::uniform_real_distribution<double> u(0, 1);
    for (std::int64_t n :
         { std::int64_t(4096), std::int64_t(65536), std::int64_t(1000003) }) {
        const auto p = params_for(n, "blackman_harris");
        std::vector<double> f(static_cast<std::size_t>(p.k.subbands));
        for (auto& v : f)
            v = std::pow(10.0, 3 * u(rng)); // floors 0-30 dB apart
        std::vector<float> P(static_cast<std::size_t>(n));
        for (auto& v : P)
            v = float(-std::log(1 - u(rng)) * 1000);
        for (int trial = 0; trial < 20; ++trial) {
            const std::int64_t a = std::int64_t(u(rng) * double(n - 1));
            const std::int64_t b =
                std::min<std::int64_t>(n, a + 1 + std::int64_t(u(rng) * 70000));
            double want = 0;
            for (std::int64_t s = a; s < b; ++s)
                want += double(P[std::size_t(s)]) / sensing_floor_at(p.k, f.data(), s);
            // The backend's pieces: one line of the floor at a time.
            double got = 0;
            for (std::int64_t s = a; s < b;) {
                const double x = (double(s) + 0.5) * p.k.inv_sub_bins - 0.5;
                const int S = p.k.subbands;
                int i = x <= 0 || S == 1 ? -1 : std::min(int(x), S - 1);
                std::int64_t e = s + 1;
                while (e < b) {
                    const double xe = (double(e) + 0.5) * p.k.inv_sub_bins - 0.5;
                    const int ie = xe <= 0 || S == 1 ? -1 : std::min(int(xe), S - 1);
                    if (ie != i)
                        break;
                    ++e;
                }
                if (i < 0 || i >= S - 1) {
                    const double v = i < 0 ? f[0] : f[std::size_t(S - 1)];
                    got += sensing_ratio_sum(P.data(), s, e, 0, 0, v, v);
                } else {
                    got += sensing_ratio_sum(P.data(),
                                             s,
                                             e,
                                             p.k.inv_sub_bins,
                                             double(i),
                                             f[std::size_t(i)],
                                             f[std::size_t(i) + 1]);
                }
                s = e;
            }
            GPUFFT_CHECK(std::fabs(got - want) <= 1e-5 * want);
        }
    }
}

// The censoring pass's sums (AVX-512 where the CPU has it, steps of 16 and what is left)
// against a plain loop, for every length up to 600 and cuts across the values.
GPUFFT_TEST(censored_sums_match_a_plain_loop)
{
    auto rng = seeded();
    std::uniform_int_distribution<std::int32_t> u(-88 * 65536, 88 * 65536);
    std::vector<std::int32_t> iv(600);
    for (auto& v : iv)
        v = u(rng);
    for (std::int64_t m = 0; m <= 600; ++m)
        for (const std::int32_t cut : { INT32_MIN, -65536, 0, 3 * 65536, INT32_MAX }) {
            std::int64_t sum = 0, count = 0, want_sum = 0, want_count = 0;
            sensing_censored_sum(iv.data(), m, cut, sum, count);
            for (std::int64_t j = 0; j < m; ++j)
                if (iv[std::size_t(j)] < cut) {
                    want_sum += iv[std::size_t(j)];
                    ++want_count;
                }
            GPUFFT_CHECK_EQ(sum, want_sum);
            GPUFFT_CHECK_EQ(count, want_count);
        }
}

// The AVX-512 threshold bits against sensing_above() bin by bin (floors that differ
// from sub-band to sub-band, blocks across the floor's pieces and its flat ends, one
// sub-band), and the candidates against P > low; skipped without AVX-512.
GPUFFT_TEST(top_bits_match_sensing_above_bin_by_bin)
{
    auto rng = seeded();
    std::uniform_real_distribution<double> u(0.5, 2.0);
    std::exponential_distribution<float> e(1.0f);
    for (const std::int64_t n :
         { std::int64_t(1024), std::int64_t(8192), std::int64_t(65536) })
        for (const int subbands : { 0, 1 }) {
            sensing_options o;
            o.backend = backend::cpu;
            o.floor_subbands = subbands;
            const auto p = make_sensing_params(n, o);
            std::vector<double> f(std::size_t(p.k.subbands));
            for (auto& v : f)
                v = u(rng);
            std::vector<float> P(static_cast<std::size_t>(n));
            // Half the bins within 20 % of their threshold, a quarter over it.
            for (std::int64_t s = 0; s < n; ++s)
                P[std::size_t(s)] =
                    float(sensing_floor_at(p.k, f.data(), s) * p.k.eta) *
                    (u(rng) < 1.25 ? float(0.8 + 0.4 * (u(rng) - 0.5) / 1.5)
                                   : 0.05f * e(rng));
            const std::int64_t block = std::min<std::int64_t>(n, 2048);
            for (std::int64_t s0 = 0; s0 < n; s0 += block) {
                const float* Pb = P.data() + s0;
                std::vector<float> top(std::size_t(block / 64));
                for (std::int64_t c = 0; c < block; c += 64)
                    top[std::size_t(c / 64)] = *std::max_element(Pb + c, Pb + c + 64);
                const float low = float(0.7 * p.k.eta * 0.5);
                std::vector<std::uint64_t> cand(std::size_t(block / 64)),
                    above(std::size_t(block / 64));
                const std::int64_t got = sensing_top_bits(p.k,
                                                          f.data(),
                                                          Pb,
                                                          top.data(),
                                                          s0,
                                                          block,
                                                          low,
                                                          block,
                                                          cand.data(),
                                                          above.data());
                if (got < 0) {
                    std::printf("skip: no AVX-512\n");
                    return;
                }
                std::int64_t want = 0;
                for (std::int64_t i = 0; i < block; ++i) {
                    const bool c = Pb[i] > low;
                    const bool a =
                        c && sensing_above(p.k, p.k.eta, f.data(), s0 + i, Pb[i]);
                    want += c;
                    GPUFFT_CHECK_EQ(int((cand[std::size_t(i / 64)] >> (i % 64)) & 1),
                                    int(c));
                    GPUFFT_CHECK_EQ(int((above[std::size_t(i / 64)] >> (i % 64)) & 1),
                                    int(a));
                }
                GPUFFT_CHECK_EQ(got, want);
            }
        }
}

// The fused power pass against the passes it replaces, to the bit; its 64-bin maxima
// drive the threshold pass's candidates, which must be those of the plain scan.
GPUFFT_TEST(power_sums_match_the_separate_passes_bit_for_bit)
{
    auto rng = seeded();
    std::normal_distribution<float> g(0, 1);
    std::uniform_real_distribution<float> u(0, 1);
    for (std::int64_t len : { 64, 128, 2048 }) {
        const auto size = static_cast<std::size_t>(len);
        std::vector<cf> X(size);
        for (auto& x : X) // noise over six decades, a few strong bins, exact zeros
            x = u(rng) < 0.01f   ? cf(0, 0)
                : u(rng) < 0.02f ? cf(300 * g(rng), 300 * g(rng))
                                 : cf(g(rng), g(rng)) * std::pow(10.0f, 3 * g(rng));
        std::vector<float> P(size), want_P(size), sums(size / 64), want_sums(size / 64),
            top(size / 64);
        sensing_power_sums(X.data(), len, P.data(), sums.data(), top.data());
        sensing_magnitude_squared(X.data(), len, want_P.data());
        sensing_block_sums(want_P.data(), len, want_sums.data());
        for (std::size_t i = 0; i < size; ++i)
            GPUFFT_CHECK(P[i] == want_P[i]);
        for (std::size_t j = 0; j < size / 64; ++j) {
            GPUFFT_CHECK(sums[j] == want_sums[j]);
            GPUFFT_CHECK(top[j] ==
                         *std::max_element(want_P.begin() + std::ptrdiff_t(64 * j),
                                           want_P.begin() + std::ptrdiff_t(64 * j + 64)));
        }
        for (const float low : { 0.5f, 50.0f, 5e4f }) {
            std::vector<std::int32_t> a(size), b(size);
            const std::int64_t m = sensing_candidates(P.data(), len, low, a.data());
            GPUFFT_CHECK_EQ(
                sensing_candidates_top(P.data(), top.data(), len, low, b.data()), m);
            for (std::int64_t c = 0; c < m; ++c)
                GPUFFT_CHECK_EQ(a[std::size_t(c)], b[std::size_t(c)]);
        }
    }
}

GPUFFT_TEST(candidates_are_every_bin_over_the_level)
{
    auto rng = seeded();
    std::uniform_real_distribution<float> u(0, 1);
    for (std::int64_t len : { 1, 63, 64, 65, 2048, 2047 }) {
        std::vector<float> P(static_cast<std::size_t>(len));
        for (auto& v : P)
            v = u(rng) < 0.02f ? 10 + u(rng) : u(rng);
        std::vector<std::int32_t> idx(static_cast<std::size_t>(len));
        const std::int64_t m = sensing_candidates(P.data(), len, 5.0f, idx.data());
        std::vector<std::int32_t> want;
        for (std::int64_t i = 0; i < len; ++i)
            if (P[std::size_t(i)] > 5.0f)
                want.push_back(std::int32_t(i));
        GPUFFT_CHECK_EQ(m, std::int64_t(want.size()));
        for (std::size_t c = 0; c < want.size() && c < std::size_t(m); ++c)
            GPUFFT_CHECK_EQ(idx[c], want[c]);
    }
}

GPUFFT_TEST(tone_fit_finds_robust_fit_tone_offset)
{
    auto rng = seeded();
    std::normal_distribution<double> g(0, 1);
    std::uniform_real_distribution<double> u(-0.5, 0.5);
    for (auto window : { sparse_fft_window::blackman_harris, sparse_fft_window::hann })
        for (std::int64_t n :
             { std::int64_t(1024), std::int64_t(65536), std::int64_t(1) << 20 }) {
            robust_consts c;
            set_robust_window(c, n, window);
            const sensing_fit_table t(c);
            const int L = 2 * c.lobe + 1;
            unsigned char present[2 * robust_window_terms + 1];
            std::fill(present, present + L, 1);
            double worst_d = 0;
            int beyond = 0;
            for (int trial = 0; trial < 300; ++trial) {
                // A tone at d0 (its lobe from the window's transform) in noise, 10-70 dB.
                const double d0 = u(rng), amp = std::pow(10.0, 0.5 + 3 * (u(rng) + 0.5));
                double yr[2 * robust_window_terms + 1], yi[2 * robust_window_terms + 1];
                for (int j = 0; j < L; ++j) {
                    double
                        br[2 * robust_window_terms + 1] = {},
                                                     bi[2 * robust_window_terms + 1] = {};
                    br[j] = 1;
                    double ar, ai;
                    robust_tone_lobe(c, br, bi, present).explained(d0, ar, ai);
                    yr[j] = amp * ar + g(rng);
                    yi[j] = -amp * ai + g(rng);
                }
                double d1, a1r, a1i, d2, a2r, a2i;
                const double e1 = robust_fit_tone(c, yr, yi, present, d1, a1r, a1i);
                const double e2 = sensing_fit_tone(c, t, yr, yi, d2, a2r, a2i);
                // The energy and amplitude at the fit's own offset are robust mode's
                // there (the last parabolic step interpolates them from its three
                // points, to ~1e-10).
                {
                    double r_r, r_i;
                    const double e_at =
                        robust_tone_lobe(c, yr, yi, present).explained(d2, r_r, r_i);
                    GPUFFT_CHECK(std::fabs(e2 - e_at) <= 1e-9 * e_at);
                    GPUFFT_CHECK(std::abs(std::complex<double>(a2r - r_r, a2i - r_i)) <=
                                 1e-9 * std::abs(std::complex<double>(r_r, r_i)));
                }
                // Both maximise the same function: the same offset to their tolerances
                // (1.6e-5 and 1e-6 bin), the same energy and amplitude (where the best
                // offset is an end of [-0.5, 0.5], Brent's search reaches it and the
                // golden section stops 1e-5 short: ours explains as much or more).
                // Ours may go past +-0.5 (noise put the peak in the tone's neighbour),
                // where robust mode's search stops: there it must explain more.
                if (std::fabs(d2) > 0.5) {
                    ++beyond;
                    GPUFFT_CHECK(e2 >= e1 * (1 - 1e-6));
                    continue;
                }
                worst_d = std::max(worst_d, std::fabs(d1 - d2));
                GPUFFT_CHECK(std::fabs(d1 - d2) < 5e-5);
                GPUFFT_CHECK(e2 >= e1 * (1 - 1e-6) && e2 <= e1 * (1 + 1e-5));
                GPUFFT_CHECK(std::abs(std::complex<double>(a1r - a2r, a1i - a2i)) <=
                             1e-3 * std::abs(std::complex<double>(a1r, a1i)));
            }
            // Past the half bin only where the tone is near it and weak: 1-17 in 300
            // seen.
            GPUFFT_CHECK(beyond <= 45);
            std::printf(
                "window %d n=%lld: offsets within %.1e bin, %d fits past the half "
                "bin\n",
                int(window),
                (long long)n,
                worst_d,
                beyond);
        }
}

// The CPU backend's wide bands (sensing_band_sums_buffered) against the template the
// CUDA backend's kernel mirrors: the same values to the bit (the speed-up must not move
// a signal), for cores wide and narrow, both bandwidth rules, peaks repeated.
GPUFFT_TEST(buffered_band_sums_match_the_template_bit_for_bit)
{
    auto rng = seeded();
    std::exponential_distribution<float> e(1.0f);
    std::uniform_int_distribution<int> width(1, 3000);
    std::normal_distribution<float> g(0, 1);
    for (const bool xdb : { false, true }) {
        sensing_options o;
        o.backend = backend::cpu;
        o.narrow_bins = 64;
        if (xdb)
            o.bandwidth_rule = bandwidth_rule::xdb;
        const std::int64_t n = 8192;
        const auto p = make_sensing_params(n, o);
        const auto size = static_cast<std::size_t>(n);
        std::vector<float> P(size);
        std::vector<double> F(size);
        std::vector<cf> X(size);
        for (int trial = 0; trial < 200; ++trial) {
            const double level = std::exp(double(g(rng)));
            for (std::int64_t s = 0; s < n; ++s) {
                F[std::size_t(s)] = level * (1 + 0.1 * std::sin(double(s) / 300));
                P[std::size_t(s)] =
                    float(level) * e(rng) * (trial % 3 == 0 ? 20.0f : 1.0f);
                X[std::size_t(s)] = { g(rng), g(rng) };
            }
            sensing_band want;
            // Cores under 8 bins (a tone's) take their own loop.
            const int core = trial % 4 == 0   ? 1 + trial % 64
                             : trial % 4 == 2 ? 1 + trial % 8
                                              : width(rng);
            want.core_first = 100 + trial;
            want.core_last = want.core_first + core - 1;
            want.first = want.core_first - trial % 5;
            want.last = want.core_last + trial % 7;
            if (trial % 5 == 1) // a repeated peak: the first one's bin
                P[std::size_t(want.core_last)] =
                    P[std::size_t(want.core_first + core / 2)] = 1e6f;
            sensing_band got = want;
            const auto power = [&](std::int64_t s) { return P[std::size_t(s)]; };
            const auto floor = [&](std::int64_t s) { return F[std::size_t(s)]; };
            const auto windowed = [&](std::int64_t s, double& re, double& im) {
                s = s < 0 ? s + n : (s >= n ? s - n : s);
                const auto& v = X[std::size_t(sensing_natural(p.k, s))];
                re = double(v.real());
                im = double(v.imag());
            };
            sensing_band_sums(want, p.k, power, floor, windowed, p.rule, p.xdb_ratio);
            sensing_band_sums_buffered(
                got, p.k, P.data(), F.data(), X.data(), p.rule, p.xdb_ratio);
            GPUFFT_CHECK(got.excess == want.excess);
            GPUFFT_CHECK(got.power == want.power);
            GPUFFT_CHECK(got.moment == want.moment);
            GPUFFT_CHECK(got.peak == want.peak);
            GPUFFT_CHECK_EQ(got.peak_bin, want.peak_bin);
            GPUFFT_CHECK(got.floor_at_peak == want.floor_at_peak);
            GPUFFT_CHECK(got.lower == want.lower);
            GPUFFT_CHECK(got.upper == want.upper);
            for (int j = 0; j < 2 * (2 * sensing_max_fit_half + 1); ++j)
                GPUFFT_CHECK(got.lobe[j] == want.lobe[j]);
        }
    }
}

// The floor's line in a buffer against sensing_floor_at(), bit for bit.
GPUFFT_TEST(floor_line_matches_floor_at_bit_for_bit)
{
    auto rng = seeded();
    std::uniform_real_distribution<double> u(0.5, 2.0);
    for (std::int64_t n :
         { std::int64_t(1024), std::int64_t(65536), std::int64_t(1000003) }) {
        const auto p = params_for(n, "blackman_harris");
        std::vector<double> f(std::size_t(p.k.subbands));
        for (auto& v : f)
            v = u(rng);
        std::vector<double> out(1 << 16);
        for (int i = 0; i + 1 < p.k.subbands; i += 1 + p.k.subbands / 16) {
            // Every bin between sub-band i's centre and the next one's (whole piece).
            const std::int64_t a = std::int64_t(i) * p.k.sub_bins + p.k.sub_bins / 2 + 1,
                               b = std::min(n, a + p.k.sub_bins - 1);
            sensing_floor_line(a,
                               b,
                               p.k.inv_sub_bins,
                               double(i),
                               f[std::size_t(i)],
                               f[std::size_t(i) + 1],
                               out.data());
            for (std::int64_t s = a; s < b; ++s)
                GPUFFT_CHECK(out[std::size_t(s - a)] ==
                             sensing_floor_at(p.k, f.data(), s));
        }
        // Short lines (a tone's band: from 8 bins the vector loop, its last bins under
        // a mask), and nothing written past their end.
        const int i = p.k.subbands > 1 ? 0 : -1;
        const std::int64_t a0 = p.k.sub_bins / 2 + 1;
        for (std::int64_t len = 1; len <= 40 && i >= 0; ++len) {
            std::fill(out.begin(), out.end(), -1.0);
            sensing_floor_line(
                a0, a0 + len, p.k.inv_sub_bins, 0.0, f[0], f[1], out.data());
            for (std::int64_t s = a0; s < a0 + len; ++s)
                GPUFFT_CHECK(out[std::size_t(s - a0)] ==
                             sensing_floor_at(p.k, f.data(), s));
            GPUFFT_CHECK(out[std::size_t(len)] == -1.0);
        }
    }
}

// The dense blocks' test of every bin against its threshold, against a plain scan.
GPUFFT_TEST(above_bits_are_the_bins_over_their_threshold)
{
    auto rng = seeded();
    std::exponential_distribution<float> e(1.0f);
    std::uniform_real_distribution<double> u(0.5, 2.0);
    for (std::int64_t len : { std::int64_t(2048), std::int64_t(1000), std::int64_t(3) }) {
        const auto size = static_cast<std::size_t>(len);
        std::vector<float> P(size);
        std::vector<double> F(size);
        for (std::size_t i = 0; i < size; ++i) {
            F[i] = u(rng);
            P[i] = float(F[i]) * e(rng) * 4;
        }
        P[0] = float(F[0] * 3.0); // at the threshold exactly: not over it
        const double eta = 3.0;
        std::vector<std::uint64_t> words((size + 63) / 64, ~std::uint64_t(0));
        sensing_above_bits(P.data(), F.data(), eta, len, words.data());
        for (std::size_t i = 0; i < words.size() * 64; ++i) {
            const bool got = (words[i / 64] >> (i % 64)) & 1;
            const bool want = i<size&& double(P[i])> eta * F[i];
            GPUFFT_CHECK_EQ(got, want);
        }
    }
}

GPUFFT_TEST_MAIN()
