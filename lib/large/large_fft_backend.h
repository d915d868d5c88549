/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_LARGE_FFT_BACKEND_H
#define INCLUDED_GPUFFT_LARGE_FFT_BACKEND_H

#include "large/large_fft_config.h"
#include "large/large_fft_schedule.h"
#include <gnuradio/gpufft/backend.h>
#include <gnuradio/gpufft/log.h>
#include <cstdint>
#include <memory>
#include <tuple>
#include <vector>

namespace gr {
namespace gpufft {
namespace detail {

/*!
 * A batched FFT inside a pass buffer (FFTW / cuFFT "many" layout): 1-D of length n, or,
 * with n2 > 1, 2-D over contiguous n x n2 planes (stride 1, dist n * n2).
 */
struct fft_geometry {
    std::int64_t n = 1, batch = 1, stride = 1, dist = 1, n2 = 1;
    bool operator<(const fft_geometry& o) const
    {
        return std::tie(n, batch, stride, dist, n2) <
               std::tie(o.n, o.batch, o.stride, o.dist, o.n2);
    }
};
struct fft_call {
    fft_geometry g;
    std::int64_t offset = 0; //!< first element in the pass buffer
};

//! The FFTs of an in-card round, in order, on the whole array.
std::vector<fft_call> fft_calls(const whole_round& r);
//! The FFTs pass `p` of a column round runs on its buffer, in order.
std::vector<fft_call> fft_calls(const column_round& r, const large_pass& p);
//! The row FFTs of a pass of a transposed row round.
std::vector<fft_call> fft_calls(const rows_transposed_round& r);
//! The FFTs of pass `p` of any round (tile transposes have none).
std::vector<fft_call> pass_fft_calls(const large_round& r, const large_pass& p);

//! Every geometry the schedules need, so backends can plan them all up front.
std::vector<fft_geometry>
schedule_geometries(const std::vector<const large_schedule*>& s);

/*!
 * Runs a schedule's rounds (the host permutation, if any, is the caller's). Throws
 * std::invalid_argument when an input sample is not finite.
 */
class large_fft_executor
{
public:
    virtual ~large_fft_executor() = default;
    virtual void run(const large_schedule& s, const void* in, void* out) = 0;
    //! What the executor has run so far (the CPU executor counts nothing).
    virtual large_fft_stats stats() const { return {}; }
};

struct large_exec_config {
    direction dir = direction::forward;
    precision prec = precision::single;
    int threads = 1;
    int device_id = 0;
    //! CUDA: one executor per entry, the passes of each round dealt out in turn
    //! (empty: device_id alone).
    std::vector<int> devices;
    bool trace = false;      //!< large_fft_options::trace
    log_handler log;         //!< where the trace goes
    large_fft_config tuning; //!< the CUDA executor's internal switches
};

std::unique_ptr<large_fft_executor>
make_large_fft_cpu(const std::vector<const large_schedule*>& schedules,
                   const large_exec_config& cfg);
#ifdef GPUFFT_HAVE_CUDA
std::unique_ptr<large_fft_executor>
make_large_fft_cuda(const std::vector<const large_schedule*>& schedules,
                    const large_exec_config& cfg);
#endif

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_LARGE_FFT_BACKEND_H */
