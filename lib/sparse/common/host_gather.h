/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_SPARSE_HOST_GATHER_H
#define INCLUDED_GPUFFT_SPARSE_HOST_GATHER_H

#include "core/worker_pool.h"
#include <complex>
#include <cstddef>
#include <cstdint>

namespace gr {
namespace gpufft {
namespace detail {

/*!
 * out[i] = x[index[i]] split across persistent threads: the sparse FFT's host-input path
 * moves only the samples it reads, and random reads from a large host buffer are latency
 * bound, so they need many threads in flight. The workers live as long as the object
 * (no thread start per call); the calling thread does one share itself.
 */
class host_gather
{
public:
    //! Threads worth starting for `count` random reads: they are latency bound, so every
    //! core helps (up to 16), except for small gathers.
    static int threads_for(std::size_t count);

public:
    //! `threads` in all, the caller included (>= 1).
    explicit host_gather(int threads);
    host_gather(const host_gather&) = delete;
    host_gather& operator=(const host_gather&) = delete;

    void run(const std::complex<float>* x,
             const std::uint64_t* index,
             std::size_t count,
             std::complex<float>* out);
    int threads() const { return d_pool.threads(); }

private:
    worker_pool d_pool;
};

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_SPARSE_HOST_GATHER_H */
