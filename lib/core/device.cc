/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <gnuradio/gpufft/device.h>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <string>

#ifdef GPUFFT_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace gr {
namespace gpufft {

bool cuda_compiled()
{
#ifdef GPUFFT_HAVE_CUDA
    return true;
#else
    return false;
#endif
}

int cuda_device_count()
{
#ifdef GPUFFT_HAVE_CUDA
    // Cached: the answer does not change within a process, and a failing driver can take
    // long to say no.
    static const int count = [] {
        int n = 0;
        if (cudaGetDeviceCount(&n) != cudaSuccess) {
            cudaGetLastError();
            return 0;
        }
        return n;
    }();
    return count;
#else
    return 0;
#endif
}

namespace {
// GPUFFT_DEVICE as a device id, or -1 when unset. Garbage there is an error rather than
// silently ignored: a user who set it expects it to take effect.
int env_device()
{
    const char* s = std::getenv("GPUFFT_DEVICE");
    if (!s || !*s)
        return -1;
    char* end = nullptr;
    const long v = std::strtol(s, &end, 10);
    if (*end != '\0' || v < 0 || v > 1 << 20)
        throw std::invalid_argument(std::string("GPUFFT_DEVICE: '") + s +
                                    "' is not a non-negative device id");
    return int(v);
}
} // namespace

int resolve_device_id(int device_id)
{
    const int env = env_device();
    const int id = env >= 0 ? env : device_id;
    const int count = cuda_device_count();
    if (id < 0 || id >= count) {
        std::ostringstream msg;
        msg << (env >= 0 ? "GPUFFT_DEVICE" : "device_id") << ": " << id
            << " is out of range; ";
        if (count == 0)
            msg << "no CUDA device is available";
        else
            msg << "valid: 0.." << count - 1;
        throw std::invalid_argument(msg.str());
    }
    return id;
}

bool cuda_available(int device_id)
{
    try {
        resolve_device_id(device_id);
        return true;
    } catch (const std::exception&) {
        return false;
    }
}

#ifdef GPUFFT_HAVE_CUDA
namespace {
// lib/core sits below lib/cuda, so it checks its few runtime calls itself.
void check(cudaError_t err, const char* call)
{
    if (err != cudaSuccess)
        throw std::runtime_error(std::string(call) + " failed: " + cudaGetErrorName(err) +
                                 " (" + cudaGetErrorString(err) + ")");
}
} // namespace
#endif

device_info get_device_info(int device_id)
{
    device_info info;
    info.id = resolve_device_id(device_id);
#ifdef GPUFFT_HAVE_CUDA
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, info.id), "cudaGetDeviceProperties");
    info.name = prop.name;
    info.total_memory = prop.totalGlobalMem;
    info.compute_major = prop.major;
    info.compute_minor = prop.minor;
    info.multiprocessors = prop.multiProcessorCount;
    info.l2_cache_bytes = std::size_t(prop.l2CacheSize);
    int previous = 0;
    check(cudaGetDevice(&previous), "cudaGetDevice");
    check(cudaSetDevice(info.id), "cudaSetDevice");
    std::size_t free_b = 0, total_b = 0;
    const cudaError_t err = cudaMemGetInfo(&free_b, &total_b);
    cudaSetDevice(previous);
    check(err, "cudaMemGetInfo");
    info.free_memory = free_b;
#endif
    return info;
}

std::string describe_backend(int device_id)
{
    std::ostringstream s;
    if (!cuda_compiled()) {
        s << "cpu (built without CUDA)";
    } else if (!cuda_available(device_id)) {
        s << "cpu (no usable CUDA device)";
    } else {
        const device_info d = get_device_info(device_id);
        s << "cuda device " << d.id << ": " << d.name << ", sm_" << d.compute_major
          << d.compute_minor << ", " << d.multiprocessors << " SMs, "
          << (d.total_memory >> 20) << " MiB (" << (d.free_memory >> 20) << " MiB free)";
    }
    return s.str();
}

} // namespace gpufft
} // namespace gr
