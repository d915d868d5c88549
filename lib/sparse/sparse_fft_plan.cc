/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "sparse_backend.h"
#include <gnuradio/gpufft/device.h>
#include <gnuradio/gpufft/sparse_fft_plan.h>
#include <iostream>
#include <stdexcept>

namespace gr {
namespace gpufft {

class sparse_fft_plan::impl
{
public:
    detail::sparse_params params;
    gpufft::backend used = backend::cpu;
    int device_id = -1;
    std::unique_ptr<detail::sparse_backend> engine;
};

sparse_fft_plan::sparse_fft_plan(std::int64_t n,
                                 std::int64_t k,
                                 const sparse_fft_options& o)
    : d_impl(std::make_unique<impl>())
{
    auto& d = *d_impl;
    // Parameters first: bad n, k or mode are reported before any device question.
    detail::choose_sparse_params(n, k, o, backend::cpu);
    d.used = resolve_backend(o.backend, o.device_id);
    d.params = detail::choose_sparse_params(n, k, o, d.used);
    if (d.params.dense && !o.force_dense)
        std::cerr << "gpufft: " << detail::describe_params(d.params) << std::endl;
    if (d.used == backend::cuda) {
#ifdef GPUFFT_HAVE_CUDA
        d.device_id = resolve_device_id(o.device_id);
        d.engine = d.params.dense
                       ? detail::make_dense_topk_cuda(n, k, d.device_id)
                       : detail::make_sparse_cuda(d.params, d.device_id, o.transfer);
#endif
    } else {
        d.engine = d.params.dense ? detail::make_dense_topk_cpu(n, k)
                                  : detail::make_sparse_cpu(d.params);
    }
}

sparse_fft_plan::~sparse_fft_plan() = default;
sparse_fft_plan::sparse_fft_plan(sparse_fft_plan&&) noexcept = default;
sparse_fft_plan& sparse_fft_plan::operator=(sparse_fft_plan&&) noexcept = default;

void sparse_fft_plan::execute(const std::complex<float>* x,
                              std::vector<std::int64_t>& bins,
                              std::vector<std::complex<float>>& values,
                              memory where)
{
    if (!x)
        throw std::invalid_argument("x: is a null pointer");
    if (where == memory::device && d_impl->used != backend::cuda)
        throw std::invalid_argument("where: device arrays need the CUDA backend");
    d_impl->engine->execute(x, where, bins, values);
}

std::int64_t sparse_fft_plan::size() const { return d_impl->params.c.n; }
std::int64_t sparse_fft_plan::k() const { return d_impl->params.k; }
gpufft::backend sparse_fft_plan::backend() const { return d_impl->used; }
int sparse_fft_plan::device_id() const { return d_impl->device_id; }
bool sparse_fft_plan::dense_fallback() const { return d_impl->params.dense; }
std::int64_t sparse_fft_plan::samples_read() const
{
    return d_impl->params.samples_read();
}

std::string sparse_fft_plan::describe() const
{
    std::string s =
        detail::describe_params(d_impl->params) + ", backend " + to_string(d_impl->used);
    const std::string extra = d_impl->engine->notes();
    return extra.empty() ? s : s + ", " + extra;
}

} // namespace gpufft
} // namespace gr
