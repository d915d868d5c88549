/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_PARALLEL_COPY_H
#define INCLUDED_GPUFFT_PARALLEL_COPY_H

#include "core/worker_pool.h"
#include <cstddef>

namespace gr {
namespace gpufft {
namespace detail {

/*!
 * memcpy split across a few persistent threads.
 *
 * One thread copies ~10 GB/s on the GPU machine's host, a fifth of what PCIe moves from
 * pinned memory; staging pageable data for the GPU needs several. The workers live as
 * long as the copier; the calling thread does one share itself. Jobs from different
 * callers run one after the other.
 */
class parallel_copier
{
public:
    //! `threads` in all, the caller included; 0 picks min(8, hardware threads / 2).
    explicit parallel_copier(int threads = 0);
    parallel_copier(const parallel_copier&) = delete;
    parallel_copier& operator=(const parallel_copier&) = delete;

    void copy(void* dst, const void* src, std::size_t bytes);
    int threads() const { return d_pool.threads(); }

private:
    worker_pool d_pool;
};

//! The process-wide copier the host <-> device stagers share.
parallel_copier& shared_copier();

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_PARALLEL_COPY_H */
