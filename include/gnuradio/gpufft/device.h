/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_DEVICE_H
#define INCLUDED_GPUFFT_DEVICE_H

#include <gnuradio/gpufft/api.h>
#include <cstddef>
#include <string>

namespace gr {
namespace gpufft {

struct device_info {
    int id = -1;
    std::string name;
    std::size_t total_memory = 0; //!< bytes
    std::size_t free_memory = 0;  //!< bytes, when queried
    int compute_major = 0;
    int compute_minor = 0;
    int multiprocessors = 0;
    std::size_t l2_cache_bytes = 0;
};

//! True when the library was built with the CUDA backend.
GPUFFT_API bool cuda_compiled();

//! Number of CUDA devices the runtime sees (0 without CUDA, driver or device).
GPUFFT_API int cuda_device_count();

//! True when `device_id` (after the GPUFFT_DEVICE override) names a usable device.
GPUFFT_API bool cuda_available(int device_id = 0);

/*!
 * The device a plan asking for `device_id` will use. The environment variable
 * GPUFFT_DEVICE, when set to a non-negative integer, overrides every plan's device_id
 * (handy to move a whole flowgraph to another GPU). Throws std::invalid_argument for a
 * negative id or one >= cuda_device_count().
 */
GPUFFT_API int resolve_device_id(int device_id);

//! Properties of a device; throws as resolve_device_id() does, or std::runtime_error.
GPUFFT_API device_info get_device_info(int device_id = 0);

//! One line: backend, device name and memory, or why the CPU is used.
GPUFFT_API std::string describe_backend(int device_id = 0);

} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_DEVICE_H */
