/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Placeholder until the CUDA pass pipeline lands (same session): refuses clearly.

#include "large_fft_backend.h"
#include <stdexcept>

namespace gr {
namespace gpufft {
namespace detail {

std::unique_ptr<large_fft_executor>
make_large_fft_cuda(const std::vector<const large_schedule*>&, const large_exec_config&)
{
    throw std::runtime_error("large_fft_plan: the CUDA backend is not available yet; "
                             "use backend 'cpu'");
}

} // namespace detail
} // namespace gpufft
} // namespace gr
