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
 * between the pinned arrays `in` and `out` (the same array: the in-place schedule; their
 * contents are lost) through the executor's ring (three slots of two buffers, copies
 * split over two streams per direction, its streams in its creation order), with one
 * kernel per pass in place of the compute: none (a hop through the compute stream), the
 * executor's finite check between the copies, or beside them (the copy out not waiting
 * for it) a sweep of a slot-sized buffer with default loads, with evict-first loads, a
 * memset, or the executor's transpose. Prints GB/s (in + out) per round. It found why
 * the executor's copies are slower than its copies alone: kernels whose memory traffic
 * goes through L2 with the default policy slow the PCIe copies beside them by a fifth at
 * 2^32 on the H200, evict-first traffic does not (docs/large_fft.md). Host moves are
 * left out (the replayed data is not a transform).
 */
void replay_probe(const std::vector<std::int64_t>& shape,
                  std::size_t budget,
                  std::complex<float>* in,
                  std::complex<float>* out);

} // namespace gpufft_bench

#endif /* INCLUDED_GPUFFT_BENCH_LARGE_REPLAY_H */
