/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_CORE_WORKER_POOL_H
#define INCLUDED_GPUFFT_CORE_WORKER_POOL_H

#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace gr {
namespace gpufft {
namespace detail {

/*!
 * Persistent threads for short, frequent host jobs (pageable staging copies, the sparse
 * FFT's host gather): starting threads per call would cost more than the job. run()
 * calls job(part, parts) once for every part in [0, parts) with parts = threads(), the
 * calling thread doing part 0, and returns when all are done; an exception from a part
 * is rethrown there. Jobs from different callers run one after the other. run() itself
 * allocates nothing: the job is used by reference.
 */
class worker_pool
{
public:
    //! `threads` in all, the caller included (values below 1 mean 1).
    explicit worker_pool(int threads);
    ~worker_pool();
    worker_pool(const worker_pool&) = delete;
    worker_pool& operator=(const worker_pool&) = delete;

    void run(const std::function<void(int part, int parts)>& job);
    int threads() const { return d_threads; }

private:
    void work(int part);
    void stop();

    const int d_threads; // fixed before any worker starts: workers read it
    std::vector<std::thread> d_workers;
    std::mutex d_job_mutex; // one job at a time
    std::mutex d_mutex;     // guards the fields below
    std::condition_variable d_start, d_done;
    unsigned long long d_generation = 0;
    int d_pending = 0;
    bool d_stop = false;
    const std::function<void(int, int)>* d_job = nullptr;
    std::exception_ptr d_error;
};

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_CORE_WORKER_POOL_H */
