/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_CORE_HOST_MEMORY_H
#define INCLUDED_GPUFFT_CORE_HOST_MEMORY_H

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

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_CORE_HOST_MEMORY_H */
