/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// What both modes' backends share on the host: the non-finite input's one error and the
// top-k selection of found coefficients.

#ifndef INCLUDED_GPUFFT_SPARSE_COMMON_H
#define INCLUDED_GPUFFT_SPARSE_COMMON_H

#include <complex>
#include <cstdint>
#include <vector>

namespace gr {
namespace gpufft {
namespace detail {

//! std::invalid_argument naming x: a sample the sparse FFT reads is NaN or Inf.
[[noreturn]] void throw_non_finite();

//! The k largest |X| of (bins, values), then ordered by bin; drops the rest.
void keep_top_k_sorted(std::int64_t k,
                       std::vector<std::int64_t>& bins,
                       std::vector<std::complex<float>>& values);

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_SPARSE_COMMON_H */
