/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "core/host_memory.h"
#include "core/memory_error.h"
#include <cstdio>

namespace gr {
namespace gpufft {
namespace detail {

void rethrow_memory_error(const char* engine, const std::string& sizes)
{
    const std::string lead = std::string(engine) + ": ";
    try {
        throw;
    } catch (const cuda_memory_error& e) {
        const std::string what = e.what();
        if (what.compare(0, lead.size(), lead) == 0)
            throw;
        throw cuda_memory_error(lead + what);
    } catch (const memory_error& e) {
        const std::string what = e.what();
        // Nested engines (the integrator's large FFT) add their name once each.
        if (what.compare(0, lead.size(), lead) == 0)
            throw;
        throw memory_error(lead + what);
    } catch (const std::bad_alloc&) {
        const std::uint64_t avail = host_available_memory();
        throw memory_error(
            lead + "out of host memory allocating the buffers for " + sizes +
            (avail ? " (" + bytes_string(avail) + " available on this host)"
                   : std::string()) +
            "; smaller sizes need less");
    }
}

std::string bytes_string(std::uint64_t bytes)
{
    char s[48];
    if (bytes >= (1ull << 30))
        std::snprintf(s, sizeof s, "%.1f GiB", double(bytes) / double(1ull << 30));
    else if (bytes >= (1ull << 20))
        std::snprintf(s, sizeof s, "%.1f MiB", double(bytes) / double(1ull << 20));
    else
        std::snprintf(s, sizeof s, "%llu bytes", static_cast<unsigned long long>(bytes));
    return s;
}

std::string size_string(long long n)
{
    if (n > 0 && (n & (n - 1)) == 0) {
        int e = 0;
        while ((1LL << e) != n)
            ++e;
        if (e >= 10)
            return "2^" + std::to_string(e);
    }
    return std::to_string(n);
}

} // namespace detail
} // namespace gpufft
} // namespace gr
