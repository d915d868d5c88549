/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "cuda/cufft_pool.h"
#include "cuda/host_transfer.h"
#include "dense/dense_fft_backend.h"
#include <complex>
#include <stdexcept>

namespace gr {
namespace gpufft {
namespace detail {

namespace {

class dense_fft_cufft final : public dense_fft_backend
{
public:
    explicit dense_fft_cufft(const dense_fft_config& cfg)
        : d_cfg(cfg),
          d_elem_bytes(cfg.prec == precision::single ? sizeof(std::complex<float>)
                                                     : sizeof(std::complex<double>)),
          d_plan(cuda::cufft_key{ cfg.device_id,
                                  cfg.n,
                                  cfg.batch,
                                  cfg.stride,
                                  cfg.distance,
                                  cfg.prec == precision::double_ })
    {
    }

    void execute(const void* in, void* out, memory where) override
    {
        cuda::device_guard guard(d_cfg.device_id);
        if (where == memory::device) {
            d_stream.follow_default_stream();
            run(in, out, d_stream.get());
            d_stream.synchronize();
            return;
        }
        // Host arrays: one device buffer for the whole extent, transformed in place.
        const std::size_t bytes = std::size_t(d_cfg.extent()) * d_elem_bytes;
        if (!d_work.get())
            d_work.allocate(bytes, "the staging buffer");
        d_stager.to_device(d_work.get(), in, bytes, d_stream.get());
        run(d_work.get(), d_work.get(), d_stream.get());
        d_stager.to_host(out, d_work.get(), bytes, d_stream.get());
        d_stream.synchronize();
    }

    void execute_async(const void* in, void* out, void* stream) override
    {
        cuda::device_guard guard(d_cfg.device_id);
        run(in, out, static_cast<cudaStream_t>(stream));
    }

private:
    void run(const void* in, void* out, cudaStream_t s)
    {
        GPUFFT_CUFFT_CHECK(cufftSetStream(d_plan.handle(), s));
        // cuFFT takes non-const input; C2C/Z2Z leave it unchanged out of place.
        void* i = const_cast<void*>(in);
        if (d_cfg.prec == precision::single)
            GPUFFT_CUFFT_CHECK(cufftExecC2C(d_plan.handle(),
                                            static_cast<cufftComplex*>(i),
                                            static_cast<cufftComplex*>(out),
                                            int(d_cfg.dir)));
        else
            GPUFFT_CUFFT_CHECK(cufftExecZ2Z(d_plan.handle(),
                                            static_cast<cufftDoubleComplex*>(i),
                                            static_cast<cufftDoubleComplex*>(out),
                                            int(d_cfg.dir)));
    }

    dense_fft_config d_cfg;
    std::size_t d_elem_bytes;
    cuda::pooled_cufft_plan d_plan;
    cuda::stream d_stream;
    cuda::host_stager d_stager;
    cuda::device_buffer<unsigned char> d_work;
};

} // namespace

std::unique_ptr<dense_fft_backend> make_dense_fft_cuda(const dense_fft_config& cfg)
{
    // Members (cuFFT plan, stream, buffers) are made on the plan's device; the caller's
    // current device is restored afterwards.
    cuda::device_guard guard(cfg.device_id);
    return std::make_unique<dense_fft_cufft>(cfg);
}

} // namespace detail
} // namespace gpufft
} // namespace gr
