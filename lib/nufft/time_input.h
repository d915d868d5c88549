/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The sample-time input of the NUFFT blocks, in its two forms: float64 seconds after an
// integer epoch, or float32 deviations from a nominal grid (what GRC can feed: it has no
// float64 stream source). Either way the blocks see float64 seconds after the epoch.

#ifndef INCLUDED_GPUFFT_NUFFT_TIME_INPUT_H
#define INCLUDED_GPUFFT_NUFFT_TIME_INPUT_H

#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>

namespace gr {
namespace gpufft {
namespace nufft {

class time_input
{
public:
    //! nominal_rate 0: float64 offsets; > 0: float32 deviations from n / nominal_rate.
    explicit time_input(double nominal_rate) : d_rate(nominal_rate)
    {
        if (!(std::isfinite(nominal_rate) && nominal_rate >= 0))
            throw std::invalid_argument("nominal_rate: must be 0 (float64 times) or > 0");
    }

    std::size_t item_size() const { return d_rate > 0 ? sizeof(float) : sizeof(double); }

    //! Seconds after the epoch of n samples, the first with absolute index `first`.
    void read(const void* in, std::uint64_t first, int n, double* out) const
    {
        if (d_rate <= 0) {
            std::memcpy(out, in, std::size_t(n) * sizeof(double));
            return;
        }
        const float* dev = static_cast<const float*>(in);
        for (int j = 0; j < n; ++j)
            out[j] = double(first + std::uint64_t(j)) / d_rate + double(dev[j]);
    }

private:
    double d_rate;
};

//! True when every sample and every time of an n-sample frame is finite.
inline bool finite_frame(const std::complex<float>* x, const double* t, int n)
{
    for (int j = 0; j < n; ++j)
        if (!(std::isfinite(x[j].real()) && std::isfinite(x[j].imag()) &&
              std::isfinite(t[j])))
            return false;
    return true;
}

//! A time as rx_time carries it: whole seconds since the Unix epoch and a fraction.
struct absolute_time {
    std::uint64_t seconds;
    double fraction;
};

//! `t` seconds after the integer `epoch`, split for an rx_time tag.
inline absolute_time to_absolute_time(std::int64_t epoch, double t)
{
    const double whole = std::floor(t);
    return { std::uint64_t(epoch + std::int64_t(whole)), t - whole };
}

} // namespace nufft
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_NUFFT_TIME_INPUT_H */
