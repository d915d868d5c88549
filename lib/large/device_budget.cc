/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "large/device_budget.h"
#include <gnuradio/gpufft/device.h>
#include <algorithm>
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

namespace {

std::string list_string(const std::vector<int>& v)
{
    std::string s = "[";
    for (std::size_t i = 0; i < v.size(); ++i)
        s += (i ? "," : "") + std::to_string(v[i]);
    return s + "]";
}

std::size_t executors_on(const std::vector<int>& devices, int d)
{
    return std::size_t(std::count(devices.begin(), devices.end(), d));
}

} // namespace

void check_device_list(const std::vector<int>& devices, bool repeats)
{
    for (std::size_t i = 0; i < devices.size(); ++i) {
        if (devices[i] < 0)
            throw std::invalid_argument("devices: " + list_string(devices) + " holds " +
                                        std::to_string(devices[i]) +
                                        "; device ids must be >= 0");
        if (!repeats && executors_on(devices, devices[i]) > 1)
            throw std::invalid_argument("devices: " + list_string(devices) +
                                        " lists device " + std::to_string(devices[i]) +
                                        " more than once; list each device once");
    }
}

void check_no_devices_on_cpu(const std::vector<int>& devices)
{
    if (!devices.empty())
        throw std::invalid_argument(
            "devices: " + list_string(devices) +
            " given with backend cpu; leave devices empty, or use backend cuda or auto");
}

std::vector<int> resolve_devices(const std::vector<int>& devices, int device_id)
{
    if (devices.empty())
        return { resolve_device_id(device_id) };
    const int count = cuda_device_count();
    for (int d : devices)
        if (d >= count)
            throw std::invalid_argument("devices: " + list_string(devices) +
                                        " names device " + std::to_string(d) +
                                        ", which does not exist; valid: 0.." +
                                        std::to_string(count - 1));
    return devices;
}

std::size_t resolve_devices_budget(std::size_t requested,
                                   const std::vector<int>& devices,
                                   bool check_free)
{
    std::size_t budget = requested;
    for (std::size_t i = 0; i < devices.size(); ++i) {
        const int d = devices[i];
        if (std::find(devices.begin(), devices.end(), d) != devices.begin() + i)
            continue; // each device once
        const std::size_t share = executors_on(devices, d);
        if (requested == 0) {
            const std::size_t b = resolve_device_budget(0, d) / share;
            budget = budget == 0 ? b : std::min(budget, b);
            continue;
        }
        resolve_device_budget(requested, d); // at most the device's memory
        if (!check_free)
            continue;
        const std::size_t free_b = get_device_info(d).free_memory;
        if (requested > free_b / share)
            throw std::invalid_argument(
                "devices: device " + std::to_string(d) + " has " +
                std::to_string(free_b) + " bytes free, below its share of " +
                std::to_string(requested * share) + " bytes (memory_budget " +
                std::to_string(requested) + " applies per device" +
                (share > 1 ? ", times " + std::to_string(share) + " executors" : "") +
                "); lower memory_budget or free the device");
    }
    return budget;
}

} // namespace detail
} // namespace gpufft
} // namespace gr
