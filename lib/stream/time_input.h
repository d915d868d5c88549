/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The sample-time input of the NUFFT blocks, in its two forms: float64 seconds after an
// integer epoch, or float32 deviations from a nominal grid (what GRC can feed: it has no
// float64 stream source). Either way the blocks see float64 seconds after the epoch;
// stream_clock turns those into absolute times, honouring an input rx_time.

#ifndef INCLUDED_GPUFFT_STREAM_TIME_INPUT_H
#define INCLUDED_GPUFFT_STREAM_TIME_INPUT_H

#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>

namespace gr {
namespace gpufft {
namespace stream {

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

/*!
 * Absolute time of a NUFFT block's sample times: `epoch` + t, until an rx_time tag on
 * the input dates a sample; from then on a time t is that tag's time plus t minus the
 * tagged sample's t. So the time input gives the spacing and rx_time the origin, as it
 * does for uniform streams.
 */
class stream_clock
{
public:
    explicit stream_clock(std::int64_t epoch) : d_secs(epoch) {}

    //! The sample whose time input reads `t` is at (seconds, fraction) since 1970.
    void anchor(std::uint64_t seconds, double fraction, double t)
    {
        d_secs = std::int64_t(seconds);
        d_frac = fraction;
        d_t = t;
        d_anchored = true;
    }
    bool anchored() const { return d_anchored; }

    absolute_time at(double t) const
    {
        // Whole and fractional parts apart, so hours keep sub-nanosecond precision.
        const double rel = t - d_t;
        const double whole = std::floor(rel);
        double frac = d_frac + (rel - whole);
        const double carry = std::floor(frac);
        frac -= carry;
        return { std::uint64_t(d_secs + std::int64_t(whole) + std::int64_t(carry)),
                 frac };
    }

private:
    std::int64_t d_secs;
    double d_frac = 0.0;
    double d_t = 0.0;
    bool d_anchored = false;
};

} // namespace stream
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_STREAM_TIME_INPUT_H */
