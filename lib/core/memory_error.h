/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Running out of memory, on the device or the host, as one kind of error whose message
// says which engine, what was being allocated, how big, and what was free: a bare
// std::bad_alloc or "cudaMalloc failed" leaves a user nothing to change.

#ifndef INCLUDED_GPUFFT_CORE_MEMORY_ERROR_H
#define INCLUDED_GPUFFT_CORE_MEMORY_ERROR_H

#include <cstdint>
#include <new>
#include <stdexcept>
#include <string>

namespace gr {
namespace gpufft {
namespace detail {

//! Out of device or host memory; the message names the allocation, its size and what
//! was free. A std::runtime_error, so it reaches Python as RuntimeError.
class memory_error : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

//! A CUDA allocation failed (device memory, page-locked host memory, a cuFFT work
//! area): the same work may still fit on the CPU, which a block on backend "auto" uses.
class cuda_memory_error : public memory_error
{
public:
    using memory_error::memory_error;
};

/*!
 * Inside a catch block that caught a memory_error or std::bad_alloc: throws a
 * memory_error led by "<engine>: " (e.g. "nufft3_plan.set_points"). A bad_alloc, which
 * carries no size, is described by `sizes` (the engine's sizes, e.g. "n = 2^31,
 * k = 2^27") and the host's available memory.
 */
[[noreturn]] void rethrow_memory_error(const char* engine, const std::string& sizes);

/*!
 * f(), with running out of memory reported as a memory_error naming `engine` (see
 * rethrow_memory_error); `sizes` is a callable giving the engine's sizes in words, only
 * called on failure. Other exceptions pass through unchanged.
 */
template <typename F, typename Sizes>
auto with_memory_context(const char* engine, const Sizes& sizes, F&& f) -> decltype(f())
{
    try {
        return f();
    } catch (const memory_error&) {
        rethrow_memory_error(engine, sizes());
    } catch (const std::bad_alloc&) {
        rethrow_memory_error(engine, sizes());
    }
}

//! "3.2 GiB", "64.0 MiB" or "512 bytes": a byte count for error messages.
std::string bytes_string(std::uint64_t bytes);

//! "2^27" for powers of two, else the decimal number: sizes in error messages.
std::string size_string(long long n);

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_CORE_MEMORY_ERROR_H */
