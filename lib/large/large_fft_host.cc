/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "core/parallel_for.h"
#include "large/host_transpose.h"
#include "large/large_fft_host.h"
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <numeric>

namespace gr {
namespace gpufft {
namespace detail {

using i64 = std::int64_t;

namespace {

/*!
 * memcpy with streaming (non-temporal) stores where the CPU has them. For the in-place
 * row round's host moves (a GiB per pass beside the PCIe copies, which share the host's
 * memory bandwidth): ordinary stores first read each destination line, a third more
 * memory traffic for data no CPU reads back. Call stream_fence() before others read.
 */
void stream_copy(unsigned char* d, const unsigned char* s, std::size_t n)
{
#if defined(__SSE2__)
    const std::size_t head =
        std::min<std::size_t>(n, (16 - (reinterpret_cast<std::uintptr_t>(d) & 15)) & 15);
    std::memcpy(d, s, head);
    d += head;
    s += head;
    n -= head;
    for (; n >= 64; n -= 64, d += 64, s += 64) {
        const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s));
        const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 16));
        const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 32));
        const __m128i e = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 48));
        _mm_stream_si128(reinterpret_cast<__m128i*>(d), a);
        _mm_stream_si128(reinterpret_cast<__m128i*>(d + 16), b);
        _mm_stream_si128(reinterpret_cast<__m128i*>(d + 32), c);
        _mm_stream_si128(reinterpret_cast<__m128i*>(d + 48), e);
    }
#endif
    std::memcpy(d, s, n);
}

//! Makes this thread's streaming stores visible to other threads and to DMA.
void stream_fence()
{
#if defined(__SSE2__)
    _mm_sfence();
#endif
}

// Copies the blocks (they never overlap one another): single long rows split by bytes,
// one at a time; the rows of all 2-D blocks split among the threads at once, so many
// small tiles cost one round of thread start-up, not one each.
template <bool Gather, bool Stream = false>
void copy_blocks(const void* src,
                 void* dst,
                 const host_block* blocks,
                 std::size_t count,
                 std::size_t e,
                 int threads)
{
    i64 total = 0;
    std::vector<i64> first_row(count + 1, 0); // prefix of the rows of 2-D blocks
    for (std::size_t i = 0; i < count; ++i) {
        total += blocks[i].elements();
        first_row[i + 1] = first_row[i] + (blocks[i].rows > 1 ? blocks[i].rows : 0);
    }
    // below ~1 MiB thread start-up costs more than it saves
    const int t = total * i64(e) < (i64(1) << 20) ? 1 : threads;
    const auto* s = static_cast<const unsigned char*>(src);
    auto* d = static_cast<unsigned char*>(dst);
    auto copy_row = [&](const host_block& b, i64 r, i64 lo, i64 bytes) {
        const i64 host = (b.host_offset + r * b.pitch) * i64(e) + lo;
        const i64 dev = (b.dev_offset + r * b.dpitch()) * i64(e) + lo;
        if (Stream)
            stream_copy(d + dev, s + host, std::size_t(bytes));
        else if (Gather)
            std::memcpy(d + dev, s + host, std::size_t(bytes));
        else
            std::memcpy(d + host, s + dev, std::size_t(bytes));
    };
    for (std::size_t i = 0; i < count; ++i)
        if (blocks[i].rows == 1)
            parallel_for(
                blocks[i].width * i64(e),
                t,
                [&](int, i64 lo, i64 hi) {
                    copy_row(blocks[i], 0, lo, hi - lo);
                    if (Stream)
                        stream_fence();
                },
                1);
    parallel_for(
        first_row[count],
        t,
        [&](int, i64 lo, i64 hi) {
            std::size_t m =
                std::size_t(std::upper_bound(first_row.begin(), first_row.end(), lo) -
                            first_row.begin() - 1);
            for (i64 row = lo; row < hi; ++row) {
                while (row >= first_row[m + 1])
                    ++m;
                copy_row(blocks[m], row - first_row[m], 0, blocks[m].width * i64(e));
            }
            if (Stream)
                stream_fence();
        },
        1);
}

} // namespace

void gather_blocks(const void* host,
                   void* buf,
                   const std::vector<host_block>& blocks,
                   std::size_t elem_bytes,
                   int threads)
{
    copy_blocks<true>(host, buf, blocks.data(), blocks.size(), elem_bytes, threads);
}

void scatter_blocks(const void* buf,
                    void* host,
                    const std::vector<host_block>& blocks,
                    std::size_t elem_bytes,
                    int threads)
{
    copy_blocks<false>(buf, host, blocks.data(), blocks.size(), elem_bytes, threads);
}

void move_blocks(
    void* host, const host_move* moves, std::size_t count, std::size_t e, int threads)
{
    // a move is a gather within the host array: its destination as the "buffer" side
    std::vector<host_block> blocks(count);
    for (std::size_t m = 0; m < count; ++m)
        blocks[m] = { moves[m].from,  moves[m].rows, moves[m].width,
                      moves[m].pitch, moves[m].to,   moves[m].pitch };
    copy_blocks<true, true>(host, host, blocks.data(), count, e, threads);
}

bool all_finite(const void* data, i64 n, std::size_t elem_bytes, int threads)
{
    std::atomic<bool> ok{ true };
    const int t = n < (i64(1) << 17) ? 1 : threads;
    parallel_for(
        n * 2,
        t,
        [&](int, i64 lo, i64 hi) {
            bool good = true;
            if (elem_bytes == 8) {
                const float* p = static_cast<const float*>(data);
                for (i64 i = lo; i < hi; ++i)
                    good &= std::isfinite(p[i]);
            } else {
                const double* p = static_cast<const double*>(data);
                for (i64 i = lo; i < hi; ++i)
                    good &= std::isfinite(p[i]);
            }
            if (!good)
                ok = false;
        },
        1);
    return ok;
}

void permute_digits(void* data,
                    const std::vector<i64>& factors,
                    std::size_t elem_bytes,
                    i64 unit,
                    int threads)
{
    std::size_t item = elem_bytes * std::size_t(unit);
    for (std::size_t d = 0; d + 1 < factors.size(); ++d) {
        const i64 rest = std::accumulate(
            factors.begin() + d + 1, factors.end(), i64(1), std::multiplies<i64>());
        transpose_in_place(data, factors[d], rest, item, threads);
        item *= std::size_t(factors[d]);
    }
}

} // namespace detail
} // namespace gpufft
} // namespace gr
