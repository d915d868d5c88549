/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "sparse/common/sparse_common.h"
#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace gr {
namespace gpufft {
namespace detail {

void throw_non_finite()
{
    throw std::invalid_argument(
        "x: holds non-finite samples (NaN or Inf) among those the "
        "sparse FFT reads; the transform is undefined");
}

void keep_top_k_sorted(std::int64_t k,
                       std::vector<std::int64_t>& bins,
                       std::vector<std::complex<float>>& values)
{
    std::vector<std::size_t> order(bins.size());
    std::iota(order.begin(), order.end(), std::size_t(0));
    if (std::int64_t(order.size()) > k) {
        std::nth_element(
            order.begin(), order.begin() + k, order.end(), [&](auto a, auto b) {
                return std::norm(values[a]) > std::norm(values[b]);
            });
        order.resize(k);
    }
    std::sort(
        order.begin(), order.end(), [&](auto a, auto b) { return bins[a] < bins[b]; });
    std::vector<std::int64_t> b2(order.size());
    std::vector<std::complex<float>> v2(order.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
        b2[i] = bins[order[i]];
        v2[i] = values[order[i]];
    }
    bins.swap(b2);
    values.swap(v2);
}

} // namespace detail
} // namespace gpufft
} // namespace gr
