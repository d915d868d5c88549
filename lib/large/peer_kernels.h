/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The peer exchange's kernel behind a plain C++ launcher (peer_exchange.h); its
// transpose is the large FFT's (launch_pitched_transpose, large_fft_kernels.h).

#ifndef INCLUDED_GPUFFT_LARGE_PEER_KERNELS_H
#define INCLUDED_GPUFFT_LARGE_PEER_KERNELS_H

#include <cstdint>

namespace gr {
namespace gpufft {
namespace detail {

/*!
 * In place on a slab of `parts` slots of [s1][s2] (complex<float> or, with dbl,
 * complex<double>): element (i, j) of every slot through segment_butterfly
 * (peer_exchange_math.h). sign: -1 forward, +1 backward.
 */
void launch_segment_butterfly(void* slab,
                              bool dbl,
                              int parts,
                              std::int64_t s1,
                              std::int64_t s2,
                              int sign,
                              void* stream);

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_LARGE_PEER_KERNELS_H */
