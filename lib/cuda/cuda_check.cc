/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "core/host_memory.h"
#include "core/memory_error.h"
#include "cuda/cuda_check.h"
#include <cstring>
#include <sstream>
#include <stdexcept>

namespace gr {
namespace gpufft {
namespace cuda {

std::string device_memory_state()
{
    int device = -1;
    std::size_t free_bytes = 0, total_bytes = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) {
        cudaGetLastError();
        return "";
    }
    return "device " + std::to_string(device) + " has " +
           detail::bytes_string(free_bytes) + " free of " +
           detail::bytes_string(total_bytes);
}

void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line)
{
    std::ostringstream msg;
    msg << call << " failed: " << cudaGetErrorName(err) << " (" << cudaGetErrorString(err)
        << ") at " << file << ":" << line;
    if (err == cudaErrorMemoryAllocation) {
        cudaGetLastError(); // not sticky: the context stays usable
        const std::string state = device_memory_state();
        if (!state.empty())
            msg << "; " << state;
        throw detail::cuda_memory_error("out of GPU memory: " + msg.str());
    }
    throw std::runtime_error(msg.str());
}

void throw_allocation_error(cudaError_t err,
                            std::size_t bytes,
                            std::size_t count,
                            std::size_t element_bytes,
                            const char* what,
                            bool pinned,
                            const char* file,
                            int line)
{
    if (err != cudaErrorMemoryAllocation)
        throw_cuda_error(err, pinned ? "cudaMallocHost" : "cudaMalloc", file, line);
    cudaGetLastError(); // not sticky: the context stays usable
    std::ostringstream msg;
    msg << (pinned ? "out of page-locked host memory: cudaMallocHost of "
                   : "out of GPU memory: cudaMalloc of ")
        << detail::bytes_string(bytes);
    if (what)
        msg << " for " << what;
    msg << " (" << count << " elements of " << element_bytes << " bytes) failed";
    if (pinned) {
        const std::uint64_t avail = detail::host_available_memory();
        if (avail)
            msg << "; this host has " << detail::bytes_string(avail) << " available";
    } else {
        const std::string state = device_memory_state();
        if (!state.empty())
            msg << "; " << state;
    }
    throw detail::cuda_memory_error(msg.str());
}

const char* cufft_error_name(cufftResult err)
{
    switch (err) {
    case CUFFT_SUCCESS:
        return "CUFFT_SUCCESS";
    case CUFFT_INVALID_PLAN:
        return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED:
        return "CUFFT_ALLOC_FAILED (out of device memory)";
    case CUFFT_INVALID_VALUE:
        return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR:
        return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED:
        return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED:
        return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE:
        return "CUFFT_INVALID_SIZE";
    case CUFFT_INVALID_DEVICE:
        return "CUFFT_INVALID_DEVICE";
    case CUFFT_NO_WORKSPACE:
        return "CUFFT_NO_WORKSPACE";
    case CUFFT_NOT_IMPLEMENTED:
        return "CUFFT_NOT_IMPLEMENTED";
    case CUFFT_NOT_SUPPORTED:
        return "CUFFT_NOT_SUPPORTED";
    default:
        return "unknown cuFFT error";
    }
}

void throw_cufft_error(cufftResult err, const char* call, const char* file, int line)
{
    std::ostringstream msg;
    msg << call << " failed: " << cufft_error_name(err) << " (code " << int(err)
        << ") at " << file << ":" << line;
    if (err == CUFFT_ALLOC_FAILED) {
        const std::string state = device_memory_state();
        if (!state.empty())
            msg << "; " << state;
        throw detail::cuda_memory_error("out of GPU memory: " + msg.str());
    }
    // Making a plan on a nearly full device, cuFFT reports CUFFT_INTERNAL_ERROR rather
    // than CUFFT_ALLOC_FAILED: with little memory free, say what it most likely was.
    std::size_t free_bytes = 0, total_bytes = 0;
    if (err == CUFFT_INTERNAL_ERROR && std::strncmp(call, "cufftMakePlan", 13) == 0 &&
        cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess &&
        free_bytes < (std::size_t(1) << 30)) {
        msg << "; " << device_memory_state();
        throw detail::cuda_memory_error(
            "out of GPU memory (cuFFT could not make its plan): " + msg.str());
    }
    throw std::runtime_error(msg.str());
}

} // namespace cuda
} // namespace gpufft
} // namespace gr
