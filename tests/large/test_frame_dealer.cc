/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The bookkeeping of whole frames dealt to several GPUs (frame_dealer), driven through
// spectrum_integrator's front end with host models of the devices in place of
// fused_device: each model copies the frame when it is issued and sums |x|^2 into
// channels only when it is waited for, as a device does later. Random runs of
// integrations (mean and max-hold, 1 to 7 frames), with frames of NaN samples (left
// out when accumulate() returns) and frames whose channel sums overflow (found only
// after accumulate() returned true), on 2 to 4 lanes, relay on and off, against one
// lane used as the one-GPU integrator uses its device, and against sums done here.

#include "large/power/frame_dealer.h"
#include "large/power/integrator_backend.h"
#include "reference.h"
#include "test_harness.h"
#include <gnuradio/gpufft/spectrum_integrator.h>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>

using namespace gr::gpufft;
using namespace gpufft_test;
using i64 = std::int64_t;
using cf = std::complex<float>;

namespace {

// Samples this large make a channel sum that the model calls overflowed (a device finds
// a float spectrum's overflow only in its channel sums, after the copy).
constexpr float huge = 1e18f;

//! One device as frame_dealer sees it, on the host.
struct host_lane {
    host_lane(i64 n, i64 bins) : n(n), bins(bins), acc(std::size_t(bins), 0.0) {}

    void issue(const void* host, bool integer, accumulate_op o, host_lane* p)
    {
        if (integer)
            GPUFFT_FAIL("host_lane: complex frames only");
        if (queued)
            wait_done(); // as the device: its frame is about to be overwritten
        const auto* x = static_cast<const cf*>(host);
        frame.assign(x, x + n);
        finite = all_finite(x, std::size_t(n));
        op = o;
        partner = p;
        queued = true;
        ++issued;
    }
    bool wait_copied()
    {
        if (!queued)
            GPUFFT_FAIL("wait_copied without a frame");
        return finite;
    }
    bool wait_done()
    {
        if (!queued)
            return true;
        queued = false;
        if (!finite)
            return false;
        // The channel sums, done late as on the device.
        const i64 decim = n / bins;
        std::vector<double> p(std::size_t(bins), 0.0);
        bool overflow = false;
        for (i64 c = 0; c < bins; ++c)
            for (i64 k = 0; k < decim; ++k) {
                const cf v = frame[std::size_t(c * decim + k)];
                overflow = overflow || std::abs(v) >= huge;
                p[std::size_t(c)] += std::norm(std::complex<double>(v));
            }
        if (overflow)
            return false; // left out of the accumulator
        for (std::size_t c = 0; c < p.size(); ++c)
            acc[c] = op == accumulate_op::store ? p[c]
                     : op == accumulate_op::add ? acc[c] + p[c]
                                                : std::max(acc[c], p[c]);
        return true;
    }
    void read(double* out)
    {
        wait_done();
        std::copy(acc.begin(), acc.end(), out);
    }

    const i64 n, bins;
    std::vector<double> acc;
    std::vector<cf> frame;
    bool queued = false, finite = true;
    accumulate_op op = accumulate_op::store;
    host_lane* partner = nullptr;
    int issued = 0;
};

power::band_reducer band_of(i64 n, i64 bins)
{
    return power::band_reducer(n, 0, 0, bins);
}
power::spectral_window flat(i64 n)
{
    return power::spectral_window(power::window_type::none, n);
}

//! frame_dealer behind the front end, as multi_device_integrator.
class dealt final : public spectrum_integrator::impl
{
public:
    dealt(i64 n, i64 bins, int lanes, bool relay)
        : impl(band_of(n, bins), flat(n)), d(make_lanes(n, bins, lanes), bins, relay)
    {
    }
    static std::vector<std::unique_ptr<host_lane>> make_lanes(i64 n, i64 bins, int g)
    {
        std::vector<std::unique_ptr<host_lane>> l;
        for (int i = 0; i < g; ++i)
            l.push_back(std::make_unique<host_lane>(n, bins));
        return l;
    }
    bool accumulate(cf* frame, accumulate_op op) override
    {
        return d.accumulate(frame, false, op);
    }
    void read(double* acc) override { d.read(acc); }
    gr::gpufft::backend backend() const override { return gr::gpufft::backend::cpu; }
    int device_id() const override { return -1; }
    std::size_t memory_budget() const override { return 0; }
    bool on_device() const override { return false; }
    std::string describe() const override { return "dealt\n"; }
    detail::frame_dealer<host_lane> d;
};

//! One lane waited for at every frame, as device_integrator uses its device.
class one_lane final : public spectrum_integrator::impl
{
public:
    one_lane(i64 n, i64 bins) : impl(band_of(n, bins), flat(n)), l(n, bins) {}
    bool accumulate(cf* frame, accumulate_op op) override
    {
        l.issue(frame, false, op, nullptr);
        return l.wait_done();
    }
    void read(double* acc) override { l.read(acc); }
    gr::gpufft::backend backend() const override { return gr::gpufft::backend::cpu; }
    int device_id() const override { return -1; }
    std::size_t memory_budget() const override { return 0; }
    bool on_device() const override { return false; }
    std::string describe() const override { return "one lane\n"; }
    host_lane l;
};

struct frame_kind {
    bool nan = false, overflow = false;
};

void run_case(std::mt19937_64& rng, int lanes, bool relay)
{
    const i64 n = 48, bins = 6, decim = n / bins;
    auto* dp = new dealt(n, bins, lanes, relay);
    spectrum_integrator many(std::unique_ptr<spectrum_integrator::impl>(dp),
                             integration_mode::mean);
    spectrum_integrator one(std::make_unique<one_lane>(n, bins), integration_mode::mean);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    std::uniform_int_distribution<int> count(1, 7), pct(0, 99);
    std::vector<cf> frame(static_cast<std::size_t>(n)), copy(static_cast<std::size_t>(n));
    for (int integration = 0; integration < 12; ++integration) {
        const auto mode =
            pct(rng) < 50 ? integration_mode::mean : integration_mode::max_hold;
        many.reset(mode);
        one.reset(mode);
        const int frames = count(rng);
        std::vector<double> sum(std::size_t(bins), 0.0), peak(std::size_t(bins), 0.0);
        i64 in = 0, late = 0;
        for (int f = 0; f < frames; ++f) {
            frame_kind k;
            const int r = pct(rng);
            k.nan = r < 15;
            k.overflow = !k.nan && r < 30;
            for (auto& v : frame)
                v = cf(u(rng), u(rng));
            if (k.nan)
                frame[std::size_t(pct(rng)) % frame.size()] = cf(NAN, 0);
            if (k.overflow)
                frame[std::size_t(pct(rng)) % frame.size()] = cf(huge * 2, 0);
            copy = frame;
            const bool a = many.accumulate(copy.data());
            // the caller refills its frame as soon as accumulate() returns
            std::fill(copy.begin(), copy.end(), cf(NAN, NAN));
            copy = frame;
            const bool b = one.accumulate(copy.data());
            GPUFFT_CHECK_EQ(a, !k.nan); // found when the frame has left host memory
            GPUFFT_CHECK_EQ(b, !k.nan && !k.overflow);
            late += k.overflow ? 1 : 0;
            if (k.nan || k.overflow)
                continue;
            for (i64 c = 0; c < bins; ++c) {
                double p = 0;
                for (i64 j = 0; j < decim; ++j)
                    p += std::norm(
                        std::complex<double>(frame[std::size_t(c * decim + j)]));
                sum[std::size_t(c)] += p;
                peak[std::size_t(c)] = in == 0 ? p : std::max(peak[std::size_t(c)], p);
            }
            ++in;
        }
        std::vector<float> got(std::size_t(bins), NAN), want(std::size_t(bins), NAN);
        const i64 got_frames = many.read(got.data());
        const i64 want_frames = one.read(want.data());
        // frames() counts what accumulate() took: late ones too, on several lanes
        GPUFFT_CHECK_EQ(want_frames, in);
        GPUFFT_CHECK_EQ(got_frames, in + late);
        if (in == 0) {
            if (got_frames > 0)
                for (float v : got)
                    GPUFFT_CHECK_EQ(v, 0.f); // nothing accumulated anywhere
            continue;
        }
        for (std::size_t c = 0; c < got.size(); ++c) {
            const double ref =
                mode == integration_mode::mean ? sum[c] / double(in) : peak[c];
            // the model's sums are exact in double up to their order
            if (std::abs(double(got[c]) - ref) > 1e-6 * ref ||
                std::abs(double(want[c]) - ref) > 1e-6 * ref)
                GPUFFT_FAIL("lanes " << lanes << ", integration " << integration
                                     << ", channel " << c << ": " << got[c] << " and "
                                     << want[c] << " vs " << ref);
            if (mode == integration_mode::max_hold &&
                std::memcmp(&got[c], &want[c], sizeof(float)) != 0)
                GPUFFT_FAIL("max-hold differs from one lane: " << got[c] << " vs "
                                                               << want[c]);
        }
    }
    // Frames went round robin, each lane's partner (relay) the next lane.
    int issued = 0;
    for (std::size_t i = 0; i < dp->d.size(); ++i) {
        const host_lane& l = dp->d.lane(i);
        issued += l.issued;
        GPUFFT_CHECK(l.issued > 0);
        GPUFFT_CHECK(l.partner ==
                     (relay ? &dp->d.lane((i + 1) % dp->d.size()) : nullptr));
    }
    GPUFFT_CHECK_EQ(std::size_t(issued) >= dp->d.size(), true);
}

} // namespace

GPUFFT_TEST(dealt_frames_match_one_lane)
{
    const auto seed = fresh_seed();
    std::printf("seed %llu\n", (unsigned long long)seed);
    std::mt19937_64 rng(seed);
    for (int lanes : { 2, 3, 4 })
        for (bool relay : { false, true })
            for (int rep = 0; rep < 20; ++rep)
                run_case(rng, lanes, relay);
}

GPUFFT_TEST(one_lane_is_refused)
{
    std::vector<std::unique_ptr<host_lane>> l;
    l.push_back(std::make_unique<host_lane>(8, 2));
    GPUFFT_CHECK_THROWS(detail::frame_dealer<host_lane>(std::move(l), 2, false),
                        std::logic_error,
                        "fewer than two");
}

GPUFFT_TEST_MAIN()
