/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Exact mode's planner (called by choose_sparse_params once n, k and the options are
// valid). The cost model: every number below follows from n, k and three accuracy
// targets (window leakage 1e-8, phase-measurement budget, peeling load);
// docs/sparse_fft.md derives them.

#include "sparse/common/sparse_params.h"
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace gr {
namespace gpufft {
namespace detail {

namespace {

[[noreturn]] void bad(const std::string& what) { throw std::invalid_argument(what); }

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

void choose_exact_params(sparse_params& p, const sparse_fft_options& o, backend used)
{
    const std::int64_t n = p.c.n, k = p.k;
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
        return;

    draw_permutations(p, p.c.loops);
}

} // namespace detail
} // namespace gpufft
} // namespace gr
