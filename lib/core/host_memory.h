/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_CORE_HOST_MEMORY_H
#define INCLUDED_GPUFFT_CORE_HOST_MEMORY_H

#include <gnuradio/gpufft/backend.h>
#include <cstdint>
#include <string>

namespace gr {
namespace gpufft {
namespace detail {

//! Physical memory of this host in bytes (0 if unknown).
std::uint64_t host_physical_memory();
//! Memory the kernel could give now without swapping (MemAvailable), bytes; 0 if unknown.
std::uint64_t host_available_memory();
//! "12.5 GiB": a byte count for error messages.
std::string gib_string(std::uint64_t bytes);

//! The memory a backend keeps a plan's arrays in, for a plan's size check.
struct backend_memory {
    std::uint64_t bytes; //!< 0: unknown
    const char* holder;  //!< "the device has" or "this host has", for the message
};
//! The device's total memory on cuda (device_id as the plans resolve it), else this
//! host's physical memory.
backend_memory memory_of(gpufft::backend used, int device_id);

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_CORE_HOST_MEMORY_H */
