/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_NUFFT3_BACKEND_H
#define INCLUDED_GPUFFT_NUFFT3_BACKEND_H

#include "nufft/nufft3_params.h"
#include <gnuradio/gpufft/backend.h>
#include <gnuradio/gpufft/log.h>
#include <gnuradio/gpufft/nufft3_plan.h>
#include <cstdint>
#include <memory>

namespace gr {
namespace gpufft {
namespace nufft {

//! A validated plan request (the plan front end resolves backend and device).
struct nufft3_config {
    int dim = 1;
    double eps = 1e-6;
    precision prec = precision::double_; //!< of c and F
    //! What the grid is computed in: prec, or double where a single-precision plan's
    //! eps is below every single-precision grid's rounding floor (c and F are converted
    //! at the ends).
    precision grid_prec = precision::double_;
    int sign = -1;
    nufft_kernel kernel = nufft_kernel::es;
    double upsampling = 0;
    std::size_t memory_budget = 0; //!< 0: the backend's default
    int threads = 1;               //!< resolved (CPU)
    int device_id = 0;             //!< resolved (CUDA)
    bool trace = false;            //!< per-stage device times to `log` (CUDA)
    nufft_spread spread = nufft_spread::automatic; //!< (CUDA)
    nufft_method method = nufft_method::automatic;
    log_handler log;
};

//! One backend of the type-3 NUFFT. src and tgt hold dim coordinate arrays (x, y, z and
//! s, t, u). c and F are complex<float> or complex<double> by the plan's precision
//! (config::prec), ntransf vectors one after the other. Each backend does both methods:
//! the grid, and the direct sum where choose_geometry returns geometry::direct.
class nufft3_backend
{
public:
    virtual ~nufft3_backend() = default;
    virtual void set_points(std::int64_t n_sources,
                            const double* const* src,
                            std::int64_t n_targets,
                            const double* const* tgt,
                            memory where) = 0;
    virtual void execute(const void* c, void* F, memory where, int ntransf) = 0;
    virtual const geometry& current_geometry() const = 0;
};

std::unique_ptr<nufft3_backend> make_nufft3_cpu(const nufft3_config& cfg);
#ifdef GPUFFT_HAVE_CUDA
std::unique_ptr<nufft3_backend> make_nufft3_cuda(const nufft3_config& cfg);
#endif

//! Throws std::invalid_argument naming `name` when a coordinate is NaN or infinite.
void throw_non_finite(const char* name, std::int64_t count);

} // namespace nufft
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_NUFFT3_BACKEND_H */
