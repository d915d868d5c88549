/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The sparse_fft block's parameter checks (std::invalid_argument naming the parameter
// and its range), apart from the block so it stays glue.

#ifndef INCLUDED_GPUFFT_SPARSE_BLOCK_PARAMS_H
#define INCLUDED_GPUFFT_SPARSE_BLOCK_PARAMS_H

#include <gnuradio/gpufft/backend.h>
#include <gnuradio/gpufft/sparse_fft_plan.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>

namespace gr {
namespace gpufft {
namespace sparse_output {

// Largest vector item the display output uses: GNU Radio buffers hold several items,
// and items of 2^20 floats fail to allocate.
constexpr int max_display_bins = 65536;

// Exact mode warns about frames that are not exactly sparse at most once per this many
// frames (the first one at once).
constexpr std::uint64_t not_sparse_warn_every = 100;

// A double as printf's %g writes it (to_string would turn 1e-9 into 0.000000).
inline std::string num(double v)
{
    std::ostringstream os;
    os << v;
    return os.str();
}

inline sparse_fft_mode checked_mode(const std::string& name)
{
    if (name == "robust")
        return sparse_fft_mode::robust;
    if (name == "exact")
        return sparse_fft_mode::exact;
    throw std::invalid_argument("mode: must be \"robust\" or \"exact\", got \"" + name +
                                "\"");
}

inline double checked_min_snr_db(double v)
{
    if (!(v >= 0.0 && v <= 200.0))
        throw std::invalid_argument("min_snr_db: must be in [0, 200] dB, got " + num(v));
    return v;
}

inline double checked_false_alarm(double v)
{
    if (!(v > 0.0 && v <= 0.5))
        throw std::invalid_argument("false_alarm: must be in (0, 0.5], got " + num(v));
    return v;
}

inline int checked_hop(int hop, int fft_size)
{
    if (hop < 0)
        throw std::invalid_argument("hop: must be >= 0 (0 means fft_size), got " +
                                    std::to_string(hop));
    return hop == 0 ? fft_size : hop;
}

inline gpufft::backend checked_backend(const std::string& name)
{
    // parse_backend's message already names the parameter ("backend: ...").
    return parse_backend(name);
}

inline void check_k(int k, int fft_size, sparse_fft_mode mode)
{
    if (mode == sparse_fft_mode::robust) {
        // A frame with more tones than a quarter of its bins is not sparse.
        if (k < 1 || k > fft_size / 4)
            throw std::invalid_argument("k: must be in [1, fft_size / 4] = [1, " +
                                        std::to_string(fft_size / 4) +
                                        "] in mode \"robust\" (at most a quarter of the "
                                        "bins can be tones), got " +
                                        std::to_string(k));
        return;
    }
    if (k < 1 || k >= fft_size)
        throw std::invalid_argument("k: must be in [1, fft_size) = [1, " +
                                    std::to_string(fft_size) + "), got " +
                                    std::to_string(k));
}

} // namespace sparse_output
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_SPARSE_BLOCK_PARAMS_H */
