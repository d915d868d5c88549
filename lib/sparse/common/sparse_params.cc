/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The cost model: every number below follows from n, k and three accuracy targets
// (window leakage 1e-8, phase-measurement budget, peeling load); docs/sparse_fft.md
// derives them.

#include "sparse/common/sparse_params.h"
#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <sstream>
#include <stdexcept>

namespace gr {
namespace gpufft {
namespace detail {


std::uint64_t splitmix64(std::uint64_t& s)
{
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

namespace {

std::int64_t gcd64(std::int64_t a, std::int64_t b)
{
    while (b) {
        const std::int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

std::uint64_t inverse_mod(std::int64_t a, std::int64_t n)
{
    // Extended Euclid in 128-bit to stay exact for any n < 2^63.
    __int128 t = 0, nt = 1, r = n, nr = a;
    while (nr != 0) {
        const __int128 q = r / nr;
        __int128 tmp = t - q * nt;
        t = nt;
        nt = tmp;
        tmp = r - q * nr;
        r = nr;
        nr = tmp;
    }
    if (t < 0)
        t += n;
    return std::uint64_t(t);
}

[[noreturn]] void bad(const std::string& what) { throw std::invalid_argument(what); }

} // namespace

std::int64_t divisor_in(std::int64_t n, std::int64_t lo, std::int64_t hi)
{
    for (std::int64_t d = std::max<std::int64_t>(lo, 2); d <= hi && d <= n / 2; ++d)
        if (n % d == 0)
            return d;
    return 0;
}

std::uint64_t sparse_params::sample_index(int h, std::int64_t t) const
{
    const int per = robust ? rc.hashes : c.levels;
    const int r = h / per, j = h % per;
    const std::int64_t a = robust ? rc.offset[j] : c.offset[j];
    std::int64_t tt = (t + a) % c.n;
    if (tt < 0)
        tt += c.n;
    std::uint64_t i = mulmod(sigma[r], std::uint64_t(tt), std::uint64_t(c.n)) + tau[r];
    if (i >= std::uint64_t(c.n))
        i -= std::uint64_t(c.n);
    return i;
}

std::uint64_t sparse_params::hash_start(int h) const { return sample_index(h, 0); }

namespace {

// A double as printf's %g writes it (to_string would turn 1e-9 into 0.000000).
std::string num(double v)
{
    std::ostringstream os;
    os << v;
    return os.str();
}

} // namespace

} // namespace detail

// The one owner of these ranges: the plan, the block (lib/stream) and the Python
// binding all call them, so a bad value reads the same everywhere. The names are
// sparse_names.cc's.

void check_sparse_fft_k(std::int64_t k, std::int64_t n, sparse_fft_mode mode)
{
    // Worded as the block names the frame size (fft_size); the plan's n is the same.
    if (mode == sparse_fft_mode::robust) {
        if (k < 1 || k > n / 4)
            throw std::invalid_argument(
                "k: must be in [1, fft_size / 4] = [1, " + std::to_string(n / 4) +
                "] in mode \"robust\" (fft_size: the frame, the plan's n; a frame "
                "with more tones is not sparse), got " +
                std::to_string(k));
        return;
    }
    if (k < 1 || k >= n)
        throw std::invalid_argument(
            "k: must be in [1, fft_size) = [1, " + std::to_string(n) +
            ") (fft_size: the frame, the plan's n), got " + std::to_string(k));
}

void check_sparse_fft_min_snr_db(double v)
{
    if (!(v >= 0 && v <= 200))
        throw std::invalid_argument("min_snr_db: must be in [0, 200] dB, got " +
                                    detail::num(v));
}

void check_sparse_fft_false_alarm(double v)
{
    if (!(v > 0 && v <= 0.5))
        throw std::invalid_argument("false_alarm: must be in (0, 0.5], got " +
                                    detail::num(v));
}

namespace detail {

void validate_sparse_options(std::int64_t n, std::int64_t k, const sparse_fft_options& o)
{
    if (n < sparse_fft_min_size || n > (std::int64_t(1) << 40))
        bad("n: " + std::to_string(n) + " is invalid; must be in [" +
            std::to_string(sparse_fft_min_size) + ", 2^40]");
    if (o.mode != sparse_fft_mode::exact && o.mode != sparse_fft_mode::robust)
        bad("mode: must be " + sparse_fft_mode_names() + ", got " +
            std::to_string(int(o.mode)));
    check_sparse_fft_k(k, n, o.mode);
    check_sparse_fft_min_snr_db(o.min_snr_db);
    check_sparse_fft_false_alarm(o.false_alarm);
    if (o.window != sparse_fft_window::automatic && o.window != sparse_fft_window::none &&
        o.window != sparse_fft_window::hann &&
        o.window != sparse_fft_window::blackman_harris)
        bad("window: must be 'auto', 'none', 'hann' or 'blackman_harris'");
    if (o.mode == sparse_fft_mode::exact && o.window != sparse_fft_window::automatic &&
        o.window != sparse_fft_window::none)
        bad("window: exact mode reads the samples unweighted; a time window needs "
            "mode 'robust'");
    if (o.value_iterations < 0 || o.value_iterations > 64)
        bad("value_iterations: " + std::to_string(o.value_iterations) +
            " is invalid; must be 0 (automatic) or 1..64");
    if (o.loops < 0 || o.loops > 16)
        bad("loops: " + std::to_string(o.loops) +
            " is invalid; must be in [0, 16] (0: auto)");
    if (o.buckets < 0 ||
        (o.buckets > 0 && (o.buckets < 2 || o.buckets > n / 2 || n % o.buckets != 0)))
        bad("buckets: " + std::to_string(o.buckets) +
            " is invalid; must be 0 (auto) or a divisor of n in [2, n/2]");
    if (o.buckets > 0 && o.buckets <= k)
        bad("buckets: " + std::to_string(o.buckets) +
            " is invalid for k = " + std::to_string(k) +
            "; must exceed k (each bucket isolates at most one "
            "coefficient)");
    if (o.location != sparse_fft_location::phase &&
        o.location != sparse_fft_location::voting)
        bad("location: must be 'phase' or 'voting'");
    if (o.filter_width < 0 || (o.filter_width > 0 && o.filter_width % 2 == 0))
        bad("filter_width: " + std::to_string(o.filter_width) +
            " is invalid; must be 0 (auto) or odd");
}

sparse_params choose_sparse_params(std::int64_t n,
                                   std::int64_t k,
                                   const sparse_fft_options& o,
                                   backend used)
{
    validate_sparse_options(n, k, o);
    sparse_params p;
    p.k = k;
    p.c.n = n;
    p.seed = o.seed
                 ? o.seed
                 : (std::uint64_t(std::random_device{}()) << 32) ^ std::random_device{}();

    if (o.mode == sparse_fft_mode::robust) {
        choose_robust_params(p, o, used);
        return p;
    }
    choose_exact_params(p, o, used);
    return p;
}

std::vector<std::uint64_t> gather_indices(const sparse_params& p)
{
    const int H = p.hashes();
    const int per_loop = p.robust ? p.rc.hashes : p.c.levels;
    const std::uint64_t n = std::uint64_t(p.c.n);
    std::vector<std::uint64_t> index(std::size_t(H) * p.window);
    for (int h = 0; h < H; ++h) {
        std::uint64_t idx = p.sample_index(h, -p.half_window);
        const std::uint64_t step = p.sigma[h / per_loop];
        for (std::int64_t i = 0; i < p.window; ++i) {
            index[std::size_t(h) * p.window + i] = idx;
            idx += step;
            if (idx >= n)
                idx -= n;
        }
    }
    return index;
}

void draw_permutations(sparse_params& p,
                       int loops,
                       const std::function<bool(const sparse_params&, int)>& accept)
{
    const std::int64_t n = p.c.n;
    std::uint64_t s = p.seed;
    p.sigma.clear();
    p.sigma_inv.clear();
    p.tau.clear();
    for (int r = 0; r < loops; ++r) {
        for (int attempt = 0;; ++attempt) {
            std::int64_t sg;
            do
                sg = std::int64_t(splitmix64(s) % std::uint64_t(n));
            while (sg == 0 || gcd64(sg, n) != 1);
            p.sigma.push_back(std::uint64_t(sg));
            p.sigma_inv.push_back(inverse_mod(sg, n));
            p.tau.push_back(splitmix64(s) % std::uint64_t(n));
            // Almost every draw passes; the cap keeps a plan finite whatever accept does.
            if (!accept || attempt == 255 || accept(p, r))
                break;
            p.sigma.pop_back();
            p.sigma_inv.pop_back();
            p.tau.pop_back();
        }
    }
}

std::vector<float> make_window(const sparse_params& p)
{
    std::vector<float> g(p.window);
    const double B = double(p.c.B);
    for (std::int64_t t = -p.half_window; t <= p.half_window; ++t) {
        const double sinc =
            t == 0 ? 1.0 / B : std::sin(M_PI * double(t) / B) / (M_PI * double(t));
        const double gauss =
            std::exp(-0.5 * double(t) * double(t) / (p.window_sigma * p.window_sigma));
        g[t + p.half_window] = float(sinc * gauss);
    }
    return g;
}

std::string describe_params(const sparse_params& p)
{
    std::ostringstream os;
    os << "sparse FFT n=" << p.c.n << " k=" << p.k << ": ";
    if (p.robust)
        return os.str() + describe_robust(p);
    os << "exact, ";
    if (p.dense) {
        os << "dense FFT + top-k (" << p.dense_reason << ")";
        return os.str();
    }
    os << "B=" << p.c.B << " loops=" << p.c.loops << " levels=" << p.c.levels
       << " (offsets";
    for (int j = 1; j < p.c.levels; ++j)
        os << " " << p.c.offset[j];
    os << ") window=" << p.window << " samples_read=" << p.samples_read() << " location=";
    if (p.voting)
        os << "voting (cutoff " << p.vote_cutoff << ", votes>=" << p.vote_threshold
           << ")";
    else
        os << "phase (rounds<=" << p.rounds << ")";
    os << " cg=" << p.value_passes << " seed=" << p.seed;
    return os.str();
}

} // namespace detail
} // namespace gpufft
} // namespace gr
