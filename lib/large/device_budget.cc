/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "device_budget.h"
#include <gnuradio/gpufft/device.h>
#include <stdexcept>
#include <string>

namespace gr {
namespace gpufft {
namespace detail {

std::size_t resolve_device_budget(std::size_t requested, int device_id)
{
    const auto info = get_device_info(device_id);
    if (requested == 0) {
        // The context, cuFFT's own allocations and a second plan need room beside ours.
        const std::size_t reserve = std::size_t(768) << 20;
        return info.free_memory > 2 * reserve
                   ? std::size_t(double(info.free_memory - reserve) * 0.92)
                   : info.free_memory / 2;
    }
    if (requested > info.total_memory)
        throw std::invalid_argument("memory_budget: " + std::to_string(requested) +
                                    " bytes exceeds the " +
                                    std::to_string(info.total_memory) +
                                    " bytes of device " + std::to_string(device_id));
    return requested;
}

} // namespace detail
} // namespace gpufft
} // namespace gr
