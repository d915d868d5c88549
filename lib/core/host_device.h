/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The one host/device marker of the engines' shared arithmetic: code written once for
// the CPU backends and the CUDA kernels (the sparse FFT's robust math, the NUFFT's
// kernels, sensing's fits, the large FFT's butterflies). Plain C++ when not compiled by
// nvcc. Write `GPUFFT_HD inline` for a function (`GPUFFT_HD constexpr` for a constant
// one): the marker carries no `inline` of its own, so both combine.

#ifndef INCLUDED_GPUFFT_HOST_DEVICE_H
#define INCLUDED_GPUFFT_HOST_DEVICE_H

#if defined(__CUDACC__)
#define GPUFFT_HD __host__ __device__
#else
#define GPUFFT_HD
#endif

#endif /* INCLUDED_GPUFFT_HOST_DEVICE_H */
