/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "nufft/band_limited_fit.h"
#include <cmath>
#include <stdexcept>
#include <string>

namespace gr {
namespace gpufft {
namespace nufft {

namespace {

constexpr double two_pi = 6.283185307179586476925;
//! Model band and period over the signal's band and the samples' span (see the header).
constexpr double band_margin = 1.25, period_margin = 1.25;
constexpr int max_iterations = 500;

nufft3_options
fit_options(gpufft::backend b, int device_id, int sign, const log_handler& log)
{
    nufft3_options o;
    o.log = log;
    o.backend = b;
    o.device_id = device_id;
    o.precision = precision::double_;
    o.sign = sign;
    return o;
}

double dot_re(const std::vector<std::complex<double>>& a,
              const std::vector<std::complex<double>>& b,
              int n)
{
    double s = 0;
    for (int i = 0; i < n; ++i)
        s += (std::conj(a[i]) * b[i]).real();
    return s;
}

} // namespace

band_limited_fit::band_limited_fit(double bandwidth,
                                   double eps,
                                   gpufft::backend b,
                                   int device_id,
                                   const log_handler& log)
    : d_bandwidth(bandwidth),
      d_eps(eps),
      d_analysis(1, eps, fit_options(b, device_id, -1, log)),
      d_synthesis(1, eps, fit_options(b, device_id, +1, log))
{
}

void band_limited_fit::toeplitz_product(const std::complex<double>* v,
                                        std::complex<double>* out)
{
    // Circulant embedding of size 2K: (T v)_k = sum_l g(k - l) v_l.
    const std::size_t N2 = 2 * std::size_t(d_K);
    std::fill(d_buf.begin(), d_buf.end(), std::complex<double>(0));
    std::copy(v, v + d_K, d_buf.begin());
    d_fwd->execute(d_buf.data(), d_buf.data());
    for (std::size_t i = 0; i < N2; ++i)
        d_buf[i] *= d_col_hat[i];
    d_inv->execute(d_buf.data(), d_buf.data());
    const double scale = 1.0 / double(N2);
    for (int k = 0; k < d_K; ++k)
        out[k] = d_buf[k] * scale;
}

void band_limited_fit::fit(const double* t, const std::complex<double>* x, int n)
{
    if (n < 2 || !(t[n - 1] > t[0]))
        throw std::invalid_argument("times: a frame must span a positive duration");
    const double period = period_margin * (t[n - 1] - t[0]);
    const int K = std::max(2, int(std::ceil(band_margin * d_bandwidth * period)));
    if (K >= n)
        throw std::invalid_argument(
            "bandwidth: the frame holds " + std::to_string(n) +
            " samples but the band needs " + std::to_string(K) +
            " coefficients; the input rate is too low for the bandwidth");
    const double df = 1.0 / period;
    if (K != d_K) {
        d_K = K;
        dense_fft_options o;
        o.backend = backend::cpu;
        o.precision = precision::double_;
        o.threads = 1;
        d_fwd = std::make_unique<dense_fft_plan>(2 * K, 1, direction::forward, o);
        d_inv = std::make_unique<dense_fft_plan>(2 * K, 1, direction::backward, o);
        d_buf.resize(2 * K);
        d_col_hat.resize(2 * K);
        d_a.resize(K);
        d_r.resize(K);
        d_p.resize(K);
        d_Tp.resize(K);
        d_freq.resize(K);
        d_s.resize(2 * K - 1);
    }
    for (int k = 0; k < K; ++k)
        d_freq[k] = (k - K / 2) * df;
    for (int d = -(K - 1); d <= K - 1; ++d)
        d_s[d + K - 1] = two_pi * d * df;

    // Voronoi weights: each sample stands for half the gaps to its neighbours.
    d_w.resize(n);
    d_c.resize(n);
    d_w[0] = t[1] - t[0];
    d_w[n - 1] = t[n - 1] - t[n - 2];
    for (int j = 1; j < n - 1; ++j)
        d_w[j] = 0.5 * (t[j + 1] - t[j - 1]);

    d_analysis.set_points(n, t, 2 * K - 1, d_s.data());
    d_g.resize(2 * K - 1);
    d_h.resize(2 * K - 1);
    for (int j = 0; j < n; ++j)
        d_c[j] = d_w[j];
    d_analysis.execute(d_c.data(), d_g.data()); // g(d) = sum w e^{-2 pi i d df t}
    for (int j = 0; j < n; ++j)
        d_c[j] = d_w[j] * x[j];
    d_analysis.execute(d_c.data(), d_h.data()); // right side at every d; b_k = h(k - K/2)

    std::fill(d_buf.begin(), d_buf.end(), std::complex<double>(0));
    for (int d = 0; d < K; ++d)
        d_buf[d] = d_g[d + K - 1];
    for (int d = 1; d < K; ++d)
        d_buf[2 * K - d] = d_g[K - 1 - d];
    d_fwd->execute(d_buf.data(), d_col_hat.data());

    // Conjugate gradients on T a = b, from a = 0, to a relative residual of eps.
    std::vector<std::complex<double>>& b = d_r; // r starts as b
    for (int k = 0; k < K; ++k) {
        b[k] = d_h[(k - K / 2) + K - 1];
        d_a[k] = 0;
        d_p[k] = b[k];
    }
    double rs = dot_re(d_r, d_r, K);
    const double stop = d_eps * d_eps * rs;
    d_iterations = 0;
    while (rs > stop && d_iterations < max_iterations) {
        toeplitz_product(d_p.data(), d_Tp.data());
        const double alpha = rs / dot_re(d_p, d_Tp, K);
        for (int k = 0; k < K; ++k) {
            d_a[k] += alpha * d_p[k];
            d_r[k] -= alpha * d_Tp[k];
        }
        const double rs_new = dot_re(d_r, d_r, K);
        for (int k = 0; k < K; ++k)
            d_p[k] = d_r[k] + (rs_new / rs) * d_p[k];
        rs = rs_new;
        ++d_iterations;
    }
}

void band_limited_fit::evaluate(const double* tau, int m, std::complex<double>* y)
{
    if (m <= 0)
        return;
    d_s_out.resize(m);
    for (int i = 0; i < m; ++i)
        d_s_out[i] = two_pi * tau[i];
    d_synthesis.set_points(d_K, d_freq.data(), m, d_s_out.data());
    d_synthesis.execute(d_a.data(), y);
}

} // namespace nufft
} // namespace gpufft
} // namespace gr
