/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "cuda/cuda_resources.h"
#include "cuda/iq_upload.h"

namespace gr {
namespace gpufft {
namespace cuda {

namespace {
std::size_t number_bytes(iq_integer t) { return t == iq_integer::int16 ? 2 : 1; }
} // namespace

struct iq_upload::state {
    iq_integer type;
    std::int64_t n;
    float scale, offset;
    int device;
    device_buffer<unsigned char> raw;
    device_buffer<std::complex<float>> frame;
    cuda::stream stream;
};

iq_upload::iq_upload(
    iq_integer type, std::int64_t n, float scale, float offset, int device)
{
    device_guard guard(device);
    d.reset(new state{ type, n, scale, offset, device, {}, {}, {} });
    d->raw.allocate(std::size_t(n) * 2 * number_bytes(type), "the raw input frame");
    d->frame.allocate(std::size_t(n), "the converted input frame");
}

iq_upload::~iq_upload() = default;

int iq_upload::device() const { return d->device; }

const std::complex<float>* iq_upload::upload(const void* raw)
{
    device_guard guard(d->device);
    // A pageable source: the runtime stages it; 2 or 4 bytes a sample cross the bus.
    GPUFFT_CUDA_CHECK(cudaMemcpyAsync(
        d->raw.get(), raw, d->raw.bytes(), cudaMemcpyHostToDevice, d->stream.get()));
    launch_convert_iq(d->type,
                      d->raw.get(),
                      d->frame.get(),
                      d->n,
                      d->scale,
                      d->offset,
                      d->stream.get());
    // The engine runs on its own stream: the frame must be whole before it starts.
    d->stream.synchronize();
    return d->frame.get();
}

} // namespace cuda
} // namespace gpufft
} // namespace gr
