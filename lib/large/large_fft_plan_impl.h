/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The inside of large_fft_plan, and the internal way to make one with the executor's
// internal switches (large_fft_config.h) and to read what its executor ran.

#ifndef INCLUDED_GPUFFT_LARGE_FFT_PLAN_IMPL_H
#define INCLUDED_GPUFFT_LARGE_FFT_PLAN_IMPL_H

#include "large/large_fft_backend.h"
#include "large/peer_exchange.h"
#include <gnuradio/gpufft/large_fft_plan.h>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gr {
namespace gpufft {

class large_fft_plan::impl
{
public:
    std::vector<std::int64_t> shape;
    std::int64_t n = 0;
    gpufft::direction dir = direction::forward;
    gpufft::precision prec = precision::single;
    gpufft::backend used = backend::cpu;
    int device_id = -1;
    std::vector<int> devices; //!< CUDA: one executor per entry (device_id first)
    std::size_t budget = 0;   //!< per device
    std::size_t elem_bytes = 8;
    int threads = 1; //!< host threads of the permutation after the rounds
    // Both schedules are planned up front: in == out needs passes that write only where
    // they read, and execute() must not plan or allocate.
    detail::large_schedule out_of_place, in_place;
    //! Set when the peer-exchange schedule runs instead of the host rounds (both ways).
    std::optional<detail::peer_layout> peer;
    //! Why it does not, on several devices (describe()).
    std::string peer_note;
    std::unique_ptr<detail::large_fft_executor> engine;

    void run(const void* in, void* out);
    //! The sizes in words, for out-of-memory errors.
    auto sizes() const
    {
        return [this] {
            std::string s = "shape (";
            for (std::size_t i = 0; i < shape.size(); ++i)
                s += (i ? ", " : "") + std::to_string(shape[i]);
            return s + "), " + std::to_string(elem_bytes) + "-byte elements, " +
                   std::to_string(budget) + " bytes of device budget";
        };
    }
};

namespace detail {

class large_fft_plan_access
{
public:
    //! large_fft_plan(shape, dir, options) with the executor's switches `config`.
    static large_fft_plan make(std::vector<std::int64_t> shape,
                               gpufft::direction dir,
                               const large_fft_options& options,
                               const large_fft_config& config);
    static const large_fft_plan::impl& of(const large_fft_plan& plan)
    {
        return *plan.d_impl;
    }
};

//! A plan whose executor takes the switches `config` (the tests' and bench's paths).
inline large_fft_plan make_large_fft_plan(std::vector<std::int64_t> shape,
                                          gpufft::direction dir,
                                          const large_fft_options& options,
                                          const large_fft_config& config)
{
    return large_fft_plan_access::make(std::move(shape), dir, options, config);
}

//! What the plan's executor has run so far.
inline large_fft_stats plan_stats(const large_fft_plan& plan)
{
    return large_fft_plan_access::of(plan).engine->stats();
}

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_LARGE_FFT_PLAN_IMPL_H */
