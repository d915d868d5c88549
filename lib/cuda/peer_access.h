/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_CUDA_PEER_ACCESS_H
#define INCLUDED_GPUFFT_CUDA_PEER_ACCESS_H

#include <string>
#include <vector>

namespace gr {
namespace gpufft {
namespace cuda {

//! Which kind of link between two devices a caller's peer copies need.
enum class peer_link {
    any,    //!< any peer access (NVLink or PCIe peer-to-peer)
    nvlink, //!< native peer atomics, which only NVLink gives
};

/*!
 * Enables peer access both ways between every two distinct `devices` (a device listed
 * twice needs none) when every pair has it, and of the kind `link` asks for. Returns
 * the empty string then, otherwise why not (naming the pair), enabling nothing. Access
 * enabled earlier, by another plan, counts as enabled.
 */
std::string enable_peer_access(const std::vector<int>& devices,
                               peer_link link = peer_link::any);

} // namespace cuda
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_CUDA_PEER_ACCESS_H */
