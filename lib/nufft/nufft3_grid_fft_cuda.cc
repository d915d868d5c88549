/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../cuda/cuda_resources.h"
#include "nufft3_grid_fft.h"
#include <cufft.h>

namespace gr {
namespace gpufft {
namespace nufft {

struct grid_fft_cuda::handle {
    cuda::cufft_handle plan;
};

grid_fft_cuda::grid_fft_cuda(const grid_fft_shape& shape)
    : d_shape(shape), d_handle(std::make_unique<handle>())
{
    // cuFFT takes the axes slowest first; null embeddings mean contiguous grids, one
    // after the other.
    long long n[3];
    long long cells = 1;
    for (int a = 0; a < shape.dim; ++a) {
        n[shape.dim - 1 - a] = shape.cells[a];
        cells *= shape.cells[a];
    }
    std::size_t work = 0;
    GPUFFT_CUFFT_CHECK(
        cufftMakePlanMany64(d_handle->plan.get(),
                            shape.dim,
                            n,
                            nullptr,
                            1,
                            cells,
                            nullptr,
                            1,
                            cells,
                            shape.prec == precision::single ? CUFFT_C2C : CUFFT_Z2Z,
                            shape.batch,
                            &work));
}

grid_fft_cuda::~grid_fft_cuda() = default;

void grid_fft_cuda::execute_async(void* data, void* stream)
{
    const cufftHandle h = d_handle->plan.get();
    GPUFFT_CUFFT_CHECK(cufftSetStream(h, static_cast<cudaStream_t>(stream)));
    const int dir = d_shape.sign < 0 ? CUFFT_FORWARD : CUFFT_INVERSE;
    if (d_shape.prec == precision::single) {
        auto* p = static_cast<cufftComplex*>(data);
        GPUFFT_CUFFT_CHECK(cufftExecC2C(h, p, p, dir));
    } else {
        auto* p = static_cast<cufftDoubleComplex*>(data);
        GPUFFT_CUFFT_CHECK(cufftExecZ2Z(h, p, p, dir));
    }
}

} // namespace nufft
} // namespace gpufft
} // namespace gr
