/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Small pieces both CUDA backends of the sparse FFT (exact and robust) set up with.

#ifndef INCLUDED_GPUFFT_SPARSE_CUDA_SETUP_H
#define INCLUDED_GPUFFT_SPARSE_CUDA_SETUP_H

#include <gnuradio/gpufft/dense_fft_plan.h>

namespace gr {
namespace gpufft {
namespace detail {

//! Options of the batched cuFFT plans the sparse backends run on device_id.
inline dense_fft_options cuda_fft_options(int device_id)
{
    dense_fft_options o;
    o.backend = backend::cuda;
    o.device_id = device_id;
    return o;
}

//! The smallest power of two >= v (hash-table sizes).
inline unsigned long long pow2_at_least(unsigned long long v)
{
    unsigned long long p = 1;
    while (p < v)
        p <<= 1;
    return p;
}

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_SPARSE_CUDA_SETUP_H */
