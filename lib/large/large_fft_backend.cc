/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "large/large_fft_backend.h"
#include <set>
#include <stdexcept>

namespace gr {
namespace gpufft {
namespace detail {

using i64 = std::int64_t;

std::string to_string(pass_fft f)
{
    switch (f) {
    case pass_fft::four_step:
        return "four_step";
    case pass_fft::stockham:
        return "stockham";
    case pass_fft::cufft:
        return "cufft";
    }
    return "unknown";
}

pass_fft parse_pass_fft(const std::string& name)
{
    for (auto f : { pass_fft::four_step, pass_fft::stockham, pass_fft::cufft })
        if (name == to_string(f))
            return f;
    throw std::invalid_argument("pass_fft: '" + name +
                                "' is invalid; must be four_step, stockham or cufft");
}

std::vector<fft_call> fft_calls(const whole_round& r)
{
    const auto& d = r.dims;
    if (d.size() == 1)
        return { { { d[0], 1, 1, d[0] }, 0 } };
    if (d.size() == 2)
        return { { { d[1], d[0], 1, d[1] }, 0 },   // rows
                 { { d[0], d[1], d[1], 1 }, 0 } }; // columns
    // every y-x plane in one 2-D call (one launch, not one per plane: 32768 planes of
    // 64 x 64 took 3.7x the transform), then z across the planes
    const i64 z = d[0], y = d[1], x = d[2];
    return { { { y, z, 1, y * x, x }, 0 }, { { z, y * x, y * x, 1 }, 0 } };
}

std::vector<fft_call> fft_calls(const column_round& r, const large_pass& p)
{
    std::vector<fft_call> calls;
    if (r.trailing && r.B > 1 && p.bc == r.B && (r.trail == 0 || r.trail == r.B) &&
        r.trail_rows <= 1 && !r.twiddle) {
        // columns then rows of whole [L][B] planes: one 2-D call for the pass
        calls.push_back({ { r.L, p.ac, 1, r.L * r.B, r.B }, 0 });
        return calls;
    }
    if (r.B == 1) {
        calls.push_back({ { r.L, p.ac, 1, r.L }, 0 });
    } else if (p.bc == r.B) {
        for (i64 a = 0; a < p.ac; ++a)
            calls.push_back({ { r.L, r.B, r.B, 1 }, a * r.L * r.B });
    } else {
        calls.push_back({ { r.L, p.bc, p.bc, 1 }, 0 });
    }
    if (r.trailing) {
        const i64 t = r.trail ? r.trail : r.B, batch = p.ac * r.L * p.bc / t;
        if (r.trail_rows > 1)
            calls.push_back({ { r.trail_rows, batch, 1, t, t / r.trail_rows }, 0 });
        else
            calls.push_back({ { t, batch, 1, t }, 0 });
    }
    return calls;
}

std::vector<fft_call> fft_calls(const rows_transposed_round& r)
{
    return { { { r.blocks * r.M, r.tile, 1, r.blocks * r.M }, 0 } };
}

std::vector<fft_call> pass_fft_calls(const large_round& r, const large_pass& p)
{
    return std::visit(
        overloaded{ [](const whole_round& k) { return fft_calls(k); },
                    [&](const column_round& k) { return fft_calls(k, p); },
                    [](const tile_transpose_round&) { return std::vector<fft_call>(); },
                    [](const rows_transposed_round& k) { return fft_calls(k); } },
        r.op);
}

std::vector<fft_geometry> schedule_geometries(const std::vector<const large_schedule*>& s)
{
    std::set<fft_geometry> g;
    for (const auto* sched : s)
        for (const auto& r : sched->rounds)
            for (const auto& p : r.pass_list)
                for (const auto& c : pass_fft_calls(r, p))
                    g.insert(c.g);
    return { g.begin(), g.end() };
}

} // namespace detail
} // namespace gpufft
} // namespace gr
