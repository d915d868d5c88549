/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// One direction of the large FFT's host<->device pass copies: the host blocks of a pass
// (large_fft_schedule.h) to or from its device buffer as 2-D copies. A GPU has two copy
// engines per direction; with `split`, each block is cut in two halves (rows, or the
// bytes of a one-row block) and the second half goes on a helper stream forked from and
// joined back into the lane's stream, so both engines work on every pass.

#ifndef INCLUDED_GPUFFT_LARGE_COPY_LANE_H
#define INCLUDED_GPUFFT_LARGE_COPY_LANE_H

#include "cuda/cuda_resources.h"
#include "large/large_fft_schedule.h"
#include "large/large_fft_trace.h"
#include <vector>

namespace gr {
namespace gpufft {
namespace detail {

class copy_lane
{
public:
    /*!
     * Copies of elements of `elem_bytes` in direction `kind` (cudaMemcpyHostToDevice or
     * cudaMemcpyDeviceToHost) on `stream`, split with `helper` when `split`; the host
     * time spent issuing them goes to `trace`. The streams must outlive the lane.
     */
    copy_lane(cudaStream_t stream,
              cudaStream_t helper,
              cudaMemcpyKind kind,
              bool split,
              std::size_t elem_bytes,
              large_fft_trace& trace);

    //! The blocks [first, last) of the host array `host` into the pass buffer `dev`.
    void
    copy_in(const host_block* first, const host_block* last, const void* host, void* dev);
    //! The blocks of the pass buffer `dev` out to the host array `host`.
    void copy_out(const std::vector<host_block>& blocks, void* host, const void* dev);

    cudaStream_t stream() const { return d_stream; }

private:
    // rows [r0, r0 + nr), columns [c0, c0 + nc) of block b, on stream `on`
    void issue(const host_block& b,
               std::int64_t r0,
               std::int64_t nr,
               std::int64_t c0,
               std::int64_t nc,
               char* host,
               char* dev,
               cudaStream_t on) const;
    void copy(const host_block* first, const host_block* last, char* host, char* dev);

    cudaStream_t d_stream, d_helper;
    cudaMemcpyKind d_kind;
    bool d_split;
    std::size_t d_elem;
    large_fft_trace& d_trace;
    cuda::event d_fork, d_join;
};

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_LARGE_COPY_LANE_H */
