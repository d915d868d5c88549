/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// gpufft-bench sparse: the sparse FFT against a dense FFT + top-k in the same run.
//   CUDA, device-resident input: ours vs cuFFT + radix-select top-k (and cuFFT alone);
//   CUDA, host-resident input (pinned, pageable): ours (gather or copy, chosen by the
//     plan) vs copy all n + cuFFT + top-k;
//   CPU: ours vs FFTW (all threads) + top-k.
// Every case also runs --trials fresh random k-sparse signals and prints the misses and
// the worst value error (relative to max |X|) beside the time. Times are wall clock from
// the call to the bins and values in host memory, for ours and the baselines alike.
//
// Extra options: --trials N (10), --host-max SIZE (2^27: largest n for host-resident
// cases), --cpu-max SIZE (2^24: largest n for the CPU backend), --location phase|voting
// (phase: the sparse plans' location method; voting is the papers' one, see
// docs/sparse_fft.md).

#include "bench_common.h"
#include "core/parallel_for.h"
#include "sparse/sparse_checks.h"
#include <gnuradio/gpufft/dense_fft_plan.h>
#include <gnuradio/gpufft/device.h>
#include <gnuradio/gpufft/sparse_fft_plan.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <stdexcept>

#ifdef GPUFFT_HAVE_CUDA
#include "cuda/cuda_resources.h"
#include "sparse/common/sparse_signal_cuda.h"
#endif

using namespace gr::gpufft;
using namespace gpufft_bench;
using cf = std::complex<float>;

namespace {

//! A k-sparse test signal's truth: bins (random, with a run of adjacent bins, DC and the
//! last bin) and values (random phase, |X| in [0.1, 1] n).
struct truth {
    std::vector<std::int64_t> bins;
    std::vector<cf> values;
    std::map<std::int64_t, cf> map;
    double peak = 0;
};

truth make_truth(std::int64_t n, std::int64_t k, std::uint64_t seed)
{
    truth t;
    t.bins = gpufft_test::sparse_bins(n, k, seed);
    std::mt19937_64 rng(seed ^ 0x5bd1e995);
    std::uniform_real_distribution<double> mag(0.1, 1.0), ph(0, 2 * M_PI);
    for (auto f : t.bins) {
        const cf v = cf(std::polar(mag(rng), ph(rng)) * double(n));
        t.values.push_back(v);
        t.map[f] = v;
        t.peak = std::max(t.peak, double(std::abs(v)));
    }
    return t;
}

struct score {
    std::int64_t misses = 0;
    double max_error = 0;
    void add(const truth& t,
             const std::vector<std::int64_t>& bins,
             const std::vector<cf>& vals)
    {
        for (auto f : t.bins)
            misses += std::binary_search(bins.begin(), bins.end(), f) ? 0 : 1;
        for (std::size_t i = 0; i < bins.size(); ++i) {
            auto it = t.map.find(bins[i]);
            const cf want = it == t.map.end() ? cf(0, 0) : it->second;
            const double e =
                std::abs(std::complex<double>(vals[i]) - std::complex<double>(want)) /
                t.peak;
            max_error = std::isfinite(e) ? std::max(max_error, e) : INFINITY;
        }
    }
};

result make_row(const std::string& backend_name,
                const std::string& device,
                const std::string& case_name,
                std::int64_t n,
                std::int64_t k,
                const sparse_fft_plan& plan)
{
    result r;
    r.engine = "sparse";
    r.backend = backend_name;
    r.device = device;
    r.case_name = case_name;
    r.params["n"] = double(n);
    r.params["k"] = double(k);
    r.params["samples_read"] = double(plan.samples_read());
    const std::string d = plan.describe();
    const auto num_after = [&](const char* key) {
        const auto at = d.find(key);
        return at == std::string::npos ? 0.0
                                       : std::atof(d.c_str() + at + std::strlen(key));
    };
    r.params["loops"] = num_after("loops=");
    r.params["cg"] = num_after("cg=");
    r.labels["location"] =
        plan.describe().find("location=voting") != std::string::npos ? "voting" : "phase";
    return r;
}

int host_threads() { return detail::hardware_threads(); }

void bench_cpu(const options& opt, std::int64_t n, std::int64_t k, int trials)
{
    const std::string dev = "cpu: " + cpu_name() + " x" + std::to_string(host_threads());
    sparse_fft_options o;
    o.mode = sparse_fft_mode::exact;
    o.backend = backend::cpu;
    o.location = parse_sparse_fft_location(opt.get("location", "phase"));
    o.loops = std::stoi(opt.get("loops", "0"));
    o.value_iterations = std::stoi(opt.get("cg", "0"));
    sparse_fft_plan plan(n, k, o);
    o.force_dense = true;
    sparse_fft_plan dense(n, k, o);
    std::printf("# %s\n", plan.describe().c_str());

    std::vector<std::int64_t> bins;
    std::vector<cf> vals;
    score ours, base;
    std::vector<cf> x;
    truth t;
    for (int i = 0; i < trials; ++i) {
        const std::uint64_t seed = gpufft_test::fresh_seed();
        t = make_truth(n, k, seed);
        x = gpufft_test::sparse_signal(n, t.bins, seed); // same values as make_truth
        plan.execute(x.data(), bins, vals);
        ours.add(t, bins, vals);
        if (i == 0) {
            dense.execute(x.data(), bins, vals);
            base.add(t, bins, vals);
        }
    }
    const int reps = n >= (std::int64_t(1) << 24) ? std::min(opt.reps, 5) : opt.reps;
    result r = make_row("cpu", dev, "host", n, k, plan);
    r.time = time_host([&](int) { plan.execute(x.data(), bins, vals); }, opt.reps);
    r.baseline_name = "fftw-threads+topk";
    r.baseline_ms =
        time_host([&](int) { dense.execute(x.data(), bins, vals); }, reps, 1).median_ms;
    r.errors["misses"] = double(ours.misses);
    r.errors["trials"] = trials;
    r.errors["max_error"] = ours.max_error;
    r.errors["baseline_misses"] = double(base.misses);
    r.errors["baseline_max_error"] = base.max_error;
    report(r);
}

#ifdef GPUFFT_HAVE_CUDA
void bench_cuda(
    const options& opt, std::int64_t n, std::int64_t k, int trials, std::int64_t host_max)
{
    cuda::device_guard guard(opt.device);
    const std::string dev = device_name(opt.device);
    sparse_fft_options o;
    o.mode = sparse_fft_mode::exact;
    o.backend = backend::cuda;
    o.device_id = opt.device;
    o.location = parse_sparse_fft_location(opt.get("location", "phase"));
    o.loops = std::stoi(opt.get("loops", "0"));
    o.value_iterations = std::stoi(opt.get("cg", "0"));
    sparse_fft_plan plan(n, k, o);
    sparse_fft_options od = o;
    od.force_dense = true;
    sparse_fft_plan dense(n, k, od);
    std::printf("# %s\n", plan.describe().c_str());

    // Rotating device inputs, each its own signal, so the samples one call reads are not
    // in L2 for the next.
    const int rot = n <= (std::int64_t(1) << 28) ? 3 : 2;
    std::vector<cuda::device_buffer<cf>> xs;
    std::vector<truth> ts;
    for (int i = 0; i < rot; ++i) {
        xs.emplace_back(std::size_t(n));
        ts.push_back(make_truth(n, k, gpufft_test::fresh_seed()));
        detail::make_sparse_signal_device(
            n, ts.back().bins, ts.back().values, xs.back().get());
    }

    std::vector<std::int64_t> bins;
    std::vector<cf> vals;
    score ours, base;
    {
        cuda::device_buffer<cf> trial_x(n);
        for (int i = 0; i < trials; ++i) {
            const truth t = make_truth(n, k, gpufft_test::fresh_seed());
            detail::make_sparse_signal_device(n, t.bins, t.values, trial_x.get());
            plan.execute(trial_x.get(), bins, vals, memory::device);
            ours.add(t, bins, vals);
            if (i == 0) {
                dense.execute(trial_x.get(), bins, vals, memory::device);
                base.add(t, bins, vals);
            }
        }
    }

    result r = make_row("cuda", dev, "device-resident", n, k, plan);
    r.time = time_host(
        [&](int i) { plan.execute(xs[i % rot].get(), bins, vals, memory::device); },
        opt.reps);
    r.baseline_name = "cufft+topk";
    r.baseline_ms =
        time_host(
            [&](int i) { dense.execute(xs[i % rot].get(), bins, vals, memory::device); },
            opt.reps)
            .median_ms;
    {
        // cuFFT alone (device events, no selection, no copy back): the floor of any dense
        // way.
        dense_fft_options fo;
        fo.backend = backend::cuda;
        fo.device_id = opt.device;
        dense_fft_plan fft(n, 1, direction::forward, fo);
        cuda::device_buffer<cf> out(n);
        cuda::stream s;
        r.errors["cufft_only_ms"] =
            time_device(
                [&](int i) { fft.execute_async(xs[i % rot].get(), out.get(), s.get()); },
                s.get(),
                opt.reps)
                .median_ms;
    }
    r.errors["misses"] = double(ours.misses);
    r.errors["trials"] = trials;
    r.errors["max_error"] = ours.max_error;
    r.errors["baseline_misses"] = double(base.misses);
    r.errors["baseline_max_error"] = base.max_error;
    report(r);

    if (n > host_max)
        return;
    const int host_reps =
        n >= (std::int64_t(1) << 26) ? std::min(opt.reps, 10) : opt.reps;
    for (const bool pinned : { true, false }) {
        cuda::pinned_buffer<cf> hp;
        std::vector<cf> hv;
        cf* hx = nullptr;
        if (pinned) {
            hp.allocate(n);
            hx = hp.get();
        } else {
            hv.resize(n);
            hx = hv.data();
        }
        GPUFFT_CUDA_CHECK(cudaMemcpy(
            hx, xs[0].get(), std::size_t(n) * sizeof(cf), cudaMemcpyDeviceToHost));
        // A fresh plan per memory kind: each measures its own transfer choice.
        sparse_fft_plan hplan(n, k, o);
        score hs, hb;
        hplan.execute(hx, bins, vals);
        hs.add(ts[0], bins, vals);
        dense.execute(hx, bins, vals);
        hb.add(ts[0], bins, vals);
        result h =
            make_row("cuda", dev, pinned ? "host-pinned" : "host-pageable", n, k, hplan);
        h.labels["memory"] = pinned ? "pinned" : "pageable";
        h.time = time_host([&](int) { hplan.execute(hx, bins, vals); }, host_reps);
        // The plan now says which transfer its first call measured faster.
        const std::string d = hplan.describe();
        h.labels["transfer"] =
            d.find("gather touched") != std::string::npos ? "gather" : "copy";
        std::printf("# %s\n", d.c_str());
        h.baseline_name = "copy+cufft+topk";
        h.baseline_ms =
            time_host([&](int) { dense.execute(hx, bins, vals); }, host_reps, 1)
                .median_ms;
        h.errors["misses"] = double(hs.misses);
        h.errors["trials"] = 1;
        h.errors["max_error"] = hs.max_error;
        h.errors["baseline_misses"] = double(hb.misses);
        h.errors["baseline_max_error"] = hb.max_error;
        report(h);
    }
}
#endif

int bench_sparse(const options& opt)
{
    std::vector<std::int64_t> sizes = opt.sizes;
    if (sizes.empty())
        sizes = { std::int64_t(1) << 20, std::int64_t(1) << 24, std::int64_t(1) << 27 };
    std::vector<std::int64_t> ks = opt.ks;
    if (ks.empty())
        ks = { 50, 1000 };
    const int trials = std::stoi(opt.get("trials", "10"));
    // A bad name fails before any case.
    parse_sparse_fft_location(opt.get("location", "phase"));
    const std::int64_t host_max = parse_size(opt.get("host-max", "2^27"));
    const std::int64_t cpu_max = parse_size(opt.get("cpu-max", "2^24"));
    const bool want_cpu = opt.backend == "all" || opt.backend == "cpu";
    const bool want_cuda = opt.backend == "all" || opt.backend == "cuda";
    int failures = 0;
    for (auto n : sizes) {
        for (auto k : ks) {
            if (k >= n)
                continue;
            try {
#ifdef GPUFFT_HAVE_CUDA
                if (want_cuda && cuda_available(opt.device))
                    bench_cuda(opt, n, k, trials, host_max);
#endif
                if (want_cpu && n <= cpu_max)
                    bench_cpu(opt, n, k, std::min(trials, 3));
            } catch (const std::exception& e) {
                std::fprintf(stderr,
                             "sparse n=%lld k=%lld: %s\n",
                             (long long)n,
                             (long long)k,
                             e.what());
                ++failures;
            }
        }
    }
    (void)want_cuda;
    print_table();
    return failures ? 1 : 0;
}

} // namespace

GPUFFT_BENCH_COMMAND(sparse,
                     "sparse FFT vs cuFFT + top-k and FFTW + top-k "
                     "[--sizes 2^20,2^27 --k 50,1000 --trials 10 --host-max 2^27 "
                     "--cpu-max 2^24 --location phase|voting]",
                     bench_sparse);
