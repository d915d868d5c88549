/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "core/parallel_for.h"
#include "large/host_transpose.h"
#include <algorithm>
#include <cstring>
#include <numeric>
#include <vector>

namespace gr {
namespace gpufft {
namespace detail {

namespace {

using i64 = std::int64_t;

// Scratch one thread may hold; above it the cycles are followed instead.
constexpr std::size_t scratch_cap = std::size_t(64) << 20;
// Bytes of a column block: enough for whole cache lines per row.
constexpr std::size_t block_bytes = 256;

struct matrix {
    unsigned char* data;
    i64 m, n;
    std::size_t e;
    unsigned char* at(i64 i, i64 j) const { return data + (std::size_t(i * n + j)) * e; }
};

// Item copies: inlined for complex64 / complex128, memcpy of the runtime size else.
template <std::size_t E>
struct fixed_item {
    explicit fixed_item(std::size_t) {}
    void operator()(unsigned char* dst, const unsigned char* src) const
    {
        std::memcpy(dst, src, E);
    }
};
struct any_item {
    std::size_t e;
    explicit any_item(std::size_t bytes) : e(bytes) {}
    void operator()(unsigned char* dst, const unsigned char* src) const
    {
        if (e % 8 != 0 || e > 4096) {
            std::memcpy(dst, src, e);
            return;
        }
        // items of a few words (runs of complex samples): no library call per item
        for (std::size_t k = 0; k < e; k += 8)
            std::memcpy(dst + k, src + k, 8);
    }
};

// Columns per block: block_bytes wide, fewer where m rows of them would pass the scratch
// cap (at least one; the caller checks that one column fits).
i64 column_block(const matrix& A)
{
    const i64 fit = i64(scratch_cap / (std::size_t(A.m) * A.e));
    return std::max<i64>(1, std::min({ A.n, i64(block_bytes / A.e), fit }));
}

// Every column j of the block [j0, j1): item i becomes old item (i + j / div) mod m.
template <typename Copy>
void rotate_columns(const matrix& A, i64 j0, i64 j1, i64 div, unsigned char* tmp)
{
    const Copy copy(A.e);
    const std::size_t w = std::size_t(j1 - j0) * A.e;
    for (i64 i = 0; i < A.m; ++i) {
        // the source row (i + j / div) mod m, stepped without a division per item
        i64 r = (i + j0 / div) % A.m, k = j0 % div;
        unsigned char* dst = tmp + std::size_t(i) * w;
        for (i64 j = j0; j < j1; ++j, dst += A.e) {
            copy(dst, A.at(r, j));
            if (++k == div) {
                k = 0;
                r = r + 1 == A.m ? 0 : r + 1;
            }
        }
    }
    for (i64 i = 0; i < A.m; ++i)
        std::memcpy(A.at(i, j0), tmp + std::size_t(i) * w, w);
}

template <typename Copy>
void rotate_all_columns(const matrix& A, i64 div, int threads)
{
    const i64 block = column_block(A);
    const i64 blocks = (A.n + block - 1) / block;
    parallel_for(
        blocks,
        threads,
        [&](int, i64 lo, i64 hi) {
            std::vector<unsigned char> tmp(std::size_t(A.m * block) * A.e);
            for (i64 b = lo; b < hi; ++b)
                rotate_columns<Copy>(
                    A, b * block, std::min(A.n, (b + 1) * block), div, tmp.data());
        },
        1);
}

// Within row i, item j moves to ((i + j / b) mod m + j m) mod n (kept incrementally).
template <typename Copy>
void shuffle_rows(const matrix& A, i64 b, int threads)
{
    const i64 m = A.m, n = A.n, step = m % n;
    parallel_for(
        m,
        threads,
        [&](int, i64 lo, i64 hi) {
            const Copy copy(A.e);
            std::vector<unsigned char> tmp(std::size_t(n) * A.e);
            for (i64 i = lo; i < hi; ++i) {
                i64 rot = i % n, jm = 0; // (i + j / b) mod m mod n, j m mod n
                i64 q = i;               // (i + j / b) mod m
                for (i64 j = 0; j < n; ++j) {
                    if (j > 0 && j % b == 0) {
                        q = q + 1 == m ? 0 : q + 1;
                        rot = q % n;
                    }
                    i64 d = rot + jm;
                    if (d >= n)
                        d -= n;
                    copy(tmp.data() + std::size_t(d) * A.e, A.at(i, j));
                    jm += step;
                    if (jm >= n)
                        jm -= n;
                }
                std::memcpy(A.at(i, 0), tmp.data(), tmp.size());
            }
        },
        1);
}

// Row i becomes old row f(i), f a permutation: cycles over rows, each thread moving its
// own slice of columns.
template <typename F>
void gather_rows(const matrix& A, int threads, F f)
{
    const i64 parts = std::max<i64>(1, std::min<i64>(threads, A.n));
    parallel_for(
        parts,
        threads,
        [&](int, i64 lo, i64 hi) {
            for (i64 part = lo; part < hi; ++part) {
                const i64 c0 = A.n * part / parts, c1 = A.n * (part + 1) / parts;
                const std::size_t w = std::size_t(c1 - c0) * A.e;
                std::vector<unsigned char> saved(w);
                std::vector<bool> done(std::size_t(A.m), false);
                for (i64 s = 0; s < A.m; ++s) {
                    if (done[std::size_t(s)])
                        continue;
                    std::memcpy(saved.data(), A.at(s, c0), w);
                    i64 p = s;
                    for (;;) {
                        done[std::size_t(p)] = true;
                        const i64 q = f(p);
                        if (q == s) {
                            std::memcpy(A.at(p, c0), saved.data(), w);
                            break;
                        }
                        std::memcpy(A.at(p, c0), A.at(q, c0), w);
                        p = q;
                    }
                }
            }
        },
        1);
}

// Single-threaded cycle following over items; for a few huge items (memcpy-bound).
void follow_cycles(const matrix& A)
{
    const i64 total = A.m * A.n;
    // item at row-major (i, j) of the m x n matrix goes to j * m + i
    auto dest = [&](i64 p) { return (p % A.n) * A.m + p / A.n; };
    std::vector<bool> done(std::size_t(total), false);
    std::vector<unsigned char> carry_v(A.e), tmp_v(A.e);
    unsigned char *carry = carry_v.data(), *tmp = tmp_v.data();
    for (i64 s = 0; s < total; ++s) {
        if (done[std::size_t(s)])
            continue;
        std::memcpy(carry, A.data + std::size_t(s) * A.e, A.e);
        i64 p = s;
        do {
            const i64 q = dest(p);
            unsigned char* at = A.data + std::size_t(q) * A.e;
            std::memcpy(tmp, at, A.e);
            std::memcpy(at, carry, A.e);
            std::swap(carry, tmp);
            done[std::size_t(q)] = true;
            p = q;
        } while (p != s);
    }
}

template <typename Copy>
void decomposed_transpose(const matrix& A, int threads)
{
    const i64 m = A.m, n = A.n, c = std::gcd(m, n), a = m / c, b = n / c;
    // 1. rotate column j up by j / b (only when m and n share a factor): the same for b
    // adjacent columns, so as a rotation of column j' by j' over items of b elements
    // where a column of those fits the scratch
    if (c > 1 && std::size_t(m * b) * A.e <= scratch_cap)
        rotate_all_columns<any_item>(
            matrix{ A.data, m, c, A.e * std::size_t(b) }, 1, threads);
    else if (c > 1)
        rotate_all_columns<Copy>(A, b, threads);
    // 2. within row i, item j moves to ((i + j / b) mod m + j m) mod n
    shuffle_rows<Copy>(A, b, threads);
    // 3. within column j, item i becomes old item (j + i n - i / a) mod m: a rotation of
    // column j by j, then row i becomes row (i n - i / a) mod m
    rotate_all_columns<Copy>(A, 1, threads);
    gather_rows(A, threads, [&](i64 i) { return (i * n - i / a) % m; });
}

} // namespace

void transpose_in_place(
    void* data, std::int64_t rows, std::int64_t cols, std::size_t elem_bytes, int threads)
{
    if (rows <= 1 || cols <= 1)
        return; // a vector: the same memory either way
    const matrix A{ static_cast<unsigned char*>(data), rows, cols, elem_bytes };
    if (std::size_t(rows) * elem_bytes > scratch_cap ||
        std::size_t(cols) * elem_bytes > scratch_cap) {
        follow_cycles(A);
        return;
    }
    threads = std::max(1, threads);
    if (elem_bytes == 8)
        decomposed_transpose<fixed_item<8>>(A, threads);
    else if (elem_bytes == 16)
        decomposed_transpose<fixed_item<16>>(A, threads);
    else
        decomposed_transpose<any_item>(A, threads);
}

} // namespace detail
} // namespace gpufft
} // namespace gr
