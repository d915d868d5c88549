/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_STREAM_FRAME_CONVERTER_H
#define INCLUDED_GPUFFT_STREAM_FRAME_CONVERTER_H

#include "stream/sample_format.h"
#include <complex>
#include <cstdint>
#include <memory>
#include <vector>

namespace gr {
namespace gpufft {
namespace stream {

/*!
 * A block's frame of n input samples (sample_format) as the engine takes it, complex
 * float: on the host (VOLK, into a buffer of its own; fc32 is handed back as is), or
 * (CUDA builds) on the GPU, where the integer samples are copied as they are and
 * converted by a kernel, so 2 or 4 bytes a sample cross the bus instead of 8.
 */
class frame_converter
{
public:
    frame_converter(sample_format format, std::int64_t n);
    ~frame_converter();
    frame_converter(const frame_converter&) = delete;
    frame_converter& operator=(const frame_converter&) = delete;

    sample_format format() const { return d_format; }
    std::int64_t size() const { return d_n; }

    //! The frame at `raw` (host memory) as complex float in host memory, valid until
    //! the next call.
    const std::complex<float>* on_host(const void* raw);

    /*!
     * The frame at `raw` (host memory, an integer format) as complex float in the
     * memory of CUDA device `device` (resolved), valid until the next call; the
     * device buffers are made at the first call (or for another device). Throws
     * std::logic_error for fc32 (the engines copy that themselves) and
     * std::runtime_error in a build without CUDA.
     */
    const std::complex<float>* on_device(const void* raw, int device);

    //! Drops the device buffers (the engine moved to the CPU).
    void release_device();

    struct device_part;

private:
    const sample_format d_format;
    const std::int64_t d_n;
    std::vector<std::complex<float>> d_host;
    std::unique_ptr<device_part> d_device;
};

} // namespace stream
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_STREAM_FRAME_CONVERTER_H */
