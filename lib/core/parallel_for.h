/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_CORE_PARALLEL_FOR_H
#define INCLUDED_GPUFFT_CORE_PARALLEL_FOR_H

#include <algorithm>
#include <cstdint>
#include <exception>
#include <thread>
#include <vector>

namespace gr {
namespace gpufft {
namespace detail {

/*!
 * Runs fn(part, begin, end) over [0, n) split into at most `threads` contiguous parts
 * of at least `grain` items; the calling thread runs part 0. A frame of 2^30 samples
 * takes seconds to sweep on one core, so host passes are spread; short ranges stay on
 * the calling thread, where starting threads would cost more than it saves. An
 * exception from any part is rethrown here once every part has finished.
 */
template <typename Fn>
void parallel_for(std::int64_t n, int threads, Fn fn, std::int64_t grain = 1 << 18)
{
    const std::int64_t min_per_thread = std::max<std::int64_t>(1, grain);
    const std::int64_t parts =
        std::max<std::int64_t>(1, std::min<std::int64_t>(threads, n / min_per_thread));
    if (parts <= 1) {
        fn(0, std::int64_t(0), n);
        return;
    }
    std::vector<std::thread> pool;
    pool.reserve(static_cast<std::size_t>(parts - 1));
    std::vector<std::exception_ptr> errors(static_cast<std::size_t>(parts));
    auto part = [&](std::int64_t p) {
        try {
            fn(int(p), n * p / parts, n * (p + 1) / parts);
        } catch (...) {
            errors[static_cast<std::size_t>(p)] = std::current_exception();
        }
    };
    for (std::int64_t p = 1; p < parts; ++p)
        pool.emplace_back(part, p);
    part(0);
    for (auto& t : pool)
        t.join();
    for (auto& e : errors)
        if (e)
            std::rethrow_exception(e);
}

//! Hardware threads, at least 1.
inline int hardware_threads()
{
    return int(std::max(1u, std::thread::hardware_concurrency()));
}

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_CORE_PARALLEL_FOR_H */
