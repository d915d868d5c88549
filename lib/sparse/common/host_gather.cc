/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "sparse/common/host_gather.h"
#include <algorithm>
#include <functional>
#include <thread>

namespace gr {
namespace gpufft {
namespace detail {

namespace {

struct gather_job {
    const std::complex<float>* x;
    const std::uint64_t* index;
    std::size_t count;
    std::complex<float>* out;

    void operator()(int part, int parts) const
    {
        const std::size_t begin = count * std::size_t(part) / std::size_t(parts);
        const std::size_t end = count * std::size_t(part + 1) / std::size_t(parts);
        for (std::size_t i = begin; i < end; ++i)
            out[i] = x[index[i]];
    }
};

} // namespace

int host_gather::threads_for(std::size_t count)
{
    return count < 65536
               ? 1
               : std::max(1, std::min(16, int(std::thread::hardware_concurrency())));
}

host_gather::host_gather(int threads) : d_pool(threads) {}

void host_gather::run(const std::complex<float>* x,
                      const std::uint64_t* index,
                      std::size_t count,
                      std::complex<float>* out)
{
    const gather_job job{ x, index, count, out };
    // A std::function holding a reference_wrapper never allocates.
    d_pool.run(std::cref(job));
}

} // namespace detail
} // namespace gpufft
} // namespace gr
