/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "core/fftw_lock.h"
#include "core/memory_error.h"
#include "nufft/nufft3_backend.h"
#include <gnuradio/gpufft/device.h>
#include <gnuradio/gpufft/nufft3_plan.h>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace gr {
namespace gpufft {

// The names of kernel, spread and method, and their parsers: nufft3_names.cc.

class nufft3_plan::impl
{
public:
    nufft::nufft3_config cfg;
    gpufft::backend used = gpufft::backend::cpu;
    std::unique_ptr<nufft::nufft3_backend> engine;
    std::int64_t n_src = 0, n_tgt = 0;

    void set_points(std::int64_t n_sources,
                    const double* const* src,
                    std::int64_t n_targets,
                    const double* const* tgt,
                    int given_dim,
                    memory where);
    template <typename T>
    void execute(const std::complex<T>* c, std::complex<T>* F, memory where, int ntransf);
};

nufft3_plan::nufft3_plan(int dim, double eps, const nufft3_options& options)
    : d_impl(std::make_unique<impl>())
{
    if (dim < 1 || dim > nufft::max_dim)
        throw std::invalid_argument("dim: " + std::to_string(dim) +
                                    " is unsupported; use 1, 2 or 3");
    nufft::validate_eps(eps, options.precision);
    if (options.sign != -1 && options.sign != 1)
        throw std::invalid_argument("sign: " + std::to_string(options.sign) +
                                    " is invalid; use -1 or +1");
    if (options.kernel == nufft_kernel::es && options.upsampling != 0 &&
        !(options.upsampling >= 1.25 && options.upsampling <= 2.0)) {
        std::ostringstream os;
        os << "upsampling: " << options.upsampling
           << " is invalid for the es kernel; use 0 (auto) or 1.25 <= upsampling <= 2";
        throw std::invalid_argument(os.str());
    }
    if (options.kernel == nufft_kernel::gaussian && options.upsampling != 0 &&
        !(options.upsampling > 2.0 && options.upsampling <= 4.0)) {
        std::ostringstream os;
        os << "upsampling: " << options.upsampling
           << " is invalid for the gaussian kernel; its rules need 2 < R <= 4 (0: auto)";
        throw std::invalid_argument(os.str());
    }
    if (options.threads < 0)
        throw std::invalid_argument("threads: " + std::to_string(options.threads) +
                                    " is invalid; must be >= 0 (0: all cores)");
    auto& c = d_impl->cfg;
    c.dim = dim;
    c.eps = eps;
    c.prec = options.precision;
    c.sign = options.sign;
    c.kernel = options.kernel;
    c.upsampling = options.upsampling;
    c.memory_budget = options.memory_budget;
    c.threads = detail::cpu_threads(options.threads, 1 << 20);
    c.trace = options.trace;
    c.spread = options.spread;
    c.method = options.method;
    c.log = options.log;
    // The Gaussian's rule for a given eps must be representable before any points come.
    // A kernel that cannot reach eps is a constructor error, not a set_points one; a
    // single-precision plan whose eps only a double grid reaches gets one. The direct
    // sum reaches any eps, so a plan asked for it needs no grid that does.
    if (options.method == nufft_method::direct)
        c.grid_prec = options.precision;
    else
        c.grid_prec = nufft::grid_precision(
            options.kernel, dim, eps, options.upsampling, options.precision);

    d_impl->used = resolve_backend(options.backend, options.device_id, options.log);
    detail::with_memory_context(
        "nufft3_plan",
        [dim] { return std::to_string(dim) + "-D plan"; },
        [&] {
            if (d_impl->used == gpufft::backend::cuda) {
#ifdef GPUFFT_HAVE_CUDA
                c.device_id = resolve_device_id(options.device_id);
                d_impl->engine = nufft::make_nufft3_cuda(c);
#endif
            } else {
                c.device_id = -1;
                d_impl->engine = nufft::make_nufft3_cpu(c);
            }
        });
}

nufft3_plan::~nufft3_plan() = default;
nufft3_plan::nufft3_plan(nufft3_plan&&) noexcept = default;
nufft3_plan& nufft3_plan::operator=(nufft3_plan&&) noexcept = default;

namespace {

void check_array(const char* name, const void* p, std::int64_t n)
{
    if (!p)
        throw std::invalid_argument(std::string(name) + ": null pointer for " +
                                    std::to_string(n) + " points");
}

// A NaN or infinite strength makes every output NaN; host strengths are checked (one
// pass, small beside the spreading), device ones are the caller's (nufft3_plan.h).
template <typename T>
void check_finite_strengths(const std::complex<T>* c, std::int64_t n, memory where)
{
    if (where != memory::host)
        return;
    for (std::int64_t j = 0; j < n; ++j)
        if (!std::isfinite(c[j].real()) || !std::isfinite(c[j].imag()))
            throw std::invalid_argument("c: strength " + std::to_string(j) +
                                        " is NaN or infinite; every strength must be "
                                        "finite");
}

void check_count(const char* what, std::int64_t n)
{
    if (n <= 0)
        throw std::invalid_argument(std::string(what) + ": " + std::to_string(n) +
                                    " points; at least one is needed");
    if (n > (std::int64_t(1) << 31) - 1)
        throw std::invalid_argument(std::string(what) + ": " + std::to_string(n) +
                                    " points; at most 2^31 - 1 per set_points");
}

} // namespace

void nufft3_plan::impl::set_points(std::int64_t n_sources,
                                   const double* const* src,
                                   std::int64_t n_targets,
                                   const double* const* tgt,
                                   int given_dim,
                                   memory where)
{
    static const char* const src_name[] = { "x", "y", "z" };
    static const char* const tgt_name[] = { "s", "t", "u" };
    static const char* const forms[] = {
        "", "x and s", "x, y and s, t", "x, y, z and s, t, u"
    };
    if (cfg.dim != given_dim)
        throw std::invalid_argument("set_points: this plan is " +
                                    std::to_string(cfg.dim) + "D; pass " +
                                    forms[cfg.dim] + " only");
    check_count("n_sources", n_sources);
    check_count("n_targets", n_targets);
    for (int a = 0; a < cfg.dim; ++a)
        check_array(src_name[a], src[a], n_sources);
    for (int a = 0; a < cfg.dim; ++a)
        check_array(tgt_name[a], tgt[a], n_targets);
    n_src = n_tgt = 0; // unusable until set_points succeeds
    engine->set_points(n_sources, src, n_targets, tgt, where);
    n_src = n_sources;
    n_tgt = n_targets;
}

namespace {
// Sizes in words, for out-of-memory errors.
auto points_sizes(std::int64_t n_sources, std::int64_t n_targets)
{
    return [=] {
        return std::to_string(n_sources) + " sources and " + std::to_string(n_targets) +
               " targets";
    };
}
auto execute_sizes(const nufft3_plan& p, int ntransf)
{
    return [&p, ntransf] {
        std::string grid;
        for (int a = 0; a < p.dim(); ++a)
            grid += (a ? " x " : "") + std::to_string(p.grid_size(a));
        return std::to_string(ntransf) + " strength vector(s) of " +
               std::to_string(p.n_sources()) + " sources, " +
               std::to_string(p.n_targets()) + " targets, fine grid " + grid;
    };
}
} // namespace

void nufft3_plan::set_points(std::int64_t n_sources,
                             const double* x,
                             std::int64_t n_targets,
                             const double* s,
                             memory where)
{
    const double* src[] = { x };
    const double* tgt[] = { s };
    detail::with_memory_context(
        "nufft3_plan.set_points", points_sizes(n_sources, n_targets), [&] {
            d_impl->set_points(n_sources, src, n_targets, tgt, 1, where);
        });
}

void nufft3_plan::set_points(std::int64_t n_sources,
                             const double* x,
                             const double* y,
                             std::int64_t n_targets,
                             const double* s,
                             const double* t,
                             memory where)
{
    const double* src[] = { x, y };
    const double* tgt[] = { s, t };
    detail::with_memory_context(
        "nufft3_plan.set_points", points_sizes(n_sources, n_targets), [&] {
            d_impl->set_points(n_sources, src, n_targets, tgt, 2, where);
        });
}

void nufft3_plan::set_points(std::int64_t n_sources,
                             const double* x,
                             const double* y,
                             const double* z,
                             std::int64_t n_targets,
                             const double* s,
                             const double* t,
                             const double* u,
                             memory where)
{
    const double* src[] = { x, y, z };
    const double* tgt[] = { s, t, u };
    detail::with_memory_context(
        "nufft3_plan.set_points", points_sizes(n_sources, n_targets), [&] {
            d_impl->set_points(n_sources, src, n_targets, tgt, 3, where);
        });
}

template <typename T>
void nufft3_plan::impl::execute(const std::complex<T>* c,
                                std::complex<T>* F,
                                memory where,
                                int ntransf)
{
    const gpufft::precision want =
        sizeof(T) == 4 ? gpufft::precision::single : gpufft::precision::double_;
    if (cfg.prec != want)
        throw std::invalid_argument(
            cfg.prec == precision::double_
                ? "execute: this plan is double precision; pass complex<double>"
                : "execute: this plan is single precision; pass complex<float>");
    if (ntransf < 1)
        throw std::invalid_argument("ntransf: " + std::to_string(ntransf) +
                                    " strength vectors; at least 1 is needed");
    if (n_src == 0)
        throw std::runtime_error("execute: call set_points first");
    check_array("c", c, n_src);
    check_array("F", F, n_tgt);
    check_finite_strengths(c, n_src * std::int64_t(ntransf), where);
    engine->execute(c, F, where, ntransf);
}

void nufft3_plan::execute(const std::complex<float>* c,
                          std::complex<float>* F,
                          memory where,
                          int ntransf)
{
    detail::with_memory_context("nufft3_plan.execute",
                                execute_sizes(*this, ntransf),
                                [&] { d_impl->execute(c, F, where, ntransf); });
}

void nufft3_plan::execute(const std::complex<double>* c,
                          std::complex<double>* F,
                          memory where,
                          int ntransf)
{
    detail::with_memory_context("nufft3_plan.execute",
                                execute_sizes(*this, ntransf),
                                [&] { d_impl->execute(c, F, where, ntransf); });
}

int nufft3_plan::dim() const { return d_impl->cfg.dim; }
double nufft3_plan::eps() const { return d_impl->cfg.eps; }
gpufft::precision nufft3_plan::precision() const { return d_impl->cfg.prec; }
gpufft::backend nufft3_plan::backend() const { return d_impl->used; }
int nufft3_plan::device_id() const { return d_impl->cfg.device_id; }
int nufft3_plan::sign() const { return d_impl->cfg.sign; }
nufft_kernel nufft3_plan::kernel() const { return d_impl->cfg.kernel; }
std::int64_t nufft3_plan::n_sources() const { return d_impl->n_src; }
std::int64_t nufft3_plan::n_targets() const { return d_impl->n_tgt; }
std::int64_t nufft3_plan::grid_size(int axis) const
{
    if (axis < 0 || axis >= nufft::max_dim)
        throw std::invalid_argument("axis: must be 0, 1 or 2");
    if (d_impl->n_src == 0 || d_impl->engine->current_geometry().direct)
        return 0;
    if (axis >= d_impl->cfg.dim)
        return 1;
    return d_impl->engine->current_geometry().axis[axis].cells;
}
double nufft3_plan::kernel_width() const
{
    return d_impl->n_src ? d_impl->engine->current_geometry().kernel.taps : 0;
}
double nufft3_plan::upsampling() const
{
    return d_impl->n_src ? d_impl->engine->current_geometry().sigma : 0;
}
nufft_method nufft3_plan::method() const
{
    if (!d_impl->n_src)
        return nufft_method::automatic;
    return d_impl->engine->current_geometry().direct ? nufft_method::direct
                                                     : nufft_method::grid;
}

std::string nufft3_plan::describe() const
{
    const auto& c = d_impl->cfg;
    std::ostringstream os;
    os << "nufft3_plan: " << c.dim << "-D, " << to_string(c.prec) << " precision, eps "
       << c.eps << ", " << (d_impl->used == gpufft::backend::cuda ? "cuda" : "cpu")
       << ", method " << to_string(c.method);
    if (!d_impl->n_src) {
        os << "; no points set";
        return os.str();
    }
    const auto& g = d_impl->engine->current_geometry();
    os << "; " << d_impl->n_src << " sources -> " << d_impl->n_tgt << " targets: ";
    if (g.direct) {
        os << "direct sum of " << double(d_impl->n_src) * double(d_impl->n_tgt)
           << " terms per vector (in double)";
    } else {
        os << "grid of ";
        for (int a = 0; a < c.dim; ++a)
            os << (a ? " x " : "") << g.axis[a].cells;
        os << " cells in " << to_string(c.grid_prec) << " precision"
           << (c.grid_prec != c.prec ? " (no single-precision grid reaches eps)" : "")
           << ", " << to_string(c.kernel) << " kernel of " << g.kernel.taps
           << " taps at upsampling " << g.sigma;
    }
    if (!g.reason.empty())
        os << " (" << g.reason << ")";
    return os.str();
}

} // namespace gpufft
} // namespace gr
