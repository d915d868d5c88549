/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The CUDA side of the large FFT's trace: an event at the start and end of each stage of
// every pass of a round, on the stream that runs the stage, read once the round's
// streams have finished.

#ifndef INCLUDED_GPUFFT_LARGE_PASS_MARKS_H
#define INCLUDED_GPUFFT_LARGE_PASS_MARKS_H

#include "cuda/cuda_resources.h"
#include "large/large_fft_trace.h"
#include <vector>

namespace gr {
namespace gpufft {
namespace detail {

class pass_marks
{
public:
    enum stage : int {
        in_start,
        in_end,
        compute_start,
        compute_end,
        out_start,
        out_end,
        moves_start,
        moves_end,
        stages
    };

    //! Timing events for `passes` passes when `on`; none otherwise.
    pass_marks(bool on, std::size_t passes)
    {
        if (on)
            for (std::size_t k = 0; k < passes * stages; ++k)
                d_events.emplace_back(true);
    }

    void mark(std::size_t pass, stage s, cudaStream_t stream) const
    {
        if (!d_events.empty())
            d_events[pass * stages + s].record(stream);
    }

    /*!
     * Sends each pass's stage times, from the first copy in, to `trace`; the streams
     * must have finished. `moves`: the host-move stages were marked. Mark k is reported
     * as pass first + k * stride of the round (one device's share of its passes).
     */
    void report(large_fft_trace& trace,
                bool moves,
                std::size_t first = 0,
                std::size_t stride = 1) const
    {
        const std::size_t passes = d_events.size() / stages;
        auto at = [&](std::size_t i, stage s) {
            return d_events[i * stages + s].elapsed_ms_since(d_events[0]);
        };
        for (std::size_t i = 0; i < passes; ++i) {
            pass_times t;
            t.in[0] = at(i, in_start);
            t.in[1] = at(i, in_end);
            t.compute[0] = at(i, compute_start);
            t.compute[1] = at(i, compute_end);
            t.out[0] = at(i, out_start);
            t.out[1] = at(i, out_end);
            t.has_moves = moves;
            if (moves) {
                t.moves[0] = at(i, moves_start);
                t.moves[1] = at(i, moves_end);
            }
            trace.pass(first + i * stride, t);
        }
    }

private:
    std::vector<cuda::event> d_events;
};

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_LARGE_PASS_MARKS_H */
