/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Spectrum sensing's device passes behind plain C++ launchers (no CUDA types here
// beyond an opaque stream). Each mirrors a step of the CPU backend (sensing_cpu.cc) with
// the same arithmetic (sensing_math.h).

#ifndef INCLUDED_GPUFFT_SENSING_KERNELS_H
#define INCLUDED_GPUFFT_SENSING_KERNELS_H

#include "sensing_backend.h"
#include "sensing_math.h"
#include <cstdint>

namespace gr {
namespace gpufft {
namespace detail {

//! What the run pass leaves for the host.
struct sensing_device_header {
    int bad;          //!< a floor sample was not finite
    int starts, ends; //!< runs' first and last bins found (may exceed the capacity)
};

/*!
 * The floor: for each sub-band the censored log-mean of its samples, then the opening;
 * floors[subbands] as doubles. X: the spectrum, natural order, n complex floats.
 */
void launch_sensing_floor(const sensing_consts& k,
                          const float* X,
                          double* floors,
                          sensing_device_header* header,
                          void* stream);

/*!
 * The threshold pass: every bin once; the first and last bins of each run of bins
 * above the threshold go to starts[] and ends[] (unordered, at most `cap` each),
 * counted in header->starts / ends (which must be zero before).
 */
void launch_sensing_runs(const sensing_consts& k,
                         const float* X,
                         const double* floors,
                         std::int64_t* starts,
                         std::int64_t* ends,
                         std::int64_t cap,
                         sensing_device_header* header,
                         void* stream);

/*!
 * Each band's sums and edges (sensing_band_sums), one thread block a band, and the
 * windowed bins around each narrow one's peak; bands[i] holds first, last, core_first
 * and core_last on entry.
 */
void launch_sensing_bands(const sensing_consts& k,
                          const float* X,
                          const double* floors,
                          sensing_band* bands,
                          int count,
                          int rule_xdb,
                          double xdb_ratio,
                          void* stream);

//! out[i * (2h + 1) + h + j] = X_w at shifted bin centres[i] + j, as (re, im) doubles.
void launch_sensing_windowed(const sensing_consts& k,
                             const float* X,
                             const std::int64_t* centres,
                             int count,
                             int h,
                             double* out,
                             void* stream);

//! level[i] = mean of P / floor over shifted bins gap_first[i] .. gap_last[i].
void launch_sensing_gaps(const sensing_consts& k,
                         const float* X,
                         const double* floors,
                         const std::int64_t* gap_first,
                         const std::int64_t* gap_last,
                         int count,
                         double* level,
                         void* stream);

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_SENSING_KERNELS_H */
