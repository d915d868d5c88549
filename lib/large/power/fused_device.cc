/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The fused GPU spectrometer of one device: copy a frame in, window it while the next
// chunk is in flight, cuFFT in place, |X|^2 band-reduced into channels and
// accumulated on the device. Only a flag per frame and the channels per integration
// come back. An integer frame (sc16, sc8, cu8) is copied as it is, 4 or 2 bytes a
// sample instead of 8, and the window kernel converts and scales it as it loads it.

#include "cuda/cuda_resources.h"
#include "large/power/fused_device.h"
#include "large/power/power_kernels.h"
#include <cufft.h>
#include <algorithm>
#include <stdexcept>

namespace gr {
namespace gpufft {
namespace detail {

namespace {
using i64 = std::int64_t;

// Copies of this size keep PCIe at full speed while the window kernel of the previous
// chunk runs beside them.
constexpr i64 chunk_samples = i64(1) << 22; // samples (32 MiB of complex float)
// Headroom in the budget for what cuFFT and the kernels keep beside the work area.
constexpr std::size_t slack_bytes = std::size_t(16) << 20;
} // namespace

struct fused_device_state {
    cuda::cufft_handle fft;
    cuda::device_buffer<char> work;
    cuda::device_buffer<float2> frame;
    cuda::device_buffer<unsigned char> raw; // an integer frame as copied (else empty)
    cuda::device_buffer<double> power;      // this frame's channels
    cuda::device_buffer<double> acc;        // the integration's channels
    cuda::device_buffer<int> flag;          // non-finite sample or sum in this frame
    // Half a complex frame copied in here for a partner device (else empty).
    cuda::device_buffer<unsigned char> relay;
    // The flag after the window ([0]) and after the channel sums ([1]), read back.
    cuda::pinned_buffer<int> host_flags;
    cuda::stream copy, compute;
    cuda::stream peer; // the peer copies of the half a partner relays
    cuda::event uploaded, windowed, finished;
    cuda::event relayed; // a relay chunk landed here (waited for by the partner)
    cuda::event peered;  // a relayed chunk arrived by peer copy
    cosine_window window;
    float scale = 1, offset = 0; // an integer input's (stream::scale_of)
    cuda::iq_integer integer = cuda::iq_integer::int16;
};

std::int64_t fused_device::upload_chunk() { return chunk_samples; }

bool fused_device::relays() const { return d_s->relay.get() != nullptr; }

fused_device::fused_device(const power::band_reducer& band,
                           const power::spectral_window& window,
                           int device,
                           std::unique_ptr<fused_device_state> state,
                           std::size_t work_bytes,
                           stream::sample_format input)
    : d_band(band),
      d_scale(1.0 / (window.sum() * window.sum()) / double(band.decimation())),
      d_device(device),
      d_work_bytes(work_bytes),
      d_input(input),
      d_s(std::move(state))
{
    auto& w = d_s->window;
    w.n = band.fft_size();
    w.terms = window.terms();
    for (int k = 0; k < 5; ++k)
        w.a[k] = window.coefficients()[std::size_t(k)];
    const stream::sample_scale sc = stream::scale_of(input);
    d_s->scale = float(sc.scale);
    d_s->offset = float(sc.offset);
    d_s->integer = input == stream::sample_format::sc16  ? cuda::iq_integer::int16
                   : input == stream::sample_format::sc8 ? cuda::iq_integer::int8
                                                         : cuda::iq_integer::uint8;
}

fused_device::~fused_device()
{
    // Free in the device's context, whichever thread drops the last reference; a
    // frame still queued finishes first (its buffers are in use).
    try {
        cuda::device_guard g(d_device);
        if (d_queued)
            cudaStreamSynchronize(d_s->compute.get());
        d_s.reset();
    } catch (...) {
        d_s.reset();
    }
}

void fused_device::issue(const void* host,
                         bool integer,
                         accumulate_op op,
                         fused_device* partner)
{
    if (d_queued)
        wait_done(); // the device frame is about to be overwritten
    cuda::device_guard g(d_device);
    auto& s = *d_s;
    const i64 n = d_band.fft_size(), bins = d_band.output_bins();
    cudaStream_t cs = s.compute.get(), up = s.copy.get();
    const std::size_t sample = integer ? stream::sample_bytes(d_input) : sizeof(float2);
    const auto* src = static_cast<const unsigned char*>(host);
    auto* frame_bytes = reinterpret_cast<unsigned char*>(s.frame.get());
    GPUFFT_CUDA_CHECK(cudaMemsetAsync(s.flag.get(), 0, sizeof(int), cs));
    GPUFFT_CUDA_CHECK(
        cudaMemsetAsync(s.power.get(), 0, std::size_t(bins) * sizeof(double), cs));
    const auto window_chunk = [&](unsigned char* dst, i64 b, i64 count) {
        if (integer)
            launch_window_iq(s.integer,
                             dst,
                             s.frame.get() + b,
                             b,
                             count,
                             s.window,
                             s.scale,
                             s.offset,
                             cs);
        else
            launch_window(s.frame.get() + b, b, count, s.window, s.flag.get(), cs);
    };
    // Samples [0, split) cross this device's link, [split, n) the partner's.
    const bool relayed = partner && partner->relays();
    const i64 split = relayed ? n - n / 2 : n;
    // The previous frame is finished (above), so the copy stream may overwrite the
    // device frame (and raw frame) at once. Each wait on an event is enqueued before
    // the event is recorded again, so it refers to this chunk.
    const auto own_chunk = [&](i64 b, i64 count) {
        const std::size_t at = std::size_t(b) * sample;
        unsigned char* dst = (integer ? s.raw.get() : frame_bytes) + at;
        GPUFFT_CUDA_CHECK(cudaMemcpyAsync(
            dst, src + at, std::size_t(count) * sample, cudaMemcpyHostToDevice, up));
        GPUFFT_CUDA_CHECK(cudaEventRecord(s.uploaded.get(), up));
        GPUFFT_CUDA_CHECK(cudaStreamWaitEvent(cs, s.uploaded.get(), 0));
        window_chunk(dst, b, count);
    };
    // The partner's relay buffer is free: the last frame that used it was this
    // device's previous one, finished above.
    const auto relayed_chunk = [&](i64 b, i64 count) {
        const std::size_t at = std::size_t(b) * sample,
                          bytes = std::size_t(count) * sample;
        unsigned char* dst = (integer ? s.raw.get() : frame_bytes) + at;
        fused_device_state& p = *partner->d_s;
        unsigned char* via = p.relay.get() + std::size_t(b - split) * sample;
        {
            cuda::device_guard on_partner(partner->d_device);
            GPUFFT_CUDA_CHECK(cudaMemcpyAsync(
                via, src + at, bytes, cudaMemcpyHostToDevice, p.copy.get()));
            GPUFFT_CUDA_CHECK(cudaEventRecord(p.relayed.get(), p.copy.get()));
        }
        GPUFFT_CUDA_CHECK(cudaStreamWaitEvent(s.peer.get(), p.relayed.get(), 0));
        GPUFFT_CUDA_CHECK(cudaMemcpyPeerAsync(
            dst, d_device, via, partner->d_device, bytes, s.peer.get()));
        GPUFFT_CUDA_CHECK(cudaEventRecord(s.peered.get(), s.peer.get()));
        GPUFFT_CUDA_CHECK(cudaStreamWaitEvent(cs, s.peered.get(), 0));
        window_chunk(dst, b, count);
    };
    // Chunks of the two halves in turn, so both links start at once.
    for (i64 b = 0, r = split; b < split || r < n;) {
        if (b < split) {
            const i64 count = std::min(chunk_samples, split - b);
            own_chunk(b, count);
            b += count;
        }
        if (r < n) {
            const i64 count = std::min(chunk_samples, n - r);
            relayed_chunk(r, count);
            r += count;
        }
    }
    // Every chunk has landed once the last window ran (the compute stream waited for
    // each): from here the host frame is free, and the flag says whether it was finite.
    GPUFFT_CUDA_CHECK(cudaMemcpyAsync(
        s.host_flags.get(), s.flag.get(), sizeof(int), cudaMemcpyDeviceToHost, cs));
    s.windowed.record(cs);
    GPUFFT_CUFFT_CHECK(
        cufftExecC2C(s.fft.get(), s.frame.get(), s.frame.get(), CUFFT_FORWARD));
    launch_band_power(s.frame.get(),
                      n,
                      d_band.band_start(),
                      d_band.decimation(),
                      bins,
                      s.power.get(),
                      s.flag.get(),
                      cs);
    const int code = op == accumulate_op::store ? 0 : op == accumulate_op::add ? 1 : 2;
    launch_accumulate(s.power.get(), s.acc.get(), bins, d_scale, code, s.flag.get(), cs);
    GPUFFT_CUDA_CHECK(cudaMemcpyAsync(
        s.host_flags.get() + 1, s.flag.get(), sizeof(int), cudaMemcpyDeviceToHost, cs));
    s.finished.record(cs);
    d_queued = true;
    d_copied = false;
}

bool fused_device::wait_copied()
{
    if (!d_queued)
        throw std::logic_error("fused_device::wait_copied: no frame queued");
    cuda::device_guard g(d_device);
    d_s->windowed.synchronize();
    d_copied = true;
    return d_s->host_flags[0] == 0;
}

bool fused_device::wait_done()
{
    if (!d_queued)
        return true;
    cuda::device_guard g(d_device);
    d_s->finished.synchronize();
    d_queued = false;
    return d_s->host_flags[1] == 0;
}

void fused_device::read(double* acc)
{
    wait_done();
    cuda::device_guard g(d_device);
    auto& s = *d_s;
    GPUFFT_CUDA_CHECK(cudaMemcpyAsync(acc,
                                      s.acc.get(),
                                      std::size_t(d_band.output_bins()) * sizeof(double),
                                      cudaMemcpyDeviceToHost,
                                      s.compute.get()));
    GPUFFT_CUDA_CHECK(cudaStreamSynchronize(s.compute.get()));
}

std::unique_ptr<fused_device> fused_device::make(const power::band_reducer& band,
                                                 const power::spectral_window& window,
                                                 int device,
                                                 std::size_t budget,
                                                 stream::sample_format input,
                                                 bool relay)
{
    const i64 n = band.fft_size();
    // An integer frame is copied into a raw frame of its own, then converted into the
    // complex one (in place it would race: the two overlap).
    const std::size_t raw_bytes = input == stream::sample_format::fc32
                                      ? 0
                                      : std::size_t(n) * stream::sample_bytes(input);
    // The relay takes the second half of a frame of either kind (accumulate() gives
    // complex float even where accumulate_samples() gives integers).
    const std::size_t relay_bytes = relay ? std::size_t(n / 2) * sizeof(float2) : 0;
    const std::size_t frame_bytes =
        std::size_t(n) * sizeof(float2) + raw_bytes + relay_bytes;
    // The frames alone must fit before cuFFT is even asked for a plan.
    if (frame_bytes + slack_bytes > budget)
        return nullptr;
    cuda::device_guard g(device);
    auto s = std::make_unique<fused_device_state>();
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
    if (relay_bytes > 0)
        s->relay.allocate(relay_bytes, "the relay buffer (half a frame)");
    s->host_flags.allocate(2, "the frame flags");
    s->host_flags[0] = s->host_flags[1] = 0;
    return std::unique_ptr<fused_device>(
        new fused_device(band, window, device, std::move(s), work, input));
}

} // namespace detail
} // namespace gpufft
} // namespace gr
