/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "core/parallel_copy.h"
#include <algorithm>
#include <cstring>
#include <functional>
#include <thread>

namespace gr {
namespace gpufft {
namespace detail {

namespace {

// Below this a single memcpy is faster than waking the workers.
constexpr std::size_t min_parallel_bytes = std::size_t(1) << 20;

int default_threads()
{
    return int(std::min(8u, std::max(1u, std::thread::hardware_concurrency() / 2)));
}

struct copy_job {
    unsigned char* dst;
    const unsigned char* src;
    std::size_t bytes;

    void operator()(int part, int parts) const
    {
        // Part boundaries on 64-byte multiples so no two threads write one cache line.
        auto bound = [&](int p) {
            const std::size_t b = bytes / std::size_t(parts) * std::size_t(p);
            return p == parts ? bytes : std::min(bytes, b & ~std::size_t(63));
        };
        const std::size_t begin = bound(part), end = bound(part + 1);
        if (end > begin)
            std::memcpy(dst + begin, src + begin, end - begin);
    }
};

} // namespace

parallel_copier::parallel_copier(int threads)
    : d_pool(threads > 0 ? threads : default_threads())
{
}

void parallel_copier::copy(void* dst, const void* src, std::size_t bytes)
{
    if (bytes == 0) // empty arrays may be null, which memcpy must not see
        return;
    if (bytes < min_parallel_bytes || d_pool.threads() == 1) {
        std::memcpy(dst, src, bytes);
        return;
    }
    const copy_job job{ static_cast<unsigned char*>(dst),
                        static_cast<const unsigned char*>(src),
                        bytes };
    // A std::function holding a reference_wrapper never allocates.
    d_pool.run(std::cref(job));
}

parallel_copier& shared_copier()
{
    static parallel_copier copier;
    return copier;
}

} // namespace detail
} // namespace gpufft
} // namespace gr
