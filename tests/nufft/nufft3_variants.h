/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// One NUFFT test case, run three ways (as CUB runs each test): on the CPU backend, on the
// CUDA backend with host arrays, and on the CUDA backend with device arrays. A case is
// written once against a `nufft3_variant`:
//
//   GPUFFT_NUFFT3_TEST(plan_reuse)
//   {
//       nufft3_plan plan(1, 1e-6, v.options(precision::single));
//       v.set_points(plan, p);
//       GPUFFT_CHECK_LE(v.plan_error<float>(plan, p, seed), 1e-6);
//   }
//
// registers plan_reuse_cpu in test_nufft3_backends_cpu, and plan_reuse_cuda_host and
// plan_reuse_cuda_device in test_nufft3_backends_cuda (the same source built with
// GPUFFT_TEST_ON_CUDA), which skip where no GPU is usable (or the build has no CUDA).
// With device arrays the points and strengths are copied to the device, the copies of the
// coordinates are scribbled over and freed right after set_points (the plan must keep
// what it needs), and F is read back. GPU-specific cases stay in test_nufft3_cuda.cc.

#ifndef INCLUDED_GPUFFT_TEST_NUFFT3_VARIANTS_H
#define INCLUDED_GPUFFT_TEST_NUFFT3_VARIANTS_H

#include "gpu_skip.h"
#include "nufft/nufft3_checks.h"
#include "test_harness.h"
#include <gnuradio/gpufft/nufft3_plan.h>
#include <complex>
#include <cstdint>
#include <stdexcept>
#include <vector>

#ifdef GPUFFT_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace gpufft_test {

enum class nufft3_way { cpu, cuda_host, cuda_device };

struct nufft3_variant {
    nufft3_way way;

    const char* name() const
    {
        return way == nufft3_way::cpu         ? "cpu"
               : way == nufft3_way::cuda_host ? "cuda, host arrays"
                                              : "cuda, device arrays";
    }
    bool on_gpu() const { return way != nufft3_way::cpu; }
    //! Atomic adds on the GPU land in another order from run to run: results there agree
    //! to rounding where the CPU's agree bit for bit or nearly.
    double repeat_tolerance(bool single) const
    {
        return on_gpu() ? (single ? 1e-5 : 1e-13) : (single ? 1e-6 : 1e-14);
    }

    //! Options on this variant's backend; method grid (these cases are about the grid:
    //! their small point sets would take the direct sum under auto).
    gr::gpufft::nufft3_options
    options(gr::gpufft::precision p,
            gr::gpufft::nufft_kernel k = gr::gpufft::nufft_kernel::es,
            double upsampling = 0) const
    {
        gr::gpufft::nufft3_options o;
        o.backend = on_gpu() ? gr::gpufft::backend::cuda : gr::gpufft::backend::cpu;
        o.precision = p;
        o.kernel = k;
        o.upsampling = upsampling;
        o.method = gr::gpufft::nufft_method::grid;
        return o;
    }

    void set_points(gr::gpufft::nufft3_plan& plan, const nufft3_points& p) const
    {
        if (way != nufft3_way::cuda_device) {
            gpufft_test::set_points(plan, p);
            return;
        }
#ifdef GPUFFT_HAVE_CUDA
        const std::size_t n = p.x.size(), m = p.s.size();
        const std::vector<double>* host[6] = { &p.x, &p.y, &p.z, &p.s, &p.t, &p.u };
        double* d[6] = {};
        for (int i = 0; i < 6; ++i)
            if (!host[i]->empty())
                d[i] = static_cast<double*>(upload(host[i]->data(), host[i]->size() * 8));
        try {
            const int dim = p.dim();
            const auto dev = gr::gpufft::memory::device;
            if (dim == 1)
                plan.set_points(n, d[0], m, d[3], dev);
            else if (dim == 2)
                plan.set_points(n, d[0], d[1], m, d[3], d[4], dev);
            else
                plan.set_points(n, d[0], d[1], d[2], m, d[3], d[4], d[5], dev);
        } catch (...) {
            for (double* q : d)
                cudaFree(q);
            throw;
        }
        // Scribbled over and freed: a plan that still reads them gives wrong answers.
        for (int i = 0; i < 6; ++i)
            if (d[i]) {
                cudaMemset(d[i], 0xff, host[i]->size() * 8);
                cudaFree(d[i]);
            }
#else
        (void)plan;
        (void)p;
        throw std::logic_error("cuda_device variant in a build without CUDA");
#endif
    }

    //! execute on c (n * ntransf values) into F (m * ntransf), arrays where the
    //! variant keeps them; F comes back in host memory.
    template <typename T>
    void execute(gr::gpufft::nufft3_plan& plan,
                 const std::vector<std::complex<T>>& c,
                 std::vector<std::complex<T>>& F,
                 int ntransf = 1) const
    {
        if (way != nufft3_way::cuda_device) {
            plan.execute(c.data(), F.data(), gr::gpufft::memory::host, ntransf);
            return;
        }
#ifdef GPUFFT_HAVE_CUDA
        const std::size_t bytes_c = c.size() * sizeof(std::complex<T>);
        const std::size_t bytes_F = F.size() * sizeof(std::complex<T>);
        void* dc = upload(c.data(), bytes_c);
        void* dF = upload(F.data(), bytes_F);
        try {
            plan.execute(static_cast<const std::complex<T>*>(dc),
                         static_cast<std::complex<T>*>(dF),
                         gr::gpufft::memory::device,
                         ntransf);
        } catch (...) {
            cudaFree(dc);
            cudaFree(dF);
            throw;
        }
        const bool ok =
            cudaMemcpy(F.data(), dF, bytes_F, cudaMemcpyDeviceToHost) == cudaSuccess;
        cudaFree(dc);
        cudaFree(dF);
        if (!ok)
            throw std::runtime_error("test: reading F back failed");
#else
        (void)plan;
        (void)c;
        (void)F;
        (void)ntransf;
        throw std::logic_error("cuda_device variant in a build without CUDA");
#endif
    }

    //! Error against the direct sum on fresh strengths (nufft3_error: relative l2
    //! unless the output cancels; 1e300 when an output was left unwritten).
    template <typename T>
    double plan_error(gr::gpufft::nufft3_plan& plan,
                      const nufft3_points& p,
                      std::uint64_t seed) const
    {
        const auto c = random_complex<T>(p.x.size(), seed);
        std::vector<std::complex<T>> F(p.s.size(), poison<T>());
        execute(plan, c, F);
        if (!all_finite(F.data(), F.size()))
            return 1e300;
        const auto ref = direct_nudft(p, c.data(), plan.sign(), F.size());
        return nufft3_error(F.data(), ref.data(), F.size(), c.data(), c.size());
    }

    //! A batch of ntransf vectors against the direct sum on the first `check` targets
    //! (the largest error of any vector) and against single executes of each vector
    //! (the largest difference, in *batch_vs_single).
    template <typename T>
    double batch_error(gr::gpufft::nufft3_plan& plan,
                       const nufft3_points& p,
                       int ntransf,
                       std::uint64_t seed,
                       std::size_t check,
                       double* batch_vs_single) const
    {
        const std::size_t n = p.x.size(), m = p.s.size();
        const auto c = random_complex<T>(n * ntransf, seed);
        std::vector<std::complex<T>> F(m * ntransf, poison<T>()), one(m, poison<T>());
        execute(plan, c, F, ntransf);
        if (!all_finite(F.data(), F.size()))
            return 1e300;
        double worst = 0, diff = 0;
        for (int v = 0; v < ntransf; ++v) {
            const std::vector<std::complex<T>> cv(c.begin() + v * n,
                                                  c.begin() + (v + 1) * n);
            execute(plan, cv, one);
            diff = std::max(diff, rel_l2_error(F.data() + v * m, one.data(), m));
            const auto ref = direct_nudft(p, cv.data(), plan.sign(), check);
            worst = std::max(
                worst, nufft3_error(F.data() + v * m, ref.data(), check, cv.data(), n));
        }
        *batch_vs_single = diff;
        return worst;
    }

private:
#ifdef GPUFFT_HAVE_CUDA
    static void* upload(const void* host, std::size_t bytes)
    {
        void* d = nullptr;
        if (cudaMalloc(&d, bytes) != cudaSuccess)
            throw std::runtime_error("test: cudaMalloc failed");
        if (cudaMemcpy(d, host, bytes, cudaMemcpyHostToDevice) != cudaSuccess) {
            cudaFree(d);
            throw std::runtime_error("test: upload failed");
        }
        return d;
    }
#endif
};

//! Runs `body` for a variant, skipping the CUDA ones without a usable GPU.
inline void run_variant(void (*body)(const nufft3_variant&), nufft3_way way)
{
    if (way != nufft3_way::cpu)
        require_gpu();
    body(nufft3_variant{ way });
}

} // namespace gpufft_test

//! A case written once. Built without GPUFFT_TEST_ON_CUDA it registers NAME_cpu; with
//! it, NAME_cuda_host and NAME_cuda_device (one source, two programs: the GPU one is
//! labelled gpu and runs under the sanitizers case by case). The body sees
//! `const nufft3_variant& v`.
#ifndef GPUFFT_TEST_ON_CUDA
#define GPUFFT_NUFFT3_TEST(name)                                                      \
    static void gpufft_nufft3_##name(const gpufft_test::nufft3_variant& v);           \
    GPUFFT_TEST(name##_cpu)                                                           \
    {                                                                                 \
        gpufft_test::run_variant(gpufft_nufft3_##name, gpufft_test::nufft3_way::cpu); \
    }                                                                                 \
    static void gpufft_nufft3_##name(const gpufft_test::nufft3_variant& v)
#else
#define GPUFFT_NUFFT3_TEST(name)                                            \
    static void gpufft_nufft3_##name(const gpufft_test::nufft3_variant& v); \
    GPUFFT_TEST(name##_cuda_host)                                           \
    {                                                                       \
        gpufft_test::run_variant(gpufft_nufft3_##name,                      \
                                 gpufft_test::nufft3_way::cuda_host);       \
    }                                                                       \
    GPUFFT_TEST(name##_cuda_device)                                         \
    {                                                                       \
        gpufft_test::run_variant(gpufft_nufft3_##name,                      \
                                 gpufft_test::nufft3_way::cuda_device);     \
    }                                                                       \
    static void gpufft_nufft3_##name(const gpufft_test::nufft3_variant& v)
#endif

#endif /* INCLUDED_GPUFFT_TEST_NUFFT3_VARIANTS_H */
