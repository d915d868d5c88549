/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// gpufft-selfcheck: what backend 'auto' picks here, and a dense FFT round trip on it
// (and on the CPU) against a direct DFT. Exit status 0 when every check passes.

#include <gnuradio/gpufft/dense_fft_plan.h>
#include <gnuradio/gpufft/device.h>
#include <cmath>
#include <complex>
#include <cstdio>
#include <exception>
#include <random>
#include <vector>

using namespace gr::gpufft;

namespace {

// ||a - b|| / ||b|| in double.
double rel_error(const std::vector<std::complex<double>>& a,
                 const std::vector<std::complex<double>>& b)
{
    double num = 0, den = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        num += std::norm(a[i] - b[i]);
        den += std::norm(b[i]);
    }
    return std::sqrt(num / den);
}

bool check(backend be, std::int64_t n)
{
    std::mt19937 rng(std::random_device{}());
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    std::vector<std::complex<float>> x(n), X(n), y(n);
    for (auto& v : x)
        v = { u(rng), u(rng) };

    dense_fft_options opt;
    opt.backend = be;
    dense_fft_plan fwd(n, 1, direction::forward, opt);
    dense_fft_plan bwd(n, 1, direction::backward, opt);
    fwd.execute(x.data(), X.data());
    bwd.execute(X.data(), y.data());

    // Forward result against a direct DFT in double on a few bins; round trip on all.
    double num = 0, den = 0;
    const double two_pi = 2 * std::acos(-1.0);
    for (std::int64_t f = 0; f < n; f += n / 16) {
        std::complex<double> ref = 0;
        for (std::int64_t t = 0; t < n; ++t)
            ref += std::complex<double>(x[t]) *
                   std::polar(1.0, -two_pi * double((f * t) % n) / double(n));
        num += std::norm(std::complex<double>(X[f]) - ref);
        den += std::norm(ref);
    }
    const double fwd_err = std::sqrt(num / den);
    std::vector<std::complex<double>> a(n), b(n);
    for (std::int64_t i = 0; i < n; ++i) {
        a[i] = std::complex<double>(y[i]) / double(n);
        b[i] = x[i];
    }
    const double rt_err = rel_error(a, b);
    const bool ok = fwd_err < 1e-5 && rt_err < 1e-5;
    std::printf("  %-4s dense FFT n=%lld: forward error vs direct DFT %.2e, round trip "
                "%.2e  %s\n",
                to_string(fwd.backend()).c_str(),
                (long long)n,
                fwd_err,
                rt_err,
                ok ? "ok" : "FAILED");
    return ok;
}

} // namespace

int main()
{
    try {
        std::printf("gr-gpufft self-check\n");
        std::printf("  CUDA backend compiled: %s\n", cuda_compiled() ? "yes" : "no");
        std::printf("  backend 'auto' uses:   %s\n", describe_backend(0).c_str());
        bool ok = check(backend::cpu, 1 << 16);
        if (cuda_available(0))
            ok = check(backend::cuda, 1 << 16) && ok;
        std::printf("%s\n", ok ? "self-check passed" : "self-check FAILED");
        return ok ? 0 : 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "self-check error: %s\n", e.what());
        return 1;
    }
}
