/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_LARGE_DEVICE_BUDGET_H
#define INCLUDED_GPUFFT_LARGE_DEVICE_BUDGET_H

#include <cstddef>

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

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_LARGE_DEVICE_BUDGET_H */
