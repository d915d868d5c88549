/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_LARGE_DEVICE_BUDGET_H
#define INCLUDED_GPUFFT_LARGE_DEVICE_BUDGET_H

#include <cstddef>
#include <vector>

namespace gr {
namespace gpufft {
namespace detail {

/*!
 * The device memory a plan on `device_id` may use. `requested` > 0 is taken as given
 * and must not exceed the device's total memory (std::invalid_argument naming
 * memory_budget otherwise); 0 means most of what is free now, leaving room for the CUDA
 * context and for other plans.
 */
std::size_t resolve_device_budget(std::size_t requested, int device_id);

/*!
 * The checks of a `devices` option that need no GPU: every id >= 0 and, unless
 * `repeats` (the internal stand-in of several GPUs by one), none listed twice.
 * std::invalid_argument naming `devices` otherwise.
 */
void check_device_list(const std::vector<int>& devices, bool repeats);

//! Whether CPU backend plans may be given this list: only an empty one
//! (invalid_argument).
void check_no_devices_on_cpu(const std::vector<int>& devices);

/*!
 * The executors' devices: `devices` when given (each id must be < the device count,
 * std::invalid_argument naming `devices`), else { resolve_device_id(device_id) }.
 */
std::vector<int> resolve_devices(const std::vector<int>& devices, int device_id);

/*!
 * The budget of each executor on `devices` (one executor per entry). `requested` > 0:
 * checked against each device's total memory, and, when `check_free` (the list was
 * given), against its free memory times the executors on it (std::invalid_argument
 * naming `devices`). 0: the smallest of the devices' defaults, each divided by the
 * executors on it.
 */
std::size_t resolve_devices_budget(std::size_t requested,
                                   const std::vector<int>& devices,
                                   bool check_free);

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_LARGE_DEVICE_BUDGET_H */
