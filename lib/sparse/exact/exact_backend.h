/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_SPARSE_EXACT_BACKEND_H
#define INCLUDED_GPUFFT_SPARSE_EXACT_BACKEND_H

#include "sparse/common/sparse_common.h"
#include "sparse/common/sparse_params.h"
#include <gnuradio/gpufft/backend.h>
#include <complex>
#include <cstdint>
#include <memory>
#include <vector>

namespace gr {
namespace gpufft {
namespace detail {

//! One backend of the sparse FFT's exact mode (sublinear path or dense fallback).
class sparse_exact_backend
{
public:
    virtual ~sparse_exact_backend() = default;
    //! bins ascending, values X[bins]; throws std::invalid_argument on non-finite input.
    virtual void execute(const std::complex<float>* x,
                         memory where,
                         std::vector<std::int64_t>& bins,
                         std::vector<std::complex<float>>& values) = 0;
    //! Exact mode: the last frame left energy its coefficients do not explain.
    virtual bool not_sparse() const { return false; }
    //! Extra words for describe() (e.g. the host-transfer choice).
    virtual std::string notes() const { return {}; }
};

std::unique_ptr<sparse_exact_backend> make_sparse_cpu(const sparse_params& p);
std::unique_ptr<sparse_exact_backend> make_dense_topk_cpu(std::int64_t n, std::int64_t k);
#ifdef GPUFFT_HAVE_CUDA
std::unique_ptr<sparse_exact_backend>
make_sparse_cuda(const sparse_params& p, int device_id, sparse_fft_transfer transfer);
std::unique_ptr<sparse_exact_backend>
make_dense_topk_cuda(std::int64_t n, std::int64_t k, int device_id);
#endif

/*!
 * Exact mode's residual check on a dense spectrum (the dense FFT + top-k path): the
 * energy outside the kept coefficients is more than sparse_residual_tol of the total.
 */
bool dense_not_sparse(double total_energy, const std::vector<std::complex<float>>& kept);

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_SPARSE_EXACT_BACKEND_H */
