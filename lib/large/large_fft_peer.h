/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_LARGE_FFT_PEER_H
#define INCLUDED_GPUFFT_LARGE_FFT_PEER_H

#include "large/large_fft_backend.h"
#include "large/peer_exchange.h"
#include <memory>
#include <vector>

namespace gr {
namespace gpufft {
namespace detail {

//! The executor of the peer-exchange schedule on cfg.devices (one slab each).
std::unique_ptr<large_fft_executor> make_large_fft_peer(const peer_layout& layout,
                                                        const large_exec_config& cfg);

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_LARGE_FFT_PEER_H */
