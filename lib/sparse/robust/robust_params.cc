/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Robust mode's planner. Every number follows from n, k, the sensitivity asked for
// (min_snr_db) and the false-alarm rate; docs/sparse_fft.md ("Robust mode") derives them.
// The one piece of physics behind all of it: a bucket gathers the noise of n / B bins, so
// a tone's SNR in its bucket is its per-bin SNR less 10 log10(n / B) dB.

#include "sparse/common/sparse_params.h"
#include "sparse/robust/robust_math.h"
#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace gr {
namespace gpufft {
namespace detail {

namespace {

// Bucket filter: Gaussian std. dev. of 0.75 B samples, truncated at 4 of them (6 B + 1
// taps; leakage e^-8, below any noise floor a bucket sees). Its transition is about
// +-0.33 bucket around each edge and a neighbour's centre sees -41 dB of a bucket, which
// the floor and ceil buckets and the subtraction one bucket further absorb; a Gaussian of
// B samples (8 B + 1 taps, -60 dB) recovered no more and reads a third more.
constexpr double filter_beta = 0.75;
constexpr double filter_sigmas = 4.0;
// Location: one shifted hash a round (the paper's Rloc = 1), candidates per round (t),
// independent loops. R shifts a round narrow its interval by a factor that grows only as
// sqrt(R) (the noise averages), so per hash read one shift gains the most (~1.7 bits
// against ~0.9 for three). What the vote of several shifts adds, rejecting a phase
// pulled by a colliding tone, the three loops and the outer rounds give too: a bucket
// one loop mislocates is located in another.
constexpr int candidates = 64;
constexpr int default_robust_loops = 3;
// Outer rounds of locate / estimate / subtract (peeling on the hashes' residual).
constexpr int outer_rounds = 3;
// EstimateValues passes over everything found at the end (sparse_params::refine_passes).
constexpr int refine_passes = 2;
// A detected tone's estimate must stand this much above the threshold for >= 99%
// detection (non-central chi-square, median of 3 loops), and a tone near a bucket edge
// loses up to this much in its floor and ceil buckets together.
constexpr double detection_margin_db = 3.0;
constexpr double edge_loss_db = 1.5;
// The share of buckets the tones' lobe coefficients may fill (window_shape::lobe per
// tone). Where the sensitivity asked for needs few buckets, this sets B: at a quarter,
// a bucket holds a second coefficient so often that the estimates' mutual pull moved
// off-grid tones up to 0.07 bin even at 80-90 dB per bin; at an eighth they stay
// within 0.04 bin.
constexpr double load = 0.125;

struct window_shape {
    int terms;
    double a[robust_window_terms];
    double scallop_db; // worst loss of the peak bin, tone half way between bins
    int lobe;          // coefficients an off-grid tone puts above -20 dB
    int lobe_half;     // half-width of the main lobe in bins
};

window_shape shape_of(sparse_fft_window w)
{
    switch (w) {
    case sparse_fft_window::hann:
        return { 2, { 0.5, 0.5, 0, 0 }, 1.42, 3, 2 };
    case sparse_fft_window::blackman_harris:
        return { 4, { 0.35875, 0.48829, 0.14128, 0.01168 }, 0.83, 5, 3 };
    default:
        return { 0, { 1, 0, 0, 0 }, 0.0, 1, 0 };
    }
}

[[noreturn]] void bad(const std::string& what) { throw std::invalid_argument(what); }

// The time window is applied as each sample is read, so a hash sees it only at the
// indices sigma t + tau it reads. A sigma with a small multiple near 0 mod n, such as
// n - 37 or n/2 + 3, reads a few short runs of the frame; where they fall near its
// edges the loop's tones and noise come out tens of dB low, and the noise floor with
// them. A loop is kept when, over the taps of each of its hashes, the mean window
// weight and the mean squared weight are within window_tolerance of the frame's.
constexpr double window_tolerance = 0.02;

bool sees_the_whole_window(const sparse_params& p, const std::vector<float>& taps, int r)
{
    const auto& rc = p.rc;
    for (int j = 0; j < rc.hashes; ++j) {
        const int h = r * rc.hashes + j;
        const std::uint64_t step = p.sigma[std::size_t(r)];
        std::uint64_t idx = p.sample_index(h, -p.half_window);
        double g = 0, gw = 0, g2 = 0, g2w2 = 0;
        for (std::int64_t i = 0; i < p.window; ++i) {
            const double t = taps[std::size_t(i)];
            const double w = robust_window_weight(rc, idx);
            g += t;
            gw += t * w;
            g2 += t * t;
            g2w2 += t * t * w * w;
            idx += step;
            if (idx >= std::uint64_t(rc.n))
                idx -= std::uint64_t(rc.n);
        }
        const double gain = gw / (g * rc.window_a[0]);
        const double power = g2w2 / (g2 * p.window_power);
        if (std::fabs(gain - 1.0) > window_tolerance ||
            std::fabs(power - 1.0) > window_tolerance)
            return false;
    }
    return true;
}

} // namespace

double set_robust_window(robust_consts& rc, std::int64_t n, sparse_fft_window w)
{
    const window_shape ws = shape_of(w);
    rc.n = n;
    double power = 0;
    for (int m = 0; m < robust_window_terms; ++m) {
        rc.window_a[m] = float(ws.a[m]);
        power += m == 0 ? ws.a[0] * ws.a[0] : 0.5 * ws.a[m] * ws.a[m];
    }
    rc.window_terms = ws.terms;
    // The window's DFT: c_0 = a0, c_{+-m} = (-1)^m a_m / 2 (no window: c_0 = 1).
    for (int m = -(robust_window_terms - 1); m < robust_window_terms; ++m) {
        const int am = m < 0 ? -m : m;
        const double cm = ws.terms == 0 ? (m == 0 ? 1.0 : 0.0)
                          : am == 0     ? ws.a[0]
                                        : ((am % 2) ? -0.5 : 0.5) * ws.a[am];
        const int at = m + robust_window_terms - 1;
        rc.wc[at] = cm;
        const double ph = M_PI * double(m) * double(n - 1) / double(n);
        const double sign = (am % 2) ? -1.0 : 1.0;
        rc.wt_r[at] = cm * sign * std::cos(ph) / double(n);
        rc.wt_i[at] = cm * sign * std::sin(ph) / double(n);
    }
    rc.lobe = ws.lobe_half;
    return power;
}

void choose_robust_params(sparse_params& p, const sparse_fft_options& o, backend used)
{
    const std::int64_t n = p.c.n, k = p.k;
    p.robust = true;
    p.min_snr_db = o.min_snr_db;
    p.false_alarm = o.false_alarm;
    p.window_kind = o.window == sparse_fft_window::automatic
                        ? sparse_fft_window::blackman_harris
                        : o.window;
    const window_shape ws = shape_of(p.window_kind);
    auto& rc = p.rc;
    const double power = set_robust_window(rc, n, p.window_kind);
    rc.joint_fit = o.resolve_close_tones ? 1 : 0;
    p.window_power = ws.terms ? power : 1.0;

    p.eta = std::log(double(n) / o.false_alarm);
    p.locate_eta = 0.25 * p.eta;
    p.outer_rounds = outer_rounds;
    p.refine_passes = refine_passes;
    const double eta_db = 10.0 * std::log10(p.eta);
    const double enbw_db = 10.0 * std::log10(p.window_power / (ws.a[0] * ws.a[0]));
    // The weakest tone's peak bin, per bin of the windowed spectrum.
    const double peak_db = o.min_snr_db - enbw_db - ws.scallop_db;
    const double need_db = eta_db + detection_margin_db + edge_loss_db;

    std::int64_t B = o.buckets;
    if (!B) {
        const double b_snr = double(n) * std::pow(10.0, (need_db - peak_db) / 10.0);
        const double b_load = double(k) * ws.lobe / load;
        const double target = std::max({ b_snr, b_load, 16.0 });
        if (target <= double(n) / 4) {
            const std::int64_t t = std::int64_t(std::ceil(target));
            B = divisor_in(n, t, 4 * t);
        }
    }
    auto go_dense = [&](const std::string& why) {
        p.dense = true;
        p.dense_reason = why;
    };
    if (o.force_dense) {
        go_dense("forced by the options");
        return;
    }
    if (!B) {
        std::ostringstream why;
        why << "a tone at min_snr_db = " << o.min_snr_db << " dB needs a bucket SNR of "
            << need_db
            << " dB; no bucket count B (a divisor of n) with n/B >= 4 gives it for n = "
            << n << " and k = " << k;
        go_dense(why.str());
        return;
    }
    rc.B = B;
    rc.nb = n / B;
    p.c.B = B; // the sample walks and the dense-or-sparse rule read these
    p.c.nb = rc.nb;
    rc.loops = o.loops ? o.loops : default_robust_loops;
    rc.cands = candidates;
    p.window_sigma = filter_beta * double(B);
    p.half_window = std::int64_t(std::ceil(filter_sigmas * p.window_sigma));
    if (o.filter_width) {
        if ((o.filter_width - 1) / 2 < p.half_window)
            bad("filter_width: " + std::to_string(o.filter_width) +
                " is invalid for n = " + std::to_string(n) +
                " and B = " + std::to_string(B) + "; must be odd and at least " +
                std::to_string(2 * p.half_window + 1) +
                " (8 sigma of the filter's Gaussian)");
        p.half_window = (o.filter_width - 1) / 2;
    }
    p.window = 2 * p.half_window + 1;
    rc.ghat_scale = std::sqrt(2.0) * M_PI * p.window_sigma / double(B);
    {
        const double K = double(p.half_window) / p.window_sigma;
        p.leak_floor = std::max(1e-12, 4.0 * std::exp(-K * K));
    }
    {
        const auto taps = make_window(p);
        double s2 = 0;
        for (float t : taps)
            s2 += double(t) * double(t);
        p.taps_power = s2;
    }

    // Location rounds. The phase of u[h] conj(u[0]) of the weakest tone's bucket has a
    // noise of 1 / (2 pi sqrt(rho)) turns (rho its bucket SNR); a round's shift pins
    // the location to sigma_e = w sigma_c / 0.72 of an interval w
    // whose phase turns by 0.5..0.95 across it. The next interval keeps +-4.5 sigma_e,
    // the last one must give an integer: +-4.5 sigma_e < 0.5.
    const double rho_db = peak_db - 10.0 * std::log10(double(rc.nb)) - edge_loss_db;
    const double rho = std::pow(10.0, std::max(rho_db, need_db - 3.0) / 10.0);
    const double sigma_c = 1.0 / (2.0 * M_PI * std::sqrt(rho));
    const double per_round = 0.72 / sigma_c;
    const double shrink = std::clamp(per_round / 9.0, 2.0, double(candidates) / 4.0);
    const double last_width = std::clamp(per_round * 0.11, 4.0, double(candidates) / 2.0);
    rc.span0 = 0.75;
    const double w0 = 2.0 * rc.span0 * double(rc.nb);
    int rounds = 1;
    if (w0 > last_width)
        rounds += int(std::ceil(std::log(w0 / last_width) / std::log(shrink) - 1e-9));
    if (1 + rounds > robust_max_hashes)
        bad("n, min_snr_db: locating a tone in a bucket of " + std::to_string(rc.nb) +
            " frequencies at this SNR needs " + std::to_string(rounds) +
            " rounds, more than the " + std::to_string(robust_max_hashes) +
            " hashes a loop can hold; ask for a higher min_snr_db");
    rc.rounds = rounds;
    rc.shrink = rounds > 1 ? std::pow(w0 / last_width, 1.0 / double(rounds - 1)) : 1.0;
    rc.hashes = 1 + rounds;
    // A shift votes when its phase error is within 4 sigma_c plus half a candidate step.
    rc.vote_turns = std::min(0.25, 4.0 * sigma_c + 0.5 / std::max(4.0, last_width));

    // Shifts: round d's interval is w0 / shrink^d wide; its shift turns the phase by
    // 0.5..0.95 turn across it.
    std::uint64_t s = p.seed ^ 0x6a09e667f3bcc909ull;
    rc.offset[0] = 0;
    double w = w0;
    for (int d = 0; d < rounds; ++d) {
        const double width = d == rounds - 1 ? std::ceil(w) + 1.0 : w;
        const double u = 0.5 + 0.45 * double(splitmix64(s) >> 11) * 0x1p-53;
        rc.offset[1 + d] =
            std::max<std::int64_t>(1, std::int64_t(std::floor(u * double(n) / width)));
        w /= rc.shrink;
    }
    // The last round searches the integers of its interval only.
    p.c.loops = rc.loops;
    p.c.levels = rc.hashes;
    p.max_found = std::max<std::int64_t>(2 * B, 8 * k * ws.lobe);

    const bool overridden = o.buckets || o.loops || o.filter_width;
    const std::int64_t S = std::int64_t(rc.loops) * rc.hashes * p.window;
    // Costs measured with gpufft-bench sparse_robust (docs/performance.md). CUDA: the
    // sparse path ~0.3 ms + 0.05 ns per sample read, the dense FFT + threshold ~0.05 ms +
    // 0.04 ns per sample of n. CPU: a sample read costs ~40 ns on one thread, FFTW
    // ~15-50 ns per sample of n on all threads.
    const bool dense_cheaper =
        S >= n ||
        (used == backend::cuda ? 300000.0 + 0.05 * double(S) > 50000.0 + 0.04 * double(n)
                               : 3 * S > n);
    if (!overridden && dense_cheaper) {
        std::ostringstream why;
        why << "reading " << S << " samples (B=" << B << ", " << rc.loops << " loops x "
            << rc.hashes << " hashes x " << p.window
            << " taps, sized for min_snr_db = " << o.min_snr_db
            << ") costs more than a dense FFT of n = " << n;
        go_dense(why.str());
        return;
    }
    if (rc.window_terms == 0) {
        draw_permutations(p, rc.loops);
        return;
    }
    const std::vector<float> taps = make_window(p);
    draw_permutations(p, rc.loops, [&taps](const sparse_params& q, int r) {
        return sees_the_whole_window(q, taps, r);
    });
}

std::string describe_robust(const sparse_params& p)
{
    std::ostringstream os;
    os << "robust, window="
       << (p.window_kind == sparse_fft_window::blackman_harris ? "blackman_harris"
           : p.window_kind == sparse_fft_window::hann          ? "hann"
                                                               : "none")
       << " min_snr_db=" << p.min_snr_db << " false_alarm=" << p.false_alarm << ": ";
    if (p.dense) {
        os << "dense FFT + threshold (" << p.dense_reason << ")"
           << (p.rc.joint_fit ? "" : ", close tones not resolved");
        return os.str();
    }
    const auto& rc = p.rc;
    os << "B=" << rc.B << " loops=" << rc.loops << " rounds=" << rc.rounds << " (shrink "
       << rc.shrink << ") window=" << p.window << " samples_read=" << p.samples_read()
       << " seed=" << p.seed;
    return os.str();
}

} // namespace detail
} // namespace gpufft
} // namespace gr
