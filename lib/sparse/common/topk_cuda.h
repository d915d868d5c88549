/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_SPARSE_TOPK_CUDA_H
#define INCLUDED_GPUFFT_SPARSE_TOPK_CUDA_H

#include <complex>
#include <cstdint>
#include <memory>
#include <vector>

namespace gr {
namespace gpufft {
namespace detail {

/*!
 * The k largest |X[i]| of a device array, in linear time: a radix select on the bits of
 * |X|^2 (two 12-bit histogram passes find a threshold), then one thresholded compaction
 * into at most k + slack candidates, copied to the host and finished there (k log k).
 * Used by the dense fallback and as the cuFFT + top-k baseline of gpufft-bench sparse.
 * Buffers are allocated in the constructor (on the current device); run() allocates
 * nothing.
 */
class device_topk
{
public:
    device_topk(std::int64_t n, std::int64_t k);
    ~device_topk();
    device_topk(const device_topk&) = delete;
    device_topk& operator=(const device_topk&) = delete;

    //! Enqueue on `stream` (a cudaStream_t) the selection from device array X.
    void enqueue(const std::complex<float>* X, void* stream);
    //! After the stream has finished: bins ascending and their values. Throws
    //! std::invalid_argument when X held non-finite values.
    void result(std::vector<std::int64_t>& bins,
                std::vector<std::complex<float>>& values);

    struct state;

private:
    std::unique_ptr<state> d;
};

/*!
 * Enqueue on `stream` the sum of |X[i]|^2 over n values into *energy (a device double,
 * overwritten): what exact mode's dense path compares its top k against.
 */
void launch_power_sum(const std::complex<float>* X,
                      std::int64_t n,
                      double* energy,
                      void* stream);

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_SPARSE_TOPK_CUDA_H */
