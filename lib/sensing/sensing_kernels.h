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

#include "sensing/sensing_backend.h"
#include "sensing/sensing_math.h"
#include <cstddef>
#include <cstdint>

namespace gr {
namespace gpufft {
namespace detail {

//! What the run pass leaves for the host.
struct sensing_device_header {
    int bad;          //!< a floor sample was not finite
    int starts, ends; //!< runs' first and last bins found (may exceed the capacity)
    int ordered;      //!< launch_sensing_order_runs ordered the runs (1) or not (0)
    sensing_time_power time; //!< the frame's (launch_sensing_floor)
};

//! Parts a sub-frame's power is summed in (launch_sensing_floor).
constexpr int sensing_time_parts = 16;

//! Runs a frame may have for launch_sensing_order_runs to order them on the device.
constexpr int sensing_ordered_cap = 2048;

//! A run in order, and the level of the gap after it (launch_sensing_order_runs).
struct sensing_ordered_run {
    std::int64_t first, last;
    double gap_level;
};

/*!
 * The floor: for each sub-band the censored log-mean of its samples, then the opening;
 * floors[subbands] as doubles. X: the spectrum, natural order, n complex floats; x: the
 * frame's samples, whose sensing_time_blocks sub-frames' powers (every time_stride-th
 * sample) go in parts to time_power[sensing_time_blocks x sensing_time_parts], then
 * into header->time, as the CPU backend sums them (to rounding). With a track (3
 * x subbands: sensing_floor_track::prior on the device, and *prior_quiet its
 * prior_quiet), the opened floors go to raw[subbands] and the floors used
 * (sensing_track_floor, at sensing_burst_level's level) to floors. done: a device
 * counter, 0 before the first launch; each launch leaves it 0.
 */
void launch_sensing_floor(const sensing_consts& k,
                          const float* X,
                          const float* x,
                          double* time_power,
                          double* floors,
                          sensing_device_header* header,
                          unsigned* done,
                          void* stream,
                          const double* track = nullptr,
                          const double* prior_quiet = nullptr,
                          double* raw = nullptr);

//! Bins of the threshold pass's power sums (block_power[j]: shifted bins j * this on).
constexpr std::int64_t sensing_block_bins = 256;

/*!
 * The threshold pass: every bin once; the first and last bins of each run of bins
 * above the threshold (*eta x the floor; eta on the device, so that a captured graph
 * takes each frame's, and k.eta is not read) go to starts[] and ends[] (unordered, at
 * most `cap` each), counted in header->starts / ends (which must be zero before), and
 * the power |X_w|^2 of each sensing_block_bins bins to block_power[(n + 255) / 256].
 */
void launch_sensing_runs(const sensing_consts& k,
                         const double* eta,
                         const float* X,
                         const double* floors,
                         std::int64_t* starts,
                         std::int64_t* ends,
                         std::int64_t cap,
                         float* block_power,
                         sensing_device_header* header,
                         int blocks,
                         void* stream);

/*!
 * The threshold pass's grid on the current device: for the warp kernel (n a multiple
 * of 512) as many blocks as can be resident at once, each looping over its chunks; for
 * the tiled kernel a block a tile up to 8192 (a resident grid was slower there).
 */
int sensing_runs_blocks(const sensing_consts& k);

//! Scratch bytes launch_sensing_sort_runs needs for up to `cap` runs.
std::size_t sensing_sort_scratch_bytes(std::int64_t cap);

/*!
 * The first m starts and ends (bins of [0, n)), each sorted ascending into sorted[0, m)
 * and sorted[m, 2m): many runs (a modulated carrier's) are ordered on the device
 * instead of on the host.
 */
void launch_sensing_sort_runs(const std::int64_t* starts,
                              const std::int64_t* ends,
                              std::int64_t* sorted,
                              std::int64_t m,
                              std::int64_t n,
                              void* scratch,
                              std::size_t scratch_bytes,
                              void* stream);

//! Bins of a band's core one thread block sums (a wide carrier takes many blocks),
//! and the most a block walks for an edge: 8 a thread, one batch of loads. With 16384
//! (32 a thread) a 33k-bin carrier's bands took 125 us at n = 2^24 on an H200, most
//! of it the walks; with 4096, 51 us.
constexpr std::int64_t sensing_chunk_bins = 4096;

//! One chunk's sums over its bins of a band's core.
struct sensing_chunk {
    double excess, moment, power; //!< sums of (P - floor)+, s (P - floor)+, P - floor
    float peak;                   //!< the largest P
    long long peak_bin;           //!< its first bin
};

//! Chunks of a core of `bins` bins.
inline int sensing_chunk_count(std::int64_t bins)
{
    return int((bins + sensing_chunk_bins - 1) / sensing_chunk_bins);
}

/*!
 * Each band's sums and edges (as the CPU's sensing_band_sums_buffered) and the windowed
 * bins around each narrow one's peak; bands[i] holds first, last, core_first and
 * core_last on entry. offsets[count + 1]: the bands' first chunks (prefix sums of
 * sensing_chunk_count of their cores), `chunks` in all; chunk_sums holds as many. Where
 * every core is one chunk (chunks == count) offsets is not read. `blocks`: the grid at
 * most, its warps and blocks taking the bands in turn.
 */
void launch_sensing_bands(const sensing_consts& k,
                          const float* X,
                          const double* floors,
                          sensing_band* bands,
                          int count,
                          const int* offsets,
                          int chunks,
                          sensing_chunk* chunk_sums,
                          int rule_xdb,
                          double xdb_ratio,
                          int blocks,
                          void* stream);

/*!
 * level[i] = mean of P / floor over shifted bins gap_first[i] .. gap_last[i], or a bound
 * of it from above where the bound x (1 + 1e-4) is under fill[i] (the level that joins;
 * sensing_backend::gap_levels). block_power: the threshold pass's sums.
 */
void launch_sensing_gaps(const sensing_consts& k,
                         const float* X,
                         const double* floors,
                         const float* block_power,
                         const std::int64_t* gap_first,
                         const std::int64_t* gap_last,
                         const double* fill,
                         int count,
                         double* level,
                         void* stream);

/*!
 * The threshold pass's runs in order, with the levels of the gaps between them, on the
 * device and with no host step between: where the pass found as many firsts as lasts
 * and at most sensing_ordered_cap of each, out[i] holds run i (ascending) and the level
 * of the gap to run i + 1 as launch_sensing_gaps gives it with the fill level of its
 * length; 0 for the last run and for gaps of gap_bins bins or fewer or over max_gap
 * (the plan reads no level for those), and header->ordered = 1. Otherwise nothing is
 * written but header->ordered = 0.
 */
void launch_sensing_order_runs(const sensing_consts& k,
                               const float* X,
                               const double* floors,
                               const float* block_power,
                               const std::int64_t* starts,
                               const std::int64_t* ends,
                               sensing_device_header* header,
                               std::int64_t gap_bins,
                               std::int64_t max_gap,
                               sensing_ordered_run* out,
                               void* stream);

/*!
 * Each run that launch_sensing_order_runs ordered as a band of its own, out[i] for run
 * i (i < header->starts): core run i, first and last as the plan's widen() makes them
 * with `lobe` bins and the runs beside it, and the sums of launch_sensing_bands for that
 * band. A band whose core spans more than one chunk gets core_first -1 and no sums.
 * Nothing is written where the runs were not ordered or *enabled (on the device, so a
 * captured graph takes each frame's) is 0. `blocks`: the grid, each block a run at a
 * time. Most frames' bands are their runs: the host then takes them from here, behind
 * the frame's first round trip, and needs no second.
 */
void launch_sensing_run_bands(const sensing_consts& k,
                              const float* X,
                              const double* floors,
                              const sensing_device_header* header,
                              const sensing_ordered_run* runs,
                              std::int64_t lobe,
                              const double* enabled,
                              int rule_xdb,
                              double xdb_ratio,
                              int blocks,
                              sensing_band* out,
                              void* stream);

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_SENSING_KERNELS_H */
