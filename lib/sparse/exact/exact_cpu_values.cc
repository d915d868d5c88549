/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// CPU backend of the sparse FFT's exact mode, after the location: the values (median
// over hashes, then least squares) and the residual check (sparse_cpu.h).

#include "sparse/exact/exact_cpu.h"
#include <algorithm>
#include <cmath>

namespace gr {
namespace gpufft {
namespace detail {

namespace {

double median_of(double* v, int count)
{
    std::sort(v, v + count);
    return count % 2 ? v[count / 2] : 0.5 * (v[count / 2 - 1] + v[count / 2]);
}

} // namespace

// Values, in two steps. (1) The median: each hash gives X + (what is left in the
// tone's bucket) / response; the median over hashes (real and imaginary apart)
// ignores the few that share a bucket with a tone whose first estimate was off. (2)
// Least squares refinement: buckets shared by two tones couple their errors, so a few
// Jacobi sweeps of the normal equations (every bucket a tone reaches, weighted by its
// response) bring every value to float precision.
void sparse_cpu::estimate()
{
    const auto& c = d_p.c;
    const int H = d_p.hashes();
    const std::size_t count = d_found_f.size();
    auto& er = d_scratch_r;
    auto& ei = d_scratch_i;
    auto& nr = d_next_r;
    auto& ni = d_next_i;
    er.resize(H);
    ei.resize(H);
    nr.resize(count);
    ni.resize(count);
    for (std::size_t i = 0; i < count; ++i) {
        const std::int64_t f = d_found_f[i];
        for (int r = 0; r < c.loops; ++r) {
            const std::int64_t g =
                std::int64_t(mulmod(d_p.sigma[r], std::uint64_t(f), std::uint64_t(c.n)));
            const std::int64_t b = own_bucket(c, g);
            for (int j = 0; j < c.levels; ++j) {
                double ur, ui;
                tone_in_bucket(
                    c, f, g, 1.0, 0.0, b, std::uint64_t(c.offset[j]), d_p.tau[r], ur, ui);
                const std::size_t at = std::size_t(r * c.levels + j) * c.B + b;
                const double den = ur * ur + ui * ui;
                const double rr = d_re[at], ri = d_im[at];
                er[r * c.levels + j] = d_xr[i] + (rr * ur + ri * ui) / den;
                ei[r * c.levels + j] = d_xi[i] + (ri * ur - rr * ui) / den;
            }
        }
        nr[i] = median_of(er.data(), H);
        ni[i] = median_of(ei.data(), H);
    }
    apply_updates(nr, ni);

    refine_least_squares();
}

// Conjugate gradients on the normal equations (CGLS): unknowns the tones' values,
// one equation per (hash, bucket) a tone reaches. The residual buckets start as what
// the located values leave; each iteration moves along a conjugate direction.
void sparse_cpu::refine_least_squares()
{
    const auto& c = d_p.c;
    const std::size_t count = d_found_f.size();
    const int per = c.loops * 3 * c.levels; // buckets a tone reaches
    d_resp.resize(count * per);
    d_at.resize(count * per);
    for (std::size_t i = 0; i < count; ++i) {
        const std::int64_t f = d_found_f[i];
        int m = 0;
        for (int r = 0; r < c.loops; ++r) {
            const std::int64_t g =
                std::int64_t(mulmod(d_p.sigma[r], std::uint64_t(f), std::uint64_t(c.n)));
            const std::int64_t b0 = own_bucket(c, g);
            for (int db = -1; db <= 1; ++db) {
                const std::int64_t b = (b0 + db + c.B) % c.B;
                for (int j = 0; j < c.levels; ++j, ++m) {
                    double ur, ui;
                    tone_in_bucket(c,
                                   f,
                                   g,
                                   1.0,
                                   0.0,
                                   b,
                                   std::uint64_t(c.offset[j]),
                                   d_p.tau[r],
                                   ur,
                                   ui);
                    d_resp[i * per + m] = { ur, ui };
                    d_at[i * per + m] = std::size_t(r * c.levels + j) * c.B + b;
                }
            }
        }
    }
    using cd = std::complex<double>;
    auto& s = d_cg_s;
    auto& p = d_cg_p;
    auto& q = d_cg_q;
    s.resize(count);
    q.resize(d_re.size());
    auto adjoint = [&](std::vector<cd>& out) { // out = A^H R
        double g = 0;
        for (std::size_t i = 0; i < count; ++i) {
            cd acc = 0;
            for (int m = 0; m < per; ++m) {
                const std::size_t at = d_at[i * per + m];
                acc += std::conj(d_resp[i * per + m]) * cd(d_re[at], d_im[at]);
            }
            out[i] = acc;
            g += std::norm(acc);
        }
        return g;
    };
    double gamma = adjoint(s);
    p = s;

    for (int it = 0; it < d_p.value_passes && gamma > 0; ++it) {
        std::fill(q.begin(), q.end(), cd(0));
        for (std::size_t i = 0; i < count; ++i)
            for (int m = 0; m < per; ++m)
                q[d_at[i * per + m]] += d_resp[i * per + m] * p[i];
        double qq = 0;
        for (const auto& v : q)
            qq += std::norm(v);
        if (!(qq > 0))
            break;
        const double alpha = gamma / qq;
        for (std::size_t i = 0; i < count; ++i) {
            d_xr[i] += alpha * p[i].real();
            d_xi[i] += alpha * p[i].imag();
        }
        for (std::size_t at = 0; at < q.size(); ++at) {
            d_re[at] -= alpha * q[at].real();
            d_im[at] -= alpha * q[at].imag();
        }
        const double gamma_new = adjoint(s);
        const double beta = gamma_new / gamma;
        gamma = gamma_new;
        for (std::size_t i = 0; i < count; ++i)
            p[i] = s[i] + beta * p[i];
    }
}

// The residual check (docs/sparse_fft.md, "Frames that are not exactly sparse"):
// d_re / d_im hold what the located coefficients leave in every bucket. A frame
// whose residual energy exceeds sparse_residual_tol of the hashed energy is not
// exactly sparse; only the coefficients vouch() accepts are then returned, each with
// its median estimate as value.
void sparse_cpu::check_residual()
{
    double residual = 0;
    for (std::size_t i = 0; i < d_re.size(); ++i)
        residual += d_re[i] * d_re[i] + d_im[i] * d_im[i];
    d_not_sparse = residual > sparse_residual_tol * d_hashed_energy;
    if (!d_not_sparse)
        return;
    d_keep.assign(d_found_f.size(), 0);
    for (std::size_t i = 0; i < d_found_f.size(); ++i)
        d_keep[i] = vouch(i);
}

// Tone i's estimate from each hash's own bucket, E = X + residual / response (as
// the median stage takes them), and V, their median (real and imaginary parts
// apart). A loop agrees when every level's E is within sparse_vouch_tol |V| of V;
// the tone is vouched for when more than half of the loops agree, and V becomes its
// value (the least-squares fit also answers to buckets that energy outside the
// located set spoils; the median ignores them).
bool sparse_cpu::vouch(std::size_t i)
{
    const auto& c = d_p.c;
    const int H = d_p.hashes();
    const int per = c.loops * 3 * c.levels;
    auto& er = d_scratch_r;
    auto& ei = d_scratch_i;
    er.resize(H);
    ei.resize(H);
    for (int r = 0; r < c.loops; ++r) {
        for (int j = 0; j < c.levels; ++j) {
            // Own bucket (db = 0) of loop r at level j, as refine_least_squares()
            // tabulated it.
            const std::size_t m = i * per + std::size_t((3 * r + 1) * c.levels + j);
            const std::complex<double> u = d_resp[m];
            const std::complex<double> e =
                std::complex<double>(d_re[d_at[m]], d_im[d_at[m]]) / u;
            er[r * c.levels + j] = d_xr[i] + e.real();
            ei[r * c.levels + j] = d_xi[i] + e.imag();
        }
    }
    d_sorted_r.assign(er.begin(), er.end());
    d_sorted_i.assign(ei.begin(), ei.end());
    const double vr = median_of(d_sorted_r.data(), H);
    const double vi = median_of(d_sorted_i.data(), H);
    const double tol2 = sparse_vouch_tol * sparse_vouch_tol * (vr * vr + vi * vi);
    int agree = 0;
    for (int r = 0; r < c.loops; ++r) {
        bool ok = true;
        for (int j = 0; j < c.levels; ++j) {
            const double dr = er[r * c.levels + j] - vr;
            const double di = ei[r * c.levels + j] - vi;
            ok = ok && dr * dr + di * di <= tol2;
        }
        agree += ok ? 1 : 0;
    }
    if (2 * agree <= c.loops)
        return false;
    d_xr[i] = vr;
    d_xi[i] = vi;
    return true;
}

// Moves every tone's value to (nr, ni), keeping the residual buckets consistent.
void sparse_cpu::apply_updates(const std::vector<double>& nr,
                               const std::vector<double>& ni)
{
    for (std::size_t i = 0; i < d_found_f.size(); ++i) {
        add_tone(d_found_f[i], d_xr[i] - nr[i], d_xi[i] - ni[i]);
        d_xr[i] = nr[i];
        d_xi[i] = ni[i];
    }
}

} // namespace detail
} // namespace gpufft
} // namespace gr
