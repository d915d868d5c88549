/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "core/host_memory.h"
#include <gnuradio/gpufft/device.h>
#include <unistd.h>
#include <cstdio>

namespace gr {
namespace gpufft {
namespace detail {

std::uint64_t host_physical_memory()
{
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long page = sysconf(_SC_PAGE_SIZE);
    return (pages > 0 && page > 0) ? std::uint64_t(pages) * std::uint64_t(page) : 0;
}

std::uint64_t host_available_memory()
{
    std::FILE* f = std::fopen("/proc/meminfo", "r");
    if (!f)
        return 0;
    char line[256];
    unsigned long long kib = 0;
    while (std::fgets(line, sizeof line, f))
        if (std::sscanf(line, "MemAvailable: %llu kB", &kib) == 1)
            break;
    std::fclose(f);
    return std::uint64_t(kib) * 1024;
}

std::string gib_string(std::uint64_t bytes)
{
    char s[32];
    std::snprintf(s, sizeof s, "%.1f GiB", double(bytes) / double(1ull << 30));
    return s;
}

backend_memory memory_of(gpufft::backend used, int device_id)
{
    if (used == backend::cuda)
        return { get_device_info(device_id).total_memory, "the device has" };
    return { host_physical_memory(), "this host has" };
}

} // namespace detail
} // namespace gpufft
} // namespace gr
