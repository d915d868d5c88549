/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "host_gather.h"

namespace gr {
namespace gpufft {
namespace detail {

host_gather::host_gather(int threads)
{
    for (int i = 1; i < threads; ++i)
        d_workers.emplace_back(&host_gather::work, this, i);
}

host_gather::~host_gather()
{
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        d_stop = true;
    }
    d_start.notify_all();
    for (auto& t : d_workers)
        t.join();
}

void host_gather::gather_part(int part)
{
    const std::size_t parts = std::size_t(threads());
    const std::size_t begin = d_count * part / parts, end = d_count * (part + 1) / parts;
    for (std::size_t i = begin; i < end; ++i)
        d_out[i] = d_x[d_index[i]];
}

void host_gather::work(int part)
{
    unsigned long long seen = 0;
    std::unique_lock<std::mutex> lock(d_mutex);
    for (;;) {
        d_start.wait(lock, [&] { return d_stop || d_generation != seen; });
        if (d_stop)
            return;
        seen = d_generation;
        lock.unlock();
        gather_part(part);
        lock.lock();
        if (--d_pending == 0)
            d_done.notify_one();
    }
}

void host_gather::run(const std::complex<float>* x,
                      const std::uint64_t* index,
                      std::size_t count,
                      std::complex<float>* out)
{
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        d_x = x;
        d_index = index;
        d_count = count;
        d_out = out;
        d_pending = int(d_workers.size());
        ++d_generation;
    }
    d_start.notify_all();
    gather_part(0);
    std::unique_lock<std::mutex> lock(d_mutex);
    d_done.wait(lock, [&] { return d_pending == 0; });
}

} // namespace detail
} // namespace gpufft
} // namespace gr
