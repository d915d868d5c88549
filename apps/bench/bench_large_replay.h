/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_BENCH_LARGE_REPLAY_H
#define INCLUDED_GPUFFT_BENCH_LARGE_REPLAY_H

#include <complex>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gpufft_bench {

/*!
 * The copies of each round of the large FFT's schedule for `shape` and `budget`, replayed
 * without compute between the pinned arrays `in` and `out` (the same array: the in-place
 * schedule; their contents are lost): through a plain three-slot ring (one stream
 * per direction, the copy probe's "ring"), then adding the executor's features one at a
 * time (a buffer per slot, copies split over two streams per direction, the executor's
 * stream creation order with a hop through a compute stream, its finite check of the
 * input, its two allocations per slot, a compute hop as long as a real pass's FFTs: ten
 * finite checks), then the executor itself with GPUFFT_LARGE_FFT_NO_COMPUTE, with the
 * last replay repeated while the executor's plan exists and after it ran. Prints GB/s (in
 * + out) per round, so the gap between the executor and the probe can be pinned on the
 * copy pattern, on the machinery or on the plan's resources. Host moves are left out (the
 * replayed data is not a transform).
 */
void replay_probe(const std::vector<std::int64_t>& shape,
                  std::size_t budget,
                  std::complex<float>* in,
                  std::complex<float>* out);

} // namespace gpufft_bench

#endif /* INCLUDED_GPUFFT_BENCH_LARGE_REPLAY_H */
