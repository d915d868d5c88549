/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The fused GPU spectrometer: copy a frame in, window it while the next chunk is in
// flight, cuFFT in place, |X|^2 band-reduced into channels and accumulated on the
// device. Only a flag per frame and the channels per integration come back. An integer
// frame (sc16, sc8, cu8) is copied as it is, 4 or 2 bytes a sample instead of 8, and
// the window kernel converts and scales it as it loads it: no extra pass.

#include "cuda/cuda_resources.h"
#include "large/power/integrator_backend.h"
#include "large/power/power_kernels.h"
#include <cufft.h>
#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace gr {
namespace gpufft {
namespace detail {

namespace {

using i64 = std::int64_t;

// Copies of this size keep PCIe at full speed while the window kernel of the previous
// chunk runs beside them.
constexpr i64 upload_chunk = i64(1) << 22; // samples (32 MiB)
// Headroom in the budget for what cuFFT and the kernels keep beside the work area.
constexpr std::size_t slack_bytes = std::size_t(16) << 20;

struct device_state {
    cuda::cufft_handle fft;
    cuda::device_buffer<char> work;
    cuda::device_buffer<float2> frame;
    cuda::device_buffer<unsigned char> raw; // an integer frame as copied (else empty)
    cuda::device_buffer<double> power;      // this frame's channels
    cuda::device_buffer<double> acc;        // the integration's channels
    cuda::device_buffer<int> flag;          // non-finite sample or sum in this frame
    cuda::stream copy, compute;
    cuda::event uploaded;
};

class device_integrator final : public spectrum_integrator::impl
{
public:
    device_integrator(const power::band_reducer& band,
                      const power::spectral_window& window,
                      int device,
                      std::size_t budget,
                      std::unique_ptr<device_state> state,
                      std::size_t work_bytes,
                      stream::sample_format format)
        : impl(band, window),
          d_device(device),
          d_budget(budget),
          d_work_bytes(work_bytes),
          d_s(std::move(state))
    {
        d_window.n = band.fft_size();
        d_window.terms = window.terms();
        for (int k = 0; k < 5; ++k)
            d_window.a[k] = window.coefficients()[std::size_t(k)];
        input = format;
        const stream::sample_scale sc = stream::scale_of(format);
        d_scale = float(sc.scale);
        d_offset = float(sc.offset);
        d_integer = format == stream::sample_format::sc16  ? cuda::iq_integer::int16
                    : format == stream::sample_format::sc8 ? cuda::iq_integer::int8
                                                           : cuda::iq_integer::uint8;
    }

    ~device_integrator() override
    {
        // Free in the plan's device context, whichever thread drops the last reference.
        try {
            cuda::device_guard g(d_device);
            d_s.reset();
        } catch (...) {
            d_s.reset();
        }
    }

    bool accumulate(std::complex<float>* frame, accumulate_op op) override
    {
        return run(frame, false, op);
    }

    bool accumulate_integers(const void* samples, accumulate_op op) override
    {
        if (!converts_on_device())
            throw std::logic_error("device_integrator: not made for integer frames");
        return run(samples, true, op);
    }

    bool converts_on_device() const override
    {
        return input != stream::sample_format::fc32;
    }

    void read(double* acc) override
    {
        cuda::device_guard g(d_device);
        auto& s = *d_s;
        GPUFFT_CUDA_CHECK(
            cudaMemcpyAsync(acc,
                            s.acc.get(),
                            std::size_t(band.output_bins()) * sizeof(double),
                            cudaMemcpyDeviceToHost,
                            s.compute.get()));
        GPUFFT_CUDA_CHECK(cudaStreamSynchronize(s.compute.get()));
    }

    gpufft::backend backend() const override { return backend::cuda; }
    int device_id() const override { return d_device; }
    std::size_t memory_budget() const override { return d_budget; }
    bool on_device() const override { return true; }
    std::string describe() const override
    {
        std::ostringstream o;
        const i64 n = band.fft_size();
        o << "spectrum_integrator: fused on CUDA device " << d_device << ": " << n
          << "-point frame copied in chunks of " << std::min(upload_chunk, n)
          << " samples";
        if (converts_on_device())
            o << " as " << stream::to_string(input) << " (" << stream::sample_bytes(input)
              << " bytes a sample, converted to complex float as it is windowed)";
        o << ", " << power::to_string(window.type()) << " window, cuFFT in card ("
          << ((std::size_t(n) * 8) >> 20) << " MiB frame + " << (d_work_bytes >> 20)
          << " MiB work area, budget " << (d_budget >> 20) << " MiB), |X|^2 of bins ["
          << band.band_start() << ", " << band.band_stop() << ") into "
          << band.output_bins() << " channels of " << band.decimation()
          << " bins accumulated on the device\n";
        return o.str();
    }

private:
    //! One frame from host memory: complex float (`integer` false), or `input`'s
    //! integers copied as they are and converted by the window kernel.
    bool run(const void* host, bool integer, accumulate_op op)
    {
        cuda::device_guard g(d_device);
        auto& s = *d_s;
        const i64 n = band.fft_size(), bins = band.output_bins();
        cudaStream_t cs = s.compute.get(), up = s.copy.get();
        const std::size_t sample = integer ? stream::sample_bytes(input) : sizeof(float2);
        const auto* src = static_cast<const unsigned char*>(host);
        auto* frame_bytes = reinterpret_cast<unsigned char*>(s.frame.get());
        GPUFFT_CUDA_CHECK(cudaMemsetAsync(s.flag.get(), 0, sizeof(int), cs));
        GPUFFT_CUDA_CHECK(
            cudaMemsetAsync(s.power.get(), 0, std::size_t(bins) * sizeof(double), cs));
        // The previous frame is finished (accumulate() ends synchronised), so the copy
        // stream may overwrite the device frame (and raw frame) at once. The wait on
        // `uploaded` is enqueued before the event is recorded again, so it refers to
        // this chunk.
        for (i64 b = 0; b < n; b += upload_chunk) {
            const i64 count = std::min(upload_chunk, n - b);
            const std::size_t at = std::size_t(b) * sample;
            unsigned char* dst = (integer ? s.raw.get() : frame_bytes) + at;
            GPUFFT_CUDA_CHECK(cudaMemcpyAsync(
                dst, src + at, std::size_t(count) * sample, cudaMemcpyHostToDevice, up));
            GPUFFT_CUDA_CHECK(cudaEventRecord(s.uploaded.get(), up));
            GPUFFT_CUDA_CHECK(cudaStreamWaitEvent(cs, s.uploaded.get(), 0));
            if (integer)
                launch_window_iq(d_integer,
                                 dst,
                                 s.frame.get() + b,
                                 b,
                                 count,
                                 d_window,
                                 d_scale,
                                 d_offset,
                                 cs);
            else
                launch_window(s.frame.get() + b, b, count, d_window, s.flag.get(), cs);
        }
        GPUFFT_CUFFT_CHECK(
            cufftExecC2C(s.fft.get(), s.frame.get(), s.frame.get(), CUFFT_FORWARD));
        launch_band_power(s.frame.get(),
                          n,
                          band.band_start(),
                          band.decimation(),
                          bins,
                          s.power.get(),
                          s.flag.get(),
                          cs);
        const int code = op == accumulate_op::store ? 0
                         : op == accumulate_op::add ? 1
                                                    : 2;
        launch_accumulate(s.power.get(),
                          s.acc.get(),
                          bins,
                          scale / double(band.decimation()),
                          code,
                          s.flag.get(),
                          cs);
        int bad = 0;
        GPUFFT_CUDA_CHECK(
            cudaMemcpyAsync(&bad, s.flag.get(), sizeof(int), cudaMemcpyDeviceToHost, cs));
        GPUFFT_CUDA_CHECK(cudaStreamSynchronize(cs));
        return bad == 0;
    }

    const int d_device;
    const std::size_t d_budget;
    const std::size_t d_work_bytes;
    cosine_window d_window;
    float d_scale = 1, d_offset = 0; // an integer input's (stream::scale_of)
    cuda::iq_integer d_integer = cuda::iq_integer::int16;
    std::unique_ptr<device_state> d_s;
};

} // namespace

std::unique_ptr<spectrum_integrator::impl>
make_device_integrator(const power::band_reducer& band,
                       const power::spectral_window& window,
                       int device_id,
                       std::size_t budget,
                       stream::sample_format input)
{
    const i64 n = band.fft_size();
    // An integer frame is copied into a raw frame of its own, then converted into the
    // complex one (in place it would race: the two overlap).
    const std::size_t raw_bytes = input == stream::sample_format::fc32
                                      ? 0
                                      : std::size_t(n) * stream::sample_bytes(input);
    const std::size_t frame_bytes = std::size_t(n) * sizeof(float2) + raw_bytes;
    // The frames alone must fit before cuFFT is even asked for a plan.
    if (frame_bytes + slack_bytes > budget)
        return nullptr;
    cuda::device_guard g(device_id);
    auto s = std::make_unique<device_state>();
    GPUFFT_CUFFT_CHECK(cufftSetAutoAllocation(s->fft.get(), 0));
    long long len = n;
    std::size_t work = 0;
    // A size cuFFT cannot plan in one piece on this device is not an error: the
    // host path's out-of-card schedule takes it.
    if (cufftMakePlanMany64(s->fft.get(),
                            1,
                            &len,
                            nullptr,
                            1,
                            len,
                            nullptr,
                            1,
                            len,
                            CUFFT_C2C,
                            1,
                            &work) != CUFFT_SUCCESS) {
        s.reset();
        return nullptr;
    }
    const std::size_t channels = std::size_t(band.output_bins()) * sizeof(double) * 2;
    if (frame_bytes + work + channels + slack_bytes > budget) {
        s.reset(); // in this device's context
        return nullptr;
    }
    s->work.allocate(std::max<std::size_t>(work, 1), "the cuFFT work area");
    GPUFFT_CUFFT_CHECK(cufftSetWorkArea(s->fft.get(), s->work.get()));
    GPUFFT_CUFFT_CHECK(cufftSetStream(s->fft.get(), s->compute.get()));
    s->frame.allocate(std::size_t(n), "the frame");
    if (raw_bytes > 0)
        s->raw.allocate(raw_bytes, "the raw integer frame");
    s->power.allocate(std::size_t(band.output_bins()));
    s->acc.allocate(std::size_t(band.output_bins()));
    s->flag.allocate(1);
    return std::make_unique<device_integrator>(
        band, window, device_id, budget, std::move(s), work, input);
}

} // namespace detail
} // namespace gpufft
} // namespace gr
