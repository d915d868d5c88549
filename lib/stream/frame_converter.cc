/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "stream/frame_converter.h"
#include <stdexcept>
#ifdef GPUFFT_HAVE_CUDA
#include "cuda/iq_upload.h"
#endif

namespace gr {
namespace gpufft {
namespace stream {

struct frame_converter::device_part {
#ifdef GPUFFT_HAVE_CUDA
    cuda::iq_upload upload;
#endif
};

frame_converter::frame_converter(sample_format format, std::int64_t n)
    : d_format(format), d_n(n)
{
}

frame_converter::~frame_converter() = default;

const std::complex<float>* frame_converter::on_host(const void* raw)
{
    if (d_format == sample_format::fc32)
        return static_cast<const std::complex<float>*>(raw);
    d_host.resize(std::size_t(d_n));
    convert_samples(d_format, raw, d_host.data(), d_n);
    return d_host.data();
}

void frame_converter::release_device() { d_device.reset(); }

#ifdef GPUFFT_HAVE_CUDA
const std::complex<float>* frame_converter::on_device(const void* raw, int device)
{
    if (d_format == sample_format::fc32)
        throw std::logic_error(
            "frame_converter: fc32 frames go to the engine as they are");
    if (!d_device || d_device->upload.device() != device) {
        d_device.reset();
        const sample_scale s = scale_of(d_format);
        const cuda::iq_integer type =
            d_format == sample_format::sc16  ? cuda::iq_integer::int16
            : d_format == sample_format::sc8 ? cuda::iq_integer::int8
                                             : cuda::iq_integer::uint8;
        d_device.reset(new device_part{
            cuda::iq_upload(type, d_n, float(s.scale), float(s.offset), device) });
    }
    return d_device->upload.upload(raw);
}
#else
const std::complex<float>* frame_converter::on_device(const void*, int)
{
    throw std::runtime_error("frame_converter: this build of gr-gpufft has no CUDA");
}
#endif

} // namespace stream
} // namespace gpufft
} // namespace gr
