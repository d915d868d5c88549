/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The bookkeeping of whole frames dealt to several devices, free of CUDA so a CPU test
// can drive it with host models of the devices: frames round robin, each device's
// first frame of an integration stored and the rest added (or maxed) into its own
// accumulator, the accumulators merged at read(), frames found bad after they were
// counted taken back. multi_device_integrator.cc runs it on fused_device.

#ifndef INCLUDED_GPUFFT_LARGE_POWER_FRAME_DEALER_H
#define INCLUDED_GPUFFT_LARGE_POWER_FRAME_DEALER_H

#include "large/power/integrator_backend.h"
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <vector>

namespace gr {
namespace gpufft {
namespace detail {

/*!
 * `Lane` is one device's machinery, as fused_device:
 *  - issue(host, integer, op, Lane* partner): queues a frame and its accumulation by
 *    `op` (waiting first for the lane's previous frame); `partner`, when not null,
 *    carries half the frame (the relay);
 *  - wait_copied(): the frame has left host memory; true when its samples are finite;
 *  - wait_done(): the queued frame (if any) is accumulated; false when it was left out;
 *  - read(double*): the lane's accumulator.
 */
template <typename Lane>
class frame_dealer
{
public:
    //! `relay`: each frame's lane gets the next lane as its partner.
    frame_dealer(std::vector<std::unique_ptr<Lane>> lanes, std::size_t bins, bool relay)
        : d_relay(relay), d_part(bins)
    {
        if (lanes.size() < 2)
            throw std::logic_error("frame_dealer: fewer than two lanes");
        for (auto& l : lanes)
            d_lanes.push_back(slot{ std::move(l) });
    }
    //! Every queued frame finishes first: one may still read the next lane's relay.
    ~frame_dealer()
    {
        for (auto& l : d_lanes)
            try {
                l.lane->wait_done();
            } catch (...) {
            }
    }
    frame_dealer(const frame_dealer&) = delete;
    frame_dealer& operator=(const frame_dealer&) = delete;

    std::size_t size() const { return d_lanes.size(); }
    Lane& lane(std::size_t i) const { return *d_lanes[i].lane; }

    //! One frame, as spectrum_integrator::impl::accumulate(); returns once the frame
    //! has left host memory.
    bool accumulate(const void* host, bool integer, accumulate_op op)
    {
        if (op == accumulate_op::store) {
            // A new integration: what the lanes hold belongs to the last one.
            for (auto& l : d_lanes) {
                l.lane->wait_done();
                l.pending = false;
                l.taken = 0;
            }
            d_counted = d_late = 0;
            d_max = false;
        } else {
            d_max = op == accumulate_op::max;
        }
        slot& l = d_lanes[d_next];
        d_next = (d_next + 1) % d_lanes.size();
        settle(l); // its previous frame (done by now, as a rule): its frame is reused
        const accumulate_op here = l.taken == 0 ? accumulate_op::store
                                   : d_max      ? accumulate_op::max
                                                : accumulate_op::add;
        l.lane->issue(
            host, integer, here, d_relay ? d_lanes[d_next].lane.get() : nullptr);
        // The host frame is free once it has left; the transform runs on.
        const bool finite = l.lane->wait_copied();
        if (finite) {
            ++l.taken;
            l.pending = true;
            ++d_counted;
        }
        return finite;
    }

    //! The merged accumulator (bins values): sum for mean, max for max-hold.
    void read(double* acc)
    {
        for (auto& l : d_lanes)
            settle(l);
        bool first = true;
        const std::size_t bins = d_part.size();
        for (auto& l : d_lanes) {
            if (l.taken == 0)
                continue;
            l.lane->read(first ? acc : d_part.data());
            if (!first)
                for (std::size_t c = 0; c < bins; ++c)
                    acc[c] = d_max ? std::max(acc[c], d_part[c]) : acc[c] + d_part[c];
            first = false;
        }
        if (first) { // every frame counted was left out at its channel sums
            std::fill(acc, acc + bins, 0.0);
            return;
        }
        // The front end divides a mean by the frames accumulate() took; a frame whose
        // samples were finite but whose channel sums were not (found after it
        // returned) is in no accumulator, so the sum is scaled to the frames that are.
        if (!d_max && d_late > 0)
            for (std::size_t c = 0; c < bins; ++c)
                acc[c] *= double(d_counted) / double(d_counted - d_late);
    }

    //! Frames counted since the last store and found bad afterwards.
    std::int64_t late() const { return d_late; }

private:
    struct slot {
        std::unique_ptr<Lane> lane;
        std::int64_t taken = 0; // frames of this integration counted here
        bool pending = false;   // a queued frame counted in `taken`, not yet settled
    };

    //! Waits for the lane's queued frame; one counted but left out at its channel
    //! sums (finite samples, a sum that is not) is taken back.
    void settle(slot& l)
    {
        const bool ok = l.lane->wait_done();
        if (l.pending && !ok) {
            --l.taken;
            ++d_late;
        }
        l.pending = false;
    }

    const bool d_relay;
    std::vector<slot> d_lanes;
    std::size_t d_next = 0;
    bool d_max = false;         // the integration combines by max (else by sum)
    std::int64_t d_counted = 0; // frames accumulate() took since the last store
    std::int64_t d_late = 0;    // of those, frames left out at their channel sums
    std::vector<double> d_part; // another lane's accumulator at read()
};

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_LARGE_POWER_FRAME_DEALER_H */
