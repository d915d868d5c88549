/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The CPU type-3 NUFFT's plan: the grid FFT plans kept by batch, the grid's release,
// the factory and the one message for non-finite points. Stages: nufft3_cpu.h.

#include "nufft/nufft3_cpu.h"

namespace gr {
namespace gpufft {
namespace nufft {

template <typename T>
void nufft3_cpu<T>::release_grid()
{
    d_fft.clear();
    std::vector<cplx>().swap(d_grid);
    d_slab_buf.clear();
}

template <typename T>
grid_fft_cpu& nufft3_cpu<T>::fft(int batch)
{
    auto& p = d_fft[batch];
    if (!p) {
        grid_fft_shape sh;
        sh.dim = d_geom.dim;
        for (int a = 0; a < max_dim; ++a)
            sh.cells[a] = d_geom.axis[a].cells;
        sh.batch = batch;
        sh.sign = d_cfg.sign;
        sh.prec = d_cfg.grid_prec;
        p = std::make_unique<grid_fft_cpu>(sh, d_cfg.threads, d_grid.data());
    }
    return *p;
}

template class nufft3_cpu<float>;
template class nufft3_cpu<double>;

void throw_non_finite(const char* name, std::int64_t count)
{
    throw std::invalid_argument(
        std::string(name) + ": " + std::to_string(count) +
        " coordinate(s) are NaN or infinite; every point must be finite");
}

std::unique_ptr<nufft3_backend> make_nufft3_cpu(const nufft3_config& cfg)
{
    if (cfg.grid_prec == precision::single)
        return std::make_unique<nufft3_cpu<float>>(cfg);
    return std::make_unique<nufft3_cpu<double>>(cfg);
}

} // namespace nufft
} // namespace gpufft
} // namespace gr
