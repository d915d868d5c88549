/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_LARGE_FFT_PLAN_H
#define INCLUDED_GPUFFT_LARGE_FFT_PLAN_H

#include <gnuradio/gpufft/api.h>
#include <gnuradio/gpufft/backend.h>
#include <gnuradio/gpufft/log.h>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gr {
namespace gpufft {

namespace detail {
class large_fft_plan_access; // the library's internal constructor (not public API)
}

struct large_fft_options {
    gpufft::backend backend = backend::automatic;
    int device_id = 0;
    /*!
     * CUDA devices that share the out-of-card rounds (empty: `device_id` alone). Each
     * round's passes are dealt out to the devices in turn, each with its own streams,
     * pinned staging and `memory_budget` (which applies per device), and a round ends
     * when every device has finished it; an array that fits one device's budget twice
     * runs in card on the first device. Every id must exist and appear once, and each
     * device must have `memory_budget` bytes free (std::invalid_argument naming
     * `devices` otherwise); backend cpu with a non-empty list is refused, backend
     * automatic without a usable GPU ignores it (CPU). GPUFFT_DEVICE overrides
     * `device_id` only, never this list.
     */
    std::vector<int> devices;
    gpufft::precision precision = precision::single;
    /*!
     * Working memory the plan may use, in bytes: device memory for CUDA (0: most of what
     * is free on the device when the plan is made, so give plans that share a GPU
     * explicit budgets; an array that fits twice only allocates what it needs), host
     * scratch memory for the CPU (0: twice the array, at most a quarter of the host's
     * memory, at least 256 MiB). When the array fits twice (data and FFT work area), the
     * transform runs in one in-card pass; otherwise it is split into rounds of passes
     * that each fit (see describe()).
     */
    std::size_t memory_budget = 0;
    //! CPU threads for FFTW; 0 uses every hardware thread.
    int threads = 0;
    /*!
     * Report, after every round of each execute(), its wall time and schedule through
     * `log` at log_level::debug; the CUDA backend adds the host time spent issuing
     * copies and, per pass, when its copy in, compute, copy out and host moves ran on
     * the GPU (from CUDA events, which cost a little time of their own).
     */
    bool trace = false;
    //! Where the plan's messages go (gnuradio/gpufft/log.h); empty: stderr.
    gpufft::log_handler log;
};

/*!
 * Complex FFT of a 1-D, 2-D or 3-D array that lives in host memory and may be larger
 * than the GPU memory (Gu et al., out-of-card FFTs). Unnormalized both ways, FFTW's
 * convention; arrays are C-ordered (last dimension contiguous).
 *
 * The constructor plans a pass schedule that fits `memory_budget`: one in-card pass
 * with chunked transfers when the array fits, otherwise a four-step decomposition
 * N = N1*N2 (1-D, two or three rounds with twiddles), or a split along the first axis
 * (2-D: Y-decomposition, 3-D: Z-decomposition). The CPU and CUDA backends execute the
 * same schedule. Sizes and indices are 64-bit; sizes may have any prime factors, but
 * only sizes made of small primes (2, 3, 5, 7) are fast.
 *
 * Throws std::invalid_argument for an empty shape, more than 3 dimensions, a size
 * <= 0, a budget too small for the smallest workable pass, or an array too large for
 * host memory; std::runtime_error when a requested CUDA backend is not usable.
 */
class GPUFFT_API large_fft_plan
{
public:
    large_fft_plan(std::vector<std::int64_t> shape,
                   gpufft::direction dir = direction::forward,
                   const large_fft_options& options = large_fft_options());
    ~large_fft_plan();
    large_fft_plan(large_fft_plan&&) noexcept;
    large_fft_plan& operator=(large_fft_plan&&) noexcept;
    large_fft_plan(const large_fft_plan&) = delete;
    large_fft_plan& operator=(const large_fft_plan&) = delete;

    /*!
     * Blocking transform of host arrays of size() elements; in == out runs in place
     * (no second array needed). The plan's precision must be single. Throws
     * std::invalid_argument when the input holds a NaN or infinity (checked on the fly,
     * so `out` may have been partly written then). One execute at a time per plan.
     */
    void execute(const std::complex<float>* in, std::complex<float>* out);
    //! As above for a double-precision plan.
    void execute(const std::complex<double>* in, std::complex<double>* out);

    std::vector<std::int64_t> shape() const;
    //! Total number of elements (product of the shape).
    std::int64_t size() const;
    gpufft::direction direction() const;
    gpufft::precision precision() const;
    //! The backend in use (never `automatic`).
    gpufft::backend backend() const;
    int device_id() const;
    //! The devices the rounds run on (CUDA: the first is device_id(); CPU: empty).
    std::vector<int> devices() const;
    //! The memory budget in effect, in bytes per device (after resolving 0).
    std::size_t memory_budget() const;
    //! Rounds over the host array of the out-of-place schedule (1: in-card).
    int passes() const;
    //! The pass schedule in words: decomposition, pass sizes, chunk sizes.
    std::string describe() const;

    class impl;

private:
    friend class detail::large_fft_plan_access;
    explicit large_fft_plan(std::unique_ptr<impl> d);

    std::unique_ptr<impl> d_impl;
};

} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_LARGE_FFT_PLAN_H */
