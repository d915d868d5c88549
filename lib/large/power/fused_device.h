/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// One GPU's fused spectrometer, issued asynchronously: a frame is queued (copy in by
// chunks, window, cuFFT, band power, accumulate) and the caller waits for what it
// needs: the copy in (then the host frame may be reused) or the whole frame. The
// one-GPU integrator waits for the whole frame; the multi-GPU one returns after the
// copy in, so the next frame's copy to another GPU overlaps this one's transform.

#ifndef INCLUDED_GPUFFT_LARGE_POWER_FUSED_DEVICE_H
#define INCLUDED_GPUFFT_LARGE_POWER_FUSED_DEVICE_H

#include "large/power/band_reducer.h"
#include "large/power/integrator_backend.h"
#include "large/power/spectral_window.h"
#include "stream/sample_format.h"
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace gr {
namespace gpufft {
namespace detail {

struct fused_device_state; // CUDA resources (fused_device.cc)

class fused_device
{
public:
    /*!
     * The machinery on `device`, or nullptr when a frame, cuFFT's work area (and, for
     * an integer `input`, the raw frame; with `relay`, half a complex frame more, the
     * half this device copies in for a partner) do not fit `budget` bytes there.
     */
    static std::unique_ptr<fused_device> make(const power::band_reducer& band,
                                              const power::spectral_window& window,
                                              int device,
                                              std::size_t budget,
                                              stream::sample_format input,
                                              bool relay = false);
    ~fused_device();
    fused_device(const fused_device&) = delete;
    fused_device& operator=(const fused_device&) = delete;

    /*!
     * Queues one frame at `host` (complex float, or `input`'s integers when `integer`)
     * and its accumulation by `op`; waits first for the previous frame, whose device
     * frame is overwritten. With a `partner` made with `relay` (another device, peer
     * access enabled both ways, or another fused_device on this one), the frame's
     * second half crosses the partner's PCIe link into its relay buffer, at the same
     * time as the first half crosses this device's, and comes over by peer copies:
     * the frame leaves host memory in half the time. A partner relays for one device
     * only (its relay buffer is reused when that device's next frame is issued, after
     * the previous one finished).
     */
    void issue(const void* host,
               bool integer,
               accumulate_op op,
               fused_device* partner = nullptr);
    /*!
     * Waits until the queued frame has left host memory and been windowed; true when
     * its samples were finite (integers always are).
     */
    bool wait_copied();
    /*!
     * Waits until the queued frame is accumulated (returns at once when none is
     * queued); true unless it was left out of the accumulator (a sample or a channel
     * sum not finite).
     */
    bool wait_done();
    //! Waits for the queued frame, then copies the raw accumulator (output_bins).
    void read(double* acc);

    int device() const { return d_device; }
    bool relays() const;
    std::size_t work_bytes() const { return d_work_bytes; }
    //! Samples a copy chunk holds (the window runs on each as it lands).
    static std::int64_t upload_chunk();

private:
    fused_device(const power::band_reducer& band,
                 const power::spectral_window& window,
                 int device,
                 std::unique_ptr<fused_device_state> state,
                 std::size_t work_bytes,
                 stream::sample_format input);

    const power::band_reducer d_band;
    const double d_scale; // 1 / (sum(w)^2 decimation)
    const int d_device;
    const std::size_t d_work_bytes;
    const stream::sample_format d_input;
    std::unique_ptr<fused_device_state> d_s;
    bool d_queued = false; // a frame issued and not yet waited for by wait_done()
    bool d_copied = false; // ... and its copy in waited for
};

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_LARGE_POWER_FUSED_DEVICE_H */
