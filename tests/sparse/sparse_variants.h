/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// One sparse FFT test case, run three ways (as nufft3_variants.h runs the NUFFT's): on
// the CPU backend, on the CUDA backend with host frames, and on the CUDA backend with
// device frames. A case is written once against a `sparse_variant`:
//
//   GPUFFT_SPARSE_TEST(fewer_tones_than_k)
//   {
//       auto plan = v.plan(1 << 20, 60, exact_options());
//       check_sparse(plan, 9, fresh_seed(), v.exec());
//   }
//
// registers fewer_tones_than_k_cpu in test_sparse_backends_cpu, and
// fewer_tones_than_k_cuda_host and fewer_tones_than_k_cuda_device in
// test_sparse_backends_cuda (the same source built with GPUFFT_TEST_ON_CUDA), which skip
// where no GPU is usable (or the build has no CUDA). With device frames every frame is
// copied to the device (and waited for: the plan runs on a stream of its own) and the
// plan reads it there. GPU-specific cases (transfers, graphs, large device-built frames,
// the GPU against the CPU) stay in test_sparse_fft_cuda.cc and
// test_sparse_robust_cuda.cc.
//
// The plan's path: the CUDA cost model (measured on the GPU, docs/sparse_fft.md) sends
// to the dense path sizes that the CPU's keeps on the sparse one (robust mode below
// n ~ 6M, always). A case asks for the path the CPU planner picks, and the CUDA variants
// get it (the CPU planner's bucket count, or force_dense), so that every variant runs
// the same parameters and the same checks; the GPU tests did this with bucket overrides.

#ifndef INCLUDED_GPUFFT_TEST_SPARSE_VARIANTS_H
#define INCLUDED_GPUFFT_TEST_SPARSE_VARIANTS_H

#include "gpu_skip.h"
#include "sparse/common/sparse_params.h"
#include "sparse/sparse_checks.h"
#include "test_harness.h"
#include <gnuradio/gpufft/sparse_fft_plan.h>
#include <complex>
#include <cstdint>
#include <stdexcept>
#include <vector>

#ifdef GPUFFT_HAVE_CUDA
#include "cuda/cuda_check.h"
#include "cuda/cuda_resources.h"
#endif

namespace gpufft_test {

enum class sparse_way { cpu, cuda_host, cuda_device };

struct sparse_variant {
    sparse_way way;

    const char* name() const
    {
        return way == sparse_way::cpu         ? "cpu"
               : way == sparse_way::cuda_host ? "cuda, host frames"
                                              : "cuda, device frames";
    }
    bool on_gpu() const { return way != sparse_way::cpu; }
    gr::gpufft::memory where() const
    {
        return way == sparse_way::cuda_device ? gr::gpufft::memory::device
                                              : gr::gpufft::memory::host;
    }
    //! Two runs of one frame: the CPU's agree bit for bit; the GPU's value kernels sum
    //! with float atomics, whose order changes from run to run (relative to the largest
    //! value; the GPU-against-CPU tests allow the same).
    double repeat_tolerance() const { return on_gpu() ? 2e-6 : 0.0; }

    //! o on this variant's backend, on the path the CPU planner picks for (n, k, o).
    gr::gpufft::sparse_fft_options
    options(std::int64_t n, std::int64_t k, gr::gpufft::sparse_fft_options o) const
    {
        using gr::gpufft::backend;
        o.backend = on_gpu() ? backend::cuda : backend::cpu;
        if (!on_gpu())
            return o;
        gr::gpufft::detail::sparse_params cpu, gpu;
        try {
            cpu = gr::gpufft::detail::choose_sparse_params(n, k, o, backend::cpu);
            gpu = gr::gpufft::detail::choose_sparse_params(n, k, o, backend::cuda);
        } catch (const std::invalid_argument&) {
            return o; // the plan reports it
        }
        if (cpu.dense && !gpu.dense)
            o.force_dense = true;
        else if (!cpu.dense && gpu.dense)
            o.buckets = cpu.c.B; // an override keeps the sparse path
        return o;
    }

    //! A plan of (n, k) with options(n, k, o).
    gr::gpufft::sparse_fft_plan
    plan(std::int64_t n, std::int64_t k, const gr::gpufft::sparse_fft_options& o) const
    {
        return gr::gpufft::sparse_fft_plan(n, k, options(n, k, o));
    }

    //! plan.execute on a frame held on the host: from there, or from a device copy.
    void execute(gr::gpufft::sparse_fft_plan& plan,
                 const std::vector<cf>& x,
                 std::vector<std::int64_t>& bins,
                 std::vector<cf>& values) const
    {
        if (way != sparse_way::cuda_device) {
            plan.execute(x.data(), bins, values);
            return;
        }
#ifdef GPUFFT_HAVE_CUDA
        const auto d = upload(x);
        plan.execute(d.get(), bins, values, gr::gpufft::memory::device);
#else
        (void)plan;
        (void)bins;
        (void)values;
        throw std::logic_error("cuda_device variant in a build without CUDA");
#endif
    }

    //! plan.detect on a frame held on the host: from there, or from a device copy.
    void detect(gr::gpufft::sparse_fft_plan& plan,
                const std::vector<cf>& x,
                std::vector<gr::gpufft::sparse_tone>& tones) const
    {
        if (way != sparse_way::cuda_device) {
            plan.detect(x.data(), tones);
            return;
        }
#ifdef GPUFFT_HAVE_CUDA
        const auto d = upload(x);
        plan.detect(d.get(), tones, gr::gpufft::memory::device);
#else
        (void)plan;
        (void)tones;
        throw std::logic_error("cuda_device variant in a build without CUDA");
#endif
    }

    //! execute() as the checks of sparse_checks.h take it (valid while *this is).
    sparse_exec exec() const
    {
        return [this](gr::gpufft::sparse_fft_plan& plan,
                      const std::vector<cf>& x,
                      std::vector<std::int64_t>& bins,
                      std::vector<cf>& values) { execute(plan, x, bins, values); };
    }

private:
#ifdef GPUFFT_HAVE_CUDA
    static gr::gpufft::cuda::device_buffer<cf> upload(const std::vector<cf>& x)
    {
        gr::gpufft::cuda::device_buffer<cf> d(x.size());
        GPUFFT_CUDA_CHECK(
            cudaMemcpy(d.get(), x.data(), x.size() * sizeof(cf), cudaMemcpyHostToDevice));
        // A pageable cudaMemcpy may return before its data lands, and the plan works on
        // a stream of its own that does not wait for it.
        GPUFFT_CUDA_CHECK(cudaDeviceSynchronize());
        return d;
    }
#endif
};

//! Runs `body` for a variant, skipping the CUDA ones without a usable GPU.
inline void run_variant(void (*body)(const sparse_variant&), sparse_way way)
{
    if (way != sparse_way::cpu)
        require_gpu();
    body(sparse_variant{ way });
}

} // namespace gpufft_test

//! A case written once. Built without GPUFFT_TEST_ON_CUDA it registers NAME_cpu; with
//! it, NAME_cuda_host and NAME_cuda_device (one source, two programs: the GPU one is
//! labelled gpu). The body sees `const sparse_variant& v`.
#ifndef GPUFFT_TEST_ON_CUDA
#define GPUFFT_SPARSE_TEST(name)                                                      \
    static void gpufft_sparse_##name(const gpufft_test::sparse_variant& v);           \
    GPUFFT_TEST(name##_cpu)                                                           \
    {                                                                                 \
        gpufft_test::run_variant(gpufft_sparse_##name, gpufft_test::sparse_way::cpu); \
    }                                                                                 \
    static void gpufft_sparse_##name(const gpufft_test::sparse_variant& v)
#else
#define GPUFFT_SPARSE_TEST(name)                                            \
    static void gpufft_sparse_##name(const gpufft_test::sparse_variant& v); \
    GPUFFT_TEST(name##_cuda_host)                                           \
    {                                                                       \
        gpufft_test::run_variant(gpufft_sparse_##name,                      \
                                 gpufft_test::sparse_way::cuda_host);       \
    }                                                                       \
    GPUFFT_TEST(name##_cuda_device)                                         \
    {                                                                       \
        gpufft_test::run_variant(gpufft_sparse_##name,                      \
                                 gpufft_test::sparse_way::cuda_device);     \
    }                                                                       \
    static void gpufft_sparse_##name(const gpufft_test::sparse_variant& v)
#endif

#endif /* INCLUDED_GPUFFT_TEST_SPARSE_VARIANTS_H */
