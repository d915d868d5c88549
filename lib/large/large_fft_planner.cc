/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The large FFT's planner: which rounds a shape gets under a budget, following Gu et
// al.'s out-of-card decompositions (docs/large_fft.md, "The planner"). The rounds'
// passes come from make_passes (large_fft_schedule.cc).

#include "large/large_fft_schedule.h"
#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace gr {
namespace gpufft {
namespace detail {

namespace {

using i64 = std::int64_t;

// Elements moved per transfer of an in-card transform (32 MiB of complex64).
constexpr i64 whole_chunk_elems = i64(1) << 22;

std::vector<i64> divisors(i64 n)
{
    std::vector<i64> d{ 1 };
    const auto pf = prime_factors(n);
    for (std::size_t i = 0; i < pf.size();) {
        std::size_t j = i;
        while (j < pf.size() && pf[j] == pf[i])
            ++j;
        const std::size_t m = d.size();
        i64 p = 1;
        for (std::size_t e = i; e < j; ++e) {
            p *= pf[i];
            for (std::size_t k = 0; k < m; ++k)
                d.push_back(d[k] * p);
        }
        i = j;
    }
    std::sort(d.begin(), d.end());
    return d;
}

// N = n1 * n2 with n1 <= n2 as close as possible (the paper: X2 equal or slightly
// larger).
std::pair<i64, i64> split2(i64 n)
{
    i64 best = 1;
    for (i64 d : divisors(n))
        if (d <= n / d)
            best = d;
    return { best, n / best };
}

// N = n1 * n2 * n3 minimising the largest factor; the middle one the largest on ties
// (round two then moves contiguous memory).
std::vector<i64> split3(i64 n)
{
    const auto ds = divisors(n);
    std::vector<i64> best{ 1, 1, n };
    i64 best_max = n;
    for (i64 a : ds) {
        if (a * a * a > n)
            break;
        const i64 rest = n / a;
        for (i64 c : ds) {
            if (c < a || rest % c != 0)
                continue;
            const i64 b = rest / c;
            if (b < c)
                break;
            // factors a <= c <= b: put the largest in the middle
            if (b < best_max) {
                best_max = b;
                best = { a, b, c };
            }
        }
    }
    return best;
}

// A columns round over [A][L][B] with passes sized for buffers of `p` elements.
column_round columns(i64 A, i64 L, i64 B, i64 p)
{
    column_round r;
    r.A = A;
    r.L = L;
    r.B = B;
    if (L * B <= p) {
        r.bc = B;
        r.ac = std::min(A, p / (L * B));
    } else {
        r.ac = 1;
        r.bc = std::min(B, p / L);
        // keep each transferred row a multiple of 64 elements (aligned, coalesced)
        if (r.bc >= 128)
            r.bc -= r.bc % 64;
    }
    return r;
}

// The same with the four-step twiddle over `n` (b / div in place of b).
column_round twiddled(column_round r, i64 n, i64 div = 1)
{
    r.twiddle = true;
    r.tw_n = n;
    r.tw_div = div;
    return r;
}

large_round round_of(round_op op, bool from_input = false)
{
    large_round r;
    r.op = std::move(op);
    r.from_input = from_input;
    return r;
}

[[noreturn]] void
too_small(const large_schedule& s, i64 need_elems, const std::string& why)
{
    std::ostringstream m;
    m << "memory_budget: " << s.budget
      << " bytes is below the smallest workable pass for "
      << "this shape (" << why << "); it must be at least "
      << need_elems * large_fft_budget_units(s.slots) * i64(s.elem_bytes) << " bytes ("
      << large_fft_budget_units(s.slots) << " pass buffers of " << need_elems
      << " elements)";
    throw std::invalid_argument(m.str());
}

/*
 * The paper's Y and Z decompositions (out of place): the FFT along the outer axis of
 * length `len` over contiguous units of `unit` elements (rows, or planes of `unit_rows`
 * rows) as a four-step len1 x len2 on whole units, so every transfer moves runs of
 * whole units instead of column blocks p / len wide. Round 1: FFT len1 across groups of
 * units, twiddle, units transposed into [len2][len1] order by one contiguous write;
 * round 2: FFT len2 and the units themselves, in place, landing in natural order. Sets
 * the rounds and returns true when len2 units fit a pass and the transfers get wider.
 */
bool unit_four_step(large_schedule& s, i64 len, i64 unit, i64 unit_rows, i64 p)
{
    const auto f = split2(len);
    const i64 n1 = f.first, n2 = f.second;
    if (n1 == 1 || n2 * unit > p || (p / (n1 * unit)) * unit <= std::min(unit, p / len))
        return false;
    column_round r1 = twiddled(columns(1, n1, n2 * unit, p), len, unit);
    r1.bc = std::min(n2, p / (n1 * unit)) * unit;
    r1.transposed_write = true;
    r1.unit = unit;
    column_round r2 = columns(1, n2, n1 * unit, p);
    r2.bc = std::min(n1, p / (n2 * unit)) * unit;
    r2.trailing = true;
    r2.trail = unit;
    r2.trail_rows = unit_rows;
    s.rounds = { round_of(r1, true), round_of(r2) };
    return true;
}

// Paper 4.1 out of place, N = n1 n2: round 1 reads columns of the input, FFT n1,
// twiddle and transpose on the card, one contiguous write; round 2 FFT n2 in place.
void two_rounds(large_schedule& s, i64 n1, i64 n2, i64 p)
{
    column_round r1 = twiddled(columns(1, n1, n2, p), s.size);
    r1.transposed_write = true;
    s.rounds = { round_of(r1, true), round_of(columns(1, n2, n1, p)) };
}

// In place a pass may only write memory that has been read: round 1 keeps positions;
// round 2 either writes transposed with host moves making room, or keeps positions too
// and a third round or the host transposes.
void two_rounds_in_place(large_schedule& s, i64 n1, i64 n2, i64 p)
{
    const large_round r1 = round_of(twiddled(columns(1, n1, n2, p), s.size), true);
    // n2 a multiple of n1 (square, or 2^odd): fold the transpose into the row round
    // when its column strips stay wide (>= 256 elements, or a quarter of the side on
    // tiny sizes).
    i64 rows = std::min(n1, p / n2);
    while (rows > 1 && n1 % rows != 0)
        --rows;
    if (n2 % n1 == 0 && rows >= std::min<i64>(256, n1 / 4)) {
        s.rounds = { r1, round_of(rows_transposed_round{ n1, rows, n2 / n1 }) };
        return;
    }
    s.rounds = { r1, round_of(columns(n1, n2, 1, p)) };
    // Largest tile dividing n1 with a pair in one pass.
    i64 t = std::min<i64>(n1, i64(std::sqrt(double(p / 2))));
    while (t > 1 && (2 * t * t > p || n1 % t != 0))
        --t;
    if (n2 % n1 == 0 && t >= std::min<i64>(n1, 8)) {
        // Z (n1 x n2) = [B_0 .. B_r-1], r = n2/n1 squares; Z^T stacks the B_j^T:
        // transpose each square in place by tile pairs, then move whole rows of n1
        // elements on the host ((k1, j) -> j*n1 + k1), a permutation of contiguous runs;
        // none at all when square.
        s.rounds.push_back(round_of(tile_transpose_round{ n1, t, n2 / n1 }));
        if (n2 != n1) {
            s.host_permute = { n1, n2 / n1 };
            s.permute_unit = n1;
        }
    } else {
        s.host_permute = { n1, n2 };
    }
}

// Paper 4.2: three rounds, N = n1 n2 n3.
void three_rounds(large_schedule& s, i64 n1, i64 n2, i64 n3, i64 p)
{
    const i64 n = s.size;
    if (!s.in_place) {
        // Round 1 as in two rounds (columns of n1, transposed write: [n2][n3][n1]);
        // round 2 FFT n2 with twiddle over n2*n3 (n3 = b / n1); round 3 FFT n3 on
        // [n2][n3][n1]. Left: (k2, k3) -> (k3, k2) on runs of n1 elements.
        column_round r1 = twiddled(columns(1, n1, n2 * n3, p), n);
        r1.transposed_write = true;
        s.rounds = { round_of(r1, true),
                     round_of(twiddled(columns(1, n2, n3 * n1, p), n2 * n3, n1)),
                     round_of(columns(n2, n3, n1, p)) };
        s.host_permute = { n2, n3 };
        s.permute_unit = n1;
        return;
    }
    // Every round keeps positions; then the element-wise digit reversal.
    s.rounds = { round_of(twiddled(columns(1, n1, n2 * n3, p), n), true),
                 round_of(twiddled(columns(n1, n2, n3, p), n2 * n3)),
                 round_of(columns(n1 * n2, n3, 1, p)) };
    s.host_permute = { n1, n2, n3 };
}

void plan_1d(large_schedule& s, i64 p)
{
    const auto f2 = split2(s.size);
    const auto f3 = split3(s.size);
    const i64 max2 = f2.second, max3 = *std::max_element(f3.begin(), f3.end());
    if (max3 > p)
        too_small(s,
                  max3,
                  "1-D: the largest factor of a three-round split is " +
                      std::to_string(max3));
    // Two rounds move 4x the data, three 6x plus a host reordering: take three only
    // when two do not fit or would move rows narrower than 32 elements (sqrt(pass)/4
    // for tiny budgets), where transfers lose most of their bandwidth.
    const i64 want_width =
        std::max<i64>(1, std::min<i64>(32, i64(std::sqrt(double(p))) / 4));
    if (max2 <= p && (p / max2 >= want_width || max3 >= max2)) {
        if (s.in_place)
            two_rounds_in_place(s, f2.first, f2.second, p);
        else
            two_rounds(s, f2.first, f2.second, p);
    } else {
        three_rounds(s, f3[0], f3[1], f3[2], p);
    }
}

void plan_2d(large_schedule& s, i64 p)
{
    const i64 y = s.shape[0], x = s.shape[1];
    if (std::max(y, x) > p)
        too_small(s, std::max(y, x), "2-D: one row and one column must fit a pass");
    // Paper 5.2, the Y decomposition, on rows of X.
    if (!s.in_place && unit_four_step(s, y, x, 1, p))
        return;
    s.rounds = { round_of(columns(1, y, x, p), true), round_of(columns(y, x, 1, p)) };
}

void plan_3d(large_schedule& s, i64 p)
{
    const i64 z = s.shape[0], y = s.shape[1], x = s.shape[2], plane = y * x;
    if (std::max({ z, y, x }) > p)
        too_small(
            s, std::max({ z, y, x }), "3-D: one line along each axis must fit a pass");
    // Paper 6.2, the Z decomposition: the Y decomposition on planes of Y x X.
    if (!s.in_place && unit_four_step(s, z, plane, y, p))
        return;
    s.rounds = { round_of(columns(1, z, plane, p), true) };
    if (plane <= p) {
        // Paper 5.2: round two transforms whole z-slabs (Y then X) in one pass.
        column_round r2 = columns(z, y, x, p);
        r2.trailing = true;
        s.rounds.push_back(round_of(r2));
    } else {
        s.rounds.push_back(round_of(columns(z, y, x, p)));
        s.rounds.push_back(round_of(columns(z * y, x, 1, p)));
    }
}

} // namespace

namespace {

// The rounds of `s` (shape, sizes and slots set), without their passes.
void plan_rounds(large_schedule& s)
{
    const i64 budget_elems = i64(s.budget / s.elem_bytes);
    if (budget_elems / 2 >= s.size) {
        // In card: the data plus an FFT work area of the same size.
        s.rounds = { round_of(whole_round{ s.shape, std::min(s.size, whole_chunk_elems) },
                              true) };
        return;
    }
    s.pass_elems = budget_elems / large_fft_budget_units(s.slots);
    if (s.shape.size() == 1)
        plan_1d(s, s.pass_elems);
    else if (s.shape.size() == 2)
        plan_2d(s, s.pass_elems);
    else
        plan_3d(s, s.pass_elems);
}

large_schedule
empty_schedule(const std::vector<i64>& shape, std::size_t elem_bytes, std::size_t budget)
{
    large_schedule s;
    s.shape = shape;
    s.elem_bytes = elem_bytes;
    s.budget = budget;
    s.size = 1;
    for (i64 d : shape)
        s.size *= d;
    return s;
}

} // namespace

int choose_ring_slots(const std::vector<std::int64_t>& shape,
                      std::size_t elem_bytes,
                      std::size_t budget)
{
    // Out of place: the narrowest rows of either schedule are its column rounds'.
    large_schedule s = empty_schedule(shape, elem_bytes, budget);
    try {
        plan_rounds(s);
    } catch (const std::invalid_argument&) {
        return large_fft_max_slots; // the plan itself says what the budget lacks
    }
    if (s.pass_elems * i64(elem_bytes) < large_ring_min_pass_bytes)
        return large_fft_max_slots;
    for (const auto& r : s.rounds)
        if (const auto* c = r.as<column_round>())
            if (c->bc < c->B && c->bc * i64(elem_bytes) < large_ring_narrow_row_bytes)
                return 2;
    return large_fft_max_slots;
}

large_schedule plan_large_fft(const std::vector<std::int64_t>& shape,
                              std::size_t elem_bytes,
                              std::size_t budget,
                              bool in_place,
                              int slots)
{
    if (slots != 0 && slots != 2 && slots != 3)
        throw std::invalid_argument("slots: " + std::to_string(slots) +
                                    " is invalid; must be 0 (chosen), 2 or 3");
    large_schedule s = empty_schedule(shape, elem_bytes, budget);
    s.in_place = in_place;
    s.slots = slots ? slots : choose_ring_slots(shape, elem_bytes, budget);
    plan_rounds(s);
    for (auto& r : s.rounds)
        r.pass_list = make_passes(r);
    return s;
}

} // namespace detail
} // namespace gpufft
} // namespace gr
