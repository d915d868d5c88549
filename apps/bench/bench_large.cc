/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// gpufft-bench large: the out-of-card FFT of host-resident complex64 arrays against, in
// the same run, pinned copy + cuFFT + copy back (in card, where the array fits twice) and
// FFTW with every host thread; the measured pinned copy rates give the PCIe bound that
// our effective rate is compared with. One file: every case shares the host arrays, the
// baselines and the bound's arithmetic, and each row prints them side by side.
//
//   gpufft-bench large [--sizes 2^24,2^26,2^28,2^30] [--reps 5] [--fftw-max 2^30]
//                      [--shapes 8192x8192,512x512x512] [--inplace-only 0|1]
//                      [--pageable 0|1] [--budget-fraction 8] [--budget-gib 8]
//                      [--pass-fft four_step|stockham|cufft] [--slots 0|2|3]
//                      [--trace 1] [--devices 0,1]
//
// Host arrays are pinned (cudaMallocHost) unless --pageable 1 adds pageable cases. The
// out-of-card case gets a budget of 1/8 of the data (--budget-fraction); --inplace-only
// runs only the in-place transform with --budget-gib GiB (no second array), against FFTW
// in place when n <= --fftw-max. Accuracy: the relative error over 16 bins (8 beyond
// 2^30) against a direct DFT in double. --pass-fft picks what transforms the passes on
// the GPU (large_fft_config.h; four_step is what large_fft_plan uses); --slots the ring's
// depth (0: the planner's choice, what large_fft_plan uses); --trace 1 turns on
// large_fft_options::trace (round and pass times on stderr). --devices 0,1 runs every
// out-of-card case twice, on --device alone and with its passes dealt out to the listed
// GPUs (large_fft_options::devices, the budget per device), and prints the ratio and the
// G-link PCIe bound (each distinct device's copy rate measured alone, added up); a
// device listed twice (--devices 0,0) stands in for two through large_fft_config.
// Long because each baseline (copy + cuFFT + copy, FFTW, the copy-rate bound) is
// measured here in the same run as the plan it judges.

#include "bench_common.h"
#include "core/fftw_lock.h"
#include "core/parallel_copy.h"
#include "core/parallel_for.h"
#include "large/large_fft_plan_impl.h"
#include <gnuradio/gpufft/device.h>
#include <gnuradio/gpufft/large_fft_plan.h>
#include <fftw3.h>
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <set>
#include <sstream>

#ifdef GPUFFT_HAVE_CUDA
#include "cuda/cuda_resources.h"
#include <cufft.h>
#endif

using namespace gr::gpufft;
using namespace gpufft_bench;

#ifdef GPUFFT_HAVE_CUDA
namespace {

using cf = std::complex<float>;
using i64 = std::int64_t;

int host_threads() { return detail::hardware_threads(); }

// Fresh random samples in [-1, 1)^2, filled by every host thread.
void fill_random(cf* x, i64 n, std::uint64_t seed)
{
    detail::parallel_for(
        n,
        host_threads(),
        [&](int, i64 b, i64 e) {
            std::mt19937_64 rng(seed + std::uint64_t(b) * 0x9E3779B97F4A7C15ull);
            std::uniform_real_distribution<float> u(-1.f, 1.f);
            for (i64 i = b; i < e; ++i)
                x[i] = cf(u(rng), u(rng));
        },
        1);
}

// Bins k of the n-point forward DFT of x, in double, every host thread (phase re-anchored
// with sincospi-accurate std::polar every 1024 samples so the reference stays exact).
std::vector<std::complex<double>> dft_bins(const cf* x, i64 n, const std::vector<i64>& ks)
{
    std::vector<std::complex<double>> X(ks.size());
    for (std::size_t b = 0; b < ks.size(); ++b) {
        const i64 k = ks[b];
        std::vector<std::complex<double>> part(host_threads());
        detail::parallel_for(
            n,
            host_threads(),
            [&](int i, i64 lo, i64 hi) {
                std::complex<double> acc = 0;
                const double w = -2.0 * M_PI / double(n);
                const std::complex<double> step1 = std::polar(1.0, w * double(k % n));
                for (i64 t0 = lo; t0 < hi; t0 += 1024) {
                    std::complex<double> ph =
                        std::polar(1.0, w * double((__int128(k) * t0) % n));
                    for (i64 t1 = t0; t1 < std::min(hi, t0 + 1024); ++t1) {
                        acc += std::complex<double>(x[t1]) * ph;
                        ph *= step1;
                    }
                }
                part[i] = acc;
            },
            1);
        for (auto& p : part)
            X[b] += p;
    }
    return X;
}

// 16 bins, 8 beyond 2^30 points (each bin is a pass over the whole input).
std::size_t bins_for(i64 n) { return n > (i64(1) << 30) ? 8 : 16; }

double subset_error(const cf* x, const cf* y, i64 n, std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::vector<i64> ks{ 0, 1, n - 1, n / 2 };
    while (ks.size() < bins_for(n))
        ks.push_back(i64(rng() % std::uint64_t(n)));
    const auto ref = dft_bins(x, n, ks);
    double num = 0, den = 0;
    for (std::size_t i = 0; i < ks.size(); ++i) {
        num += std::norm(std::complex<double>(y[ks[i]]) - ref[i]);
        den += std::norm(ref[i]);
    }
    return std::sqrt(num / den);
}

struct copy_rates {
    double h2d = 0, d2h = 0, both = 0; // GB/s (both: total of the two directions at once)
};

copy_rates measure_copy(std::size_t bytes)
{
    cuda::pinned_buffer<char> h1(bytes), h2(bytes);
    cuda::device_buffer<char> d1(bytes), d2(bytes);
    std::memset(h1.get(), 1, bytes);
    std::memset(h2.get(), 2, bytes);
    cuda::stream s1, s2;
    auto h2d = time_device(
        [&](int) {
            GPUFFT_CUDA_CHECK(cudaMemcpyAsync(
                d1.get(), h1.get(), bytes, cudaMemcpyHostToDevice, s1.get()));
        },
        s1.get(),
        5,
        1);
    auto d2h = time_device(
        [&](int) {
            GPUFFT_CUDA_CHECK(cudaMemcpyAsync(
                h2.get(), d2.get(), bytes, cudaMemcpyDeviceToHost, s1.get()));
        },
        s1.get(),
        5,
        1);
    auto both = time_host(
        [&](int) {
            GPUFFT_CUDA_CHECK(cudaMemcpyAsync(
                d1.get(), h1.get(), bytes, cudaMemcpyHostToDevice, s1.get()));
            GPUFFT_CUDA_CHECK(cudaMemcpyAsync(
                h2.get(), d2.get(), bytes, cudaMemcpyDeviceToHost, s2.get()));
            s1.synchronize();
            s2.synchronize();
        },
        5,
        1);
    copy_rates r;
    r.h2d = bytes / h2d.median_ms / 1e6;
    r.d2h = bytes / d2h.median_ms / 1e6;
    r.both = 2.0 * bytes / both.median_ms / 1e6;
    return r;
}

// pinned copy in + cuFFT (one plan of the whole shape) + copy back, one stream.
stats time_cufft_with_copies(const std::vector<i64>& shape,
                             const cf* in,
                             cf* out,
                             int reps)
{
    i64 n = 1;
    for (i64 d : shape)
        n *= d;
    cuda::cufft_handle h;
    std::vector<long long> dims(shape.begin(), shape.end());
    std::size_t ws = 0;
    GPUFFT_CUFFT_CHECK(cufftMakePlanMany64(h.get(),
                                           int(dims.size()),
                                           dims.data(),
                                           nullptr,
                                           1,
                                           n,
                                           nullptr,
                                           1,
                                           n,
                                           CUFFT_C2C,
                                           1,
                                           &ws));
    cuda::device_buffer<cufftComplex> d(n);
    cuda::stream s;
    GPUFFT_CUFFT_CHECK(cufftSetStream(h.get(), s.get()));
    auto st = time_host(
        [&](int) {
            GPUFFT_CUDA_CHECK(cudaMemcpyAsync(
                d.get(), in, n * sizeof(cf), cudaMemcpyHostToDevice, s.get()));
            GPUFFT_CUFFT_CHECK(cufftExecC2C(h.get(), d.get(), d.get(), CUFFT_FORWARD));
            GPUFFT_CUDA_CHECK(cudaMemcpyAsync(
                out, d.get(), n * sizeof(cf), cudaMemcpyDeviceToHost, s.get()));
            s.synchronize();
        },
        reps,
        1);
    return st;
}

stats time_fftw(const std::vector<i64>& shape, cf* in, cf* out, int reps)
{
    detail::init_fftw_threads();
    fftwf_plan p;
    {
        std::lock_guard<std::mutex> l(detail::fftw_planner_mutex());
        fftwf_plan_with_nthreads(host_threads());
        std::vector<fftwf_iodim64> d(shape.size());
        i64 stride = 1;
        for (std::size_t i = shape.size(); i-- > 0;) {
            d[i] = { shape[i], stride, stride };
            stride *= shape[i];
        }
        p = fftwf_plan_guru64_dft(int(d.size()),
                                  d.data(),
                                  0,
                                  nullptr,
                                  reinterpret_cast<fftwf_complex*>(in),
                                  reinterpret_cast<fftwf_complex*>(out),
                                  FFTW_FORWARD,
                                  FFTW_ESTIMATE);
    }
    auto st = time_host([&](int) { fftwf_execute(p); }, reps, 0);
    std::lock_guard<std::mutex> l(detail::fftw_planner_mutex());
    fftwf_destroy_plan(p);
    return st;
}

std::vector<int> parse_devices(const std::string& s)
{
    std::vector<int> out;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, ','))
        if (!item.empty())
            out.push_back(std::stoi(item));
    return out;
}

std::string devices_name(const std::vector<int>& d)
{
    std::string s;
    for (int v : d)
        s += (s.empty() ? "" : ",") + std::to_string(v);
    return s;
}

// The combined copy rate (both directions at once) of the distinct devices in `d`.
double links_rate(const std::vector<int>& d, const copy_rates& first)
{
    double total = 0;
    std::vector<int> seen;
    for (int v : d) {
        if (std::find(seen.begin(), seen.end(), v) != seen.end())
            continue;
        seen.push_back(v);
        if (seen.size() == 1) {
            total += first.both;
            continue;
        }
        cuda::device_guard g(v);
        total += measure_copy(std::size_t(1) << 30).both;
    }
    return total;
}

// Pinned copies on every distinct device of `d` at once: each direction alone and both
// together, added over the devices (the links share the host's root ports and memory).
copy_rates measure_concurrent(const std::vector<int>& d, std::size_t bytes)
{
    std::vector<int> dev;
    for (int v : d)
        if (std::find(dev.begin(), dev.end(), v) == dev.end())
            dev.push_back(v);
    struct lane {
        cuda::pinned_buffer<char> h1, h2;
        cuda::device_buffer<char> d1, d2;
        cuda::stream s1, s2;
    };
    std::vector<std::unique_ptr<lane>> lanes;
    for (int v : dev) {
        cuda::device_guard g(v);
        auto l = std::make_unique<lane>();
        l->h1.allocate(bytes);
        l->h2.allocate(bytes);
        l->d1.allocate(bytes);
        l->d2.allocate(bytes);
        std::memset(l->h1.get(), 1, bytes);
        std::memset(l->h2.get(), 2, bytes);
        lanes.push_back(std::move(l));
    }
    auto timed = [&](bool in, bool out) {
        return time_host(
                   [&](int) {
                       for (std::size_t i = 0; i < lanes.size(); ++i) {
                           cuda::device_guard g(dev[i]);
                           auto& l = *lanes[i];
                           if (in)
                               GPUFFT_CUDA_CHECK(cudaMemcpyAsync(l.d1.get(),
                                                                 l.h1.get(),
                                                                 bytes,
                                                                 cudaMemcpyHostToDevice,
                                                                 l.s1.get()));
                           if (out)
                               GPUFFT_CUDA_CHECK(cudaMemcpyAsync(l.h2.get(),
                                                                 l.d2.get(),
                                                                 bytes,
                                                                 cudaMemcpyDeviceToHost,
                                                                 l.s2.get()));
                       }
                       for (auto& l : lanes) {
                           l->s1.synchronize();
                           l->s2.synchronize();
                       }
                   },
                   5,
                   1)
            .median_ms;
    };
    const double total = double(bytes) * double(lanes.size());
    copy_rates r;
    r.h2d = total / timed(true, false) / 1e6;
    r.d2h = total / timed(false, true) / 1e6;
    r.both = 2.0 * total / timed(true, true) / 1e6;
    return r;
}

// The host's memory traffic rate (bytes read plus bytes written, GB/s) of memcpy on
// `threads` threads, as the engine's host moves and staging use it.
double measure_host_traffic(int threads, std::size_t bytes)
{
    std::vector<char> a(bytes, 1), b(bytes, 2);
    detail::parallel_copier copier(threads);
    const double ms =
        time_host([&](int) { copier.copy(b.data(), a.data(), bytes); }, 5, 1).median_ms;
    return 2.0 * double(bytes) / ms / 1e6;
}

// Host memory traffic of a schedule beyond its DMA, in units of the array's bytes:
// the in-place row round's tile moves (half the array read and written) and a host
// permutation (the whole array read and written).
double host_move_traffic(const detail::large_schedule& s)
{
    double t = 0;
    for (const auto& r : s.rounds)
        if (r.as<detail::rows_transposed_round>())
            t += 1.0;
    if (!s.host_permute.empty())
        t += 2.0;
    return t;
}

std::string shape_name(const std::vector<i64>& shape)
{
    std::ostringstream s;
    for (std::size_t i = 0; i < shape.size(); ++i) {
        const i64 d = shape[i];
        s << (i ? "x" : "");
        if ((d & (d - 1)) == 0 && d > 1024)
            s << "2^" << int(std::log2(double(d)));
        else
            s << d;
    }
    return s.str();
}

std::vector<std::vector<i64>> parse_shapes(const std::string& s)
{
    std::vector<std::vector<i64>> out;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, ',')) {
        if (item.empty())
            continue;
        std::vector<i64> shape;
        std::stringstream is(item);
        std::string d;
        while (std::getline(is, d, 'x'))
            shape.push_back(parse_size(d));
        out.push_back(shape);
    }
    return out;
}

void bench_shape(const options& o,
                 const std::vector<i64>& shape,
                 const copy_rates& rates,
                 const std::vector<int>& devices,
                 double devices_rate,
                 const copy_rates& concurrent,
                 double host_traffic,
                 bool pageable)
{
    i64 n = 1;
    for (i64 d : shape)
        n *= d;
    const std::size_t bytes = std::size_t(n) * sizeof(cf);
    const bool big = n >= (i64(1) << 28);
    const int reps = big ? std::min(o.reps, 5) : std::min(o.reps, 10);
    const std::string fftw_opt = o.get("fftw-max", "2^30");
    const i64 fftw_max = fftw_opt == "0" ? 0 : parse_size(fftw_opt);
    const int fraction = std::stoi(o.get("budget-fraction", "8"));
    const bool inplace_only = o.get("inplace-only", "0") == "1";
    const auto info = get_device_info(o.device);
    const std::string dev = info.name;

    // Host arrays: pinned unless asked for pageable ones
    cuda::pinned_buffer<cf> pin_in, pin_out;
    std::vector<cf> pg_in, pg_out;
    cf *in, *out;
    if (pageable) {
        pg_in.resize(n);
        if (!inplace_only)
            pg_out.resize(n);
        in = pg_in.data();
        out = inplace_only ? in : pg_out.data();
    } else {
        pin_in.allocate(n);
        if (!inplace_only)
            pin_out.allocate(n);
        in = pin_in.get();
        out = inplace_only ? in : pin_out.get();
    }
    const std::uint64_t seed = std::random_device{}();
    fill_random(in, n, seed);
    const std::string mem = pageable ? "pageable" : "pinned";
    detail::large_fft_config config;
    config.fft = detail::parse_pass_fft(o.get("pass-fft", "four_step"));
    config.ring_slots = std::stoi(o.get("slots", "0"));
    const std::string name = shape_name(shape);

    // Baselines, same run.
    double cufft_ms = 0, fftw_ms = 0;
    const bool cufft_fits = 2 * bytes + (std::size_t(1) << 30) < info.free_memory;
    if (!inplace_only && cufft_fits)
        cufft_ms = time_cufft_with_copies(shape, in, out, reps).median_ms;
    if (!inplace_only && n <= fftw_max)
        fftw_ms = time_fftw(shape, in, out, std::min(reps, 3)).median_ms;
    if (inplace_only && n <= fftw_max) {
        // FFTW in place on the same array, as ours (each rep transforms the last result)
        fftw_ms = time_fftw(shape, in, in, std::min(reps, 2)).median_ms;
        fill_random(in, n, seed);
    }

    // `on`: the device list (empty: --device alone); returns the median time
    auto run_case = [&](const std::string& label,
                        std::size_t budget,
                        bool in_place,
                        const std::vector<int>& on,
                        bool peer) -> double {
        large_fft_options opt;
        opt.backend = backend::cuda;
        opt.device_id = o.device;
        opt.devices = on;
        opt.memory_budget = budget;
        opt.trace = o.get("trace", "0") == "1";
        auto cfg = config;
        cfg.peer_exchange = peer;
        for (std::size_t i = 0; i < on.size(); ++i)
            cfg.repeat_devices |= std::count(on.begin(), on.end(), on[i]) > 1;
        auto plan = detail::make_large_fft_plan(shape, direction::forward, opt, cfg);
        cf* dst = in_place ? in : out;
        double err = -1;
        // rounds over the host array; in place may add the tile-transpose round
        const bool is_peer = detail::large_fft_plan_access::of(plan).peer.has_value();
        const int rounds =
            is_peer ? 1
            : in_place
                ? int(detail::large_fft_plan_access::of(plan).in_place.rounds.size())
                : plan.passes();
        stats st;
        if (in_place) {
            // each rep transforms the previous result (magnitudes grow by sqrt(n) per
            // rep, far from overflow in three); then a fresh fill for the error check
            st = time_host([&](int) { plan.execute(in, in); }, std::min(reps, 3), 0);
            fill_random(in, n, seed);
            if (shape.size() == 1) {
                std::mt19937_64 rng(seed);
                std::vector<i64> ks{ 0, 1, n - 1, n / 2 };
                while (ks.size() < bins_for(n))
                    ks.push_back(i64(rng() % std::uint64_t(n)));
                const auto ref = dft_bins(in, n, ks);
                plan.execute(in, in);
                double num = 0, den = 0;
                for (std::size_t i = 0; i < ks.size(); ++i) {
                    num += std::norm(std::complex<double>(in[ks[i]]) - ref[i]);
                    den += std::norm(ref[i]);
                }
                err = std::sqrt(num / den);
            }
            fill_random(in, n, seed);
        } else {
            st = time_host([&](int) { plan.execute(in, dst); }, reps, 1);
            if (shape.size() == 1)
                err = subset_error(in, dst, n, seed);
        }
        result r;
        r.engine = "large";
        r.backend = "cuda";
        r.device = dev;
        r.case_name = name + " " + label + (in_place ? " inplace" : "") +
                      (on.empty() ? "" : " devices=" + devices_name(on)) +
                      (is_peer ? " peer" : "");
        r.params["n"] = double(n);
        r.params["budget_MiB"] = double(plan.memory_budget()) / (1 << 20);
        r.params["rounds"] = rounds;
        r.labels["precision"] = "complex64";
        r.labels["memory"] = mem;
        r.labels["pass_fft"] = detail::to_string(config.fft);
        const auto& used = detail::large_fft_plan_access::of(plan);
        r.params["slots"] = (in_place ? used.in_place : used.out_of_place).slots;
        r.time = st;
        // every round moves the array in and out once
        const double moved = 2.0 * rounds * double(bytes);
        r.params["eff_GBps"] = moved / st.median_ms / 1e6;
        r.params["copy_both_GBps"] = rates.both;
        r.params["copy_h2d_GBps"] = rates.h2d;
        r.params["pcie_bound_ms"] = moved / rates.both / 1e6;
        // the target: 4x the data over the copy rate, both directions overlapped
        r.params["frac_2round_bound"] =
            4.0 * double(bytes) / rates.both / 1e6 / st.median_ms;
        r.params["cufft_copy_ms"] = cufft_ms;
        r.params["fftw_ms"] = fftw_ms;
        if (fftw_ms > 0) {
            r.baseline_name = "fftw" + std::to_string(host_threads()) + "t";
            r.baseline_ms = fftw_ms;
        } else if (cufft_ms > 0) {
            r.baseline_name = "cufft+copies";
            r.baseline_ms = cufft_ms;
        }
        if (cufft_ms > 0)
            r.params["vs_cufft_copies"] = cufft_ms / st.median_ms;
        if (err >= 0)
            r.errors["rel_err_bins"] = err;
        if (!on.empty()) {
            // the G-link bound: the same bytes over every distinct device's link at once
            r.params["links_GBps"] = devices_rate;
            r.params["pcie_bound_links_ms"] = moved / devices_rate / 1e6;
            r.params["frac_links_bound"] = moved / devices_rate / 1e6 / st.median_ms;
        }
        report(r);
        std::fprintf(stderr, "%s\n", plan.describe().c_str());
        return st.median_ms;
    };
    // Out of card: with --devices, the one-GPU plan, then the list on the host rounds,
    // then (1-D, where it fits) the peer exchange; same arrays. The bounds: the G-link
    // sum (each device's copy rate measured alone, added), the copies of every device at
    // once (measured together), and the host's memory traffic (the DMA's plus the
    // schedule's host moves, at the measured memcpy rate); a schedule can go no faster
    // than the larger of the last two.
    auto run_pair = [&](const std::string& label, std::size_t budget, bool in_place) {
        const double one = run_case(label, budget, in_place, {}, false);
        if (devices.empty())
            return;
        const auto sched = detail::plan_large_fft(
            shape, sizeof(cf), budget, in_place, config.ring_slots);
        const double rounds = double(sched.rounds.size());
        const double many = run_case(label, budget, in_place, devices, false);
        const double b = double(bytes);
        const double links = 2.0 * rounds * b / devices_rate / 1e6;
        const double pcie = 2.0 * rounds * b / concurrent.both / 1e6;
        const double host =
            (2.0 * rounds + host_move_traffic(sched)) * b / host_traffic / 1e6;
        const double bound = std::max(pcie, host);
        std::printf("%s %s%s: one GPU %.1f ms; devices %s, host rounds %.1f ms: %.2fx; "
                    "bounds: G-link sum %.1f ms, all links at once %.1f ms, host memory "
                    "%.1f ms: %.2f of the larger\n",
                    name.c_str(),
                    label.c_str(),
                    in_place ? " inplace" : "",
                    one,
                    devices_name(devices).c_str(),
                    many,
                    one / many,
                    links,
                    pcie,
                    host,
                    bound / many);
        std::string why;
        const bool peer_fits =
            shape.size() == 1 &&
            detail::plan_peer_exchange(n, int(devices.size()), sizeof(cf), budget, why);
        if (!peer_fits) {
            std::printf("%s %s: no peer exchange (%s)\n",
                        name.c_str(),
                        label.c_str(),
                        shape.size() == 1 ? why.c_str() : "not 1-D");
            return;
        }
        const double peer = run_case(label, budget, in_place, devices, true);
        const double conc = 2.0 * b / concurrent.both / 1e6;
        const double in_then_out = b / concurrent.h2d / 1e6 + b / concurrent.d2h / 1e6;
        const double host1 = 2.0 * b / host_traffic / 1e6;
        std::printf("%s %s%s: devices %s, peer exchange %.1f ms: %.2fx one GPU, %.2fx "
                    "the host rounds; one-round bounds: both ways at once %.1f ms, in "
                    "then out %.1f ms, host memory %.1f ms: %.2f of both-at-once, %.2f "
                    "of in-then-out\n",
                    name.c_str(),
                    label.c_str(),
                    in_place ? " inplace" : "",
                    devices_name(devices).c_str(),
                    peer,
                    one / peer,
                    many / peer,
                    conc,
                    in_then_out,
                    host1,
                    std::max(conc, host1) / peer,
                    std::max(in_then_out, host1) / peer);
    };

    if (!inplace_only) {
        if (cufft_fits)
            run_case("in-card", 0, false, {}, false);
        run_pair("budget=1/" + std::to_string(fraction), bytes / fraction, false);
    } else {
        // the 2^32 case: an 8 GiB budget (--budget-gib)
        const std::size_t gib = std::stoul(o.get("budget-gib", "8"));
        run_pair("budget=" + std::to_string(gib) + "GiB", gib << 30, true);
    }
}

int bench_large(const options& o)
{
    if (!cuda_available(o.device)) {
        std::printf("large: no usable CUDA device, nothing to compare\n");
        return 0;
    }
    std::vector<std::vector<i64>> shapes;
    std::vector<i64> sizes = o.sizes;
    if (sizes.empty())
        sizes = { i64(1) << 24, i64(1) << 26, i64(1) << 28, i64(1) << 30 };
    for (i64 n : sizes)
        shapes.push_back({ n });
    for (const auto& s : parse_shapes(o.get("shapes", "")))
        shapes.push_back(s);
    const bool pageable = o.get("pageable", "0") == "1";
    const std::vector<int> devices = parse_devices(o.get("devices", ""));

    const copy_rates rates = measure_copy(std::size_t(1) << 30);
    cudaDeviceProp prop{};
    GPUFFT_CUDA_CHECK(cudaGetDeviceProperties(&prop, o.device));
    std::printf("copy engines (asyncEngineCount): %d\n", prop.asyncEngineCount);
    std::printf("pinned copy, 1 GiB: host->device %.1f GB/s, device->host %.1f GB/s, "
                "both at once %.1f GB/s total\n",
                rates.h2d,
                rates.d2h,
                rates.both);
    const double devices_rate = devices.empty() ? 0 : links_rate(devices, rates);
    if (!devices.empty())
        std::printf("devices %s: pinned copy, both at once, added over the distinct "
                    "devices: %.1f GB/s\n",
                    devices_name(devices).c_str(),
                    devices_rate);
    copy_rates concurrent;
    double host_traffic = 0;
    if (!devices.empty()) {
        concurrent = measure_concurrent(devices, std::size_t(1) << 30);
        host_traffic = measure_host_traffic(host_threads(), std::size_t(2) << 30);
        std::printf("devices %s, pinned copies on all at once, 1 GiB each: host->device "
                    "%.1f GB/s, device->host %.1f GB/s, both ways %.1f GB/s in all\n",
                    devices_name(devices).c_str(),
                    concurrent.h2d,
                    concurrent.d2h,
                    concurrent.both);
        std::printf("host memcpy on %d threads (the engine's): %.1f GB/s of traffic "
                    "(read + write)\n",
                    host_threads(),
                    host_traffic);
    }
    for (const auto& s : shapes) {
        bench_shape(o, s, rates, devices, devices_rate, concurrent, host_traffic, false);
        if (pageable)
            bench_shape(
                o, s, rates, devices, devices_rate, concurrent, host_traffic, true);
    }
    print_table();
    return 0;
}

} // namespace

GPUFFT_BENCH_COMMAND(
    large,
    "out-of-card FFT of host arrays vs pinned copy+cuFFT+copy and FFTW "
    "threads [--sizes] [--shapes AxB,AxBxC] [--fftw-max 2^30] "
    "[--budget-fraction 8] [--inplace-only 1 --budget-gib 8] "
    "[--pageable 1] [--pass-fft four_step|stockham|cufft] [--slots 0|2|3] "
    "[--trace 1] [--devices 0,1]",
    bench_large);
#endif
