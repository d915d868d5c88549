/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "cuda/cuda_check.h"
#include "cuda/cuda_resources.h"
#include "cuda/peer_access.h"
#include <cuda_runtime.h>

namespace gr {
namespace gpufft {
namespace cuda {

std::string enable_peer_access(const std::vector<int>& devices, peer_link link)
{
    const auto pair = [](int a, int b) {
        return std::to_string(a) + " and " + std::to_string(b);
    };
    for (int a : devices)
        for (int b : devices) {
            if (a == b)
                continue;
            int can = 0;
            GPUFFT_CUDA_CHECK(cudaDeviceCanAccessPeer(&can, a, b));
            if (!can)
                return "devices " + pair(a, b) + " have no peer access";
            if (link == peer_link::nvlink) {
                // NVLink carries atomics natively, PCIe peer links do not: the one
                // attribute the runtime gives that tells the two apart.
                int native = 0;
                GPUFFT_CUDA_CHECK(cudaDeviceGetP2PAttribute(
                    &native, cudaDevP2PAttrNativeAtomicSupported, a, b));
                if (!native)
                    return "devices " + pair(a, b) + " are linked over PCIe only";
            }
        }
    for (int a : devices) {
        device_guard g(a);
        for (int b : devices) {
            if (a == b)
                continue;
            const cudaError_t e = cudaDeviceEnablePeerAccess(b, 0);
            if (e == cudaErrorPeerAccessAlreadyEnabled)
                cudaGetLastError(); // enabled before; clear the error the runtime keeps
            else
                GPUFFT_CUDA_CHECK(e);
        }
    }
    return {};
}

} // namespace cuda
} // namespace gpufft
} // namespace gr
