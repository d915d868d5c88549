/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// large_fft_options::devices on the CPU: the checks that need no GPU, and a model of
// the multi-device executor's ordering. The CUDA executor deals the passes of a round
// out to G executors and orders them only by its events; the model runs every round of
// many schedules with the same dependencies, in random orders of the ready operations,
// on a host array of element labels, and checks that every pass reads what it reads in
// the one-GPU order and that the array ends the same. A weaker rule (older passes' tiles
// read without waiting for their moves) must fail it: the model can tell.

#include "large/device_budget.h"
#include "large/large_fft_checks.h"
#include "large/large_fft_schedule.h"
#include "large/row_round_order.h"
#include <gnuradio/gpufft/large_fft_plan.h>
#include <gnuradio/gpufft/spectrum_integrator.h>
#include <iostream>
#include <optional>
#include <random>

using namespace gr::gpufft;
using namespace gpufft_test;
using i64 = std::int64_t;

GPUFFT_TEST(device_list_checks)
{
    detail::check_device_list({}, false);
    detail::check_device_list({ 0, 1, 2 }, false);
    detail::check_device_list({ 0, 0 }, true); // the internal stand-in
    GPUFFT_CHECK_THROWS(
        detail::check_device_list({ 0, 1, 0 }, false), std::invalid_argument, "devices");
    GPUFFT_CHECK_THROWS(
        detail::check_device_list({ 1, -1 }, false), std::invalid_argument, "devices");
    GPUFFT_CHECK_THROWS(
        detail::check_device_list({ -2 }, true), std::invalid_argument, ">= 0");
    detail::check_no_devices_on_cpu({});
    GPUFFT_CHECK_THROWS(
        detail::check_no_devices_on_cpu({ 0 }), std::invalid_argument, "backend cpu");
}

GPUFFT_TEST(plans_refuse_bad_device_lists_without_a_gpu)
{
    for (auto b : { backend::cpu, backend::automatic, backend::cuda }) {
        large_fft_options o;
        o.backend = b;
        o.devices = { 0, 0 };
        GPUFFT_CHECK_THROWS(large_fft_plan({ 1024 }, direction::forward, o),
                            std::invalid_argument,
                            "more than once");
        o.devices = { -1 };
        GPUFFT_CHECK_THROWS(large_fft_plan({ 1024 }, direction::forward, o),
                            std::invalid_argument,
                            "devices");
    }
    large_fft_options o;
    o.backend = backend::cpu;
    o.devices = { 0 };
    GPUFFT_CHECK_THROWS(large_fft_plan({ 1024 }, direction::forward, o),
                        std::invalid_argument,
                        "devices");
    o.devices.clear();
    large_fft_plan cpu({ 1024 }, direction::forward, o);
    GPUFFT_CHECK(cpu.devices().empty());

    spectrum_integrator_options so;
    so.backend = backend::cpu;
    so.devices = { 0 };
    GPUFFT_CHECK_THROWS(
        spectrum_integrator(1024, 0, 0, 16, so), std::invalid_argument, "devices");
    so.backend = backend::automatic;
    so.devices = { 1, 1 };
    GPUFFT_CHECK_THROWS(
        spectrum_integrator(1024, 0, 0, 16, so), std::invalid_argument, "more than once");
}

namespace {

// One round on G executors as the CUDA executor orders it. Operations per pass i: the
// pieces of its copy in, its host-move jobs (row_round_order.h; in other rounds one
// piece and no moves), compute, copy out.
struct round_model {
    const detail::large_round& r;
    std::size_t G;
    int slots; // the ring's depth on each executor
    // a weaker rule that must fail: the copy in's tiles of passes before i - G read
    // without waiting for those passes' moves
    bool weak;
    std::vector<std::uint64_t>* src;
    std::vector<std::uint64_t>* out;
    std::vector<std::vector<std::uint64_t>> buf, res; // per pass
    std::vector<std::uint64_t> read_sum;              // what each pass read
    std::optional<detail::row_round_order> order;

    round_model(const detail::large_round& r,
                std::size_t G,
                int slots,
                bool weak,
                std::vector<std::uint64_t>* src,
                std::vector<std::uint64_t>* out)
        : r(r), G(G), slots(slots), weak(weak), src(src), out(out)
    {
        if (const auto* rows = r.as<detail::rows_transposed_round>())
            order.emplace(*rows, G);
    }

    std::size_t pieces() const { return order ? order->read_pieces() : 1; }
    std::size_t jobs() const { return order ? order->move_jobs() : 0; }
    int ops() const { return int(pieces() + jobs() + 2); }
    int job_op(std::size_t job) const { return int(pieces() + job); }
    int compute_op() const { return int(pieces() + jobs()); }
    int out_op() const { return compute_op() + 1; }

    std::vector<std::pair<std::size_t, int>> deps(std::size_t i, int o) const
    {
        std::vector<std::pair<std::size_t, int>> d;
        auto add = [&](i64 p, int k) {
            if (p >= 0)
                d.push_back({ std::size_t(p), k });
        };
        const i64 j = i64(i), g = i64(G), K = slots;
        const int last_piece = int(pieces()) - 1;
        if (o == 0) {
            add(j - g * K, out_op()); // the slot is free again
            add(j - g, last_piece);   // the executor's copy stream
        } else if (o <= last_piece) {
            add(j, o - 1); // the copy stream, piece after piece
            if (!(weak && o == 1))
                for (const auto& w : order->waits_of(i, std::size_t(o)))
                    add(i64(w.first), job_op(w.second));
        } else if (o < compute_op()) {
            const std::size_t job = std::size_t(o) - pieces();
            if (job == 0) {
                add(j, int(order->moves_after_piece())); // what they fill is read
                add(j - g, job_op(jobs() - 1));          // the executor's move stream
            } else {
                add(j, o - 1);
            }
        } else if (o == compute_op()) {
            add(j, last_piece);
            add(j - g, compute_op());
        } else {
            add(j, compute_op());
            if (order)
                add(j, job_op(order->last_job()));
            add(j - g, out_op());
        }
        return d;
    }
    void run(std::size_t i, int o)
    {
        const auto& p = r.pass_list[i];
        auto& b = buf[i];
        if (o < int(pieces())) {
            b.resize(std::size_t(p.elements));
            const auto range = order
                                   ? order->reads_of(i, std::size_t(o))
                                   : detail::row_round_order::range{ 0, p.reads.size() };
            for (std::size_t k = range.first; k < range.second; ++k) {
                const auto& h = p.reads[k];
                for (i64 y = 0; y < h.rows; ++y)
                    for (i64 x = 0; x < h.width; ++x)
                        b[std::size_t(h.dev_offset + y * h.dpitch() + x)] =
                            (*src)[std::size_t(h.host_offset + y * h.pitch + x)];
            }
        } else if (o < compute_op()) {
            const auto range = order->moves_of(p, std::size_t(o) - pieces());
            for (std::size_t k = range.first; k < range.second; ++k) {
                const auto& m = p.moves[k];
                for (i64 y = 0; y < m.rows; ++y)
                    for (i64 x = 0; x < m.width; ++x)
                        (*out)[std::size_t(m.to + y * m.pitch + x)] =
                            (*out)[std::size_t(m.from + y * m.pitch + x)];
            }
        } else if (o == compute_op()) {
            // a result that depends on everything read, element by element
            std::uint64_t h = 1469598103934665603ull;
            for (auto v : b)
                h = (h ^ v) * 1099511628211ull;
            read_sum[i] = h;
            res[i].resize(b.size());
            for (std::size_t k = 0; k < b.size(); ++k)
                res[i][k] = h + k * 0x9e3779b97f4a7c15ull;
        } else {
            for (const auto& h : p.writes)
                for (i64 y = 0; y < h.rows; ++y)
                    for (i64 x = 0; x < h.width; ++x)
                        (*out)[std::size_t(h.host_offset + y * h.pitch + x)] =
                            res[i][std::size_t(h.dev_offset + y * h.dpitch() + x)];
        }
    }
    // All operations in a random order that keeps the dependencies (seeded), or in
    // pass order when rng is null.
    void run_all(std::mt19937_64* rng)
    {
        const std::size_t n = r.pass_list.size();
        buf.assign(n, {});
        res.assign(n, {});
        read_sum.assign(n, 0);
        const int ops = this->ops();
        std::vector<char> done(n * ops, 0);
        std::size_t left = n * ops;
        while (left) {
            std::vector<std::pair<std::size_t, int>> ready;
            for (std::size_t i = 0; i < n; ++i)
                for (int o = 0; o < ops; ++o) {
                    if (done[i * ops + o])
                        continue;
                    bool ok = true;
                    for (const auto& d : deps(i, o))
                        ok &= d.first < n && done[d.first * ops + d.second];
                    if (ok)
                        ready.push_back({ i, o });
                    if (!rng && ok)
                        break;
                }
            if (ready.empty())
                throw std::logic_error("model: dependency cycle");
            const auto pick = rng ? ready[(*rng)() % ready.size()] : ready.front();
            run(pick.first, pick.second);
            done[pick.first * ops + pick.second] = 1;
            --left;
        }
    }
};

struct outcome {
    std::vector<std::uint64_t> out;
    std::vector<std::vector<std::uint64_t>> reads;
    bool operator==(const outcome& o) const { return out == o.out && reads == o.reads; }
};

// The schedule on G executors (G = 0: one executor, pass after pass).
outcome run_schedule(const detail::large_schedule& s,
                     std::size_t G,
                     bool weak,
                     std::mt19937_64* rng)
{
    std::vector<std::uint64_t> in(std::size_t(s.size)), out(in.size(), ~0ull);
    for (std::size_t k = 0; k < in.size(); ++k)
        in[k] = k;
    if (s.in_place)
        out = in;
    outcome o;
    for (const auto& r : s.rounds) {
        if (r.as<detail::whole_round>())
            continue; // in card: one executor
        round_model m(
            r, G ? G : 1, s.slots, weak, r.from_input && !s.in_place ? &in : &out, &out);
        m.run_all(G ? rng : nullptr);
        o.reads.push_back(m.read_sum);
    }
    o.out = out;
    return o;
}

struct sched_case {
    std::vector<i64> shape;
    i64 pass;
};

const std::vector<sched_case> cases = {
    { { 4096 }, 1024 },       // two rounds, square
    { { 4096 }, 256 },        // square, narrow: tile-pair transpose round in place
    { { 8192 }, 1024 },       // two rounds, host permutation in place
    { { 8192 }, 2048 },       // transposed rows of two squares
    { { 1 << 16 }, 16384 },   // transposed rows, 4 passes
    { { 1 << 22 }, 1 << 19 }, // transposed rows, 8 passes of 256 rows
    { { 6000 }, 1024 },       // small primes
    { { 4096 }, 40 },         // three rounds
    { { 48, 60 }, 300 },      // 2-D
    { { 96, 16 }, 300 },      // 2-D, Y decomposition
    { { 12, 10, 14 }, 300 },  // 3-D slabs
    { { 12, 10, 14 }, 100 },  // 3-D three rounds
    { { 96, 3, 5 }, 300 },    // 3-D, Z decomposition
};

} // namespace

GPUFFT_TEST(passes_dealt_to_several_executors_keep_the_one_gpu_result)
{
    const auto seed = fresh_seed();
    std::cout << "seed " << seed << "\n";
    std::mt19937_64 rng(seed);
    int rows_rounds = 0;
    for (const auto& c : cases)
        for (bool in_place : { false, true })
            for (int slots : { 3, 2 }) {
                const auto s = detail::plan_large_fft(
                    c.shape, 8, budget_for_pass(c.pass, 8, slots), in_place, slots);
                GPUFFT_CHECK_EQ(s.slots, slots);
                for (const auto& r : s.rounds)
                    rows_rounds += r.as<detail::rows_transposed_round>() != nullptr;
                const bool big = s.size > (i64(1) << 18); // a few orders only: it is slow
                if (big && !in_place)
                    continue;
                const auto ref = run_schedule(s, 0, false, nullptr);
                for (std::size_t G : { 1, 2, 3, 4, 8 })
                    for (int trial = 0; trial < (big ? (G == 3 ? 1 : 0) : 3); ++trial)
                        if (!(run_schedule(s, G, false, &rng) == ref))
                            GPUFFT_FAIL("G = " << G << " differs from one GPU for "
                                               << s.describe() << " (seed " << seed
                                               << ")");
            }
    GPUFFT_CHECK(rows_rounds >= 6); // the in-place row rounds are among the cases
}

GPUFFT_TEST(the_model_catches_a_missing_wait)
{
    // Without waiting for the moves of passes before k - G, pass k may read their
    // tiles before they are moved there.
    const auto seed = fresh_seed();
    std::cout << "seed " << seed << "\n";
    std::mt19937_64 rng(seed);
    const auto s =
        detail::plan_large_fft({ 1 << 16 }, 8, budget_for_pass(16384, 8), true);
    const auto ref = run_schedule(s, 0, false, nullptr);
    int wrong = 0;
    for (int trial = 0; trial < 40; ++trial)
        wrong += !(run_schedule(s, 2, true, &rng) == ref); // 4 passes: G < 3
    GPUFFT_CHECK(wrong > 0);
}

GPUFFT_TEST_MAIN()
