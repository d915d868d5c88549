/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Whole frames dealt to several GPUs: one fused spectrometer (fused_device) per listed
// device, frames dealt round robin, each device keeping its own accumulator; read()
// merges them (sum for mean, max for max-hold). accumulate() returns once the frame
// has left host memory (the caller may refill it), so the next frame's copy to the
// next GPU runs while this one is transformed. The CUDA streams carry the overlap: no
// thread of our own.
//
// What it buys: one GPU spends copy in + transform per frame (the copy in overlaps the
// window, not the FFT and the channel sums); dealt out, a frame costs its copy in
// alone, as long as a GPU's transform is shorter than the other GPUs' copies. A caller
// hands over one frame at a time, so on its own that gains (copy + transform) / copy,
// not the GPU count: one link carries a frame while the others idle. So where the
// devices have peer access, each frame also crosses two links at once (relay): its
// second half goes over the next device's PCIe link into that device's relay buffer
// and on to the frame's device by peer copies (NVLink: a tenth of the PCIe time),
// and the frame leaves host memory in about half the time.

#include "cuda/cuda_resources.h"
#include "cuda/peer_access.h"
#include "large/power/frame_dealer.h"
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

class multi_device_integrator final : public spectrum_integrator::impl
{
public:
    multi_device_integrator(const power::band_reducer& band,
                            const power::spectral_window& window,
                            std::size_t budget,
                            std::vector<std::unique_ptr<fused_device>> devices,
                            stream::sample_format format,
                            std::string relay_why)
        : impl(band, window),
          d_budget(budget),
          d_relay_why(std::move(relay_why)),
          d_relay(devices.front()->relays()),
          d_dealer(std::move(devices), std::size_t(band.output_bins()), d_relay)
    {
        input = format;
    }

    bool accumulate(std::complex<float>* frame, accumulate_op op) override
    {
        return d_dealer.accumulate(frame, false, op);
    }

    bool accumulate_integers(const void* samples, accumulate_op op) override
    {
        if (!converts_on_device())
            throw std::logic_error(
                "multi_device_integrator: not made for integer frames");
        return d_dealer.accumulate(samples, true, op);
    }

    bool converts_on_device() const override
    {
        return input != stream::sample_format::fc32;
    }

    void read(double* acc) override { d_dealer.read(acc); }

    gpufft::backend backend() const override { return backend::cuda; }
    int device_id() const override { return d_dealer.lane(0).device(); }
    std::size_t memory_budget() const override { return d_budget; }
    bool on_device() const override { return true; }
    std::string describe() const override
    {
        std::ostringstream o;
        const i64 n = band.fft_size();
        o << "spectrum_integrator: whole frames dealt to devices " << device_list()
          << " (a " << n << "-point frame";
        if (converts_on_device())
            o << " of " << stream::to_string(input) << ", converted on the device,";
        o << " and its cuFFT work area of " << (d_dealer.lane(0).work_bytes() >> 20)
          << " MiB fit each device's budget of " << (d_budget >> 20)
          << " MiB): round robin, each device fused (copy in by chunks of "
          << std::min(fused_device::upload_chunk(), n) << " samples, "
          << power::to_string(window.type()) << " window, cuFFT in card, |X|^2 of bins ["
          << band.band_start() << ", " << band.band_stop() << ") into "
          << band.output_bins() << " channels of " << band.decimation()
          << " bins) with its own accumulator, merged at read (sum for mean, max for "
             "max-hold); a frame's copy to one device overlaps the transform of the "
             "previous one on another; ";
        if (d_relay)
            o << "each frame crosses two PCIe links at once: its second half goes "
                 "through the next device's relay buffer and on by peer copies\n";
        else
            o << "each frame crosses its own device's PCIe link only (no relay: "
              << d_relay_why << ")\n";
        return o.str();
    }

private:
    std::string device_list() const
    {
        std::string s;
        for (std::size_t i = 0; i < d_dealer.size(); ++i)
            s += (s.empty() ? "" : ",") + std::to_string(d_dealer.lane(i).device());
        return s;
    }

    const std::size_t d_budget;
    const std::string d_relay_why; // why frames do not cross two links (else empty)
    const bool d_relay;
    // Declared last: destroyed first, so every queued frame finishes (the dealer
    // waits) while everything else still stands.
    frame_dealer<fused_device> d_dealer;
};

} // namespace

std::unique_ptr<spectrum_integrator::impl>
make_multi_device_integrator(const power::band_reducer& band,
                             const power::spectral_window& window,
                             const std::vector<int>& devices,
                             std::size_t budget,
                             stream::sample_format input,
                             bool relay)
{
    if (devices.size() < 2)
        throw std::logic_error("make_multi_device_integrator: fewer than two devices");
    // Peer copies over PCIe would take the relayed half through the frame's own link.
    std::string why = relay ? cuda::enable_peer_access(devices, cuda::peer_link::nvlink)
                            : "switched off";
    const auto make_lanes = [&](bool with_relay) {
        std::vector<std::unique_ptr<fused_device>> lanes;
        for (int d : devices) {
            auto f = fused_device::make(band, window, d, budget, input, with_relay);
            if (!f)
                return std::vector<std::unique_ptr<fused_device>>();
            lanes.push_back(std::move(f));
        }
        return lanes;
    };
    std::vector<std::unique_ptr<fused_device>> lanes;
    if (why.empty()) {
        lanes = make_lanes(true);
        if (lanes.empty())
            why = "half a frame more for the relay does not fit the budget";
    }
    if (lanes.empty())
        lanes = make_lanes(false);
    if (lanes.empty())
        return nullptr; // a frame does not fit one of the devices' budget
    return std::make_unique<multi_device_integrator>(
        band, window, budget, std::move(lanes), input, why);
}

} // namespace detail
} // namespace gpufft
} // namespace gr
