/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_FFTW_LOCK_H
#define INCLUDED_GPUFFT_FFTW_LOCK_H

#include <mutex>

namespace gr {
namespace gpufft {
namespace detail {

//! FFTW's planner is not thread-safe: every plan creation and destruction holds this.
std::mutex& fftw_planner_mutex();

//! fftw(f)_init_threads, once per process.
void init_fftw_threads();

//! Threads for a CPU transform: `requested` (0 = all hardware threads), but one thread
//! for work of fewer than `elements` points, where thread start-up costs more than it
//! saves.
int cpu_threads(int requested, long long elements);

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_FFTW_LOCK_H */
