/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Memory sweeps for the replay probe: kernels with the footprint of a pass's compute,
// to tell which part of it slows the PCIe copies running beside it.

#ifndef INCLUDED_GPUFFT_BENCH_PROBE_KERNELS_H
#define INCLUDED_GPUFFT_BENCH_PROBE_KERNELS_H

#include <cstdint>

namespace gpufft_bench {

/*!
 * Reads `n` floats of `x` (`reps` times over) on `stream`; `streaming` reads with the
 * evict-first cache hint (ld.global.cs) instead of the default. `flag` is set if a value
 * is not finite (so the reads are not optimized away).
 */
void launch_sweep(
    const float* x, std::int64_t n, int reps, bool streaming, int* flag, void* stream);

} // namespace gpufft_bench

#endif /* INCLUDED_GPUFFT_BENCH_PROBE_KERNELS_H */
