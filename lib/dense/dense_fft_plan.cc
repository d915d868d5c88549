/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "core/fftw_lock.h"
#include "core/memory_error.h"
#include "dense/dense_fft_backend.h"
#include <gnuradio/gpufft/dense_fft_plan.h>
#include <gnuradio/gpufft/device.h>
#include <limits>
#include <stdexcept>
#include <string>

namespace gr {
namespace gpufft {

class dense_fft_plan::impl
{
public:
    detail::dense_fft_config cfg;
    gpufft::backend used = backend::cpu;
    std::unique_ptr<detail::dense_fft_backend> engine;
    //! The sizes in words, for out-of-memory errors.
    auto sizes() const
    {
        return [this] {
            return "n = " + detail::size_string(cfg.n) +
                   ", batch = " + std::to_string(cfg.batch) + ", " +
                   (cfg.prec == precision::single ? "single" : "double") + " precision";
        };
    }
};

namespace {
void require_positive(const char* name, std::int64_t v)
{
    if (v <= 0)
        throw std::invalid_argument(std::string(name) + ": " + std::to_string(v) +
                                    " is invalid; must be >= 1");
}
} // namespace

dense_fft_plan::dense_fft_plan(std::int64_t n,
                               std::int64_t batch,
                               gpufft::direction dir,
                               const dense_fft_options& options)
    : d_impl(std::make_unique<impl>())
{
    require_positive("n", n);
    require_positive("batch", batch);
    require_positive("stride", options.stride);
    if (options.distance < 0)
        throw std::invalid_argument("distance: " + std::to_string(options.distance) +
                                    " is invalid; must be >= 0 (0: n * stride)");
    if (dir != direction::forward && dir != direction::backward)
        throw std::invalid_argument("direction: must be forward (-1) or backward (+1)");
    if (options.threads < 0)
        throw std::invalid_argument("threads: " + std::to_string(options.threads) +
                                    " is invalid; must be >= 0 (0: all cores)");

    auto& c = d_impl->cfg;
    c.n = n;
    c.batch = batch;
    c.stride = options.stride;
    c.distance = options.distance ? options.distance : n * options.stride;
    c.dir = dir;
    c.prec = options.precision;
    // Guard the extent against 64-bit overflow before anyone allocates it.
    const long double extent =
        (long double)(batch - 1) * c.distance + (long double)(n - 1) * c.stride + 1;
    if (extent > (long double)(std::numeric_limits<std::int64_t>::max() / 16))
        throw std::invalid_argument(
            "n, batch: the transform addresses more elements than "
            "a 64-bit index can hold");
    c.threads = detail::cpu_threads(options.threads, (long long)extent);

    d_impl->used = resolve_backend(options.backend, options.device_id, options.log);
    detail::with_memory_context("dense_fft_plan", d_impl->sizes(), [&] {
        if (d_impl->used == backend::cuda) {
#ifdef GPUFFT_HAVE_CUDA
            c.device_id = resolve_device_id(options.device_id);
            d_impl->engine = detail::make_dense_fft_cuda(c);
#endif
        } else {
            c.device_id = -1;
            d_impl->engine = detail::make_dense_fft_cpu(c);
        }
    });
}

dense_fft_plan::~dense_fft_plan() = default;
dense_fft_plan::dense_fft_plan(dense_fft_plan&&) noexcept = default;
dense_fft_plan& dense_fft_plan::operator=(dense_fft_plan&&) noexcept = default;

void dense_fft_plan::execute(const std::complex<float>* in,
                             std::complex<float>* out,
                             memory where)
{
    if (d_impl->cfg.prec != precision::single)
        throw std::invalid_argument(
            "execute: complex64 arrays given to a plan made for precision 'double'");
    if (!in || !out)
        throw std::invalid_argument("execute: null array");
    detail::with_memory_context("dense_fft_plan.execute", d_impl->sizes(), [&] {
        d_impl->engine->execute(in, out, where);
    });
}

void dense_fft_plan::execute(const std::complex<double>* in,
                             std::complex<double>* out,
                             memory where)
{
    if (d_impl->cfg.prec != precision::double_)
        throw std::invalid_argument(
            "execute: complex128 arrays given to a plan made for precision 'single'");
    if (!in || !out)
        throw std::invalid_argument("execute: null array");
    detail::with_memory_context("dense_fft_plan.execute", d_impl->sizes(), [&] {
        d_impl->engine->execute(in, out, where);
    });
}

void dense_fft_plan::execute_async(const void* in, void* out, void* cuda_stream)
{
    if (!in || !out)
        throw std::invalid_argument("execute_async: null array");
    d_impl->engine->execute_async(in, out, cuda_stream);
}

std::int64_t dense_fft_plan::size() const { return d_impl->cfg.n; }
std::int64_t dense_fft_plan::batch() const { return d_impl->cfg.batch; }
direction dense_fft_plan::direction() const { return d_impl->cfg.dir; }
precision dense_fft_plan::precision() const { return d_impl->cfg.prec; }
backend dense_fft_plan::backend() const { return d_impl->used; }
int dense_fft_plan::device_id() const { return d_impl->cfg.device_id; }
std::int64_t dense_fft_plan::extent() const { return d_impl->cfg.extent(); }

} // namespace gpufft
} // namespace gr
