/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_CUDA_STREAM_GRAPH_H
#define INCLUDED_GPUFFT_CUDA_STREAM_GRAPH_H

// A stream's work captured once as a CUDA graph and replayed: one launch in place of
// each kernel, copy and cuFFT call of a frame (each a few microseconds of host time).

#include "cuda/cuda_check.h"
#include <cuda_runtime.h>
#include <utility>

namespace gr {
namespace gpufft {
namespace cuda {

class stream_graph
{
public:
    stream_graph() = default;
    stream_graph(const stream_graph&) = delete;
    stream_graph& operator=(const stream_graph&) = delete;
    stream_graph(stream_graph&& o) noexcept : d_exec(o.d_exec) { o.d_exec = nullptr; }
    stream_graph& operator=(stream_graph&& o) noexcept
    {
        std::swap(d_exec, o.d_exec);
        return *this;
    }
    ~stream_graph()
    {
        if (d_exec)
            cudaGraphExecDestroy(d_exec);
    }

    //! On the first call, captures what `enqueue` puts on s; then launches it on s.
    template <typename Fn>
    void run(cudaStream_t s, Fn&& enqueue)
    {
        if (!d_exec) {
            cudaGraph_t graph = nullptr;
            GPUFFT_CUDA_CHECK(
                cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
            try {
                enqueue();
            } catch (...) {
                cudaStreamEndCapture(s, &graph);
                if (graph)
                    cudaGraphDestroy(graph);
                throw;
            }
            GPUFFT_CUDA_CHECK(cudaStreamEndCapture(s, &graph));
            const cudaError_t err = cudaGraphInstantiate(&d_exec, graph, 0);
            cudaGraphDestroy(graph);
            GPUFFT_CUDA_CHECK(err);
        }
        GPUFFT_CUDA_CHECK(cudaGraphLaunch(d_exec, s));
    }

private:
    cudaGraphExec_t d_exec = nullptr;
};

} // namespace cuda
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_CUDA_STREAM_GRAPH_H */
