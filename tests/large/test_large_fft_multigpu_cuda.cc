/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// large_fft_options::devices on the GPU. Every pass does the same arithmetic on
// whichever executor runs it, so a plan on a device list gives the one-GPU plan's
// answer bit for bit. With one GPU the multi-executor paths (passes dealt out, events
// between executors, host moves from several executors at once) run with the device
// standing in for two and three (large_fft_config::repeat_devices); with more GPUs,
// also on [0, 1]. Then the bad lists, and spectrum_integrator's devices.

#include "gpu_skip.h"
#include "large/large_fft_checks.h"
#include "large/large_fft_plan_impl.h"
#include "large/power/integrator_backend.h"
#include "large/spectrum_integrator_checks.h"
#include <gnuradio/gpufft/device.h>
#include <gnuradio/gpufft/spectrum_integrator.h>
#include <cstdio>
#include <cstring>
#include <limits>
#ifdef GPUFFT_HAVE_CUDA
#include "cuda/cuda_resources.h"
#endif

using namespace gr::gpufft;
using namespace gpufft_test;
using i64 = std::int64_t;

namespace {

large_fft_options opts(std::size_t budget, std::vector<int> devices, precision p)
{
    large_fft_options o;
    o.backend = backend::cuda;
    o.precision = p;
    o.memory_budget = budget;
    o.devices = std::move(devices);
    return o;
}

// The device lists to compare with one GPU: [0], the stand-ins, [0, 1] and
// [0, 1, 2, 3] where they exist.
std::vector<std::vector<int>> device_lists()
{
    std::vector<std::vector<int>> l{ { 0 }, { 0, 0 }, { 0, 0, 0 } };
    if (cuda_device_count() > 1)
        l.push_back({ 0, 1 });
    if (cuda_device_count() > 3)
        l.push_back({ 0, 1, 2, 3 });
    return l;
}

std::string list_text(const std::vector<int>& d)
{
    std::string s;
    for (int v : d)
        s += (s.empty() ? "" : ",") + std::to_string(v);
    return "[" + s + "]";
}

template <typename T>
bool same_bits(const std::complex<T>* a, const std::complex<T>* b, i64 n)
{
    return std::memcmp(a, b, std::size_t(n) * sizeof(*a)) == 0;
}

// One shape: the one-GPU plan and a plan on `devices`, out of place and in place, from
// pageable arrays and (CUDA) pinned ones; results compared bit for bit, and the
// one-GPU result against a double-precision reference.
template <typename T>
void compare_one_shape(const std::vector<i64>& shape,
                       i64 pass,
                       const std::vector<int>& devices,
                       const detail::large_fft_config& base)
{
    const precision p = sizeof(T) == 4 ? precision::single : precision::double_;
    const std::size_t budget = budget_for_pass(pass, sizeof(std::complex<T>));
    auto config = base;
    config.repeat_devices = true;
    config.peer_exchange = false; // the host rounds: the one-GPU arithmetic, bit for bit
    auto one =
        detail::make_large_fft_plan(shape, direction::forward, opts(budget, {}, p), base);
    auto many = detail::make_large_fft_plan(
        shape, direction::forward, opts(budget, devices, p), config);
    GPUFFT_CHECK(many.devices() == devices);
    GPUFFT_CHECK_EQ(many.device_id(), devices[0]);
    const auto& a = detail::large_fft_plan_access::of(one);
    const auto& b = detail::large_fft_plan_access::of(many);
    GPUFFT_CHECK_EQ(a.in_place.describe(), b.in_place.describe());
    GPUFFT_CHECK_EQ(a.out_of_place.describe(), b.out_of_place.describe());

    const i64 n = one.size();
    const auto seed = fresh_seed();
    std::printf("%s on %s, pass %lld, seed %llu\n",
                sizeof(T) == 4 ? "complex64" : "complex128",
                list_text(devices).c_str(),
                (long long)pass,
                (unsigned long long)seed);
    const auto x = random_complex<T>(std::size_t(n), seed);
    const auto ref = fftw_dft_nd(x, shape, -1);
    std::vector<std::complex<T>> y1(n, poison<T>()), y2(n, poison<T>());
    one.execute(x.data(), y1.data());
    many.execute(x.data(), y2.data());
    GPUFFT_CHECK_LE(rel_l2_error(y1.data(), ref.data(), n),
                    sizeof(T) == 4 ? 1e-5 : 1e-12);
    if (!same_bits(y1.data(), y2.data(), n))
        GPUFFT_FAIL("out of place on " << list_text(devices) << " differs from one GPU\n"
                                       << many.describe());
    std::vector<std::complex<T>> z1 = x, z2 = x;
    one.execute(z1.data(), z1.data());
    many.execute(z2.data(), z2.data());
    GPUFFT_CHECK_LE(rel_l2_error(z1.data(), ref.data(), n),
                    sizeof(T) == 4 ? 1e-5 : 1e-12);
    if (!same_bits(z1.data(), z2.data(), n))
        GPUFFT_FAIL("in place on " << list_text(devices) << " differs from one GPU\n"
                                   << many.describe());
#ifdef GPUFFT_HAVE_CUDA
    // pinned: the copies go straight to the caller's arrays, and the row round's
    // copies in wait on the other executors' move events on the GPU
    cuda::pinned_buffer<std::complex<T>> in(n), out(n);
    std::copy(x.begin(), x.end(), in.get());
    std::fill(out.get(), out.get() + n, poison<T>());
    many.execute(in.get(), out.get());
    GPUFFT_CHECK(same_bits(out.get(), y1.data(), n));
    many.execute(in.get(), in.get());
    GPUFFT_CHECK(same_bits(in.get(), z1.data(), n));
#endif
}

struct shape_case {
    std::vector<i64> shape;
    i64 pass;
};

// Budgets that force several passes and rounds: 1-D two rounds (square, two squares
// with the row round's host moves, host permutation), three rounds, a size of small
// primes, 2-D (columns then rows; Y decomposition), 3-D (slabs; three rounds; Z
// decomposition), and one in card (runs on the first device).
const std::vector<shape_case> shapes = {
    { { 1 << 16 }, 16384 },  { { 1 << 16 }, 4096 }, { { 1 << 17 }, 32768 },
    { { 8192 }, 1024 },      { { 4096 }, 40 },      { { 6000 }, 1024 },
    { { 48, 60 }, 300 },     { { 96, 16 }, 300 },   { { 12, 10, 14 }, 300 },
    { { 12, 10, 14 }, 100 }, { { 96, 3, 5 }, 300 }, { { 1000 }, 1 << 20 },
};

} // namespace

GPUFFT_TEST(device_lists_match_one_gpu_bit_for_bit_single)
{
    require_gpu();
    for (const auto& d : device_lists())
        for (const auto& s : shapes)
            compare_one_shape<float>(s.shape, s.pass, d, {});
}

GPUFFT_TEST(device_lists_match_one_gpu_bit_for_bit_double)
{
    require_gpu();
    for (const auto& d : device_lists())
        for (const auto& s : shapes)
            compare_one_shape<double>(s.shape, s.pass, d, {});
}

// Each way of transforming the passes and of issuing the copies, on the stand-in.
GPUFFT_TEST(stand_in_matches_with_every_pass_fft_and_copy_split)
{
    require_gpu();
    std::vector<detail::large_fft_config> configs(3);
    configs[0].fft = detail::pass_fft::stockham;
    configs[1].fft = detail::pass_fft::cufft;
    configs[2].split_copies = false;
    for (const auto& c : configs)
        for (const auto& s : { shape_case{ { 1 << 16 }, 16384 },
                               shape_case{ { 1 << 17 }, 32768 },
                               shape_case{ { 96, 16 }, 300 } })
            compare_one_shape<float>(s.shape, s.pass, { 0, 0 }, c);
}

// The trace reports every pass of every executor, and the executors' stats add up.
GPUFFT_TEST(trace_and_stats_cover_every_executor)
{
    require_gpu();
    const i64 n = 1 << 16;
    std::vector<std::string> lines;
    auto o = opts(budget_for_pass(16384, 8), { 0, 0 }, precision::single);
    o.trace = true;
    o.log = [&](log_level, const std::string& m) { lines.push_back(m); };
    detail::large_fft_config config;
    config.repeat_devices = true;
    config.peer_exchange = false;
    auto plan = detail::make_large_fft_plan({ n }, direction::forward, o, config);
    std::vector<std::complex<float>> x = random_complex<float>(n, fresh_seed());
    plan.execute(x.data(), x.data());
    const auto& sched = detail::large_fft_plan_access::of(plan).in_place;
    std::size_t passes = 0, want = 0;
    for (const auto& r : sched.rounds)
        want += r.pass_list.size();
    for (const auto& m : lines)
        passes += m.rfind("large_fft   pass ", 0) == 0;
    GPUFFT_CHECK_EQ(passes, want);
    auto one = detail::make_large_fft_plan(
        { n },
        direction::forward,
        opts(budget_for_pass(16384, 8), {}, precision::single),
        {});
    one.execute(x.data(), x.data());
    const auto a = detail::plan_stats(plan), b = detail::plan_stats(one);
    GPUFFT_CHECK_EQ(a.four_step_ffts, b.four_step_ffts);
    GPUFFT_CHECK_EQ(a.stockham_ffts, b.stockham_ffts);
    GPUFFT_CHECK_EQ(a.cufft_execs, b.cufft_execs);
}

// The peer exchange (one PCIe round, the middle transpose over peer copies) on the
// stand-ins and the real GPUs: against a double-precision reference, both directions,
// out of place and in place, pageable and pinned arrays, device counts that do and do
// not divide the factors (those fall back to the host rounds, which match one GPU).
template <typename T>
void check_peer(i64 n, i64 pass, const std::vector<int>& devices, direction dir)
{
    const precision p = sizeof(T) == 4 ? precision::single : precision::double_;
    detail::large_fft_config config;
    config.repeat_devices = true;
    auto plan = detail::make_large_fft_plan(
        { n },
        dir,
        opts(budget_for_pass(pass, sizeof(std::complex<T>)), devices, p),
        config);
    const bool peer = detail::large_fft_plan_access::of(plan).peer.has_value();
    const auto seed = fresh_seed();
    std::printf("peer: n %lld on %s, %s, %s, seed %llu\n%s",
                (long long)n,
                list_text(devices).c_str(),
                sizeof(T) == 4 ? "complex64" : "complex128",
                peer ? "peer exchange" : "host rounds",
                (unsigned long long)seed,
                plan.describe().c_str());
    GPUFFT_CHECK_EQ(plan.passes() == 1, peer);
    const auto x = random_complex<T>(std::size_t(n), seed);
    const auto ref = fftw_dft_nd(x, { n }, dir == direction::forward ? -1 : 1);
    const double tol = sizeof(T) == 4 ? 1e-5 : 1e-12; // as the one-GPU plans'
    // the peer exchange does the same arithmetic every way; the host rounds' in-place
    // schedule differs from their out-of-place one
    auto check = [&](const std::complex<T>* got, const std::vector<std::complex<T>>& y) {
        GPUFFT_CHECK_LE(rel_l2_error(got, ref.data(), n), tol);
        if (peer)
            GPUFFT_CHECK(same_bits(got, y.data(), n));
    };
    std::vector<std::complex<T>> y(n, poison<T>());
    plan.execute(x.data(), y.data());
    check(y.data(), y);
    auto z = x;
    plan.execute(z.data(), z.data());
    check(z.data(), y);
#ifdef GPUFFT_HAVE_CUDA
    cuda::pinned_buffer<std::complex<T>> in(n), out(n);
    std::copy(x.begin(), x.end(), in.get());
    plan.execute(in.get(), out.get());
    check(out.get(), y);
    plan.execute(in.get(), in.get());
    check(in.get(), y);
#endif
}

GPUFFT_TEST(peer_exchange_matches_reference)
{
    require_gpu();
    std::vector<std::vector<int>> lists{ { 0, 0 }, { 0, 0, 0 }, { 0, 0, 0, 0 } };
    if (cuda_device_count() > 1)
        lists.push_back({ 0, 1 });
    if (cuda_device_count() > 3)
        lists.push_back({ 0, 1, 2, 3 });
    for (const auto& d : lists) {
        const bool real = d[1] != 0;
        for (direction dir : { direction::forward, direction::backward }) {
            check_peer<float>(1 << 16, 16384, d, dir);
            check_peer<float>(9 << 14, 16384, d, dir); // 3 x 3 x 2^14
            check_peer<float>(6000, 1024, d, dir);     // 3 does not divide both factors
            check_peer<double>(1 << 17, 16384, d, dir);
        }
        if (real) // a larger transform over the real links
            check_peer<float>(1 << 24, 1 << 21, d, direction::forward);
    }
    // every schedule of a list that divides 2^16 is the peer exchange
    detail::large_fft_config config;
    config.repeat_devices = true;
    auto plan = detail::make_large_fft_plan(
        { 1 << 16 },
        direction::forward,
        opts(budget_for_pass(16384, 8), { 0, 0 }, precision::single),
        config);
    GPUFFT_CHECK(plan.describe().find("peer exchange on 2 devices") != std::string::npos);
    // and switched off, the host rounds say why
    config.peer_exchange = false;
    auto off = detail::make_large_fft_plan(
        { 1 << 16 },
        direction::forward,
        opts(budget_for_pass(16384, 8), { 0, 0 }, precision::single),
        config);
    GPUFFT_CHECK(
        off.describe().find("no peer exchange: the peer exchange is switched off") !=
        std::string::npos);
}

// The peer exchange finds NaN wherever it is, reports its phases in the trace, and
// stays usable.
GPUFFT_TEST(peer_exchange_non_finite_and_trace)
{
    require_gpu();
    const i64 n = 1 << 16;
    std::vector<std::string> lines;
    auto o = opts(budget_for_pass(16384, 8), { 0, 0 }, precision::single);
    o.trace = true;
    o.log = [&](log_level, const std::string& m) { lines.push_back(m); };
    detail::large_fft_config config;
    config.repeat_devices = true;
    auto plan = detail::make_large_fft_plan({ n }, direction::forward, o, config);
    GPUFFT_CHECK(detail::large_fft_plan_access::of(plan).peer.has_value());
    for (i64 at : { i64(0), n / 2 + 17, n - 1 }) {
        auto x = random_complex<float>(n, fresh_seed());
        x[std::size_t(at)] = { 0.f, std::numeric_limits<float>::infinity() };
        GPUFFT_CHECK_THROWS(
            plan.execute(x.data(), x.data()), std::invalid_argument, "NaN");
    }
    lines.clear();
    auto x = random_complex<float>(n, fresh_seed());
    std::vector<std::complex<float>> y(n, poison<float>());
    plan.execute(x.data(), y.data());
    GPUFFT_CHECK(std::isfinite(y[0].real()));
    int devices = 0;
    for (const auto& m : lines)
        devices += m.rfind("large_fft   peer device", 0) == 0;
    GPUFFT_CHECK_EQ(devices, 2);
}

// NaN in the input is found whichever executor's pass holds it.
GPUFFT_TEST(stand_in_reports_non_finite_input)
{
    require_gpu();
    const i64 n = 1 << 16;
    detail::large_fft_config config;
    config.repeat_devices = true;
    config.peer_exchange = false;
    auto plan = detail::make_large_fft_plan(
        { n },
        direction::forward,
        opts(budget_for_pass(4096, 8), { 0, 0 }, precision::single),
        config);
    for (i64 at : { i64(0), n / 2 + 17, n - 1 }) {
        auto x = random_complex<float>(n, fresh_seed());
        x[std::size_t(at)] = { std::nanf(""), 0.f };
        GPUFFT_CHECK_THROWS(
            plan.execute(x.data(), x.data()), std::invalid_argument, "NaN");
    }
    auto x = random_complex<float>(n, fresh_seed());
    std::vector<std::complex<float>> y(n, poison<float>());
    plan.execute(x.data(), y.data()); // still usable
    GPUFFT_CHECK(std::isfinite(y[0].real()));
}

GPUFFT_TEST(bad_device_lists)
{
    require_gpu();
    const int count = cuda_device_count();
    auto make = [](large_fft_options o) {
        return large_fft_plan({ 1 << 16 }, direction::forward, o);
    };
    GPUFFT_CHECK_THROWS(make(opts(0, { 0, count }, precision::single)),
                        std::invalid_argument,
                        "does not exist");
    GPUFFT_CHECK_THROWS(make(opts(0, { 0, 0 }, precision::single)),
                        std::invalid_argument,
                        "more than once");
    // memory_budget applies per device: the whole memory is never free
    const auto info = get_device_info(0);
    GPUFFT_CHECK_THROWS(make(opts(info.total_memory, { 0 }, precision::single)),
                        std::invalid_argument,
                        "devices");
    // two executors on one device need twice the budget free
    detail::large_fft_config config;
    config.repeat_devices = true;
    const std::size_t over_half = info.free_memory / 2 + (std::size_t(64) << 20);
    GPUFFT_CHECK_THROWS(
        detail::make_large_fft_plan({ 1 << 16 },
                                    direction::forward,
                                    opts(over_half, { 0, 0 }, precision::single),
                                    config),
        std::invalid_argument,
        "executors");
    // without a list the old rule holds: up to the device's total memory
    GPUFFT_CHECK_THROWS(make(opts(info.total_memory + 1, {}, precision::single)),
                        std::invalid_argument,
                        "memory_budget");
    // the default budget on a stand-in: each executor gets a share
    auto shared = detail::make_large_fft_plan(
        { 1 << 16 }, direction::forward, opts(0, { 0, 0 }, precision::single), config);
    GPUFFT_CHECK_LE(2 * shared.memory_budget(), info.free_memory);
}

// spectrum_integrator: a frame too large for one device's budget goes through the
// large plan on the device list, with the same result as on one GPU.
GPUFFT_TEST(spectrum_integrator_devices_match_one_gpu)
{
    require_gpu();
    const auto seed = fresh_seed();
    std::printf("seed %llu\n", (unsigned long long)seed);
    const i64 n = i64(1) << 16;
    const int frames = 3;
    const band_spec b{ n, n / 8, n - n / 8, 768, "hann" };
    const auto x = tone_frames(n, frames, 1234.37, 0.5, seed);
    const std::size_t budget = budget_for_pass(4096, 8); // out of card
    auto run = [&](spectrum_integrator& s) {
        GPUFFT_CHECK(!s.on_device());
        std::vector<std::complex<float>> scratch(static_cast<std::size_t>(n));
        return integrate(s, x, frames, scratch.data());
    };
    spectrum_integrator_options o;
    o.backend = backend::cuda;
    o.window = b.window;
    o.memory_budget = budget;
    o.threads = 2; // the host reduction's sums depend on the thread count
    spectrum_integrator one(n, b.start, b.stop, b.bins, o);
    const auto want = run(one);
    const auto ref = integrated_power(x, frames, b, integration_mode::mean);
    check_channels(want, ref, 1e-4);

    o.devices = { 0 };
    spectrum_integrator listed(n, b.start, b.stop, b.bins, o);
    std::printf("%s", listed.describe().c_str());
    GPUFFT_CHECK(run(listed) == want);

    for (const auto& d : device_lists()) {
        // the stand-in through the integrator's host path and an internal large plan
        large_fft_options lo;
        lo.backend = backend::cuda;
        lo.memory_budget = budget;
        lo.threads = 2;
        lo.devices = d;
        detail::large_fft_config config;
        config.repeat_devices = true;
        auto plan = std::make_shared<large_fft_plan>(
            detail::make_large_fft_plan({ n }, direction::forward, lo, config));
        const power::band_reducer band(n, b.start, b.stop, b.bins);
        const power::spectral_window window(power::parse_window(b.window), n);
        spectrum_integrator s(detail::make_host_integrator(
                                  band,
                                  window,
                                  [plan](std::complex<float>* f) { plan->execute(f, f); },
                                  2,
                                  backend::cuda,
                                  d[0],
                                  budget,
                                  plan->describe()),
                              integration_mode::mean);
        // the host rounds give one GPU's answer bit for bit, the peer exchange within
        // rounding
        const auto got = run(s);
        if (detail::large_fft_plan_access::of(*plan).peer)
            check_channels(got, ref, 1e-4);
        else if (!(got == want))
            GPUFFT_FAIL("spectrum_integrator on " << list_text(d)
                                                  << " differs from one GPU");
    }

    // a frame that fits one device runs fused on the first listed
    spectrum_integrator_options f;
    f.backend = backend::cuda;
    f.devices = { 0 };
    GPUFFT_CHECK(spectrum_integrator(n, 0, 0, 64, f).on_device());
    f.devices = { 0, 0 };
    GPUFFT_CHECK_THROWS(
        spectrum_integrator(n, 0, 0, 64, f), std::invalid_argument, "more than once");
}

GPUFFT_TEST_MAIN()
