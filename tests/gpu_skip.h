/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// GPU tests skip, rather than fail, where no GPU is usable: CI and the development
// machine have none (ctest counts the skip through exit code 77).

#ifndef INCLUDED_GPUFFT_TEST_GPU_SKIP_H
#define INCLUDED_GPUFFT_TEST_GPU_SKIP_H

#include "test_harness.h"
#include <gnuradio/gpufft/device.h>

namespace gpufft_test {

//! Skips the calling test unless CUDA device 0 is usable, saying why.
inline void require_gpu()
{
    if (!gr::gpufft::cuda_available(0))
        GPUFFT_SKIP("no usable CUDA device: " + gr::gpufft::describe_backend(0));
}

} // namespace gpufft_test

#endif /* INCLUDED_GPUFFT_TEST_GPU_SKIP_H */
