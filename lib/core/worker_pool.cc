/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "core/worker_pool.h"

namespace gr {
namespace gpufft {
namespace detail {

worker_pool::worker_pool(int threads) : d_threads(threads > 1 ? threads : 1)
{
    try {
        d_workers.reserve(std::size_t(d_threads - 1));
        for (int i = 1; i < d_threads; ++i)
            d_workers.emplace_back(&worker_pool::work, this, i);
    } catch (...) {
        stop(); // the destructor does not run for a constructor that throws
        throw;
    }
}

worker_pool::~worker_pool() { stop(); }

void worker_pool::stop()
{
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        d_stop = true;
    }
    d_start.notify_all();
    for (auto& t : d_workers)
        t.join();
}

void worker_pool::work(int part)
{
    const int parts = d_threads;
    unsigned long long seen = 0;
    std::unique_lock<std::mutex> lock(d_mutex);
    for (;;) {
        d_start.wait(lock, [&] { return d_stop || d_generation != seen; });
        if (d_stop)
            return;
        seen = d_generation;
        const auto* job = d_job;
        lock.unlock();
        std::exception_ptr error;
        try {
            (*job)(part, parts);
        } catch (...) {
            error = std::current_exception();
        }
        lock.lock();
        if (error && !d_error)
            d_error = error;
        if (--d_pending == 0)
            d_done.notify_one();
    }
}

void worker_pool::run(const std::function<void(int, int)>& job)
{
    if (d_threads == 1) {
        job(0, 1);
        return;
    }
    std::lock_guard<std::mutex> one_job(d_job_mutex);
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        d_job = &job;
        d_pending = d_threads - 1;
        ++d_generation;
    }
    d_start.notify_all();
    std::exception_ptr error;
    try {
        job(0, d_threads);
    } catch (...) {
        error = std::current_exception();
    }
    std::unique_lock<std::mutex> lock(d_mutex);
    d_done.wait(lock, [&] { return d_pending == 0; });
    d_job = nullptr;
    if (!error)
        error = d_error;
    d_error = nullptr;
    lock.unlock();
    if (error)
        std::rethrow_exception(error);
}

} // namespace detail
} // namespace gpufft
} // namespace gr
