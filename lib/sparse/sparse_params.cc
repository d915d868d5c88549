/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The cost model: every number below follows from n, k and three accuracy targets
// (window leakage 1e-8, phase-measurement budget, peeling load); docs/sparse_fft.md
// derives them.

#include "sparse_params.h"
#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <sstream>
#include <stdexcept>

namespace gr {
namespace gpufft {
namespace detail {

namespace {

// Window: Gaussian std. dev. in units of B samples. 2 gives a transition band of about
// +-0.4 bucket around each bucket edge, and 24 B + 1 taps for 1e-8 truncation leakage.
constexpr double window_beta = 2.0;
constexpr double window_sigmas = 6.0;
// Phase budget per level (turns) the refinement offsets are designed for. The measured
// phase error of a clean bucket is ~1e-6 in fp32; the rest is margin for residue left by
// peeling neighbours.
constexpr double phase_budget = 2.5e-4;
// Bucket load k / B: peeling over 4 independent loops at load 1/2 leaves a tone
// unresolved only when it shares a bucket (or a leaking neighbour) in every loop.
constexpr double bucket_load = 0.5;
constexpr int default_loops = 4;

} // namespace

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

sparse_params choose_sparse_params(std::int64_t n,
                                   std::int64_t k,
                                   const sparse_fft_options& o,
                                   backend used)
{
    if (n < sparse_fft_min_size || n > (std::int64_t(1) << 40))
        bad("n: " + std::to_string(n) + " is invalid; must be in [" +
            std::to_string(sparse_fft_min_size) + ", 2^40]");
    if (k <= 0 || k >= n)
        bad("k: " + std::to_string(k) + " is invalid; must be in [1, n-1] = [1, " +
            std::to_string(n - 1) + "]");
    if (o.mode != sparse_fft_mode::exact && o.mode != sparse_fft_mode::robust)
        bad("mode: must be 'robust' or 'exact'");
    if (!(o.min_snr_db >= 0 && o.min_snr_db <= 200))
        bad("min_snr_db: " + std::to_string(o.min_snr_db) +
            " is invalid; must be in [0, 200] dB");
    if (!(o.false_alarm > 0 && o.false_alarm <= 0.5))
        bad("false_alarm: " + std::to_string(o.false_alarm) +
            " is invalid; must be in (0, 0.5]");
    if (o.window != sparse_fft_window::automatic && o.window != sparse_fft_window::none &&
        o.window != sparse_fft_window::hann &&
        o.window != sparse_fft_window::blackman_harris)
        bad("window: must be 'auto', 'none', 'hann' or 'blackman_harris'");
    if (o.mode == sparse_fft_mode::exact && o.window != sparse_fft_window::automatic &&
        o.window != sparse_fft_window::none)
        bad("window: exact mode reads the samples unweighted; a time window needs "
            "mode 'robust'");
    if (o.mode == sparse_fft_mode::robust && k > n / 4)
        bad("k: " + std::to_string(k) +
            " is invalid in robust mode; must be in [1, n/4] = "
            "[1, " +
            std::to_string(n / 4) +
            "] (a frame with more tones is not sparse: use "
            "a dense FFT)");
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
    std::int64_t B = o.buckets;
    if (!B) {
        const std::int64_t target = std::int64_t(std::ceil(double(k) / bucket_load));
        B = divisor_in(n, target, 4 * target);
        if (!B) // any divisor >= k still peels, with more loops' help
            B = divisor_in(n, k + 1, target - 1);
    }
    if (!B) {
        p.dense = true;
        p.dense_reason = "n = " + std::to_string(n) + " has no divisor in [" +
                         std::to_string(k + 1) + ", " +
                         std::to_string(4 * std::int64_t(std::ceil(k / bucket_load))) +
                         "] to use as the bucket count";
    }
    if (B) {
        p.c.B = B;
        p.c.nb = n / B;
        const double load = double(k) / double(B);
        p.c.loops = o.loops ? o.loops : default_loops + (load > bucket_load ? 2 : 0);
        p.window_sigma = window_beta * double(B);
        // The filter's truncation must stay below the 1e-3 the single-tone test
        // tolerates: at least 4 sigma (leakage e^-8) each side.
        const std::int64_t min_half = std::int64_t(std::ceil(4.0 * p.window_sigma));
        if (o.filter_width && (o.filter_width - 1) / 2 < min_half)
            bad("filter_width: " + std::to_string(o.filter_width) +
                " is invalid for n = " + std::to_string(n) +
                " and B = " + std::to_string(B) + "; must be odd and at least " +
                std::to_string(2 * min_half + 1) + " (8 sigma of the filter's Gaussian)");
        p.half_window = o.filter_width
                            ? (o.filter_width - 1) / 2
                            : std::int64_t(std::ceil(window_sigmas * p.window_sigma));
        p.window = 2 * p.half_window + 1;
        p.c.ghat_scale = std::sqrt(2.0) * M_PI * p.window_sigma / double(B);

        // Refinement offsets: a level with offset a resolves g to +-budget n / a if the
        // previous uncertainty U keeps a U / n below 0.4 turn (no phase wrap).
        p.c.offset[0] = 0;
        int levels = 1;
        double U = double(p.c.nb);
        while (U >= 0.3 && levels < sparse_max_levels) {
            const std::int64_t a = std::max<std::int64_t>(
                1, std::int64_t(std::floor(double(n) / (2.5 * U))));
            p.c.offset[levels++] = a;
            U = phase_budget * double(n) / double(a);
        }
        if (U >= 0.3)
            bad("n, k: the bucket span n/B is too large to locate in " +
                std::to_string(sparse_max_levels) + " levels; use more buckets");
        p.c.levels = levels;
        p.c.mag_tol = 4 * phase_budget;
        p.c.phase_tol = 4 * phase_budget;
        p.rounds = 4;
        p.value_passes = o.value_iterations ? o.value_iterations : 5;
        p.max_found = 2 * B + k;
        p.threshold_rel = 1e-6;
        // Voting: in exact mode a tone lights at most two buckets per loop (its own and,
        // near an edge, one neighbour), so the 2k largest hold every tone. The papers
        // keep frequencies voted for in half the loops of their L ~ log n loops with B ~
        // sqrt(n k); with this plan's B ~ 2k..8k a bucket is non-empty with probability
        // up to ~0.9 and half of 4 loops would pass most of n, so a frequency must be
        // voted for in every loop (a tone's own bucket always is).
        p.voting = o.location == sparse_fft_location::voting;
        p.vote_cutoff = std::min<std::int64_t>(2 * k, B);
        p.vote_threshold = p.c.loops;

        // Sparse or dense, from costs measured on the GPU machine (docs/sparse_fft.md):
        //  CUDA (H200): sparse ~ 0.19 ms + 0.2 ns per sample read; cuFFT + top-k ~ 0.25
        //  ms
        //    + 25 ps per sample of n + 85 ns per k; in units of 25 ps that is
        //    8 S against n + 3400 k + 2.4M.
        //  CPU (16 threads): a sample read and its bucket work cost ~45 ns, FFTW + top-k
        //    ~15-22 ns per sample of n: dense when 3 S > n.
        // Explicit overrides keep the sparse path.
        const bool overridden = o.buckets || o.loops || o.filter_width;
        const std::int64_t S = p.samples_read();
        const bool dense_cheaper =
            S >= n ||
            (used == backend::cuda ? 8 * S > n + 3400 * k + 2400000 : 3 * S > n);
        if (!o.force_dense && !overridden && dense_cheaper) {
            p.dense = true;
            p.dense_reason = "reading " + std::to_string(p.samples_read()) +
                             " samples at random costs more than a dense FFT of n = " +
                             std::to_string(n);
        }
    }
    if (o.force_dense) {
        p.dense = true;
        p.dense_reason = "forced by the options";
    }
    if (p.dense)
        return p;

    draw_permutations(p, p.c.loops);
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
