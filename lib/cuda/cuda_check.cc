/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "cuda_check.h"
#include <sstream>
#include <stdexcept>

namespace gr {
namespace gpufft {
namespace cuda {

void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line)
{
    std::ostringstream msg;
    msg << call << " failed: " << cudaGetErrorName(err) << " (" << cudaGetErrorString(err)
        << ") at " << file << ":" << line;
    throw std::runtime_error(msg.str());
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
    throw std::runtime_error(msg.str());
}

} // namespace cuda
} // namespace gpufft
} // namespace gr
