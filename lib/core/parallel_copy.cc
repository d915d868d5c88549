/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "parallel_copy.h"
#include <algorithm>
#include <cstring>

namespace gr {
namespace gpufft {
namespace detail {

namespace {
// Below this a single memcpy is faster than waking the workers.
constexpr std::size_t min_parallel_bytes = std::size_t(1) << 20;
} // namespace

parallel_copier::parallel_copier(int threads)
{
    if (threads <= 0)
        threads =
            int(std::min(8u, std::max(1u, std::thread::hardware_concurrency() / 2)));
    for (int i = 1; i < threads; ++i)
        d_workers.emplace_back(&parallel_copier::work, this, i);
}

parallel_copier::~parallel_copier()
{
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        d_stop = true;
    }
    d_start.notify_all();
    for (auto& t : d_workers)
        t.join();
}

void parallel_copier::copy_part(int part)
{
    // Part boundaries on 64-byte multiples so no two threads write one cache line.
    const int parts = threads();
    auto bound = [&](int p) {
        const std::size_t b = d_bytes / parts * p;
        return p == parts ? d_bytes : std::min(d_bytes, b & ~std::size_t(63));
    };
    const std::size_t begin = bound(part), end = bound(part + 1);
    if (end > begin)
        std::memcpy(d_dst + begin, d_src + begin, end - begin);
}

void parallel_copier::work(int index)
{
    unsigned long long seen = 0;
    std::unique_lock<std::mutex> lock(d_mutex);
    for (;;) {
        d_start.wait(lock, [&] { return d_stop || d_generation != seen; });
        if (d_stop)
            return;
        seen = d_generation;
        lock.unlock();
        copy_part(index);
        lock.lock();
        if (--d_pending == 0)
            d_done.notify_one();
    }
}

void parallel_copier::copy(void* dst, const void* src, std::size_t bytes)
{
    if (bytes < min_parallel_bytes || d_workers.empty()) {
        std::memcpy(dst, src, bytes);
        return;
    }
    std::lock_guard<std::mutex> job(d_job_mutex);
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        d_dst = static_cast<unsigned char*>(dst);
        d_src = static_cast<const unsigned char*>(src);
        d_bytes = bytes;
        d_pending = int(d_workers.size());
        ++d_generation;
    }
    d_start.notify_all();
    copy_part(0);
    std::unique_lock<std::mutex> lock(d_mutex);
    d_done.wait(lock, [&] { return d_pending == 0; });
}

parallel_copier& shared_copier()
{
    static parallel_copier copier;
    return copier;
}

} // namespace detail
} // namespace gpufft
} // namespace gr
