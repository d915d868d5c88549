/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "sensing/sensing_cpu_loops.h"
#include <algorithm>
#include <cmath>
#include <cstring>

// A version for AVX2 + FMA beside the baseline one, chosen when the library loads
// (GCC's function multi-versioning, x86-64 with an ifunc-capable libc): the passes run
// 1.5-2x faster with 8-wide vectors, and the library still runs on any x86-64.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__)
#define SENSING_SIMD __attribute__((target_clones("arch=x86-64-v3", "default")))
#define SENSING_HAVE_AVX2 1
#include <immintrin.h>
// GCC 12's AVX-512 intrinsics start from an undefined register (_mm512_undefined_*) and
// warn of it where they are inlined (GCC bug 105593): no value of ours is read unset.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#else
#define SENSING_SIMD
#endif

// Loops that must give the baseline's values to the bit (sensing_band_sums' sums, the
// floor's line): no multiply-add fused in the AVX2 + FMA version (it rounds once where
// the baseline rounds twice).
#if defined(__GNUC__) && !defined(__clang__)
#define SENSING_NO_FMA __attribute__((optimize("fp-contract=off")))
#else
#define SENSING_NO_FMA
#endif

namespace gr {
namespace gpufft {
namespace detail {

void sensing_make_window(const sensing_consts& k, float* w)
{
    const int h = k.taps / 2;
    for (std::int64_t t = 0; t < k.n; ++t) {
        double v = k.c[h];
        for (int m = 1; m <= h; ++m) {
            // The phase m t / n reduced exactly, so that large n keep their accuracy.
            const double turns = double((std::int64_t(m) * t) % k.n) / double(k.n);
            v += 2 * k.c[h + m] * std::cos(2 * M_PI * turns);
        }
        w[t] = float(v);
    }
}

namespace {

// The window over samples [t, n), and with POWER their sum |x|^2 added to *power.
template <bool POWER>
inline __attribute__((always_inline)) void window_plain(const std::complex<float>* x,
                                                        const float* w,
                                                        std::int64_t t,
                                                        std::int64_t n,
                                                        std::complex<float>* out,
                                                        double* power)
{
    const float* a = reinterpret_cast<const float*>(x);
    float* b = reinterpret_cast<float*>(out);
    double sum = 0;
    for (; t < n; ++t) {
        b[2 * t] = a[2 * t] * w[t];
        b[2 * t + 1] = a[2 * t + 1] * w[t];
        if (POWER)
            sum += double(a[2 * t]) * a[2 * t] + double(a[2 * t + 1]) * a[2 * t + 1];
    }
    if (POWER)
        *power += sum;
}

#ifdef SENSING_HAVE_AVX2
// Eight samples a step: the window's eight values each doubled into a lane pair by one
// permute, two products, two stores (the compiler's loop split the samples into real
// and imaginary parts and put them back together, 10 shuffles a step). The same
// products, so the same values. With POWER, the samples' squares summed on the way in
// four accumulators, two steps an iteration (one accumulator's chain of additions,
// 4 cycles a step, would hold up the stores' 2): free beside the stores.
template <bool POWER>
__attribute__((target("avx2"), always_inline)) inline void
window_step_avx2(const float* a,
                 const float* w,
                 float* b,
                 std::int64_t u,
                 __m256i lo,
                 __m256i hi,
                 __m256* s)
{
    const __m256 w8 = _mm256_loadu_ps(w + u), v0 = _mm256_loadu_ps(a + 2 * u),
                 v1 = _mm256_loadu_ps(a + 2 * u + 8);
    _mm256_storeu_ps(b + 2 * u, _mm256_mul_ps(v0, _mm256_permutevar8x32_ps(w8, lo)));
    _mm256_storeu_ps(b + 2 * u + 8, _mm256_mul_ps(v1, _mm256_permutevar8x32_ps(w8, hi)));
    if (POWER) {
        s[0] = _mm256_add_ps(s[0], _mm256_mul_ps(v0, v0));
        s[1] = _mm256_add_ps(s[1], _mm256_mul_ps(v1, v1));
    }
}

template <bool POWER>
__attribute__((target("avx2"), always_inline)) inline std::int64_t
window_avx2(const std::complex<float>* x,
            const float* w,
            std::int64_t n,
            std::complex<float>* out,
            double* power)
{
    const float* a = reinterpret_cast<const float*>(x);
    float* b = reinterpret_cast<float*>(out);
    const __m256i lo = _mm256_set_epi32(3, 3, 2, 2, 1, 1, 0, 0),
                  hi = _mm256_set_epi32(7, 7, 6, 6, 5, 5, 4, 4);
    __m256 s[4] = {
        _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()
    };
    std::int64_t t = 0;
    if (POWER)
        for (; t + 16 <= n; t += 16) {
            window_step_avx2<POWER>(a, w, b, t, lo, hi, s);
            window_step_avx2<POWER>(a, w, b, t + 8, lo, hi, s + 2);
        }
    for (; t + 8 <= n; t += 8)
        window_step_avx2<POWER>(a, w, b, t, lo, hi, s);
    if (POWER) {
        const __m256 v =
            _mm256_add_ps(_mm256_add_ps(s[0], s[1]), _mm256_add_ps(s[2], s[3]));
        __m128 q = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
        q = _mm_hadd_ps(q, q);
        q = _mm_hadd_ps(q, q);
        *power += double(_mm_cvtss_f32(q));
    }
    return t;
}

// 16 samples a step in AVX-512: the window's values doubled into lane pairs by one
// permute each half, the same products (and POWER as window_avx2).
template <bool POWER>
__attribute__((target("avx512f"), always_inline)) inline void
window_step_avx512(const float* a,
                   const float* w,
                   float* b,
                   std::int64_t u,
                   __m512i lo,
                   __m512i hi,
                   __m512* s)
{
    const __m512 w16 = _mm512_loadu_ps(w + u), v0 = _mm512_loadu_ps(a + 2 * u),
                 v1 = _mm512_loadu_ps(a + 2 * u + 16);
    _mm512_storeu_ps(b + 2 * u, _mm512_mul_ps(v0, _mm512_permutexvar_ps(lo, w16)));
    _mm512_storeu_ps(b + 2 * u + 16, _mm512_mul_ps(v1, _mm512_permutexvar_ps(hi, w16)));
    if (POWER) {
        s[0] = _mm512_add_ps(s[0], _mm512_mul_ps(v0, v0));
        s[1] = _mm512_add_ps(s[1], _mm512_mul_ps(v1, v1));
    }
}

template <bool POWER>
__attribute__((target("avx512f"), always_inline)) inline std::int64_t
window_avx512(const std::complex<float>* x,
              const float* w,
              std::int64_t n,
              std::complex<float>* out,
              double* power)
{
    const float* a = reinterpret_cast<const float*>(x);
    float* b = reinterpret_cast<float*>(out);
    const __m512i lo = _mm512_set_epi32(7, 7, 6, 6, 5, 5, 4, 4, 3, 3, 2, 2, 1, 1, 0, 0),
                  hi = _mm512_set_epi32(
                      15, 15, 14, 14, 13, 13, 12, 12, 11, 11, 10, 10, 9, 9, 8, 8);
    __m512 s[4] = {
        _mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps()
    };
    std::int64_t t = 0;
    if (POWER)
        for (; t + 32 <= n; t += 32) {
            window_step_avx512<POWER>(a, w, b, t, lo, hi, s);
            window_step_avx512<POWER>(a, w, b, t + 16, lo, hi, s + 2);
        }
    for (; t + 16 <= n; t += 16)
        window_step_avx512<POWER>(a, w, b, t, lo, hi, s);
    if (POWER)
        *power += double(_mm512_reduce_add_ps(
            _mm512_add_ps(_mm512_add_ps(s[0], s[1]), _mm512_add_ps(s[2], s[3]))));
    return t;
}
#endif

// The window over [0, n); with POWER, also the sub-frames' powers (sensing_window):
// each sub-frame's vector steps, then its last samples, all within one call of the
// vector code (a call a sub-frame cost 5-8 % of detect() at n = 1024).
template <bool POWER>
void window_parts_plain(const std::complex<float>* x,
                        const float* w,
                        std::int64_t n,
                        std::complex<float>* out,
                        double* power)
{
    const int parts = POWER ? sensing_time_blocks : 1;
    for (int i = 0; i < parts; ++i) {
        const std::int64_t first = i * n / parts, end = (i + 1) * n / parts;
        double* p = POWER ? power + i : nullptr;
        if (POWER)
            *p = 0;
        window_plain<POWER>(x + first, w + first, 0, end - first, out + first, p);
    }
}

#ifdef SENSING_HAVE_AVX2
template <bool POWER>
__attribute__((target("avx2"))) void window_parts_avx2(const std::complex<float>* x,
                                                       const float* w,
                                                       std::int64_t n,
                                                       std::complex<float>* out,
                                                       double* power)
{
    const int parts = POWER ? sensing_time_blocks : 1;
    for (int i = 0; i < parts; ++i) {
        const std::int64_t first = i * n / parts, end = (i + 1) * n / parts;
        double* p = POWER ? power + i : nullptr;
        if (POWER)
            *p = 0;
        const std::int64_t t =
            window_avx2<POWER>(x + first, w + first, end - first, out + first, p);
        window_plain<POWER>(x + first, w + first, t, end - first, out + first, p);
    }
}

template <bool POWER>
__attribute__((target("avx512f"))) void window_parts_avx512(const std::complex<float>* x,
                                                            const float* w,
                                                            std::int64_t n,
                                                            std::complex<float>* out,
                                                            double* power)
{
    const int parts = POWER ? sensing_time_blocks : 1;
    for (int i = 0; i < parts; ++i) {
        const std::int64_t first = i * n / parts, end = (i + 1) * n / parts;
        double* p = POWER ? power + i : nullptr;
        if (POWER)
            *p = 0;
        const std::int64_t t =
            window_avx512<POWER>(x + first, w + first, end - first, out + first, p);
        window_plain<POWER>(x + first, w + first, t, end - first, out + first, p);
    }
}
#endif

template <bool POWER>
void window_span(const std::complex<float>* x,
                 const float* w,
                 std::int64_t n,
                 std::complex<float>* out,
                 double* power)
{
#ifdef SENSING_HAVE_AVX2
    static const bool avx2 = __builtin_cpu_supports("avx2"),
                      avx512 = __builtin_cpu_supports("avx512f");
    if (avx512)
        return window_parts_avx512<POWER>(x, w, n, out, power);
    if (avx2)
        return window_parts_avx2<POWER>(x, w, n, out, power);
#endif
    window_parts_plain<POWER>(x, w, n, out, power);
}

} // namespace

void sensing_window(const std::complex<float>* x,
                    const float* w,
                    std::int64_t n,
                    std::complex<float>* out,
                    double* power,
                    std::int64_t stride)
{
    if (power == nullptr)
        return window_span<false>(x, w, n, out, nullptr);
    if (stride == 1)
        return window_span<true>(x, w, n, out, power);
    // Every stride-th sample of each sub-frame, read from a block of the samples the
    // window has just read (in L1): read from memory on their own, a sample a cache
    // line, they cost 0.5 ms at 2^20.
    constexpr std::int64_t block = 2048;
    for (int i = 0; i < sensing_time_blocks; ++i) {
        const std::int64_t first = i * n / sensing_time_blocks,
                           end = (i + 1) * n / sensing_time_blocks;
        double sum = 0;
        std::int64_t u = first; // the next sample of the stride
        for (std::int64_t t = first; t < end; t += block) {
            const std::int64_t stop = std::min(end, t + block);
            window_span<false>(x + t, w + t, stop - t, out + t, nullptr);
            for (; u < stop; u += stride) {
                const double re = x[u].real(), im = x[u].imag();
                sum += re * re + im * im;
            }
        }
        power[i] = sum;
    }
}

SENSING_SIMD void sensing_block_sums(const float* P, std::int64_t len, float* sums)
{
    for (std::int64_t j = 0; 64 * j < len; ++j) {
        const std::int64_t a = 64 * j, b = len < a + 64 ? len : a + 64;
        // Eight partial sums, so the loop vectorises without reassociation flags.
        float lane[8] = {};
        std::int64_t i = a;
        for (; i + 8 <= b; i += 8)
            for (int k = 0; k < 8; ++k)
                lane[k] += P[i + k];
        float s = 0;
        for (; i < b; ++i)
            s += P[i];
        for (int k = 0; k < 8; ++k)
            s += lane[k];
        sums[j] = s;
    }
}

SENSING_SIMD void
sensing_magnitude_squared(const std::complex<float>* X, std::int64_t len, float* P)
{
    const float* a = reinterpret_cast<const float*>(X);
    for (std::int64_t i = 0; i < len; ++i)
        P[i] = a[2 * i] * a[2 * i] + a[2 * i + 1] * a[2 * i + 1];
}

namespace {

#ifdef SENSING_HAVE_AVX2
// 64 bins a step: 8 complex values a load pair, split into real and imaginary parts
// by two shuffles, P = re re + im im fused as the compiler's x86-64-v3 build of
// sensing_magnitude_squared fuses it (im im rounded, then the multiply-add), put back
// in order by one permute, and summed in eight lanes in the order of
// sensing_block_sums (lane k: bins 8 q + k, then lane 0 to 7).
__attribute__((target("avx2,fma"))) void power_sums_avx2(
    const std::complex<float>* X, std::int64_t len, float* P, float* sums, float* top)
{
    const float* a = reinterpret_cast<const float*>(X);
    for (std::int64_t c = 0; c < len; c += 64) {
        __m256 acc = _mm256_setzero_ps(), most = _mm256_setzero_ps();
        for (std::int64_t i = c; i < c + 64; i += 8) {
            const __m256 u = _mm256_loadu_ps(a + 2 * i),
                         v = _mm256_loadu_ps(a + 2 * i + 8);
            // [x0 x1 x4 x5 x2 x3 x6 x7] of the real parts, and of the imaginary ones.
            const __m256 re = _mm256_shuffle_ps(u, v, 0x88),
                         im = _mm256_shuffle_ps(u, v, 0xdd);
            const __m256 p = _mm256_castpd_ps(_mm256_permute4x64_pd(
                _mm256_castps_pd(_mm256_fmadd_ps(re, re, _mm256_mul_ps(im, im))), 0xd8));
            _mm256_storeu_ps(P + i, p);
            acc = _mm256_add_ps(acc, p);
            most = _mm256_max_ps(most, p);
        }
        alignas(32) float lane[8], big[8];
        _mm256_store_ps(lane, acc);
        _mm256_store_ps(big, most);
        float s = 0, t = big[0];
        for (int k = 0; k < 8; ++k) {
            s += lane[k];
            t = big[k] > t ? big[k] : t;
        }
        sums[c / 64] = s;
        top[c / 64] = t;
    }
}

// power_sums_avx2 16 bins a step in AVX-512: the parts split by two two-source
// permutes (in order), the same fused power, and each half added to the eight lanes
// in turn (lane k: bins 8 q + k in order, as there).
__attribute__((target("avx512f"))) void power_sums_avx512(
    const std::complex<float>* X, std::int64_t len, float* P, float* sums, float* top)
{
    const float* a = reinterpret_cast<const float*>(X);
    const __m512i even = _mm512_set_epi32(
                      30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0),
                  odd = _mm512_set_epi32(
                      31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
    for (std::int64_t c = 0; c < len; c += 64) {
        __m256 acc = _mm256_setzero_ps();
        __m512 most = _mm512_setzero_ps();
        for (std::int64_t i = c; i < c + 64; i += 16) {
            const __m512 u = _mm512_loadu_ps(a + 2 * i),
                         v = _mm512_loadu_ps(a + 2 * i + 16);
            const __m512 re = _mm512_permutex2var_ps(u, even, v),
                         im = _mm512_permutex2var_ps(u, odd, v);
            const __m512 p = _mm512_fmadd_ps(re, re, _mm512_mul_ps(im, im));
            _mm512_storeu_ps(P + i, p);
            acc = _mm256_add_ps(acc, _mm512_castps512_ps256(p));
            acc = _mm256_add_ps(
                acc, _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(p), 1)));
            most = _mm512_max_ps(most, p);
        }
        alignas(32) float lane[8];
        _mm256_store_ps(lane, acc);
        float s = 0;
        for (int k = 0; k < 8; ++k)
            s += lane[k];
        sums[c / 64] = s;
        top[c / 64] = _mm512_reduce_max_ps(most);
    }
}
#endif

} // namespace

void sensing_power_sums(
    const std::complex<float>* X, std::int64_t len, float* P, float* sums, float* top)
{
#ifdef SENSING_HAVE_AVX2
    static const bool avx2 =
        __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    static const bool avx512 = __builtin_cpu_supports("avx512f");
    if (avx512) {
        power_sums_avx512(X, len, P, sums, top);
        return;
    }
    if (avx2) {
        power_sums_avx2(X, len, P, sums, top);
        return;
    }
#endif
    sensing_magnitude_squared(X, len, P);
    sensing_block_sums(P, len, sums);
    for (std::int64_t c = 0; c < len; c += 64) {
        float t = P[c];
        for (std::int64_t i = c + 1; i < c + 64; ++i)
            t = P[i] > t ? P[i] : t;
        top[c / 64] = t;
    }
}

namespace {

// One value of sensing_log_fixed.
inline __attribute__((always_inline)) std::int32_t
log_fixed_one(float v, float least, std::uint32_t& bad)
{
    std::uint32_t u;
    std::memcpy(&u, &v, sizeof u);
    bad |= std::uint32_t((u & 0x7f800000u) == 0x7f800000u);
    v = v > least ? v : least;
    std::memcpy(&u, &v, sizeof u);
    const float e = float(int((u >> 23) & 0xffu) - 127);
    u = (u & 0x007fffffu) | 0x3f800000u; // mantissa in [1, 2)
    float mant;
    std::memcpy(&mant, &u, sizeof mant);
    // sensing_log_power(), term for term.
    const float t = (mant - 1.0f) / (mant + 1.0f), t2 = t * t;
    const float ln_m =
        2.0f * t *
        (1.0f + t2 * (1.0f / 3 + t2 * (1.0f / 5 + t2 * (1.0f / 7 + t2 * (1.0f / 9)))));
    return std::int32_t((e * 0.69314718f + ln_m) * 65536.0f);
}

#ifdef SENSING_HAVE_AVX2
// sensing_log_fixed's stride 1, 8 values a step in AVX2 + FMA: the operations of the
// x86-64-v3 build of log_fixed_one, fused where it fuses them, so the same values (the
// compiler's loop spilled constants and took 4 operations for the test of finite values
// and 2 for the clamp, 29 in all a step: here 23). A value that is not finite makes
// v x 0 + bad a NaN; max(v, least) is `v > least ? v : least`, NaN included. Returns
// the values done (whole steps).
__attribute__((target("avx2,fma"))) std::int64_t log_fixed_avx2(
    const float* P, std::int64_t m, float least, std::int32_t* iv, std::int64_t& total)
{
    const __m256 lo = _mm256_set1_ps(least), zero = _mm256_setzero_ps();
    const __m256 one = _mm256_set1_ps(1.0f), minus_one = _mm256_set1_ps(-1.0f);
    const __m256 c9 = _mm256_set1_ps(1.0f / 9), c7 = _mm256_set1_ps(1.0f / 7),
                 c5 = _mm256_set1_ps(1.0f / 5), c3 = _mm256_set1_ps(1.0f / 3);
    const __m256 ln2 = _mm256_set1_ps(0.69314718f), scale = _mm256_set1_ps(65536.0f);
    const __m256i mant = _mm256_set1_epi32(0x007fffff),
                  exp0 = _mm256_set1_epi32(0x3f800000), bias = _mm256_set1_epi32(127);
    __m256 bad = zero;
    std::int64_t j = 0;
    while (j + 8 <= m) {
        // Sums of 256 values at most in 32-bit lanes: |sum| < 32 x 2^23.
        const std::int64_t end = m - j < 256 ? j + (m - j) / 8 * 8 : j + 256;
        __m256i sum = _mm256_setzero_si256();
        for (; j < end; j += 8) {
            __m256 v = _mm256_loadu_ps(P + j);
            bad = _mm256_fmadd_ps(v, zero, bad);
            v = _mm256_max_ps(v, lo);
            const __m256i u = _mm256_castps_si256(v);
            const __m256 e =
                _mm256_cvtepi32_ps(_mm256_sub_epi32(_mm256_srli_epi32(u, 23), bias));
            const __m256 mv =
                _mm256_castsi256_ps(_mm256_or_si256(_mm256_and_si256(u, mant), exp0));
            const __m256 t =
                _mm256_div_ps(_mm256_add_ps(mv, minus_one), _mm256_add_ps(mv, one));
            const __m256 t2 = _mm256_mul_ps(t, t);
            __m256 q = _mm256_fmadd_ps(t2, c9, c7);
            q = _mm256_fmadd_ps(t2, q, c5);
            q = _mm256_fmadd_ps(t2, q, c3);
            q = _mm256_fmadd_ps(q, t2, one);
            const __m256 r =
                _mm256_fmadd_ps(_mm256_add_ps(t, t), q, _mm256_mul_ps(e, ln2));
            const __m256i x = _mm256_cvttps_epi32(_mm256_mul_ps(r, scale));
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(iv + j), x);
            sum = _mm256_add_epi32(sum, x);
        }
        alignas(32) std::int32_t lane[8];
        _mm256_store_si256(reinterpret_cast<__m256i*>(lane), sum);
        for (int k = 0; k < 8; ++k)
            total += lane[k];
    }
    const int nan = _mm256_movemask_ps(_mm256_cmp_ps(bad, bad, _CMP_UNORD_Q));
    return nan != 0 ? -1 : j;
}

// log_fixed_avx2 16 values a step in AVX-512, the same values in fewer operations (the
// step was most of the floor's time): the exponent and mantissa by getexp and getmant
// (exact for normal values, and every value is held at `least`, a normal float, or
// over it, or is flagged); the doubling of t and the final scaling by 2^16 folded into
// the series' constants and ln 2 (powers of two: each rounding scales with them, so
// fma(t, 2^17 q, 2^16 e ln 2) is 2^16 fma(2 t, q, e ln 2) to the bit); the test of
// finite values on the integer bits (a multiply-add a step took a multiplier).
__attribute__((target("avx512f"))) std::int64_t log_fixed_avx512(
    const float* P, std::int64_t m, float least, std::int32_t* iv, std::int64_t& total)
{
    constexpr float s17 = 131072.0f;
    const __m512 lo = _mm512_set1_ps(least);
    const __m512 one = _mm512_set1_ps(1.0f), minus_one = _mm512_set1_ps(-1.0f);
    const __m512 c9 = _mm512_set1_ps(1.0f / 9 * s17), c7 = _mm512_set1_ps(1.0f / 7 * s17),
                 c5 = _mm512_set1_ps(1.0f / 5 * s17), c3 = _mm512_set1_ps(1.0f / 3 * s17),
                 c1 = _mm512_set1_ps(s17);
    const __m512 ln2 = _mm512_set1_ps(0.69314718f * 65536.0f);
    const __m512i abs = _mm512_set1_epi32(0x7fffffff);
    __m512i bad = _mm512_setzero_si512();
    std::int64_t j = 0;
    while (j + 16 <= m) {
        // Sums of 256 values at most in 32-bit lanes: |sum| < 16 x 2^23.
        const std::int64_t end = m - j < 256 ? j + (m - j) / 16 * 16 : j + 256;
        __m512i sum = _mm512_setzero_si512();
        for (; j < end; j += 16) {
            __m512 v = _mm512_loadu_ps(P + j);
            // |v|'s bits: 0x7f800000 or more for an infinity or a NaN.
            bad = _mm512_max_epu32(bad, _mm512_and_si512(_mm512_castps_si512(v), abs));
            v = _mm512_max_ps(v, lo);
            const __m512 e = _mm512_getexp_ps(v);
            const __m512 mv = _mm512_getmant_ps(v, _MM_MANT_NORM_1_2, _MM_MANT_SIGN_src);
            const __m512 t =
                _mm512_div_ps(_mm512_add_ps(mv, minus_one), _mm512_add_ps(mv, one));
            const __m512 t2 = _mm512_mul_ps(t, t);
            __m512 q = _mm512_fmadd_ps(t2, c9, c7);
            q = _mm512_fmadd_ps(t2, q, c5);
            q = _mm512_fmadd_ps(t2, q, c3);
            q = _mm512_fmadd_ps(q, t2, c1);
            const __m512i x =
                _mm512_cvttps_epi32(_mm512_fmadd_ps(t, q, _mm512_mul_ps(e, ln2)));
            _mm512_storeu_si512(iv + j, x);
            sum = _mm512_add_epi32(sum, x);
        }
        total += _mm512_reduce_add_epi32(sum);
    }
    const __mmask16 nonfinite =
        _mm512_cmpge_epu32_mask(bad, _mm512_set1_epi32(0x7f800000));
    return nonfinite != 0 ? -1 : j;
}
#endif

} // namespace

SENSING_SIMD bool sensing_log_fixed(const float* P,
                                    std::int64_t stride,
                                    std::int64_t m,
                                    float least,
                                    std::int32_t* iv,
                                    std::int64_t& total)
{
    std::uint32_t bad = 0;
    total = 0;
#ifdef SENSING_HAVE_AVX2
    static const bool avx2 =
        __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    static const bool avx512 = __builtin_cpu_supports("avx512f");
    if (avx2 && stride == 1) {
        const std::int64_t done = avx512 ? log_fixed_avx512(P, m, least, iv, total)
                                         : log_fixed_avx2(P, m, least, iv, total);
        if (done < 0)
            return false;
        std::int32_t sum = 0;
        for (std::int64_t j = done; j < m; ++j) { // less than a step
            iv[j] = log_fixed_one(P[j], least, bad);
            sum += iv[j];
        }
        total += sum;
        return bad == 0;
    }
#endif
    for (std::int64_t j0 = 0; j0 < m; j0 += 256) {
        const std::int64_t j1 = m < j0 + 256 ? m : j0 + 256;
        std::int32_t sum = 0; // |sum| < 256 x 2^23: no overflow
        if (stride == 1)
            for (std::int64_t j = j0; j < j1; ++j) {
                iv[j] = log_fixed_one(P[j], least, bad);
                sum += iv[j];
            }
        else
            for (std::int64_t j = j0; j < j1; ++j) {
                iv[j] = log_fixed_one(P[j * stride], least, bad);
                sum += iv[j];
            }
        total += sum;
    }
    return bad == 0;
}

#ifdef SENSING_HAVE_AVX2
namespace {

// sensing_censored_sum's whole steps of 32 in AVX-512: a compare into a mask, an add
// and a count under it (integer sums: the same totals in any order). Each pass of the
// floor's censoring is one such sweep, four a sub-band: in AVX2 four vector operations
// a step of 8, a third of the floor's time beside its logs; here three a step of 16.
// Returns the values done.
__attribute__((target("avx512f"))) std::int64_t
censored_sum_avx512(const std::int32_t* iv,
                    std::int64_t m,
                    std::int32_t cut,
                    std::int64_t& total,
                    std::int64_t& count)
{
    const __m512i c = _mm512_set1_epi32(cut), minus_one = _mm512_set1_epi32(-1);
    std::int64_t j = 0;
    while (j + 32 <= m) {
        // 16 values a lane and register at most: |sum| < 16 x 2^23. Two registers, and
        // the count in vector lanes (a mask's popcount and its moves to a general
        // register were three scalar operations a step, more than the step's vector
        // ones): one chain of additions each.
        const std::int64_t end = m - j < 512 ? j + (m - j) / 32 * 32 : j + 512;
        __m512i s0 = _mm512_setzero_si512(), s1 = _mm512_setzero_si512();
        __m512i n0 = _mm512_setzero_si512(), n1 = _mm512_setzero_si512();
        for (; j < end; j += 32) {
            const __m512i v0 = _mm512_loadu_si512(iv + j),
                          v1 = _mm512_loadu_si512(iv + j + 16);
            const __mmask16 in0 = _mm512_cmplt_epi32_mask(v0, c),
                            in1 = _mm512_cmplt_epi32_mask(v1, c);
            s0 = _mm512_mask_add_epi32(s0, in0, s0, v0);
            s1 = _mm512_mask_add_epi32(s1, in1, s1, v1);
            n0 = _mm512_mask_sub_epi32(n0, in0, n0, minus_one);
            n1 = _mm512_mask_sub_epi32(n1, in1, n1, minus_one);
        }
        total += std::int64_t(_mm512_reduce_add_epi32(s0)) +
                 std::int64_t(_mm512_reduce_add_epi32(s1));
        count += _mm512_reduce_add_epi32(_mm512_add_epi32(n0, n1));
    }
    return j;
}

} // namespace
#endif

SENSING_SIMD void sensing_censored_sum(const std::int32_t* iv,
                                       std::int64_t m,
                                       std::int32_t cut,
                                       std::int64_t& total,
                                       std::int64_t& count)
{
    total = count = 0;
#ifdef SENSING_HAVE_AVX2
    static const bool avx512 = __builtin_cpu_supports("avx512f");
    if (avx512) {
        const std::int64_t done = censored_sum_avx512(iv, m, cut, total, count);
        iv += done;
        m -= done;
    }
#endif
    for (std::int64_t j0 = 0; j0 < m; j0 += 256) {
        const std::int64_t j1 = m < j0 + 256 ? m : j0 + 256;
        std::int32_t sum = 0, cnt = 0; // |sum| < 256 x 2^23: no overflow
        for (std::int64_t j = j0; j < j1; ++j) {
            const std::int32_t in = -std::int32_t(iv[j] < cut);
            sum += iv[j] & in;
            cnt += in & 1;
        }
        total += sum;
        count += cnt;
    }
}

namespace {

std::int64_t
candidates_plain(const float* P, std::int64_t len, float low, std::int32_t* idx)
{
    std::int64_t count = 0;
    for (std::int64_t c0 = 0; c0 < len; c0 += 64) {
        const std::int64_t c1 = len < c0 + 64 ? len : c0 + 64;
        std::int32_t any = 0;
        for (std::int64_t i = c0; i < c1; ++i)
            any += P[i] > low ? 1 : 0;
        if (any == 0)
            continue;
        for (std::int64_t i = c0; i < c1; ++i)
            if (P[i] > low)
                idx[count++] = std::int32_t(i);
    }
    return count;
}

#ifdef SENSING_HAVE_AVX2
// Eight bins a compare, their set bits read off the mask: a spectrum where most stretches
// of 64 bins hold a candidate (a thousand tones, an LTE carrier near the threshold)
// tested every bin of them one by one.
__attribute__((target("avx2"))) std::int64_t
candidates_avx2(const float* P, std::int64_t len, float low, std::int32_t* idx)
{
    const __m256 l = _mm256_set1_ps(low);
    std::int64_t count = 0, i = 0;
    for (; i + 32 <= len; i += 32) {
        std::uint32_t m = 0;
        for (int j = 0; j < 32; j += 8) // (a lambda would not inherit the target)
            m |= std::uint32_t(_mm256_movemask_ps(
                     _mm256_cmp_ps(_mm256_loadu_ps(P + i + j), l, _CMP_GT_OQ)))
                 << j;
        while (m != 0) {
            idx[count++] = std::int32_t(i + __builtin_ctz(m));
            m &= m - 1;
        }
    }
    for (; i < len; ++i)
        if (P[i] > low)
            idx[count++] = std::int32_t(i);
    return count;
}
#endif

} // namespace

namespace {

void above_bits_plain(const float* P,
                      const double* F,
                      double eta,
                      std::int64_t i,
                      std::int64_t len,
                      std::uint64_t* words)
{
    for (; i < len; ++i)
        if (double(P[i]) > eta * F[i])
            words[i / 64] |= std::uint64_t(1) << (i % 64);
}

#ifdef SENSING_HAVE_AVX2
__attribute__((target("avx2"))) std::int64_t above_bits_avx2(
    const float* P, const double* F, double eta, std::int64_t len, std::uint64_t* words)
{
    const __m256d e = _mm256_set1_pd(eta);
    std::int64_t i = 0;
    for (; i + 64 <= len; i += 64) {
        std::uint64_t w = 0;
        for (int j = 0; j < 64; j += 4) {
            const __m256d p = _mm256_cvtps_pd(_mm_loadu_ps(P + i + j));
            const __m256d t = _mm256_mul_pd(e, _mm256_loadu_pd(F + i + j));
            w |= std::uint64_t(_mm256_movemask_pd(_mm256_cmp_pd(p, t, _CMP_GT_OQ))) << j;
        }
        words[i / 64] = w;
    }
    return i;
}
#endif

} // namespace

#ifdef SENSING_HAVE_AVX2
namespace {

// sensing_top_bits() in AVX-512: each stretch's candidates by four compares; where a
// stretch lies in one piece of the floor's line (all but one in sub_bins / 64), its
// floors 8 a vector by sensing_floor_at()'s operations in its order, each rounded
// alone (no multiply-add fused: fp-contract is off here), else bin by bin.
__attribute__((target("avx512f"))) SENSING_NO_FMA std::int64_t
top_bits_avx512(const sensing_consts& k,
                const double* f,
                const float* P,
                const float* top,
                std::int64_t s0,
                std::int64_t len,
                float low,
                std::int64_t dense,
                std::uint64_t* cand,
                std::uint64_t* above)
{
    const __m512 l = _mm512_set1_ps(low);
    std::int64_t count = 0;
    for (std::int64_t c = 0; c < len; c += 64) {
        std::uint64_t w = 0;
        if (top[c / 64] > low)
            for (int q = 0; q < 4; ++q)
                w |= std::uint64_t(_mm512_cmp_ps_mask(
                         _mm512_loadu_ps(P + c + 16 * q), l, _CMP_GT_OQ))
                     << (16 * q);
        cand[c / 64] = w;
        count += __builtin_popcountll(w);
    }
    if (count > dense)
        return count;
    const int S = k.subbands;
    // sensing_floor_at()'s piece of bin s: -1 for f[0], S - 1 for f[S - 1].
    const auto piece = [&](std::int64_t s) {
        if (S == 1)
            return -1;
        const double x = (double(s) + 0.5) * k.inv_sub_bins - 0.5;
        if (x <= 0)
            return -1;
        const int i = int(x);
        return i >= S - 1 ? S - 1 : i;
    };
    const __m512d eta = _mm512_set1_pd(k.eta), half = _mm512_set1_pd(0.5),
                  inv = _mm512_set1_pd(k.inv_sub_bins),
                  iota = _mm512_set_pd(7, 6, 5, 4, 3, 2, 1, 0);
    for (std::int64_t c = 0; c < len; c += 64) {
        const std::uint64_t w = cand[c / 64];
        above[c / 64] = 0;
        if (w == 0)
            continue;
        const std::int64_t s = s0 + c;
        const int i = piece(s);
        if (i != piece(s + 63)) { // the line bends inside: bin by bin
            std::uint64_t a = 0;
            for (std::uint64_t r = w; r != 0; r &= r - 1) {
                const int b = __builtin_ctzll(r);
                if (double(P[c + b]) > k.eta * sensing_floor_at(k, f, s + b))
                    a |= std::uint64_t(1) << b;
            }
            above[c / 64] = a;
            continue;
        }
        std::uint64_t a = 0;
        if (i < 0 || i == S - 1) {
            const __m512d t = _mm512_set1_pd(k.eta * (i < 0 ? f[0] : f[S - 1]));
            for (int q = 0; q < 8; ++q)
                a |= std::uint64_t(_mm512_cmp_pd_mask(
                         _mm512_cvtps_pd(_mm256_loadu_ps(P + c + 8 * q)), t, _CMP_GT_OQ))
                     << (8 * q);
        } else {
            // f[i] + (x - i) (f[i + 1] - f[i]), x = (s + 0.5) inv - 0.5.
            const __m512d fi = _mm512_set1_pd(f[i]), di = _mm512_set1_pd(double(i)),
                          slope = _mm512_set1_pd(f[i + 1] - f[i]);
            for (int q = 0; q < 8; ++q) {
                const __m512d sb = _mm512_add_pd(_mm512_set1_pd(double(s + 8 * q)), iota);
                const __m512d x =
                    _mm512_sub_pd(_mm512_mul_pd(_mm512_add_pd(sb, half), inv), half);
                const __m512d F =
                    _mm512_add_pd(fi, _mm512_mul_pd(_mm512_sub_pd(x, di), slope));
                a |= std::uint64_t(_mm512_cmp_pd_mask(
                         _mm512_cvtps_pd(_mm256_loadu_ps(P + c + 8 * q)),
                         _mm512_mul_pd(eta, F),
                         _CMP_GT_OQ))
                     << (8 * q);
            }
        }
        above[c / 64] = a & w;
    }
    return count;
}

} // namespace
#endif

std::int64_t sensing_top_bits(const sensing_consts& k,
                              const double* f,
                              const float* P,
                              const float* top,
                              std::int64_t s0,
                              std::int64_t len,
                              float low,
                              std::int64_t dense,
                              std::uint64_t* cand,
                              std::uint64_t* above)
{
#ifdef SENSING_HAVE_AVX2
    static const bool avx512 = __builtin_cpu_supports("avx512f");
    if (avx512)
        return top_bits_avx512(k, f, P, top, s0, len, low, dense, cand, above);
#endif
    return -1;
}

void sensing_above_bits(
    const float* P, const double* F, double eta, std::int64_t len, std::uint64_t* words)
{
    for (std::int64_t j = 0; j < (len + 63) / 64; ++j)
        words[j] = 0;
    std::int64_t i = 0;
#ifdef SENSING_HAVE_AVX2
    static const bool avx2 = __builtin_cpu_supports("avx2");
    if (avx2)
        i = above_bits_avx2(P, F, eta, len, words);
#endif
    above_bits_plain(P, F, eta, i, len, words);
}

std::int64_t sensing_candidates_top(
    const float* P, const float* top, std::int64_t len, float low, std::int32_t* idx)
{
    std::int64_t count = 0;
    for (std::int64_t c = 0; c < len; c += 64) {
        if (!(top[c / 64] > low))
            continue;
        const std::int64_t m = sensing_candidates(P + c, 64, low, idx + count);
        for (std::int64_t j = count; j < count + m; ++j)
            idx[j] += std::int32_t(c);
        count += m;
    }
    return count;
}

std::int64_t
sensing_candidates(const float* P, std::int64_t len, float low, std::int32_t* idx)
{
#ifdef SENSING_HAVE_AVX2
    static const bool avx2 = __builtin_cpu_supports("avx2");
    if (avx2)
        return candidates_avx2(P, len, low, idx);
#endif
    return candidates_plain(P, len, low, idx);
}

SENSING_SIMD double sensing_ratio_sum(const float* P,
                                      std::int64_t a,
                                      std::int64_t b,
                                      double inv,
                                      double i,
                                      double f0,
                                      double f1)
{
    // floor(a + j) = f0 + (t0 + j inv) (f1 - f0), t0 = x(a) - i.
    const float t0 = float((double(a) + 0.5) * inv - 0.5 - i), invf = float(inv);
    const float base = float(f0), slope = float(f1 - f0);
    const float* Pa = P + a;
    const std::int32_t len = std::int32_t(b - a);
    double total = 0;
    for (std::int32_t c0 = 0; c0 < len; c0 += 1024) {
        const std::int32_t c1 = len < c0 + 1024 ? len : c0 + 1024;
        // Sixteen partial sums, so the loop vectorises without reassociation flags.
        float lane[16] = {};
        std::int32_t j = c0;
        for (; j + 16 <= c1; j += 16)
            for (int k = 0; k < 16; ++k)
                lane[k] += Pa[j + k] / (base + (t0 + float(j + k) * invf) * slope);
        double sum = 0;
        for (; j < c1; ++j)
            sum += double(Pa[j] / (base + (t0 + float(j) * invf) * slope));
        for (int k = 0; k < 16; ++k)
            sum += double(lane[k]);
        total += sum;
    }
    return total;
}

#ifdef SENSING_HAVE_AVX2
namespace {

// sensing_floor_line 8 bins a step in AVX-512, the same operations each rounded alone
// (fp-contract off), the last step's stores under a mask; returns the bins done (len).
__attribute__((target("avx512f"))) SENSING_NO_FMA std::int32_t
floor_line_avx512(double base,
                  std::int32_t len,
                  double inv,
                  double i,
                  double f0,
                  double slope,
                  double* out)
{
    const __m512d vb = _mm512_set1_pd(base), half = _mm512_set1_pd(0.5),
                  vinv = _mm512_set1_pd(inv), vi = _mm512_set1_pd(i),
                  vf = _mm512_set1_pd(f0), vs = _mm512_set1_pd(slope);
    __m512d j = _mm512_set_pd(7, 6, 5, 4, 3, 2, 1, 0);
    const __m512d eight = _mm512_set1_pd(8);
    std::int32_t k = 0;
    for (; k < len; k += 8) {
        const __m512d x = _mm512_sub_pd(
            _mm512_mul_pd(_mm512_add_pd(_mm512_add_pd(vb, j), half), vinv), half);
        const __m512d f = _mm512_add_pd(vf, _mm512_mul_pd(_mm512_sub_pd(x, vi), vs));
        if (k + 8 <= len)
            _mm512_storeu_pd(out + k, f);
        else // the last bins under a mask
            _mm512_mask_storeu_pd(out + k, __mmask8((1u << (len - k)) - 1), f);
        j = _mm512_add_pd(j, eight); // exact: integers under 2^31
    }
    return len;
}

} // namespace
#endif

SENSING_SIMD SENSING_NO_FMA void sensing_floor_line(std::int64_t a,
                                                    std::int64_t b,
                                                    double inv,
                                                    double i,
                                                    double f0,
                                                    double f1,
                                                    double* out)
{
    // double(a) + j is double(a + j), exactly, and a 32-bit j converts 4 at a time.
    const double slope = f1 - f0, base = double(a);
    const std::int32_t len = std::int32_t(b - a);
    std::int32_t j = 0;
#ifdef SENSING_HAVE_AVX2
    static const bool avx512 = __builtin_cpu_supports("avx512f");
    // From 8 bins (a tone's band, in most frames most of the bands: its scalar loop
    // was a twentieth of detect() at n = 1024).
    if (avx512 && len >= 8)
        j = floor_line_avx512(base, len, inv, i, f0, slope, out);
#endif
    for (; j < len; ++j) {
        const double x = ((base + double(j)) + 0.5) * inv - 0.5;
        out[j] = f0 + (x - i) * slope;
    }
}

#ifdef SENSING_HAVE_AVX2
namespace {

// The core's eight lanes of sensing_band_sums_buffered, 8 bins a step in AVX2 (the
// compiler left them scalar): the same operations, each rounded alone (no FMA is enabled
// here), so the same values. Returns the first bin not done.
__attribute__((target("avx2"))) std::int64_t core_lanes_avx2(const float* P,
                                                             const double* F,
                                                             std::int64_t s,
                                                             std::int64_t end,
                                                             double* lt,
                                                             double* le,
                                                             double* lm,
                                                             float* lp)
{
    __m256d t0 = _mm256_loadu_pd(lt), t1 = _mm256_loadu_pd(lt + 4);
    __m256d e0 = _mm256_loadu_pd(le), e1 = _mm256_loadu_pd(le + 4);
    __m256d m0 = _mm256_loadu_pd(lm), m1 = _mm256_loadu_pd(lm + 4);
    __m256 pk = _mm256_loadu_ps(lp);
    const __m256d zero = _mm256_setzero_pd();
    const __m256d j0 = _mm256_set_pd(3, 2, 1, 0), j1 = _mm256_set_pd(7, 6, 5, 4);
    for (; s + 8 <= end; s += 8) {
        const __m256 p = _mm256_loadu_ps(P + s);
        const __m256d d0 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(p)),
                                         _mm256_loadu_pd(F + s));
        const __m256d d1 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(p, 1)),
                                         _mm256_loadu_pd(F + s + 4));
        // d > 0 ? d : 0.0 (the mask's zero is +0.0, as the literal).
        const __m256d x0 = _mm256_and_pd(d0, _mm256_cmp_pd(d0, zero, _CMP_GT_OQ));
        const __m256d x1 = _mm256_and_pd(d1, _mm256_cmp_pd(d1, zero, _CMP_GT_OQ));
        const __m256d base = _mm256_set1_pd(double(s));
        t0 = _mm256_add_pd(t0, d0);
        t1 = _mm256_add_pd(t1, d1);
        e0 = _mm256_add_pd(e0, x0);
        e1 = _mm256_add_pd(e1, x1);
        m0 = _mm256_add_pd(m0, _mm256_mul_pd(_mm256_add_pd(base, j0), x0));
        m1 = _mm256_add_pd(m1, _mm256_mul_pd(_mm256_add_pd(base, j1), x1));
        pk = _mm256_max_ps(p, pk); // p > lp ? p : lp
    }
    _mm256_storeu_pd(lt, t0);
    _mm256_storeu_pd(lt + 4, t1);
    _mm256_storeu_pd(le, e0);
    _mm256_storeu_pd(le + 4, e1);
    _mm256_storeu_pd(lm, m0);
    _mm256_storeu_pd(lm + 4, m1);
    _mm256_storeu_ps(lp, pk);
    return s;
}

// core_lanes_avx2 in AVX-512: each quantity's eight lanes in one register, the same
// operations each rounded alone (fp-contract is off: AVX-512 has fused multiply-adds).
// Also each whole 64 bins' excess from the first bin `s` on, blocks[j] for bins s + 64 j
// .. s + 64 j + 63, in the edges' walk's order (its lanes of 8 bins apart, then
// ((0 + 1) + (2 + 3)) + ((4 + 5) + (6 + 7))): the walk then reads the core's power and
// floors again only in the two blocks that hold its edges (a second pass over a wide
// core was a third of its band's sums). blocks null: none kept.
__attribute__((target("avx512f"))) SENSING_NO_FMA std::int64_t
core_lanes_avx512(const float* P,
                  const double* F,
                  std::int64_t s,
                  std::int64_t end,
                  double* lt,
                  double* le,
                  double* lm,
                  float* lp,
                  double* blocks)
{
    __m512d t = _mm512_loadu_pd(lt), e = _mm512_loadu_pd(le), m = _mm512_loadu_pd(lm);
    __m256 pk = _mm256_loadu_ps(lp);
    const __m512d zero = _mm512_setzero_pd(), j = _mm512_set_pd(7, 6, 5, 4, 3, 2, 1, 0);
    const std::int64_t first = s;
    for (; s + 64 <= end; s += 64) {
        __m512d block = zero;
        for (std::int64_t q = s; q < s + 64; q += 8) {
            const __m256 p = _mm256_loadu_ps(P + q);
            const __m512d d = _mm512_sub_pd(_mm512_cvtps_pd(p), _mm512_loadu_pd(F + q));
            // d > 0 ? d : 0.0 (+0.0, as the literal).
            const __m512d x =
                _mm512_maskz_mov_pd(_mm512_cmp_pd_mask(d, zero, _CMP_GT_OQ), d);
            t = _mm512_add_pd(t, d);
            e = _mm512_add_pd(e, x);
            m = _mm512_add_pd(
                m, _mm512_mul_pd(_mm512_add_pd(_mm512_set1_pd(double(q)), j), x));
            block = _mm512_add_pd(block, x);
            pk = _mm256_max_ps(p, pk); // p > lp ? p : lp
        }
        if (blocks == nullptr)
            continue;
        alignas(64) double l[8];
        _mm512_store_pd(l, block);
        blocks[(s - first) / 64] =
            ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]));
    }
    for (; s + 8 <= end; s += 8) {
        const __m256 p = _mm256_loadu_ps(P + s);
        const __m512d d = _mm512_sub_pd(_mm512_cvtps_pd(p), _mm512_loadu_pd(F + s));
        const __m512d x = _mm512_maskz_mov_pd(_mm512_cmp_pd_mask(d, zero, _CMP_GT_OQ), d);
        t = _mm512_add_pd(t, d);
        e = _mm512_add_pd(e, x);
        m = _mm512_add_pd(m,
                          _mm512_mul_pd(_mm512_add_pd(_mm512_set1_pd(double(s)), j), x));
        pk = _mm256_max_ps(p, pk);
    }
    _mm512_storeu_pd(lt, t);
    _mm512_storeu_pd(le, e);
    _mm512_storeu_pd(lm, m);
    _mm256_storeu_ps(lp, pk);
    return s;
}

} // namespace
#endif

SENSING_SIMD SENSING_NO_FMA void sensing_band_sums_buffered(sensing_band& b,
                                                            const sensing_consts& k,
                                                            const float* P,
                                                            const double* F,
                                                            const std::complex<float>* X,
                                                            bandwidth_rule rule,
                                                            double xdb_ratio,
                                                            double* blocks_scratch)
{
    // The reference sensing_band_sums() (tests/sensing/sensing_band_reference.h) step
    // for step; only how the loops are written differs.
    double excess = 0, moment = 0, total = 0;
    const double* blocks = nullptr; // the core's whole 64 bins' excess, where made
    float peak = -1;
    std::int64_t peak_bin = b.peak_bin;
    double floor_at_peak = b.floor_at_peak;
    for (std::int64_t s = b.first; s < b.core_first; ++s)
        total += double(P[s]) - F[s];
    if (b.core_last - b.core_first + 1 < 8) {
        // A core under 8 bins (a tone's) fills no lane: every sum runs bin by bin in
        // the reference's order (its lanes' +0.0 leave them as they are: no sum here is
        // -0.0), and the first bin of the peak is its first strict maximum. One loop:
        // the lanes, the peak's second walk and their calls were a third of a tone's
        // band sums.
        for (std::int64_t s = b.core_first; s <= b.core_last; ++s) {
            const float p = P[s];
            const double d = double(p) - F[s];
            const double e = d > 0 ? d : 0.0;
            total += d;
            excess += e;
            moment += double(s) * e;
            if (p > peak) {
                peak = p;
                peak_bin = s;
            }
        }
        floor_at_peak = F[peak_bin];
    } else {
        double lt[8] = {}, le[8] = {}, lm[8] = {};
        float lp[8] = { -1, -1, -1, -1, -1, -1, -1, -1 };
        std::int64_t s = b.core_first;
#ifdef SENSING_HAVE_AVX2
        static const bool avx2 = __builtin_cpu_supports("avx2"),
                          avx512 = __builtin_cpu_supports("avx512f");
        if (avx512) {
            // Whole blocks' excess for the edges' walk (64 bins a value), where there
            // is one.
            const std::int64_t whole = (b.core_last - b.core_first + 1) / 64;
            double* out = nullptr;
            if (whole > 0 && rule != bandwidth_rule::xdb) {
                if (blocks_scratch != nullptr) {
                    out = blocks_scratch;
                } else {
                    static thread_local std::vector<double> own;
                    if (own.size() < std::size_t(whole))
                        own.resize(std::size_t(whole));
                    out = own.data();
                }
            }
            s = core_lanes_avx512(P, F, s, b.core_last + 1, lt, le, lm, lp, out);
            blocks = out;
        } else if (avx2)
            s = core_lanes_avx2(P, F, s, b.core_last + 1, lt, le, lm, lp);
#endif
        // double(s) + j is double(s + j), exactly (bins < 2^53), and vectorises where the
        // conversion of a 64-bit integer does not (AVX2 has none).
        for (; s + 8 <= b.core_last + 1; s += 8) {
            const double base = double(s);
            for (int j = 0; j < 8; ++j) {
                const float p = P[s + j];
                const double d = double(p) - F[s + j];
                const double e = d > 0 ? d : 0.0;
                lt[j] += d;
                le[j] += e;
                lm[j] += (base + double(j)) * e;
                lp[j] = p > lp[j] ? p : lp[j];
            }
        }
        for (; s <= b.core_last; ++s) {
            const float p = P[s];
            const double d = double(p) - F[s];
            const double e = d > 0 ? d : 0.0;
            total += d;
            excess += e;
            moment += double(s) * e;
            peak = p > peak ? p : peak;
        }
        for (int j = 0; j < 8; ++j) {
            total += lt[j];
            excess += le[j];
            moment += lm[j];
            peak = lp[j] > peak ? lp[j] : peak;
        }
        // The first bin of the core at the peak: 64 bins a test, then bin by bin.
        for (std::int64_t t0 = b.core_first; t0 <= b.core_last; t0 += 64) {
            const std::int64_t t1 = b.core_last + 1 < t0 + 64 ? b.core_last + 1 : t0 + 64;
            std::int32_t any = 0;
            for (std::int64_t t = t0; t < t1; ++t)
                any |= P[t] == peak ? 1 : 0;
            if (any == 0)
                continue;
            std::int64_t t = t0;
            while (P[t] != peak)
                ++t;
            peak_bin = t;
            floor_at_peak = F[t];
            break;
        }
    }
    for (std::int64_t t = b.core_last + 1; t <= b.last; ++t)
        total += double(P[t]) - F[t];
    b.excess = excess;
    b.moment = moment;
    b.power = total;
    b.peak = peak;
    b.peak_bin = peak_bin;
    b.floor_at_peak = floor_at_peak;
    if (b.core_last - b.core_first + 1 <= k.narrow)
        for (int j = -k.fit_half; j <= k.fit_half; ++j) {
            double* v = b.lobe + 2 * (j + k.fit_half);
            std::int64_t t = b.peak_bin + j;
            t = t < 0 ? t + k.n : (t >= k.n ? t - k.n : t);
            const auto& x = X[std::size_t(sensing_natural(k, t))];
            v[0] = double(x.real());
            v[1] = double(x.imag());
        }
    if (rule == bandwidth_rule::xdb) {
        const double level = double(b.peak) * xdb_ratio;
        std::int64_t lo = b.peak_bin, hi = b.peak_bin;
        for (std::int64_t t = b.core_first; t <= b.core_last; ++t)
            if (double(P[t]) >= level) {
                lo = lo < t ? lo : t;
                hi = hi > t ? hi : t;
            }
        b.lower = double(lo) - 0.5;
        b.upper = double(hi) + 0.5;
        return;
    }
    if (!(b.excess > 0)) {
        b.lower = double(b.core_first) - 0.5;
        b.upper = double(b.core_last) + 0.5;
        return;
    }
    const double lo_t = 0.005 * b.excess, hi_t = 0.995 * b.excess;
    double cum = 0;
    bool have_lo = false;
    b.upper = double(b.core_last) + 0.5;
    bool done = false;
    for (std::int64_t s0 = b.core_first; s0 <= b.core_last && !done; s0 += 64) {
        const std::int64_t s1 = b.core_last + 1 < s0 + 64 ? b.core_last + 1 : s0 + 64;
        if (s1 - s0 == 64) {
            double block;
            if (blocks != nullptr) {
                block = blocks[(s0 - b.core_first) / 64];
            } else {
                double lane[8] = {};
                for (std::int64_t t = s0; t < s1; t += 8)
                    for (int j = 0; j < 8; ++j) {
                        // p > f exactly when p - f > 0: the excess without a branch.
                        const double d = double(P[t + j]) - F[t + j];
                        lane[j] += d > 0 ? d : 0.0;
                    }
                block = ((lane[0] + lane[1]) + (lane[2] + lane[3])) +
                        ((lane[4] + lane[5]) + (lane[6] + lane[7]));
            }
            if (cum + block < (have_lo ? hi_t : lo_t)) {
                cum += block;
                continue;
            }
        }
        for (std::int64_t t = s0; t < s1; ++t) {
            const double p = double(P[t]), f = F[t];
            const double e = p > f ? p - f : 0.0;
            const double next = cum + e;
            if (!have_lo && next >= lo_t && e > 0) {
                b.lower = double(t) - 0.5 + (lo_t - cum) / e;
                have_lo = true;
            }
            if (next >= hi_t && e > 0) {
                b.upper = double(t) - 0.5 + (hi_t - cum) / e;
                done = true;
                break;
            }
            cum = next;
        }
    }
    if (!have_lo)
        b.lower = double(b.core_first) - 0.5;
}

} // namespace detail
} // namespace gpufft
} // namespace gr
