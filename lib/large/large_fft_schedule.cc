/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "large_fft_schedule.h"
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

std::string human_bytes(double b)
{
    const char* unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
    int u = 0;
    while (b >= 1024 && u < 4) {
        b /= 1024;
        ++u;
    }
    std::ostringstream s;
    s.precision(u ? 3 : 0);
    s << b << " " << unit[u];
    return s.str();
}

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

// Fills ac/bc of a columns round for pass buffers of `p` elements.
void size_columns(large_round& r, i64 p)
{
    if (r.L * r.B <= p) {
        r.bc = r.B;
        r.ac = std::min(r.A, p / (r.L * r.B));
    } else {
        r.ac = 1;
        r.bc = std::min(r.B, p / r.L);
        // keep each transferred row a multiple of 64 elements (aligned, coalesced)
        if (r.bc >= 128)
            r.bc -= r.bc % 64;
    }
}

large_round columns(i64 A, i64 L, i64 B, i64 p)
{
    large_round r;
    r.type = large_round::kind::columns;
    r.A = A;
    r.L = L;
    r.B = B;
    size_columns(r, p);
    return r;
}

i64 ceil_div(i64 a, i64 b) { return (a + b - 1) / b; }

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
    large_round r1 = columns(1, n1, n2 * unit, p);
    r1.bc = std::min(n2, p / (n1 * unit)) * unit;
    r1.from_input = true;
    r1.twiddle = true;
    r1.tw_n = len;
    r1.tw_div = unit;
    r1.transposed_write = true;
    r1.unit = unit;
    large_round r2 = columns(1, n2, n1 * unit, p);
    r2.bc = std::min(n1, p / (n2 * unit)) * unit;
    r2.trailing = true;
    r2.trail = unit;
    r2.trail_rows = unit_rows;
    s.rounds = { r1, r2 };
    return true;
}

} // namespace

std::vector<std::int64_t> prime_factors(std::int64_t n)
{
    std::vector<i64> f;
    for (i64 p = 2; p <= n / p; p += (p == 2 ? 1 : 2))
        while (n % p == 0) {
            f.push_back(p);
            n /= p;
        }
    if (n > 1)
        f.push_back(n);
    return f;
}

std::int64_t large_round::passes() const
{
    switch (type) {
    case kind::whole: {
        i64 n = 1;
        for (i64 d : dims)
            n *= d;
        return ceil_div(n, chunk);
    }
    case kind::columns:
        return bc == B ? ceil_div(A, ac) : A * ceil_div(B, bc);
    case kind::tile_transpose: {
        const i64 t = M / tile;
        return blocks * t * (t + 1) / 2;
    }
    case kind::rows_transposed:
        return M / tile;
    }
    return 0;
}

std::string large_round::describe(std::size_t elem_bytes) const
{
    std::ostringstream s;
    switch (type) {
    case kind::whole:
        s << "in-card FFT of [";
        for (std::size_t i = 0; i < dims.size(); ++i)
            s << (i ? "," : "") << dims[i];
        s << "], transfers of " << human_bytes(double(chunk) * elem_bytes);
        break;
    case kind::columns: {
        s << "FFT " << L << " along [" << A << "][" << L << "][" << B << "]";
        if (twiddle)
            s << " x twiddle(n=" << tw_n
              << (tw_div > 1 ? ", div=" + std::to_string(tw_div) : "") << ")";
        if (trailing && trail_rows > 1)
            s << " + 2-D FFT " << trail_rows << "x" << trail / trail_rows << " of planes";
        else if (trailing)
            s << " + FFT " << (trail ? trail : B) << " of rows";
        if (transposed_write)
            s << ", transposed write"
              << (unit > 1 ? " by rows of " + std::to_string(unit) : "");
        const i64 w = (bc == B ? ac * L * B : bc);
        s << "; passes of " << ac << "x" << L << "x" << bc << ", transfers "
          << (bc == B ? 1 : L) << " x " << human_bytes(double(w) * elem_bytes);
        break;
    }
    case kind::tile_transpose:
        s << "in-place transpose of " << (blocks > 1 ? std::to_string(blocks) + " " : "")
          << M << "x" << M << (blocks > 1 ? " blocks" : "") << " by " << tile << "x"
          << tile << " tile pairs";
        break;
    case kind::rows_transposed:
        s << "FFT " << blocks * M << " along the rows of " << M << "x" << blocks * M
          << ", each pass written transposed into a column strip"
          << (blocks > 1
                  ? " of each " + std::to_string(M) + "x" + std::to_string(M) + " square"
                  : "")
          << "; passes of " << tile << "x" << blocks * M
          << ", transfers in of rows up to " << human_bytes(double(M) * elem_bytes)
          << ", out " << M << " x " << human_bytes(double(tile) * elem_bytes)
          << "; tiles below the diagonal moved on the host";
        break;
    }
    s << " (" << passes() << " passes" << (from_input ? ", reads the input" : "") << ")";
    return s.str();
}

std::vector<large_pass> make_passes(const large_round& r)
{
    std::vector<large_pass> out;
    switch (r.type) {
    case large_round::kind::whole: {
        i64 n = 1;
        for (i64 d : r.dims)
            n *= d;
        for (i64 c0 = 0; c0 < n; c0 += r.chunk) {
            large_pass p;
            const i64 len = std::min(r.chunk, n - c0);
            p.reads.push_back({ c0, 1, len, len, c0 });
            p.writes = p.reads;
            p.elements = len;
            out.push_back(p);
        }
        break;
    }
    case large_round::kind::columns: {
        const i64 LB = r.L * r.B;
        if (r.bc == r.B) {
            for (i64 a0 = 0; a0 < r.A; a0 += r.ac) {
                large_pass p;
                p.a0 = a0;
                p.ac = std::min(r.ac, r.A - a0);
                p.b0 = 0;
                p.bc = r.B;
                p.elements = p.ac * LB;
                p.reads.push_back({ a0 * LB, 1, p.elements, p.elements, 0 });
                if (r.transposed_write) // A == 1, bc == B: [L][B] -> [B][L], still
                                        // contiguous
                    p.writes.push_back({ 0, 1, p.elements, p.elements, 0 });
                else
                    p.writes = p.reads;
                out.push_back(p);
            }
        } else {
            for (i64 a = 0; a < r.A; ++a)
                for (i64 b0 = 0; b0 < r.B; b0 += r.bc) {
                    large_pass p;
                    p.a0 = a;
                    p.ac = 1;
                    p.b0 = b0;
                    p.bc = std::min(r.bc, r.B - b0);
                    p.elements = r.L * p.bc;
                    p.reads.push_back({ a * LB + b0, r.L, p.bc, r.B, 0 });
                    if (r.transposed_write)
                        p.writes.push_back({ b0 * r.L, 1, p.elements, p.elements, 0 });
                    else
                        p.writes = p.reads;
                    out.push_back(p);
                }
        }
        break;
    }
    case large_round::kind::tile_transpose: {
        const i64 t = r.tile, n = r.M / t, tt = t * t, pitch = r.blocks * r.M;
        for (i64 b = 0; b < r.blocks; ++b)
            for (i64 i = 0; i < n; ++i)
                for (i64 j = i; j < n; ++j) {
                    large_pass p;
                    p.ti = i;
                    p.tj = j;
                    const i64 base = b * r.M;
                    const host_block ij{ base + i * t * pitch + j * t, t, t, pitch, 0 };
                    const host_block ji{ base + j * t * pitch + i * t, t, t, pitch, tt };
                    p.reads.push_back(ij);
                    if (i != j)
                        p.reads.push_back(ji);
                    // the buffer holds transpose(ij) at 0 and transpose(ji) at tt
                    // afterwards
                    p.writes.push_back({ ji.host_offset, t, t, pitch, 0 });
                    if (i != j)
                        p.writes.push_back({ ij.host_offset, t, t, pitch, tt });
                    p.elements = (i != j ? 2 : 1) * tt;
                    out.push_back(p);
                }
        break;
    }
    case large_round::kind::rows_transposed: {
        // Pass j holds rows [jT, jT+T) in a T x W buffer (W = blocks M). In each square h
        // their tiles right of the diagonal are still in place; tile k < j was moved by
        // pass k into memory tile (k, j). The result goes out transposed, as [h][M][T]:
        // column strip j of every square, all M rows. Before that, the strips' tiles
        // below the diagonal (unread rows k > j) move to memory tiles (j, k), just read.
        // Order (the executors rely on it): the `blocks` own reads first; the `blocks`
        // moves of k = j + 1, which the next pass needs, first.
        const i64 M = r.M, T = r.tile, t = M / T, nb = r.blocks, W = nb * M;
        for (i64 j = 0; j < t; ++j) {
            large_pass p;
            p.a0 = j;
            p.elements = T * W;
            for (i64 h = 0; h < nb; ++h)
                p.reads.push_back(
                    { j * T * W + h * M + j * T, T, M - j * T, W, h * M + j * T, W });
            for (i64 k = 0; k < j; ++k)
                for (i64 h = 0; h < nb; ++h)
                    p.reads.push_back(
                        { k * T * W + h * M + j * T, T, T, W, h * M + k * T, W });
            for (i64 k = j + 1; k < t; ++k)
                for (i64 h = 0; h < nb; ++h)
                    p.moves.push_back({ k * T * W + h * M + j * T,
                                        j * T * W + h * M + k * T,
                                        T,
                                        T,
                                        W });
            for (i64 h = 0; h < nb; ++h)
                p.writes.push_back({ h * M + j * T, M, T, W, h * M * T, T });
            out.push_back(p);
        }
        break;
    }
    }
    return out;
}

namespace {
// Fills every round's pass list: the planner's last step.
large_schedule with_passes(large_schedule& s)
{
    for (auto& r : s.rounds)
        r.pass_list = make_passes(r);
    return s;
}
} // namespace

large_schedule plan_large_fft(const std::vector<std::int64_t>& shape,
                              std::size_t elem_bytes,
                              std::size_t budget,
                              bool in_place)
{
    large_schedule s;
    s.shape = shape;
    s.elem_bytes = elem_bytes;
    s.budget = budget;
    s.in_place = in_place;
    s.size = 1;
    for (i64 d : shape)
        s.size *= d;
    const i64 n = s.size;
    const i64 budget_elems = i64(budget / elem_bytes);

    // In-card: the data plus an FFT work area of the same size.
    if (budget_elems / 2 >= n) {
        large_round r;
        r.type = large_round::kind::whole;
        r.from_input = true;
        r.dims = shape;
        r.chunk = std::min(n, whole_chunk_elems);
        r.pass_list = make_passes(r);
        s.rounds.push_back(r);
        return s;
    }

    const i64 p = budget_elems / large_fft_budget_units;
    s.pass_elems = p;
    auto too_small = [&](i64 need_elems, const std::string& why) {
        std::ostringstream m;
        m << "memory_budget: " << budget
          << " bytes is below the smallest workable pass for "
          << "this shape (" << why << "); it must be at least "
          << need_elems * large_fft_budget_units * i64(elem_bytes) << " bytes ("
          << large_fft_budget_units << " pass buffers of " << need_elems << " elements)";
        throw std::invalid_argument(m.str());
    };

    if (shape.size() == 1) {
        const auto f2 = split2(n);
        const auto f3 = split3(n);
        const i64 max2 = f2.second, max3 = *std::max_element(f3.begin(), f3.end());
        if (max3 > p)
            too_small(max3,
                      "1-D: the largest factor of a three-round split is " +
                          std::to_string(max3));
        // Two rounds move 4x the data, three 6x plus a host reordering: take three only
        // when two do not fit or would move rows narrower than 32 elements (sqrt(pass)/4
        // for tiny budgets), where transfers lose most of their bandwidth.
        const i64 want_width =
            std::max<i64>(1, std::min<i64>(32, i64(std::sqrt(double(p))) / 4));
        const bool two = max2 <= p && (p / max2 >= want_width || max3 >= max2);
        if (two) {
            const i64 n1 = f2.first, n2 = f2.second;
            if (!in_place) {
                // Paper 4.1: round 1 reads columns of the input, FFT n1, twiddle and
                // transpose on the card, one contiguous write; round 2 FFT n2 in place.
                large_round r1 = columns(1, n1, n2, p);
                r1.from_input = true;
                r1.twiddle = true;
                r1.tw_n = n;
                r1.transposed_write = true;
                large_round r2 = columns(1, n2, n1, p);
                s.rounds = { r1, r2 };
            } else {
                // In place a pass may only write memory that has been read: round 1
                // keeps positions; round 2 either writes transposed with host moves
                // making room (square), or keeps positions too and a third round or
                // the host transposes.
                large_round r1 = columns(1, n1, n2, p);
                r1.from_input = true;
                r1.twiddle = true;
                r1.tw_n = n;
                // n2 a multiple of n1 (square, or 2^odd): fold the transpose into the row
                // round when its column strips stay wide (>= 256 elements, or a quarter
                // of the side on tiny sizes).
                i64 rows = std::min(n1, p / n2);
                while (rows > 1 && n1 % rows != 0)
                    --rows;
                if (n2 % n1 == 0 && rows >= std::min<i64>(256, n1 / 4)) {
                    large_round r2;
                    r2.type = large_round::kind::rows_transposed;
                    r2.M = n1;
                    r2.tile = rows;
                    r2.blocks = n2 / n1;
                    s.rounds = { r1, r2 };
                    return with_passes(s);
                }
                large_round r2 = columns(n1, n2, 1, p);
                s.rounds = { r1, r2 };
                // Largest tile dividing n1 with a pair in one pass.
                i64 t = std::min<i64>(n1, i64(std::sqrt(double(p / 2))));
                while (t > 1 && (2 * t * t > p || n1 % t != 0))
                    --t;
                if (n2 % n1 == 0 && t >= std::min<i64>(n1, 8)) {
                    // Z (n1 x n2) = [B_0 .. B_r-1], r = n2/n1 squares; Z^T stacks the
                    // B_j^T: transpose each square in place by tile pairs, then move
                    // whole rows of n1 elements on the host ((k1, j) -> j*n1 + k1), a
                    // permutation of contiguous runs; none at all when square.
                    large_round r3;
                    r3.type = large_round::kind::tile_transpose;
                    r3.M = n1;
                    r3.tile = t;
                    r3.blocks = n2 / n1;
                    s.rounds.push_back(r3);
                    if (n2 != n1) {
                        s.host_permute = { n1, n2 / n1 };
                        s.permute_unit = n1;
                    }
                } else {
                    s.host_permute = { n1, n2 };
                }
            }
        } else {
            // Paper 4.2: three rounds, N = n1 * n2 * n3.
            const i64 n1 = f3[0], n2 = f3[1], n3 = f3[2];
            if (!in_place) {
                // Round 1 as in two rounds (columns of n1, transposed write:
                // [n2][n3][n1]); round 2 FFT n2 with twiddle over n2*n3 (n3 = b / n1);
                // round 3 FFT n3 on [n2][n3][n1]. Left: (k2, k3) -> (k3, k2) on runs of
                // n1 elements.
                large_round r1 = columns(1, n1, n2 * n3, p);
                r1.from_input = true;
                r1.twiddle = true;
                r1.tw_n = n;
                r1.transposed_write = true;
                large_round r2 = columns(1, n2, n3 * n1, p);
                r2.twiddle = true;
                r2.tw_n = n2 * n3;
                r2.tw_div = n1;
                large_round r3 = columns(n2, n3, n1, p);
                s.rounds = { r1, r2, r3 };
                s.host_permute = { n2, n3 };
                s.permute_unit = n1;
            } else {
                // Every round keeps positions; then the element-wise digit reversal.
                large_round r1 = columns(1, n1, n2 * n3, p);
                r1.from_input = true;
                r1.twiddle = true;
                r1.tw_n = n;
                large_round r2 = columns(n1, n2, n3, p);
                r2.twiddle = true;
                r2.tw_n = n2 * n3;
                large_round r3 = columns(n1 * n2, n3, 1, p);
                s.rounds = { r1, r2, r3 };
                s.host_permute = { n1, n2, n3 };
            }
        }
    } else if (shape.size() == 2) {
        const i64 y = shape[0], x = shape[1];
        if (std::max(y, x) > p)
            too_small(std::max(y, x), "2-D: one row and one column must fit a pass");
        // Paper 5.2, the Y decomposition, on rows of X.
        if (!in_place && unit_four_step(s, y, x, 1, p))
            return with_passes(s);
        large_round r1 = columns(1, y, x, p);
        r1.from_input = true;
        large_round r2 = columns(y, x, 1, p);
        s.rounds = { r1, r2 };
    } else {
        const i64 z = shape[0], y = shape[1], x = shape[2], plane = y * x;
        if (std::max({ z, y, x }) > p)
            too_small(std::max({ z, y, x }),
                      "3-D: one line along each axis must fit a pass");
        // Paper 6.2, the Z decomposition: the Y decomposition on planes of Y x X.
        if (!in_place && unit_four_step(s, z, plane, y, p))
            return with_passes(s);
        large_round r1 = columns(1, z, y * x, p);
        r1.from_input = true;
        s.rounds.push_back(r1);
        if (y * x <= p) {
            // Paper 5.2: round two transforms whole z-slabs (Y then X) in one pass.
            large_round r2 = columns(z, y, x, p);
            r2.trailing = true;
            s.rounds.push_back(r2);
        } else {
            s.rounds.push_back(columns(z, y, x, p));
            s.rounds.push_back(columns(z * y, x, 1, p));
        }
    }
    return with_passes(s);
}

std::string large_schedule::describe() const
{
    std::ostringstream s;
    s << shape.size() << "-D [";
    for (std::size_t i = 0; i < shape.size(); ++i)
        s << (i ? "," : "") << shape[i];
    s << "] " << (elem_bytes == 8 ? "complex64" : "complex128") << " ("
      << human_bytes(double(size) * elem_bytes) << "), "
      << (in_place ? "in place" : "out of place") << ", budget "
      << human_bytes(double(budget));
    if (pass_elems)
        s << ", pass buffers of " << pass_elems << " elements";
    s << "\n";
    for (std::size_t i = 0; i < rounds.size(); ++i)
        s << "  round " << i + 1 << ": " << rounds[i].describe(elem_bytes) << "\n";
    if (!host_permute.empty()) {
        s << "  then on the host: digit reversal over [";
        for (std::size_t i = 0; i < host_permute.size(); ++i)
            s << (i ? "," : "") << host_permute[i];
        s << "]";
        if (permute_unit > 1)
            s << " of runs of " << permute_unit << " elements";
        s << "\n";
    }
    return s.str();
}

} // namespace detail
} // namespace gpufft
} // namespace gr
