/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// RAII owners for device memory, pinned host memory, streams, events and cuFFT handles,
// and a guard that selects a device for a scope. Destructors never throw (errors there
// are ignored: they only happen when the context is already broken).

#ifndef INCLUDED_GPUFFT_CUDA_RESOURCES_H
#define INCLUDED_GPUFFT_CUDA_RESOURCES_H

#include "cuda/cuda_check.h"
#include <type_traits>
#include <cstddef>
#include <utility>

namespace gr {
namespace gpufft {
namespace cuda {

//! Makes `device` current for the guard's lifetime, then restores the previous one.
class device_guard
{
public:
    explicit device_guard(int device)
    {
        GPUFFT_CUDA_CHECK(cudaGetDevice(&d_previous));
        if (device != d_previous)
            GPUFFT_CUDA_CHECK(cudaSetDevice(device));
    }
    ~device_guard()
    {
        int now = -1;
        if (cudaGetDevice(&now) == cudaSuccess && now != d_previous)
            cudaSetDevice(d_previous);
    }
    device_guard(const device_guard&) = delete;
    device_guard& operator=(const device_guard&) = delete;

private:
    int d_previous = 0;
};

//! Device memory (cudaMalloc), for cuda_buffer.
struct device_memory {
    static constexpr bool pinned = false;
    static cudaError_t allocate(void** p, std::size_t bytes)
    {
        return cudaMalloc(p, bytes);
    }
    static void release(void* p) noexcept { cudaFree(p); }
};

//! Page-locked host memory (cudaMallocHost), for cuda_buffer.
struct pinned_memory {
    static constexpr bool pinned = true;
    static cudaError_t allocate(void** p, std::size_t bytes)
    {
        return cudaMallocHost(p, bytes);
    }
    static void release(void* p) noexcept { cudaFreeHost(p); }
};

//! `count` elements of T in Memory (device_memory or pinned_memory), uninitialised.
template <typename T, typename Memory>
class cuda_buffer
{
public:
    cuda_buffer() = default;
    explicit cuda_buffer(std::size_t count, const char* what = nullptr)
    {
        allocate(count, what);
    }
    ~cuda_buffer() { release(); }
    cuda_buffer(cuda_buffer&& o) noexcept
        : d_ptr(std::exchange(o.d_ptr, nullptr)), d_count(std::exchange(o.d_count, 0))
    {
    }
    cuda_buffer& operator=(cuda_buffer&& o) noexcept
    {
        if (this != &o) {
            release();
            d_ptr = std::exchange(o.d_ptr, nullptr);
            d_count = std::exchange(o.d_count, 0);
        }
        return *this;
    }
    cuda_buffer(const cuda_buffer&) = delete;
    cuda_buffer& operator=(const cuda_buffer&) = delete;

    //! `what` names the buffer in the error when memory runs out (a string literal).
    void allocate(std::size_t count, const char* what = nullptr)
    {
        release();
        if (count == 0)
            return;
        void* p = nullptr;
        if (count > std::size_t(-1) / sizeof(T))
            throw_allocation_error(cudaErrorMemoryAllocation,
                                   std::size_t(-1),
                                   count,
                                   sizeof(T),
                                   what,
                                   Memory::pinned,
                                   __FILE__,
                                   __LINE__);
        const cudaError_t err = Memory::allocate(&p, count * sizeof(T));
        if (err != cudaSuccess)
            throw_allocation_error(err,
                                   count * sizeof(T),
                                   count,
                                   sizeof(T),
                                   what,
                                   Memory::pinned,
                                   __FILE__,
                                   __LINE__);
        d_ptr = static_cast<T*>(p);
        d_count = count;
    }
    void release() noexcept
    {
        if (d_ptr)
            Memory::release(d_ptr);
        d_ptr = nullptr;
        d_count = 0;
    }
    T* get() const { return d_ptr; }
    //! Host access: pinned memory only.
    template <typename M = Memory, typename = std::enable_if_t<M::pinned>>
    T& operator[](std::size_t i) const
    {
        return d_ptr[i];
    }
    std::size_t size() const { return d_count; }
    std::size_t bytes() const { return d_count * sizeof(T); }

private:
    T* d_ptr = nullptr;
    std::size_t d_count = 0;
};

//! `count` elements of T in device memory, uninitialised.
template <typename T>
using device_buffer = cuda_buffer<T, device_memory>;
//! `count` elements of T in page-locked host memory, uninitialised.
template <typename T>
using pinned_buffer = cuda_buffer<T, pinned_memory>;

//! A non-blocking CUDA stream.
class stream
{
public:
    stream()
    {
        GPUFFT_CUDA_CHECK(cudaStreamCreateWithFlags(&d_stream, cudaStreamNonBlocking));
    }
    ~stream() { release(); }
    stream(stream&& o) noexcept
        : d_stream(std::exchange(o.d_stream, nullptr)),
          d_follow(std::exchange(o.d_follow, nullptr))
    {
    }
    stream& operator=(stream&& o) noexcept
    {
        if (this != &o) {
            release();
            d_stream = std::exchange(o.d_stream, nullptr);
            d_follow = std::exchange(o.d_follow, nullptr);
        }
        return *this;
    }
    stream(const stream&) = delete;
    stream& operator=(const stream&) = delete;

    cudaStream_t get() const { return d_stream; }
    void synchronize() const { GPUFFT_CUDA_CHECK(cudaStreamSynchronize(d_stream)); }

    /*!
     * Orders this stream after the work queued so far on the legacy default stream.
     * A caller fills a device input there (cudaMemcpy, a kernel on stream 0, CuPy or
     * torch by default); a pageable cudaMemcpy returns before its copy lands, and this
     * stream, being non-blocking, would not wait for it. Called on the current device.
     */
    void follow_default_stream()
    {
        if (!d_follow)
            GPUFFT_CUDA_CHECK(
                cudaEventCreateWithFlags(&d_follow, cudaEventDisableTiming));
        GPUFFT_CUDA_CHECK(cudaEventRecord(d_follow, cudaStreamLegacy));
        GPUFFT_CUDA_CHECK(cudaStreamWaitEvent(d_stream, d_follow, 0));
    }

private:
    void release() noexcept
    {
        if (d_follow)
            cudaEventDestroy(d_follow);
        if (d_stream)
            cudaStreamDestroy(d_stream);
    }

    cudaStream_t d_stream = nullptr;
    cudaEvent_t d_follow = nullptr;
};

//! A CUDA event; `timing` events can measure elapsed time.
class event
{
public:
    explicit event(bool timing = false)
    {
        GPUFFT_CUDA_CHECK(cudaEventCreateWithFlags(
            &d_event, timing ? cudaEventDefault : cudaEventDisableTiming));
    }
    ~event()
    {
        if (d_event)
            cudaEventDestroy(d_event);
    }
    event(event&& o) noexcept : d_event(std::exchange(o.d_event, nullptr)) {}
    event& operator=(event&& o) noexcept
    {
        if (this != &o) {
            if (d_event)
                cudaEventDestroy(d_event);
            d_event = std::exchange(o.d_event, nullptr);
        }
        return *this;
    }
    event(const event&) = delete;
    event& operator=(const event&) = delete;

    cudaEvent_t get() const { return d_event; }
    void record(cudaStream_t s) const { GPUFFT_CUDA_CHECK(cudaEventRecord(d_event, s)); }
    void synchronize() const { GPUFFT_CUDA_CHECK(cudaEventSynchronize(d_event)); }
    //! Milliseconds from `start` to this event (both recorded, this one completed).
    float elapsed_ms_since(const event& start) const
    {
        float ms = 0.f;
        GPUFFT_CUDA_CHECK(cudaEventElapsedTime(&ms, start.d_event, d_event));
        return ms;
    }

private:
    cudaEvent_t d_event = nullptr;
};

/*!
 * A cuFFT handle (cufftCreate) that its owner plans (cufftMakePlan*, work area, stream)
 * and that is destroyed with it. Plans that are made once per engine and never shared
 * use this; pooled_cufft_plan (cufft_pool.h) is for plans worth reusing across engines.
 */
class cufft_handle
{
public:
    cufft_handle() { GPUFFT_CUFFT_CHECK(cufftCreate(&d_handle)); }
    ~cufft_handle() { release(); }
    cufft_handle(cufft_handle&& o) noexcept
        : d_handle(o.d_handle), d_owned(std::exchange(o.d_owned, false))
    {
    }
    cufft_handle& operator=(cufft_handle&& o) noexcept
    {
        if (this != &o) {
            release();
            d_handle = o.d_handle;
            d_owned = std::exchange(o.d_owned, false);
        }
        return *this;
    }
    cufft_handle(const cufft_handle&) = delete;
    cufft_handle& operator=(const cufft_handle&) = delete;

    cufftHandle get() const { return d_handle; }

    /*!
     * Plans `batch` transforms of `type` (C2C or Z2Z) and rank `rank` (n slowest first)
     * with one layout in and out: the fastest axis `stride` elements apart, the others
     * `embed` apart (cuFFT's advanced layout; null: contiguous), transforms `dist` apart.
     * The work area is left to the owner (cufftSetWorkArea), so plans that run one after
     * the other can share one; returns the bytes this plan needs.
     */
    std::size_t plan_many_external_work(int rank,
                                        long long* n,
                                        long long* embed,
                                        long long stride,
                                        long long dist,
                                        long long batch,
                                        cufftType type)
    {
        GPUFFT_CUFFT_CHECK(cufftSetAutoAllocation(d_handle, 0));
        std::size_t work = 0;
        GPUFFT_CUFFT_CHECK(cufftMakePlanMany64(d_handle,
                                               rank,
                                               n,
                                               embed,
                                               stride,
                                               dist,
                                               embed,
                                               stride,
                                               dist,
                                               type,
                                               batch,
                                               &work));
        return work;
    }

private:
    void release() noexcept
    {
        if (d_owned)
            cufftDestroy(d_handle);
        d_owned = false;
    }

    cufftHandle d_handle = 0;
    bool d_owned = true; // cufftCreate succeeded (else the constructor threw)
};

//! True when `p` is page-locked host memory (cudaMallocHost or cudaHostRegister).
inline bool is_pinned(const void* p)
{
    cudaPointerAttributes attr{};
    if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
        cudaGetLastError(); // clear the sticky-free error from plain pageable pointers
        return false;
    }
    return attr.type == cudaMemoryTypeHost;
}

} // namespace cuda
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_CUDA_RESOURCES_H */
