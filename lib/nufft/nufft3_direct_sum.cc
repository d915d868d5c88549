/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "core/parallel_for.h"
#include "nufft/nufft3_direct_sum.h"
#include <algorithm>
#include <cmath>

namespace gr {
namespace gpufft {
namespace nufft {

void direct_points::assign(int d,
                           std::int64_t n_sources,
                           const double* const* x,
                           std::int64_t n_targets,
                           const double* const* s)
{
    dim = d;
    n_src = n_sources;
    n_tgt = n_targets;
    for (int a = 0; a < max_dim; ++a) {
        if (a < d) {
            src[a].assign(x[a], x[a] + n_sources);
            tgt[a].assign(s[a], s[a] + n_targets);
        } else {
            std::vector<double>().swap(src[a]);
            std::vector<double>().swap(tgt[a]);
        }
    }
}

void direct_points::clear()
{
    for (int a = 0; a < max_dim; ++a) {
        std::vector<double>().swap(src[a]);
        std::vector<double>().swap(tgt[a]);
    }
    n_src = n_tgt = 0;
}

namespace {

template <int DIM, typename T>
void sum_dim(const direct_points& p,
             int sign,
             const std::complex<T>* c,
             std::complex<T>* F,
             int ntransf,
             int threads)
{
    const std::int64_t n = p.n_src, m = p.n_tgt;
    const double* x = p.src[0].data();
    const double* y = DIM > 1 ? p.src[1].data() : nullptr;
    const double* z = DIM > 2 ? p.src[2].data() : nullptr;
    // A target costs n terms: a few targets per thread already pay for its start.
    const std::int64_t grain =
        std::max<std::int64_t>(1, 65536 / std::max<std::int64_t>(1, n));
    detail::parallel_for(
        m,
        threads,
        [&](int, std::int64_t b, std::int64_t e) {
            std::vector<std::complex<double>> acc(static_cast<std::size_t>(ntransf));
            for (std::int64_t k = b; k < e; ++k) {
                const double s = p.tgt[0][k];
                const double t = DIM > 1 ? p.tgt[1][k] : 0;
                const double u = DIM > 2 ? p.tgt[2][k] : 0;
                std::fill(acc.begin(), acc.end(), std::complex<double>(0));
                for (std::int64_t j = 0; j < n; ++j) {
                    double r = s * x[j];
                    if constexpr (DIM > 1)
                        r += t * y[j];
                    if constexpr (DIM > 2)
                        r += u * z[j];
                    const double cr = std::cos(r), sr = sign * std::sin(r);
                    for (int v = 0; v < ntransf; ++v) {
                        const std::complex<T> cv = c[std::int64_t(v) * n + j];
                        acc[v] += std::complex<double>(cv.real() * cr - cv.imag() * sr,
                                                       cv.real() * sr + cv.imag() * cr);
                    }
                }
                for (int v = 0; v < ntransf; ++v)
                    F[std::int64_t(v) * m + k] = std::complex<T>(acc[v]);
            }
        },
        grain);
}

} // namespace

template <typename T>
void direct_sum_cpu(const direct_points& p,
                    int sign,
                    const std::complex<T>* c,
                    std::complex<T>* F,
                    int ntransf,
                    int threads)
{
    switch (p.dim) {
    case 1:
        sum_dim<1>(p, sign, c, F, ntransf, threads);
        break;
    case 2:
        sum_dim<2>(p, sign, c, F, ntransf, threads);
        break;
    default:
        sum_dim<3>(p, sign, c, F, ntransf, threads);
    }
}

template void direct_sum_cpu<float>(const direct_points&,
                                    int,
                                    const std::complex<float>*,
                                    std::complex<float>*,
                                    int,
                                    int);
template void direct_sum_cpu<double>(const direct_points&,
                                     int,
                                     const std::complex<double>*,
                                     std::complex<double>*,
                                     int,
                                     int);

} // namespace nufft
} // namespace gpufft
} // namespace gr
