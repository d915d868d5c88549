/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_CUFFT_POOL_H
#define INCLUDED_GPUFFT_CUFFT_POOL_H

#include "cuda/cuda_check.h"
#include <cstdint>
#include <tuple>

namespace gr {
namespace gpufft {
namespace cuda {

//! What makes two cuFFT C2C/Z2Z plans interchangeable.
struct cufft_key {
    int device = 0;
    std::int64_t n = 0;
    std::int64_t batch = 1;
    std::int64_t stride = 1;
    std::int64_t distance = 0;
    bool double_precision = false;
    bool operator<(const cufft_key& o) const
    {
        return std::tie(device, n, batch, stride, distance, double_precision) <
               std::tie(o.device, o.n, o.batch, o.stride, o.distance, o.double_precision);
    }
};

/*!
 * A cuFFT handle checked out of a process-wide pool for its lifetime.
 *
 * cuFFT planning costs milliseconds to tens of milliseconds; blocks that rebuild their
 * plans (a new k, a restarted flowgraph) should not pay it again. A handle is used by one
 * owner at a time (cufftSetStream is per handle), so the pool hands out idle handles and
 * takes them back on destruction. Handles whose work area is large are destroyed rather
 * than kept, so the pool never sits on much device memory. Must be constructed with
 * `key.device` current.
 */
class pooled_cufft_plan
{
public:
    explicit pooled_cufft_plan(const cufft_key& key);
    ~pooled_cufft_plan();
    pooled_cufft_plan(const pooled_cufft_plan&) = delete;
    pooled_cufft_plan& operator=(const pooled_cufft_plan&) = delete;

    cufftHandle handle() const { return d_handle; }
    std::size_t work_bytes() const { return d_work_bytes; }

private:
    cufft_key d_key;
    cufftHandle d_handle = 0;
    std::size_t d_work_bytes = 0;
};

} // namespace cuda
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_CUFFT_POOL_H */
