/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The device order statistics robust mode's noise medians use (the grid-wide selection
// and the one-block one), against a full std::sort of fresh random inputs: noise powers
// (exponential), ties, zeros of both signs, huge values, runs of values a few ulps apart,
// and signed values, at counts that are not powers of two. One run sweeps many seeds:
// a case that turns up once in 15 runs of one seed (issue #30: a -0 among the inputs,
// which std::exponential_distribution<float> returns about once in 2^25 draws) must
// show in every run. GPUFFT_SELECT_SEED=<seed> replays a run.
//
// The radix key (select_key()) is checked on the host, with or without a GPU.

#include "reference.h"
#include "sparse/common/select_cuda.h"
#include "test_harness.h"
#include <gnuradio/gpufft/device.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#ifdef GPUFFT_HAVE_CUDA
#include "cuda/cuda_resources.h"
#endif

using namespace gr::gpufft;
using namespace gpufft_test;

namespace {

unsigned bits_of(float x)
{
    unsigned u;
    std::memcpy(&u, &x, sizeof u);
    return u;
}

float float_of(unsigned u)
{
    float x;
    std::memcpy(&x, &u, sizeof x);
    return x;
}

// Whether select_key() orders a and b (neither NaN) as the floats compare; -0 and +0
// compare equal, and their keys must be adjacent (-0 first).
bool keys_ordered(unsigned a, unsigned b)
{
    using detail::select_key;
    const float fa = float_of(a), fb = float_of(b);
    if (a == b)
        return select_key(a) == select_key(b);
    if (fa == fb) // +0 and -0
        return select_key(a | 0x80000000u) + 1u == select_key(b & 0x7fffffffu);
    return (fa < fb) == (select_key(a) < select_key(b));
}

} // namespace

GPUFFT_TEST(select_key_orders_floats)
{
    using detail::select_key;
    using detail::select_unkey;
    const float inf = std::numeric_limits<float>::infinity();
    const float big = std::numeric_limits<float>::max();
    const float tiny = std::numeric_limits<float>::min();
    const float denorm = std::numeric_limits<float>::denorm_min();
    // Ascending; the raw bit patterns of this ladder are not.
    const std::vector<float> ladder = { -inf,    -big,  -3e37f, -1.0f,  -tiny,
                                        -denorm, -0.0f, 0.0f,   denorm, tiny,
                                        1e-3f,   1.0f,  3e37f,  big,    inf };
    for (std::size_t i = 0; i < ladder.size(); ++i) {
        const unsigned b = bits_of(ladder[i]);
        GPUFFT_CHECK_EQ(select_unkey(select_key(b)), b);
        if (i + 1 < ladder.size())
            GPUFFT_CHECK(select_key(b) < select_key(bits_of(ladder[i + 1])));
    }
    // The case of issue #30: -0 ranks with the zeros, not above +inf.
    GPUFFT_CHECK(select_key(bits_of(-0.0f)) < select_key(bits_of(1.60933e-09f)));
    // Every 4099th bit pattern against its neighbour and a fixed pseudo-random partner
    // (deterministic: a fixed seed), NaNs left out.
    std::mt19937 rng(20260430u);
    long long checked = 0;
    for (unsigned long long b = 0; b <= 0xffffffffull; b += 4099) {
        const unsigned a = unsigned(b);
        for (const unsigned c : { a + 1u, a - 1u, unsigned(rng()), a ^ 0x80000000u }) {
            if (std::isnan(float_of(a)) || std::isnan(float_of(c)))
                continue;
            GPUFFT_CHECK_EQ(select_unkey(select_key(c)), c);
            if (!keys_ordered(a, c)) {
                std::printf("  bits 0x%08x and 0x%08x: keys 0x%08x, 0x%08x\n",
                            a,
                            c,
                            select_key(a),
                            select_key(c));
                GPUFFT_FAIL("select_key() misorders two floats");
            }
            ++checked;
        }
    }
    GPUFFT_CHECK(checked > 3000000);
}

#ifdef GPUFFT_HAVE_CUDA

namespace {

// Input kinds; every one has the edge cases built in rather than left to rare draws.
enum kind_t {
    noise,      // exponential powers (a noise floor's buckets), a few -0 and +0
    ties,       // small integers
    zeros_huge, // noise with many zeros of either sign and some 3e37
    ulps,       // runs of values a few ulps apart: only the last digit tells them apart
    signed_mix, // negatives, zeros of either sign, denormals, infinities
    kinds
};

const char* kind_name(int k)
{
    static const char* names[] = { "noise", "ties", "zeros_huge", "ulps", "signed" };
    return names[k];
}

std::vector<float> make_input(long long count, int kind, std::mt19937_64& rng)
{
    std::exponential_distribution<float> expo(1.0f);
    std::normal_distribution<float> gauss(0.0f, 1.0f);
    std::uniform_int_distribution<int> small(0, 9);
    std::uniform_int_distribution<long long> at(0, count - 1);
    std::vector<float> v(count);
    switch (kind) {
    case noise:
        for (auto& x : v)
            x = expo(rng) * 1e-3f;
        break;
    case ties:
        for (auto& x : v)
            x = float(small(rng));
        break;
    case zeros_huge:
        for (auto& x : v) {
            x = expo(rng) * 1e-3f;
            if (small(rng) == 0) {
                const int c = small(rng);
                x = c < 3 ? 0.0f : (c < 5 ? -0.0f : 3e37f);
            }
        }
        break;
    case ulps: {
        // A random base plus 0..511 ulps: the values share their high digits, and
        // the range crosses a boundary of the last (8-bit) digit.
        const unsigned base = 0x3a000000u + unsigned(rng() % 0x01000000u);
        for (auto& x : v)
            x = float_of(base + unsigned(rng() % 512));
        break;
    }
    case signed_mix:
        for (auto& x : v) {
            x = gauss(rng) * (small(rng) < 5 ? 1e-3f : 1e3f);
            const int c = small(rng);
            if (c == 0)
                x = small(rng) < 5 ? 0.0f : -0.0f;
            else if (c == 1)
                x = std::numeric_limits<float>::denorm_min() * float(small(rng) - 5);
            else if (c == 2 && small(rng) == 0)
                x = (small(rng) < 5 ? -1.0f : 1.0f) *
                    std::numeric_limits<float>::infinity();
        }
        break;
    }
    // Always a -0 and, where room, a +0 somewhere, in every kind: issue #30's inputs.
    v[at(rng)] = -0.0f;
    if (count > 2 && kind != ulps)
        v[at(rng)] = 0.0f;
    return v;
}

// The device buffers, sized once for the largest count, reused by every call.
struct selector {
    explicit selector(long long max_count)
    {
        d_v.allocate(std::size_t(max_count));
        d_out.allocate(1);
        scratch.allocate(detail::select_scratch_words);
    }

    void load(const std::vector<float>& v)
    {
        GPUFFT_CUDA_CHECK(cudaMemcpy(
            d_v.get(), v.data(), v.size() * sizeof(float), cudaMemcpyHostToDevice));
        count = (long long)v.size();
    }

    // block: launch_block_select_nonneg (count <= block_select_max), else the grid one.
    float select(long long rank, bool block)
    {
        const float poison = std::numeric_limits<float>::quiet_NaN();
        GPUFFT_CUDA_CHECK(
            cudaMemcpy(d_out.get(), &poison, sizeof(float), cudaMemcpyHostToDevice));
        if (block)
            detail::launch_block_select_nonneg(
                d_v.get(), int(count), int(rank), d_out.get(), s.get());
        else
            detail::launch_select_nonneg(
                d_v.get(), count, rank, scratch.get(), d_out.get(), s.get());
        s.synchronize();
        float out = 0;
        GPUFFT_CUDA_CHECK(
            cudaMemcpy(&out, d_out.get(), sizeof(float), cudaMemcpyDeviceToHost));
        return out;
    }

    cuda::device_buffer<float> d_v, d_out;
    cuda::device_buffer<unsigned> scratch;
    cuda::stream s;
    long long count = 0;
};

// Every kind at every count for one seed; false (the case printed) on a mismatch.
bool check_seed(selector& sel,
                std::uint64_t seed,
                const std::vector<long long>& counts,
                bool with_block)
{
    std::mt19937_64 rng(seed);
    bool ok = true;
    for (long long count : counts) {
        if (count <= 0) // "a random count"
            count = std::uniform_int_distribution<long long>(1, -count)(rng);
        for (int kind = 0; kind < kinds; ++kind) {
            const std::vector<float> v = make_input(count, kind, rng);
            std::vector<float> ref = v;
            std::sort(ref.begin(), ref.end());
            sel.load(v);
            const long long random_rank =
                std::uniform_int_distribution<long long>(0, count - 1)(rng);
            for (long long rank : { 0LL, count / 2, count - 1, random_rank }) {
                for (bool block : { false, true }) {
                    if (block && (!with_block || count > detail::block_select_max))
                        continue;
                    const float got = sel.select(rank, block);
                    if (got == ref[rank])
                        continue;
                    ok = false;
                    static int printed = 0; // the first few; a broken kernel fails all
                    if (++printed > 20)
                        continue;
                    std::printf("  seed %llu: %s, count %lld kind %s rank %lld: got %.9g "
                                "(0x%08x) want %.9g (0x%08x)\n",
                                (unsigned long long)seed,
                                block ? "block" : "grid",
                                count,
                                kind_name(kind),
                                rank,
                                got,
                                bits_of(got),
                                ref[rank],
                                bits_of(ref[rank]));
                }
            }
        }
    }
    return ok;
}

std::uint64_t run_seed()
{
    const char* env = std::getenv("GPUFFT_SELECT_SEED");
    return env && *env ? std::strtoull(env, nullptr, 10) : fresh_seed();
}

// Seeds a run sweeps: many at the one-block sizes, a few at the grid-only ones (whose
// host-side sort dominates the run time).
constexpr int small_seeds = 200;
constexpr int large_seeds = 4;

} // namespace

GPUFFT_TEST(select_matches_sort_over_seeds)
{
    if (!cuda_available(0))
        GPUFFT_SKIP("no usable CUDA device");
    const std::uint64_t base = run_seed();
    std::printf("  seed %llu (GPUFFT_SELECT_SEED=%llu replays this run)\n",
                (unsigned long long)base,
                (unsigned long long)base);
    selector sel(1000003);
    int failed_seeds = 0;
    // A negative count is a random count in [1, -count].
    const std::vector<long long> small_counts = { 1, 2, 7, 255, 257, 4097, 8192, -8192 };
    for (int i = 0; i < small_seeds; ++i)
        failed_seeds += !check_seed(sel, base + std::uint64_t(i), small_counts, true);
    const std::vector<long long> large_counts = { 65537, 196608, 1000003, -1000003 };
    for (int i = 0; i < large_seeds; ++i)
        failed_seeds +=
            !check_seed(sel, base + small_seeds + std::uint64_t(i), large_counts, false);
    if (failed_seeds)
        std::printf("  %d of %d seeds failed\n", failed_seeds, small_seeds + large_seeds);
    GPUFFT_CHECK_EQ(failed_seeds, 0);
}

#else

GPUFFT_TEST(select_on_device) { GPUFFT_SKIP("gr-gpufft was built without CUDA"); }

#endif

GPUFFT_TEST_MAIN()
