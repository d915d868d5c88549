/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "large/power/integrator_backend.h"
#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gr {
namespace gpufft {
namespace detail {

namespace {

class host_integrator final : public spectrum_integrator::impl
{
public:
    host_integrator(const power::band_reducer& band,
                    const power::spectral_window& window,
                    frame_fft fft,
                    int threads,
                    gpufft::backend used,
                    int device_id,
                    std::size_t budget,
                    std::string description)
        : impl(band, window),
          d_fft(std::move(fft)),
          d_threads(threads),
          d_used(used),
          d_device(device_id),
          d_budget(budget),
          d_description(std::move(description)),
          d_frame_power(std::size_t(band.output_bins())),
          d_acc(std::size_t(band.output_bins()))
    {
        if (!d_fft)
            throw std::invalid_argument("spectrum_integrator: no transform");
    }

    bool accumulate(std::complex<float>* x, accumulate_op op) override
    {
        window.apply_frame(x, d_threads);
        try {
            d_fft(x);
        } catch (const std::invalid_argument&) {
            return false; // the engine found a NaN or infinity in the frame
        }
        band.reduce(x, scale, d_frame_power.data(), d_threads);
        // A NaN anywhere in a frame spreads to every bin, so the band shows it even
        // when the transform does not check.
        if (!std::all_of(d_frame_power.begin(), d_frame_power.end(), [](double v) {
                return std::isfinite(v);
            }))
            return false;
        switch (op) {
        case accumulate_op::store:
            d_acc = d_frame_power;
            break;
        case accumulate_op::add:
            for (std::size_t c = 0; c < d_acc.size(); ++c)
                d_acc[c] += d_frame_power[c];
            break;
        case accumulate_op::max:
            for (std::size_t c = 0; c < d_acc.size(); ++c)
                d_acc[c] = std::max(d_acc[c], d_frame_power[c]);
            break;
        }
        return true;
    }

    void read(double* acc) override { std::copy(d_acc.begin(), d_acc.end(), acc); }

    gpufft::backend backend() const override { return d_used; }
    int device_id() const override { return d_device; }
    std::size_t memory_budget() const override { return d_budget; }
    bool on_device() const override { return false; }
    std::string describe() const override { return d_description; }

private:
    const frame_fft d_fft;
    const int d_threads;
    const gpufft::backend d_used;
    const int d_device;
    const std::size_t d_budget;
    const std::string d_description;
    std::vector<double> d_frame_power;
    std::vector<double> d_acc;
};

} // namespace

std::unique_ptr<spectrum_integrator::impl>
make_host_integrator(const power::band_reducer& band,
                     const power::spectral_window& window,
                     frame_fft fft,
                     int threads,
                     gpufft::backend used,
                     int device_id,
                     std::size_t budget,
                     std::string description)
{
    return std::make_unique<host_integrator>(band,
                                             window,
                                             std::move(fft),
                                             threads,
                                             used,
                                             device_id,
                                             budget,
                                             std::move(description));
}

} // namespace detail
} // namespace gpufft
} // namespace gr
