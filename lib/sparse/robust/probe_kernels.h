/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The robust self-check's floor probe on the GPU (robust_check.h): its segments of a
// device frame windowed into one array for a batched cuFFT, then their periodograms
// summed per bin. Plain launchers; no CUDA types.

#ifndef INCLUDED_GPUFFT_ROBUST_PROBE_KERNELS_H
#define INCLUDED_GPUFFT_ROBUST_PROBE_KERNELS_H

#include <cstdint>

namespace gr {
namespace gpufft {
namespace detail {

//! Most segments a probe has (robust_check.cc uses 8).
constexpr int robust_probe_max_segments = 16;

//! Where each segment starts in the frame.
struct robust_probe_starts {
    std::int64_t at[robust_probe_max_segments];
};

/*!
 * out[s * length + t] = x[starts.at[s] + t] * window[t] for s < segments, t < length
 * (complex float arrays on the device); *bad = 1 where a sample read is not finite
 * (*bad is not cleared here).
 */
//! `*xptr` (device memory, read by the kernel): the frame, so a graph can be reused.
void launch_probe_gather(const void* const* xptr,
                         const robust_probe_starts& starts,
                         int segments,
                         std::int64_t length,
                         const float* window,
                         void* out,
                         int* bad,
                         void* stream);

//! power[t] = sum over s of |X[s * length + t]|^2, s ascending (as the host's loop).
void launch_probe_power(
    const void* X, int segments, std::int64_t length, float* power, void* stream);

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_ROBUST_PROBE_KERNELS_H */
