/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// gpufft-bench fft: our dense FFT component against the libraries it wraps, in the same
// run: raw cuFFT (device-resident, and host-resident with pinned and pageable buffers)
// and raw FFTW with every host thread. Single precision unless --precision double.

#include "bench_common.h"
#include "core/fftw_lock.h"
#include "core/parallel_for.h"
#include "reference.h"
#include <gnuradio/gpufft/dense_fft_plan.h>
#include <gnuradio/gpufft/device.h>
#include <fftw3.h>
#include <algorithm>

#ifdef GPUFFT_HAVE_CUDA
#include "cuda/cuda_resources.h"
#endif

using namespace gr::gpufft;
using namespace gpufft_bench;

namespace {

template <typename T>
struct fftw_raw;
template <>
struct fftw_raw<float> {
    fftwf_plan p;
    fftw_raw(std::int64_t n,
             std::complex<float>* in,
             std::complex<float>* out,
             int threads)
    {
        std::lock_guard<std::mutex> l(detail::fftw_planner_mutex());
        fftwf_plan_with_nthreads(threads);
        fftwf_iodim64 d{ n, 1, 1 };
        p = fftwf_plan_guru64_dft(1,
                                  &d,
                                  0,
                                  nullptr,
                                  reinterpret_cast<fftwf_complex*>(in),
                                  reinterpret_cast<fftwf_complex*>(out),
                                  FFTW_FORWARD,
                                  FFTW_ESTIMATE);
    }
    ~fftw_raw() { fftwf_destroy_plan(p); }
    void run() { fftwf_execute(p); }
};
template <>
struct fftw_raw<double> {
    fftw_plan p;
    fftw_raw(std::int64_t n,
             std::complex<double>* in,
             std::complex<double>* out,
             int threads)
    {
        std::lock_guard<std::mutex> l(detail::fftw_planner_mutex());
        fftw_plan_with_nthreads(threads);
        fftw_iodim64 d{ n, 1, 1 };
        p = fftw_plan_guru64_dft(1,
                                 &d,
                                 0,
                                 nullptr,
                                 reinterpret_cast<fftw_complex*>(in),
                                 reinterpret_cast<fftw_complex*>(out),
                                 FFTW_FORWARD,
                                 FFTW_ESTIMATE);
    }
    ~fftw_raw() { fftw_destroy_plan(p); }
    void run() { fftw_execute(p); }
};

int host_threads() { return detail::hardware_threads(); }

//! Double-precision reference spectrum of x (FFTW double, all threads).
template <typename T>
std::vector<std::complex<double>> reference(const std::vector<std::complex<T>>& x)
{
    std::vector<std::complex<double>> in(x.begin(), x.end()), out(x.size());
    fftw_raw<double> ref(std::int64_t(x.size()), in.data(), out.data(), host_threads());
    ref.run();
    return out;
}

template <typename T>
const char* precision_name()
{
    return std::is_same<T, float>::value ? "single" : "double";
}

template <typename T>
result make_row(const std::string& backend_name,
                const std::string& device,
                const std::string& case_name,
                std::int64_t n)
{
    result r;
    r.engine = "fft";
    r.backend = backend_name;
    r.device = device;
    r.case_name = case_name;
    r.params["n"] = double(n);
    r.labels["precision"] = precision_name<T>();
    return r;
}

int reps_for(const options& opt, std::int64_t n, bool cpu)
{
    // Large CPU transforms take seconds each; the median of 5 is enough there.
    if (cpu && n >= (std::int64_t(1) << 26))
        return std::min(opt.reps, 5);
    return opt.reps;
}

template <typename T>
void bench_cpu(const options& opt,
               std::int64_t n,
               const std::vector<std::complex<T>>& x,
               const std::vector<std::complex<double>>& ref)
{
    const std::string dev = "cpu: " + cpu_name() + " x" + std::to_string(host_threads());
    std::vector<std::complex<T>> out(n, gpufft_test::poison<T>());
    dense_fft_options o;
    o.backend = backend::cpu;
    o.precision = std::is_same<T, float>::value ? precision::single : precision::double_;
    dense_fft_plan plan(n, 1, direction::forward, o);
    const int reps = reps_for(opt, n, true);
    const stats ours =
        time_host([&](int) { plan.execute(x.data(), out.data()); }, reps, 1);
    result r = make_row<T>("cpu", dev, "host", n);
    r.time = ours;
    r.errors["rel_l2_error"] = gpufft_test::rel_l2_error(out.data(), ref.data(), n);

    std::vector<std::complex<T>> in(x), raw_out(n);
    fftw_raw<T> raw(n, in.data(), raw_out.data(), host_threads());
    r.baseline_name = "fftw-threads";
    r.baseline_ms = time_host([&](int) { raw.run(); }, reps, 1).median_ms;
    report(r);
}

#ifdef GPUFFT_HAVE_CUDA
template <typename T>
struct cufft_types;
template <>
struct cufft_types<float> {
    static constexpr cufftType type = CUFFT_C2C;
    static void exec(cufftHandle h, void* in, void* out)
    {
        GPUFFT_CUFFT_CHECK(cufftExecC2C(h,
                                        static_cast<cufftComplex*>(in),
                                        static_cast<cufftComplex*>(out),
                                        CUFFT_FORWARD));
    }
};
template <>
struct cufft_types<double> {
    static constexpr cufftType type = CUFFT_Z2Z;
    static void exec(cufftHandle h, void* in, void* out)
    {
        GPUFFT_CUFFT_CHECK(cufftExecZ2Z(h,
                                        static_cast<cufftDoubleComplex*>(in),
                                        static_cast<cufftDoubleComplex*>(out),
                                        CUFFT_FORWARD));
    }
};

//! A plain cuFFT plan made the way a user would, for the baseline.
struct raw_cufft {
    cufftHandle h = 0;
    raw_cufft(std::int64_t n, cufftType type)
    {
        GPUFFT_CUFFT_CHECK(cufftCreate(&h));
        long long nn = n;
        std::size_t work = 0;
        GPUFFT_CUFFT_CHECK(cufftMakePlanMany64(
            h, 1, &nn, nullptr, 1, nn, nullptr, 1, nn, type, 1, &work));
    }
    ~raw_cufft() { cufftDestroy(h); }
};

template <typename T>
void bench_cuda(const options& opt,
                std::int64_t n,
                const std::vector<std::complex<T>>& x,
                const std::vector<std::complex<double>>& ref)
{
    using C = std::complex<T>;
    cuda::device_guard guard(opt.device);
    const std::string dev = device_name(opt.device);
    const std::size_t bytes = std::size_t(n) * sizeof(C);
    const int rot = rotation_count(bytes);
    dense_fft_options o;
    o.backend = backend::cuda;
    o.device_id = opt.device;
    o.precision = std::is_same<T, float>::value ? precision::single : precision::double_;
    dense_fft_plan plan(n, 1, direction::forward, o);
    raw_cufft raw(n, cufft_types<T>::type);
    cuda::stream s;
    GPUFFT_CUFFT_CHECK(cufftSetStream(raw.h, s.get()));

    // Device-resident: rotate among `rot` inputs so the L2 never holds the next one.
    {
        std::vector<cuda::device_buffer<C>> ins;
        for (int i = 0; i < rot; ++i) {
            ins.emplace_back(std::size_t(n));
            GPUFFT_CUDA_CHECK(
                cudaMemcpy(ins.back().get(), x.data(), bytes, cudaMemcpyHostToDevice));
        }
        cuda::device_buffer<C> out(n);
        GPUFFT_CUDA_CHECK(cudaMemset(out.get(), 0xff, bytes));
        result r = make_row<T>("cuda", dev, "device-resident", n);
        r.time = time_device(
            [&](int i) { plan.execute_async(ins[i % rot].get(), out.get(), s.get()); },
            s.get(),
            opt.reps);
        std::vector<C> got(n);
        GPUFFT_CUDA_CHECK(
            cudaMemcpy(got.data(), out.get(), bytes, cudaMemcpyDeviceToHost));
        r.errors["rel_l2_error"] = gpufft_test::rel_l2_error(got.data(), ref.data(), n);
        r.baseline_name = "cufft";
        r.baseline_ms =
            time_device(
                [&](int i) {
                    cufft_types<T>::exec(raw.h, ins[i % rot].get(), out.get());
                },
                s.get(),
                opt.reps)
                .median_ms;
        report(r);
    }

    // Host-resident: everything from host input to host output, both memory kinds.
    cuda::device_buffer<C> work(n);
    for (const bool pinned : { true, false }) {
        cuda::pinned_buffer<C> pin_in, pin_out;
        std::vector<C> page_in, page_out;
        C* in = nullptr;
        C* out = nullptr;
        if (pinned) {
            pin_in.allocate(n);
            pin_out.allocate(n);
            std::copy(x.begin(), x.end(), pin_in.get());
            in = pin_in.get();
            out = pin_out.get();
        } else {
            page_in = x;
            page_out.assign(n, gpufft_test::poison<T>());
            in = page_in.data();
            out = page_out.data();
        }
        std::fill(out, out + n, gpufft_test::poison<T>());
        result r = make_row<T>("cuda", dev, pinned ? "host-pinned" : "host-pageable", n);
        r.labels["memory"] = pinned ? "pinned" : "pageable";
        r.time = time_host([&](int) { plan.execute(in, out); }, opt.reps);
        r.errors["rel_l2_error"] = gpufft_test::rel_l2_error(out, ref.data(), n);
        r.baseline_name = "memcpy+cufft+memcpy";
        r.baseline_ms =
            time_host(
                [&](int) {
                    GPUFFT_CUDA_CHECK(cudaMemcpyAsync(
                        work.get(), in, bytes, cudaMemcpyHostToDevice, s.get()));
                    cufft_types<T>::exec(raw.h, work.get(), work.get());
                    GPUFFT_CUDA_CHECK(cudaMemcpyAsync(
                        out, work.get(), bytes, cudaMemcpyDeviceToHost, s.get()));
                    s.synchronize();
                },
                opt.reps)
                .median_ms;
        report(r);
    }
}
#endif

template <typename T>
int run(const options& opt)
{
    const bool want_cpu = opt.backend == "all" || opt.backend == "cpu";
    const bool want_cuda =
        (opt.backend == "all" || opt.backend == "cuda") && cuda_available(opt.device);
    if (opt.backend == "cuda" && !want_cuda)
        throw std::runtime_error("--backend cuda: " + describe_backend(opt.device));
    std::vector<std::int64_t> sizes = opt.sizes;
    if (sizes.empty())
        sizes = want_cuda ? std::vector<std::int64_t>{ 1 << 20, 1 << 24, 1 << 27 }
                          : std::vector<std::int64_t>{ 1 << 16, 1 << 20 };
    detail::init_fftw_threads();
    for (const std::int64_t n : sizes) {
        const auto x =
            gpufft_test::random_complex<T>(std::size_t(n), gpufft_test::fresh_seed());
        const auto ref = reference(x);
#ifdef GPUFFT_HAVE_CUDA
        if (want_cuda)
            bench_cuda<T>(opt, n, x, ref);
#endif
        if (want_cpu)
            bench_cpu<T>(opt, n, x, ref);
    }
    return 0;
}

int bench_fft(const options& opt)
{
    const precision p = parse_precision(opt.get("precision", "single"));
    return p == precision::single ? run<float>(opt) : run<double>(opt);
}

} // namespace

GPUFFT_BENCH_COMMAND(fft,
                     "dense FFT component vs raw cuFFT and FFTW threads "
                     "[--precision single|double]",
                     bench_fft);
