/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Internal switches of the large FFT's executors: alternatives that users have no
// reason to pick but that the GPU tests (and the bench) run to keep every path correct.
// large_fft_plan always uses the defaults; detail::make_large_fft_plan
// (large_fft_plan_impl.h) takes a config.

#ifndef INCLUDED_GPUFFT_LARGE_FFT_CONFIG_H
#define INCLUDED_GPUFFT_LARGE_FFT_CONFIG_H

#include <cstdint>
#include <string>

namespace gr {
namespace gpufft {
namespace detail {

//! What transforms the passes of an out-of-card schedule on the GPU.
enum class pass_fft {
    /*!
     * The two evict-first kernels of four_step.h where they apply (power-of-two lengths
     * 4..2^16 of the in-place column round and of the transposed row round), the
     * Stockham stages of stockham.h on the other contiguous power-of-two rows, cuFFT on
     * the rest. cuFFT's loads allocate in L2 and slow the PCIe copies running beside
     * them; our kernels load and store evict-first.
     */
    four_step,
    //! The Stockham stages where they apply, cuFFT elsewhere (no four-step kernels).
    stockham,
    //! cuFFT for every pass.
    cufft,
};

//! "four_step", "stockham" or "cufft".
std::string to_string(pass_fft f);
//! The inverse of to_string; std::invalid_argument naming pass_fft otherwise.
pass_fft parse_pass_fft(const std::string& name);

struct large_fft_config {
    pass_fft fft = pass_fft::four_step;
    /*!
     * Split every block copy of a pass in two halves on two streams per direction, so
     * both copy engines of a direction work on it; false: one copy call per block on
     * one stream.
     */
    bool split_copies = true;
    /*!
     * Let large_fft_options::devices name a device more than once: one executor per
     * entry, so one GPU stands in for several and the multi-device paths (passes dealt
     * out, events between executors, host moves from several at once) run where only
     * one GPU is. The public API refuses a repeated device.
     */
    bool repeat_devices = false;
    /*!
     * On several devices, a 1-D array that fits their budgets taken together but not
     * one budget takes the peer-exchange schedule (peer_exchange.h: one PCIe round, the
     * middle transpose over peer copies) where every pair of devices has peer access;
     * false: always the host rounds (their results match one GPU bit for bit).
     */
    bool peer_exchange = true;
    /*!
     * The passes in flight on each device's ring: 2 or 3; 0: the planner's choice
     * (choose_ring_slots in large_fft_schedule.h). The bench times them side by side.
     */
    int ring_slots = 0;
};

//! What an executor has run since it was made: which paths a schedule took.
struct large_fft_stats {
    std::int64_t four_step_ffts = 0; //!< passes transformed by the four-step kernels
    std::int64_t stockham_ffts = 0;  //!< batches transformed by the Stockham stages
    std::int64_t cufft_execs = 0;    //!< cuFFT executions
};

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_LARGE_FFT_CONFIG_H */
