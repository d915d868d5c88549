/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "core/fftw_lock.h"
#include "dense/dense_fft_backend.h"
#include <fftw3.h>
#include <array>
#include <stdexcept>

namespace gr {
namespace gpufft {
namespace detail {

namespace {

// FFTW's two precisions behind one interface; the planner calls need the global lock.
template <typename Real>
struct fftw_api;

template <>
struct fftw_api<float> {
    using plan_t = fftwf_plan;
    using complex_t = fftwf_complex;
    static plan_t plan(const dense_fft_config& c, complex_t* in, complex_t* out)
    {
        fftwf_iodim64 dim{ c.n, c.stride, c.stride };
        fftwf_iodim64 many{ c.batch, c.distance, c.distance };
        fftwf_plan_with_nthreads(c.threads);
        return fftwf_plan_guru64_dft(
            1, &dim, 1, &many, in, out, int(c.dir), FFTW_ESTIMATE);
    }
    static void execute(plan_t p, complex_t* in, complex_t* out)
    {
        fftwf_execute_dft(p, in, out);
    }
    static void destroy(plan_t p) { fftwf_destroy_plan(p); }
    static int alignment_of(void* p)
    {
        return fftwf_alignment_of(static_cast<float*>(p));
    }
};

template <>
struct fftw_api<double> {
    using plan_t = fftw_plan;
    using complex_t = fftw_complex;
    static plan_t plan(const dense_fft_config& c, complex_t* in, complex_t* out)
    {
        fftw_iodim64 dim{ c.n, c.stride, c.stride };
        fftw_iodim64 many{ c.batch, c.distance, c.distance };
        fftw_plan_with_nthreads(c.threads);
        return fftw_plan_guru64_dft(
            1, &dim, 1, &many, in, out, int(c.dir), FFTW_ESTIMATE);
    }
    static void execute(plan_t p, complex_t* in, complex_t* out)
    {
        fftw_execute_dft(p, in, out);
    }
    static void destroy(plan_t p) { fftw_destroy_plan(p); }
    static int alignment_of(void* p)
    {
        return fftw_alignment_of(static_cast<double*>(p));
    }
};

/*
 * FFTW plans depend on whether the transform is in place and on the arrays' SIMD
 * alignment, so new-array execution is only legal for arrays like the planned ones. We
 * keep one plan per (in place, input alignment, output alignment) and make each on first
 * use; FFTW_ESTIMATE never touches the arrays while planning.
 */
template <typename Real>
class dense_fft_fftw final : public dense_fft_backend
{
    using api = fftw_api<Real>;
    using plan_t = typename api::plan_t;
    using complex_t = typename api::complex_t;

public:
    explicit dense_fft_fftw(const dense_fft_config& cfg) : d_cfg(cfg)
    {
        d_plans.fill(nullptr);
    }
    ~dense_fft_fftw() override
    {
        std::lock_guard<std::mutex> lock(fftw_planner_mutex());
        for (auto p : d_plans)
            if (p)
                api::destroy(p);
    }

    void execute(const void* in, void* out, memory where) override
    {
        if (where != memory::host)
            throw std::invalid_argument(
                "memory: device arrays need the cuda backend; this plan runs on the cpu");
        auto* i = const_cast<complex_t*>(static_cast<const complex_t*>(in));
        auto* o = static_cast<complex_t*>(out);
        const int variant = (i == o ? 4 : 0) | (api::alignment_of(i) ? 2 : 0) |
                            (api::alignment_of(o) ? 1 : 0);
        plan_t& p = d_plans[variant];
        if (!p) {
            std::lock_guard<std::mutex> lock(fftw_planner_mutex());
            p = api::plan(d_cfg, i, o);
            if (!p)
                throw std::runtime_error("FFTW could not plan a transform of n=" +
                                         std::to_string(d_cfg.n));
        }
        api::execute(p, i, o);
    }

    void execute_async(const void*, void*, void*) override
    {
        throw std::invalid_argument("execute_async: needs the cuda backend");
    }

private:
    dense_fft_config d_cfg;
    std::array<plan_t, 8> d_plans;
};

} // namespace

std::unique_ptr<dense_fft_backend> make_dense_fft_cpu(const dense_fft_config& cfg)
{
    init_fftw_threads();
    if (cfg.prec == precision::single)
        return std::make_unique<dense_fft_fftw<float>>(cfg);
    return std::make_unique<dense_fft_fftw<double>>(cfg);
}

} // namespace detail
} // namespace gpufft
} // namespace gr
