/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The fused GPU path on one device: each frame is queued on the device's fused
// spectrometer (fused_device.cc) and waited for, so accumulate() returns with the
// frame accumulated and says whether it was finite.

#include "cuda/cuda_resources.h"
#include "large/power/fused_device.h"
#include "large/power/integrator_backend.h"
#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace gr {
namespace gpufft {
namespace detail {

namespace {

using i64 = std::int64_t;

class device_integrator final : public spectrum_integrator::impl
{
public:
    device_integrator(const power::band_reducer& band,
                      const power::spectral_window& window,
                      std::size_t budget,
                      std::unique_ptr<fused_device> device,
                      stream::sample_format format)
        : impl(band, window), d_budget(budget), d_dev(std::move(device))
    {
        input = format;
    }

    bool accumulate(std::complex<float>* frame, accumulate_op op) override
    {
        d_dev->issue(frame, false, op);
        return d_dev->wait_done();
    }

    bool accumulate_integers(const void* samples, accumulate_op op) override
    {
        if (!converts_on_device())
            throw std::logic_error("device_integrator: not made for integer frames");
        d_dev->issue(samples, true, op);
        return d_dev->wait_done();
    }

    bool converts_on_device() const override
    {
        return input != stream::sample_format::fc32;
    }

    void read(double* acc) override { d_dev->read(acc); }

    gpufft::backend backend() const override { return backend::cuda; }
    int device_id() const override { return d_dev->device(); }
    std::size_t memory_budget() const override { return d_budget; }
    bool on_device() const override { return true; }
    std::string describe() const override
    {
        std::ostringstream o;
        const i64 n = band.fft_size();
        o << "spectrum_integrator: fused on CUDA device " << d_dev->device() << ": " << n
          << "-point frame copied in chunks of "
          << std::min(fused_device::upload_chunk(), n) << " samples";
        if (converts_on_device())
            o << " as " << stream::to_string(input) << " (" << stream::sample_bytes(input)
              << " bytes a sample, converted to complex float as it is windowed)";
        o << ", " << power::to_string(window.type()) << " window, cuFFT in card ("
          << ((std::size_t(n) * 8) >> 20) << " MiB frame + "
          << (d_dev->work_bytes() >> 20) << " MiB work area, budget " << (d_budget >> 20)
          << " MiB), |X|^2 of bins [" << band.band_start() << ", " << band.band_stop()
          << ") into " << band.output_bins() << " channels of " << band.decimation()
          << " bins accumulated on the device\n";
        return o.str();
    }

private:
    const std::size_t d_budget;
    std::unique_ptr<fused_device> d_dev;
};

} // namespace

std::unique_ptr<spectrum_integrator::impl>
make_device_integrator(const power::band_reducer& band,
                       const power::spectral_window& window,
                       int device_id,
                       std::size_t budget,
                       stream::sample_format input)
{
    auto dev = fused_device::make(band, window, device_id, budget, input);
    if (!dev)
        return nullptr;
    return std::make_unique<device_integrator>(
        band, window, budget, std::move(dev), input);
}

} // namespace detail
} // namespace gpufft
} // namespace gr
