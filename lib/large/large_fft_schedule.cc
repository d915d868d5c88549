/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The rounds' passes (what each pass reads, moves and writes) and the schedule's
// description; the planner that chooses the rounds is large_fft_planner.cc.

#include "large/large_fft_schedule.h"
#include <algorithm>
#include <sstream>

namespace gr {
namespace gpufft {
namespace detail {

namespace {

using i64 = std::int64_t;

i64 ceil_div(i64 a, i64 b) { return (a + b - 1) / b; }

i64 product(const std::vector<i64>& v)
{
    i64 n = 1;
    for (i64 d : v)
        n *= d;
    return n;
}

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

std::vector<large_pass> passes_of(const whole_round& r)
{
    std::vector<large_pass> out;
    const i64 n = product(r.dims);
    for (i64 c0 = 0; c0 < n; c0 += r.chunk) {
        large_pass p;
        const i64 len = std::min(r.chunk, n - c0);
        p.reads.push_back({ c0, 1, len, len, c0 });
        p.writes = p.reads;
        p.elements = len;
        out.push_back(p);
    }
    return out;
}

std::vector<large_pass> passes_of(const column_round& r)
{
    std::vector<large_pass> out;
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
            if (r.transposed_write) // A == 1, bc == B: [L][B] -> [B][L], still contiguous
                p.writes.push_back({ 0, 1, p.elements, p.elements, 0 });
            else
                p.writes = p.reads;
            out.push_back(p);
        }
        return out;
    }
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
    return out;
}

std::vector<large_pass> passes_of(const tile_transpose_round& r)
{
    std::vector<large_pass> out;
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
                // the buffer holds transpose(ij) at 0 and transpose(ji) at tt afterwards
                p.writes.push_back({ ji.host_offset, t, t, pitch, 0 });
                if (i != j)
                    p.writes.push_back({ ij.host_offset, t, t, pitch, tt });
                p.elements = (i != j ? 2 : 1) * tt;
                out.push_back(p);
            }
    return out;
}

std::vector<large_pass> passes_of(const rows_transposed_round& r)
{
    // Pass j holds rows [jT, jT+T) in a T x W buffer (W = blocks M). In each square h
    // their tiles right of the diagonal are still in place; tile k < j was moved by pass
    // k into memory tile (k, j). The result goes out transposed, as [h][M][T]: column
    // strip j of every square, all M rows. Before that, the strips' tiles below the
    // diagonal (unread rows k > j) move to memory tiles (j, k), just read. Order (the
    // executors rely on it): the `blocks` own reads first; the `blocks` moves of
    // k = j + 1, which the next pass needs, first.
    std::vector<large_pass> out;
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
                p.moves.push_back(
                    { k * T * W + h * M + j * T, j * T * W + h * M + k * T, T, T, W });
        for (i64 h = 0; h < nb; ++h)
            p.writes.push_back({ h * M + j * T, M, T, W, h * M * T, T });
        out.push_back(p);
    }
    return out;
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
    return std::visit(
        overloaded{
            [](const whole_round& r) { return ceil_div(product(r.dims), r.chunk); },
            [](const column_round& r) {
                return r.bc == r.B ? ceil_div(r.A, r.ac) : r.A * ceil_div(r.B, r.bc);
            },
            [](const tile_transpose_round& r) {
                const i64 t = r.M / r.tile;
                return r.blocks * t * (t + 1) / 2;
            },
            [](const rows_transposed_round& r) { return r.M / r.tile; } },
        op);
}

const char* large_round::kind_name() const
{
    return std::visit(
        overloaded{ [](const whole_round&) { return "whole"; },
                    [](const column_round&) { return "columns"; },
                    [](const tile_transpose_round&) { return "tile_transpose"; },
                    [](const rows_transposed_round&) { return "rows_transposed"; } },
        op);
}

std::string large_round::describe(std::size_t elem_bytes) const
{
    std::ostringstream s;
    std::visit(
        overloaded{
            [&](const whole_round& r) {
                s << "in-card FFT of [";
                for (std::size_t i = 0; i < r.dims.size(); ++i)
                    s << (i ? "," : "") << r.dims[i];
                s << "], transfers of " << human_bytes(double(r.chunk) * elem_bytes);
            },
            [&](const column_round& r) {
                s << "FFT " << r.L << " along [" << r.A << "][" << r.L << "][" << r.B
                  << "]";
                if (r.twiddle)
                    s << " x twiddle(n=" << r.tw_n
                      << (r.tw_div > 1 ? ", div=" + std::to_string(r.tw_div) : "") << ")";
                if (r.trailing && r.trail_rows > 1)
                    s << " + 2-D FFT " << r.trail_rows << "x" << r.trail / r.trail_rows
                      << " of planes";
                else if (r.trailing)
                    s << " + FFT " << (r.trail ? r.trail : r.B) << " of rows";
                if (r.transposed_write)
                    s << ", transposed write"
                      << (r.unit > 1 ? " by rows of " + std::to_string(r.unit) : "");
                const i64 w = (r.bc == r.B ? r.ac * r.L * r.B : r.bc);
                s << "; passes of " << r.ac << "x" << r.L << "x" << r.bc << ", transfers "
                  << (r.bc == r.B ? 1 : r.L) << " x "
                  << human_bytes(double(w) * elem_bytes);
            },
            [&](const tile_transpose_round& r) {
                s << "in-place transpose of "
                  << (r.blocks > 1 ? std::to_string(r.blocks) + " " : "") << r.M << "x"
                  << r.M << (r.blocks > 1 ? " blocks" : "") << " by " << r.tile << "x"
                  << r.tile << " tile pairs";
            },
            [&](const rows_transposed_round& r) {
                s << "FFT " << r.blocks * r.M << " along the rows of " << r.M << "x"
                  << r.blocks * r.M
                  << ", each pass written transposed into a column strip"
                  << (r.blocks > 1 ? " of each " + std::to_string(r.M) + "x" +
                                         std::to_string(r.M) + " square"
                                   : "")
                  << "; passes of " << r.tile << "x" << r.blocks * r.M
                  << ", transfers in of rows up to "
                  << human_bytes(double(r.M) * elem_bytes) << ", out " << r.M << " x "
                  << human_bytes(double(r.tile) * elem_bytes)
                  << "; tiles below the diagonal moved on the host";
            } },
        op);
    s << " (" << passes() << " passes" << (from_input ? ", reads the input" : "") << ")";
    return s.str();
}

std::vector<large_pass> make_passes(const large_round& r)
{
    return std::visit([](const auto& k) { return passes_of(k); }, r.op);
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
    if (pass_elems) {
        s << ", pass buffers of " << pass_elems << " elements, a ring of " << slots;
        if (slots < large_fft_max_slots)
            s << " (" << large_fft_max_slots << " would leave rows under "
              << (large_ring_narrow_row_bytes >> 10) << " KiB)";
    }
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
