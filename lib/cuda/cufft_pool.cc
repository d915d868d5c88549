/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "cuda/cufft_pool.h"
#include <map>
#include <mutex>
#include <utility>

namespace gr {
namespace gpufft {
namespace cuda {

namespace {

struct idle_handle {
    cufftHandle handle;
    std::size_t work_bytes;
};

// Handles are intentionally never destroyed at process exit: by then the CUDA context
// may already be gone, and the driver frees everything anyway.
std::mutex& pool_mutex()
{
    static std::mutex m;
    return m;
}
std::multimap<cufft_key, idle_handle>& pool()
{
    static auto* p = new std::multimap<cufft_key, idle_handle>;
    return *p;
}

constexpr std::size_t keep_limit_bytes = std::size_t(64) << 20;

} // namespace

pooled_cufft_plan::pooled_cufft_plan(const cufft_key& key) : d_key(key)
{
    {
        std::lock_guard<std::mutex> lock(pool_mutex());
        auto it = pool().find(key);
        if (it != pool().end()) {
            d_handle = it->second.handle;
            d_work_bytes = it->second.work_bytes;
            pool().erase(it);
            return;
        }
    }
    GPUFFT_CUFFT_CHECK(cufftCreate(&d_handle));
    long long n = key.n;
    long long embed = key.n; // ignored for rank 1, but a non-null pointer selects strides
    const bool basic = key.stride == 1 && key.distance == key.n;
    const cufftResult r =
        cufftMakePlanMany64(d_handle,
                            1,
                            &n,
                            basic ? nullptr : &embed,
                            key.stride,
                            key.distance,
                            basic ? nullptr : &embed,
                            key.stride,
                            key.distance,
                            key.double_precision ? CUFFT_Z2Z : CUFFT_C2C,
                            key.batch,
                            &d_work_bytes);
    if (r != CUFFT_SUCCESS) {
        cufftDestroy(d_handle);
        throw_cufft_error(r, "cufftMakePlanMany64", __FILE__, __LINE__);
    }
}

pooled_cufft_plan::~pooled_cufft_plan()
{
    if (d_work_bytes <= keep_limit_bytes) {
        std::lock_guard<std::mutex> lock(pool_mutex());
        pool().emplace(d_key, idle_handle{ d_handle, d_work_bytes });
    } else {
        cufftDestroy(d_handle);
    }
}

} // namespace cuda
} // namespace gpufft
} // namespace gr
