/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The type-3 sum term by term, on the CPU: the method a plan takes where it is cheaper
// than the grid or the grid does not fit (nufft3_params.h, choose_geometry). Phases and
// sums are in double whatever the plan's precision: a float sum of n terms of random
// phase would round to about 6e-8 sqrt(n / 2) of its value, 2e-6 at n = 3000.

#ifndef INCLUDED_GPUFFT_NUFFT3_DIRECT_SUM_H
#define INCLUDED_GPUFFT_NUFFT3_DIRECT_SUM_H

#include "nufft/nufft3_params.h"
#include <complex>
#include <cstdint>
#include <vector>

namespace gr {
namespace gpufft {
namespace nufft {

//! The points of a direct-sum plan, copied at set_points (the caller may free them).
struct direct_points {
    int dim = 1;
    std::int64_t n_src = 0, n_tgt = 0;
    std::vector<double> src[max_dim], tgt[max_dim];

    void assign(int d,
                std::int64_t n_sources,
                const double* const* x,
                std::int64_t n_targets,
                const double* const* s);
    //! Frees the copies (the plan went back to a grid).
    void clear();
};

//! Bytes per source and per target the CPU direct sum holds (the copies).
inline double direct_bytes_per_point(int dim) { return 8.0 * dim; }

//! F = the sum for ntransf vectors (c and F one vector after the other), threaded over
//! targets.
template <typename T>
void direct_sum_cpu(const direct_points& p,
                    int sign,
                    const std::complex<T>* c,
                    std::complex<T>* F,
                    int ntransf,
                    int threads);

} // namespace nufft
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_NUFFT3_DIRECT_SUM_H */
