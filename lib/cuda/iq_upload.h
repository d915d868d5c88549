/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// A frame of integer I/Q copied to the GPU as it is (2 or 4 bytes a sample) and
// converted there to complex float. CUDA-free header.

#ifndef INCLUDED_GPUFFT_CUDA_IQ_UPLOAD_H
#define INCLUDED_GPUFFT_CUDA_IQ_UPLOAD_H

#include "cuda/sample_convert_kernels.h"
#include <complex>
#include <cstdint>
#include <memory>

namespace gr {
namespace gpufft {
namespace cuda {

class iq_upload
{
public:
    /*!
     * Device buffers for frames of n samples on `device` (an id resolve_device_id()
     * has checked): the raw frame and its complex float twin. Throws as the CUDA
     * allocations do (detail::memory_error when the device is full).
     */
    iq_upload(iq_integer type, std::int64_t n, float scale, float offset, int device);
    ~iq_upload();
    iq_upload(const iq_upload&) = delete;
    iq_upload& operator=(const iq_upload&) = delete;

    /*!
     * Copies the n samples at host address `raw` to the device, converts them, waits,
     * and returns the device array of n complex floats (valid until the next call).
     */
    const std::complex<float>* upload(const void* raw);
    int device() const;

    struct state;

private:
    std::unique_ptr<state> d;
};

} // namespace cuda
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_CUDA_IQ_UPLOAD_H */
