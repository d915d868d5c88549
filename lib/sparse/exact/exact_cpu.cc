/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// CPU backend of the sparse FFT's exact mode: the same stages as the CUDA backend, in
// the same order, with the same permutations (sparse_params), so the two can be checked
// against each other. This file: hash and location (phase or voting); the values and
// the residual check are in sparse_cpu_values.cc. Also the dense FFT + top-k fallback.

#include "sparse/exact/exact_cpu.h"
#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace gr {
namespace gpufft {
namespace detail {

bool dense_not_sparse(double total_energy, const std::vector<std::complex<float>>& kept)
{
    double in_kept = 0;
    for (const auto& v : kept)
        in_kept += double(v.real()) * v.real() + double(v.imag()) * v.imag();
    return total_energy - in_kept > sparse_residual_tol * total_energy;
}

namespace {

dense_fft_options cpu_fft_options(int threads)
{
    dense_fft_options o;
    o.backend = backend::cpu;
    o.threads = threads;
    return o;
}

} // namespace

sparse_cpu::sparse_cpu(const sparse_params& p)
    : d_p(p),
      d_taps(make_window(p)),
      d_fft(p.c.B, p.hashes(), direction::forward, cpu_fft_options(1)),
      d_z(std::size_t(p.hashes()) * p.c.B),
      d_Z(d_z.size()),
      d_re(d_z.size()),
      d_im(d_z.size())
{
    d_found_f.reserve(p.max_found);
    d_index.reserve(2 * p.max_found);
    if (p.voting) {
        // n bits per loop, cleared at the end of every call (only the words the
        // call set), so no call touches all n.
        d_words = (std::size_t(p.c.n) + 63) / 64;
        d_bits.assign(std::size_t(p.c.loops) * d_words, 0);
        d_order.resize(p.c.B);
        d_sel.resize(std::size_t(p.c.loops) * p.vote_cutoff);
        d_nsel.resize(p.c.loops);
        d_decoded.assign(std::size_t(p.c.loops) * p.c.B, -1);
    }
}

void sparse_cpu::execute(const std::complex<float>* x,
                         memory where,
                         std::vector<std::int64_t>& bins,
                         std::vector<std::complex<float>>& values)
{
    if (where != memory::host)
        throw std::invalid_argument("where: the CPU backend takes host arrays only");
    d_not_sparse = false;
    hash(x);
    d_fft.execute(d_z.data(), d_Z.data());
    if (d_p.voting)
        locate_by_voting();
    else
        locate();
    estimate();
    check_residual();
    bins.clear();
    values.clear();
    for (std::size_t i = 0; i < d_found_f.size(); ++i) {
        if (d_not_sparse && !d_keep[i])
            continue;
        bins.push_back(d_found_f[i]);
        values.emplace_back(float(d_xr[i]), float(d_xi[i]));
    }
    keep_top_k_sorted(d_p.k, bins, values);
}

// Window, permute and fold: z[h][t mod B] += G[t] x[sigma (t + a) + tau].
void sparse_cpu::hash(const std::complex<float>* x)
{
    const auto& c = d_p.c;
    const std::uint64_t n = std::uint64_t(c.n);
    const std::int64_t hw = d_p.half_window;
    for (int h = 0; h < d_p.hashes(); ++h) {
        std::complex<float>* z = d_z.data() + std::size_t(h) * c.B;
        std::fill(z, z + c.B, std::complex<float>(0, 0));
        const std::uint64_t step = d_p.sigma[h / c.levels];
        std::uint64_t idx = d_p.sample_index(h, -hw);
        std::int64_t q = ((-hw) % c.B + c.B) % c.B;
        for (std::int64_t i = 0; i < d_p.window; ++i) {
            z[q] += d_taps[i] * x[idx];
            idx += step;
            if (idx >= n)
                idx -= n;
            if (++q == c.B)
                q = 0;
        }
    }
}

// Copies the hashes into the residual (double), checks them for non-finite values
// and empties the tone table; returns the squared empty-bucket threshold.
double sparse_cpu::load_buckets()
{
    const std::size_t total = d_Z.size();
    double peak2 = 0, energy = 0;
    for (std::size_t i = 0; i < total; ++i) {
        d_re[i] = d_Z[i].real();
        d_im[i] = d_Z[i].imag();
        const double m = d_re[i] * d_re[i] + d_im[i] * d_im[i];
        if (!std::isfinite(m))
            throw_non_finite();
        peak2 = std::max(peak2, m);
        energy += m;
    }
    d_hashed_energy = energy;
    d_found_f.clear();
    d_xr.clear();
    d_xi.clear();
    d_index.clear();
    return peak2 * d_p.threshold_rel * d_p.threshold_rel;
}

// Phase-based location with peeling: decode every clean bucket of every loop, keep
// the new tones, subtract them from every hash, repeat while new tones appear.
void sparse_cpu::locate()
{
    const auto& c = d_p.c;
    const double thr2 = load_buckets();

    double zr[sparse_max_levels], zi[sparse_max_levels];
    for (int round = 0; round < d_p.rounds; ++round) {
        const std::size_t first_new = d_found_f.size();
        for (int r = 0; r < c.loops; ++r) {
            for (std::int64_t b = 0; b < c.B; ++b) {
                for (int j = 0; j < c.levels; ++j) {
                    const std::size_t at = std::size_t(r * c.levels + j) * c.B + b;
                    zr[j] = d_re[at];
                    zi[j] = d_im[at];
                }
                std::int64_t f;
                double xr, xi;
                if (!decode_bucket(
                        c, zr, zi, b, d_p.sigma_inv[r], d_p.tau[r], thr2, f, xr, xi))
                    continue;
                if (std::int64_t(d_found_f.size()) >= d_p.max_found ||
                    !d_index.emplace(f, d_found_f.size()).second)
                    continue;
                d_found_f.push_back(f);
                d_xr.push_back(xr);
                d_xi.push_back(xi);
            }
        }
        if (d_found_f.size() == first_new)
            break;
        for (std::size_t i = first_new; i < d_found_f.size(); ++i)
            add_tone(d_found_f[i], -d_xr[i], -d_xi[i]);
    }
}

// Calls fn(bucket, f) for every frequency f a selected bucket of loop r votes for:
// g runs over the bucket's span [b nb - nb/2, b nb - nb/2 + nb) (mod n), and f =
// sigma^-1 g steps by sigma^-1 (mod n) with g, so no product per candidate.
template <typename Fn>
void sparse_cpu::for_each_candidate(int r, Fn&& fn) const
{
    const auto& c = d_p.c;
    const std::uint64_t n = std::uint64_t(c.n);
    const std::uint64_t step = d_p.sigma_inv[r];
    for (std::int64_t s = 0; s < d_nsel[r]; ++s) {
        const std::int64_t b = d_sel[std::size_t(r) * d_p.vote_cutoff + s];
        const std::int64_t g0 = ((b * c.nb - c.nb / 2) % c.n + c.n) % c.n;
        std::uint64_t f = mulmod(step, std::uint64_t(g0), n);
        for (std::int64_t i = 0; i < c.nb; ++i) {
            fn(b, f);
            f += step;
            if (f >= n)
                f -= n;
        }
    }
}

// The papers' location (sFFT 1.0/2.0): per loop the vote_cutoff largest non-empty
// level-0 buckets vote for every frequency f whose permuted g = sigma f mod n falls
// in their span (n / B of them: f = sigma^-1 g); a frequency voted for in every loop
// survives. A survivor is accepted once the single-tone test of the phase path
// (decode_bucket) on its own bucket in some loop gives back exactly f; accepted
// tones are subtracted and the test repeats (peeling), as in locate(). Votes alone
// cannot tell tones from the other survivors at this plan's B (docs/sparse_fft.md).
void sparse_cpu::locate_by_voting()
{
    const auto& c = d_p.c;
    const std::uint64_t n = std::uint64_t(c.n);
    const double thr2 = load_buckets();

    // Cutoff: the largest non-empty buckets of each loop's level-0 hash.
    for (int r = 0; r < c.loops; ++r) {
        const std::size_t h0 = std::size_t(r * c.levels) * c.B;
        auto mag = [&](std::int64_t b) {
            return d_re[h0 + b] * d_re[h0 + b] + d_im[h0 + b] * d_im[h0 + b];
        };
        std::int64_t count = 0;
        for (std::int64_t b = 0; b < c.B; ++b)
            if (mag(b) > thr2)
                d_order[count++] = b;
        if (count > d_p.vote_cutoff) {
            std::nth_element(d_order.begin(),
                             d_order.begin() + d_p.vote_cutoff,
                             d_order.begin() + count,
                             [&](auto a, auto b) { return mag(a) > mag(b); });
            count = d_p.vote_cutoff;
        }
        std::copy(d_order.begin(),
                  d_order.begin() + count,
                  d_sel.begin() + std::size_t(r) * d_p.vote_cutoff);
        d_nsel[r] = count;
    }

    // Votes: one bit per (loop, frequency).
    for (int r = 0; r < c.loops; ++r) {
        std::uint64_t* bits = d_bits.data() + std::size_t(r) * d_words;
        for_each_candidate(r, [&](std::int64_t, std::uint64_t f) {
            bits[f >> 6] |= std::uint64_t(1) << (f & 63);
        });
    }

    double zr[sparse_max_levels], zi[sparse_max_levels];
    for (int round = 0; round < d_p.rounds; ++round) {
        // The single-tone test of every selected bucket, on the current residual.
        for (int r = 0; r < c.loops; ++r) {
            for (std::int64_t s = 0; s < d_nsel[r]; ++s) {
                const std::int64_t b = d_sel[std::size_t(r) * d_p.vote_cutoff + s];
                for (int j = 0; j < c.levels; ++j) {
                    const std::size_t at = std::size_t(r * c.levels + j) * c.B + b;
                    zr[j] = d_re[at];
                    zi[j] = d_im[at];
                }
                std::int64_t f;
                double xr, xi;
                d_decoded[std::size_t(r) * c.B + b] =
                    decode_bucket(
                        c, zr, zi, b, d_p.sigma_inv[r], d_p.tau[r], thr2, f, xr, xi)
                        ? f
                        : -1;
            }
        }
        const std::size_t first_new = d_found_f.size();
        for_each_candidate(0, [&](std::int64_t, std::uint64_t f) {
            int votes = 1; // loop 0's own
            for (int r = 1; r < c.loops; ++r)
                votes +=
                    int((d_bits[std::size_t(r) * d_words + (f >> 6)] >> (f & 63)) & 1);
            if (votes < d_p.vote_threshold)
                return;
            for (int r = 0; r < c.loops; ++r) {
                const std::int64_t b =
                    own_bucket(c, std::int64_t(mulmod(d_p.sigma[r], f, n)));
                if (d_decoded[std::size_t(r) * c.B + b] != std::int64_t(f))
                    continue;
                if (std::int64_t(d_found_f.size()) >= d_p.max_found ||
                    !d_index.emplace(std::int64_t(f), d_found_f.size()).second)
                    return;
                // The decoded value, as the phase path takes it.
                for (int j = 0; j < c.levels; ++j) {
                    const std::size_t at = std::size_t(r * c.levels + j) * c.B + b;
                    zr[j] = d_re[at];
                    zi[j] = d_im[at];
                }
                std::int64_t f2;
                double xr, xi;
                decode_bucket(
                    c, zr, zi, b, d_p.sigma_inv[r], d_p.tau[r], thr2, f2, xr, xi);
                d_found_f.push_back(std::int64_t(f));
                d_xr.push_back(xr);
                d_xi.push_back(xi);
                return;
            }
        });
        if (d_found_f.size() == first_new)
            break;
        for (std::size_t i = first_new; i < d_found_f.size(); ++i)
            add_tone(d_found_f[i], -d_xr[i], -d_xi[i]);
    }

    // Clear exactly the words this call set (and the decode table's entries).
    for (int r = 0; r < c.loops; ++r) {
        std::uint64_t* bits = d_bits.data() + std::size_t(r) * d_words;
        for_each_candidate(r, [&](std::int64_t, std::uint64_t f) { bits[f >> 6] = 0; });
        for (std::int64_t s = 0; s < d_nsel[r]; ++s)
            d_decoded[std::size_t(r) * c.B +
                      d_sel[std::size_t(r) * d_p.vote_cutoff + s]] = -1;
    }
}

// Adds tone (f, X) to the residual buckets it reaches (own bucket and neighbours).
void sparse_cpu::add_tone(std::int64_t f, double xr, double xi)
{
    const auto& c = d_p.c;
    for (int r = 0; r < c.loops; ++r) {
        const std::int64_t g =
            std::int64_t(mulmod(d_p.sigma[r], std::uint64_t(f), std::uint64_t(c.n)));
        const std::int64_t b0 = own_bucket(c, g);
        for (int db = -1; db <= 1; ++db) {
            const std::int64_t b = (b0 + db + c.B) % c.B;
            for (int j = 0; j < c.levels; ++j) {
                double zr, zi;
                tone_in_bucket(
                    c, f, g, xr, xi, b, std::uint64_t(c.offset[j]), d_p.tau[r], zr, zi);
                const std::size_t at = std::size_t(r * c.levels + j) * c.B + b;
                d_re[at] += zr;
                d_im[at] += zi;
            }
        }
    }
}

namespace {

class dense_topk_cpu final : public sparse_exact_backend
{
public:
    dense_topk_cpu(std::int64_t n, std::int64_t k)
        : d_k(k), d_fft(n, 1, direction::forward, cpu_fft_options(0)), d_X(n), d_order(n)
    {
    }
    void execute(const std::complex<float>* x,
                 memory where,
                 std::vector<std::int64_t>& bins,
                 std::vector<std::complex<float>>& values) override
    {
        if (where != memory::host)
            throw std::invalid_argument("where: the CPU backend takes host arrays only");
        d_fft.execute(x, d_X.data());
        auto& order = d_order;
        std::iota(order.begin(), order.end(), std::int64_t(0));
        for (const auto& v : d_X)
            if (!std::isfinite(v.real()) || !std::isfinite(v.imag()))
                throw_non_finite();
        std::nth_element(
            order.begin(), order.begin() + d_k, order.end(), [&](auto a, auto b) {
                return std::norm(d_X[a]) > std::norm(d_X[b]);
            });
        bins.assign(order.begin(), order.begin() + d_k);
        std::sort(bins.begin(), bins.end());
        values.resize(bins.size());
        for (std::size_t i = 0; i < bins.size(); ++i)
            values[i] = d_X[bins[i]];
        double total = 0;
        for (const auto& v : d_X)
            total += double(v.real()) * v.real() + double(v.imag()) * v.imag();
        d_not_sparse = dense_not_sparse(total, values);
    }
    bool not_sparse() const override { return d_not_sparse; }

private:
    std::int64_t d_k;
    dense_fft_plan d_fft;
    std::vector<std::complex<float>> d_X;
    std::vector<std::int64_t> d_order;
    bool d_not_sparse = false;
};

} // namespace

std::unique_ptr<sparse_exact_backend> make_sparse_cpu(const sparse_params& p)
{
    return std::make_unique<sparse_cpu>(p);
}

std::unique_ptr<sparse_exact_backend> make_dense_topk_cpu(std::int64_t n, std::int64_t k)
{
    return std::make_unique<dense_topk_cpu>(n, k);
}

} // namespace detail
} // namespace gpufft
} // namespace gr