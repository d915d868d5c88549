/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_PARALLEL_COPY_H
#define INCLUDED_GPUFFT_PARALLEL_COPY_H

#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <thread>
#include <vector>

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
    ~parallel_copier();
    parallel_copier(const parallel_copier&) = delete;
    parallel_copier& operator=(const parallel_copier&) = delete;

    void copy(void* dst, const void* src, std::size_t bytes);
    int threads() const { return int(d_workers.size()) + 1; }

private:
    void work(int index);
    void copy_part(int part);

    std::vector<std::thread> d_workers;
    std::mutex d_job_mutex; // one job at a time
    std::mutex d_mutex;     // guards the fields below
    std::condition_variable d_start, d_done;
    unsigned long long d_generation = 0;
    int d_pending = 0;
    bool d_stop = false;
    unsigned char* d_dst = nullptr;
    const unsigned char* d_src = nullptr;
    std::size_t d_bytes = 0;
};

//! The process-wide copier the host <-> device stagers share.
parallel_copier& shared_copier();

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_PARALLEL_COPY_H */
