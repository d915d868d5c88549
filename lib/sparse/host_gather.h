/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_SPARSE_HOST_GATHER_H
#define INCLUDED_GPUFFT_SPARSE_HOST_GATHER_H

#include <condition_variable>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

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
    //! `threads` in all, the caller included (>= 1).
    explicit host_gather(int threads);
    ~host_gather();
    host_gather(const host_gather&) = delete;
    host_gather& operator=(const host_gather&) = delete;

    void run(const std::complex<float>* x,
             const std::uint64_t* index,
             std::size_t count,
             std::complex<float>* out);
    int threads() const { return int(d_workers.size()) + 1; }

private:
    void work(int part);
    void gather_part(int part);

    std::vector<std::thread> d_workers;
    std::mutex d_mutex;
    std::condition_variable d_start, d_done;
    unsigned long long d_generation = 0;
    int d_pending = 0;
    bool d_stop = false;
    const std::complex<float>* d_x = nullptr;
    const std::uint64_t* d_index = nullptr;
    std::size_t d_count = 0;
    std::complex<float>* d_out = nullptr;
};

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_SPARSE_HOST_GATHER_H */
