/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "core/fftw_lock.h"
#include "core/parallel_for.h"
#include <fftw3.h>

namespace gr {
namespace gpufft {
namespace detail {

std::mutex& fftw_planner_mutex()
{
    static std::mutex m;
    return m;
}

void init_fftw_threads()
{
    static std::once_flag once;
    std::call_once(once, [] {
        std::lock_guard<std::mutex> lock(fftw_planner_mutex());
        fftwf_init_threads();
        fftw_init_threads();
        // Other FFTW users in the process (gr-fft blocks in the same flowgraph) do not
        // know our mutex; this makes FFTW's own planner safe against them.
        fftwf_make_planner_thread_safe();
        fftw_make_planner_thread_safe();
    });
}

int cpu_threads(int requested, long long elements)
{
    if (elements < (1 << 15))
        return 1;
    return requested > 0 ? requested : hardware_threads();
}

} // namespace detail
} // namespace gpufft
} // namespace gr
