/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "large/peer_exchange.h"
#include <algorithm>
#include <cmath>
#include <sstream>

namespace gr {
namespace gpufft {
namespace detail {

using i64 = std::int64_t;

namespace {

// The largest divisor of `n` that is at most `cap` (at least 1).
i64 divisor_at_most(i64 n, i64 cap)
{
    cap = std::max<i64>(1, std::min(n, cap));
    for (i64 d = cap; d > 1; --d)
        if (n % d == 0)
            return d;
    return 1;
}

// Temporaries of at most 256 MiB: large enough that each peer copy and each copy out
// is a long transfer, small beside the slab.
constexpr std::size_t max_chunk_bytes = std::size_t(256) << 20;

} // namespace

std::optional<peer_layout> plan_peer_exchange(
    i64 n, int parts, std::size_t elem_bytes, std::size_t budget, std::string& why)
{
    why.clear();
    if (parts < 2) {
        why = "one device";
        return std::nullopt;
    }
    if (parts > 16) { // the radix step keeps its values in registers
        why = std::to_string(parts) + " devices; the peer exchange takes at most 16";
        return std::nullopt;
    }
    peer_layout l;
    l.n = n;
    l.parts = parts;
    l.elem_bytes = elem_bytes;
    // N1 <= N2, the pair closest to sqrt(N) that the devices divide
    for (i64 d = i64(std::sqrt(double(n))) + 1; d >= parts; --d) {
        if (d * d > n || n % d || d % parts || (n / d) % parts)
            continue;
        l.n1 = d;
        l.n2 = n / d;
        break;
    }
    if (!l.n1) {
        why = "no factors N1 x N2 of " + std::to_string(n) + " that " +
              std::to_string(parts) + " devices divide";
        return std::nullopt;
    }
    l.s1 = l.n1 / parts;
    l.s2 = l.n2 / parts;
    const std::size_t slab_bytes = std::size_t(l.slab()) * elem_bytes;
    // a whole column and a whole row must fit a temporary
    const std::size_t line = std::size_t(std::max(l.n1, l.s2)) * elem_bytes;
    // (n1 >= s1: a column block of one column fits too)
    const std::size_t chunk_bytes = std::max(
        line, std::min(max_chunk_bytes, std::max<std::size_t>(slab_bytes / 8, 1)));
    l.chunk = i64(chunk_bytes / elem_bytes);
    // slab, two temporaries and a cuFFT work area of about one temporary
    const std::size_t need = l.device_bytes() + chunk_bytes;
    if (need > budget) {
        why = "a slab of " + std::to_string(slab_bytes) + " bytes and its temporaries (" +
              std::to_string(need) + " bytes) exceed the budget of " +
              std::to_string(budget) + " bytes per device";
        return std::nullopt;
    }
    l.col_batch = divisor_at_most(l.s2, l.chunk / l.n1);
    l.row_batch = divisor_at_most(l.s1, l.chunk / l.s2); // whole slots, one at a time
    l.out_cols = divisor_at_most(l.s2, l.chunk / l.s1);
    // up to four copies in per slab, so the column FFTs start before the slab is in
    const i64 batches = l.s2 / l.col_batch;
    l.in_parts = int(divisor_at_most(batches, 4));
    return l;
}

std::string peer_layout::describe() const
{
    std::ostringstream s;
    s << "peer exchange on " << parts << " devices: " << n1 << " x " << n2
      << ", a slab of " << n1 << " x " << s2 << " per device (" << in_parts
      << " copies in), column FFTs of " << n1 << " (" << col_batch
      << " a call), twiddle, slots of " << s1 << " x " << s2 << " swapped over "
      << (parts - 1 + parts % 2) << " rounds of peer copies (" << chunk * elem_bytes
      << "-byte chunks), radix-" << parts << " step, row FFTs of " << s2 << " ("
      << row_batch << " a call), copies out of " << out_cols << " output rows of " << s1
      << " (slot column blocks transposed); the data crosses PCIe once each way\n";
    return s.str();
}

std::vector<std::vector<int>> exchange_rounds(int parts)
{
    // the circle method: players 0..m-1 with m even (a dummy when parts is odd);
    // m-1 stays fixed, the others rotate
    const int m = parts + parts % 2;
    std::vector<std::vector<int>> rounds;
    for (int r = 0; r < m - 1; ++r) {
        std::vector<int> partner(parts, -1);
        auto pair = [&](int a, int b) {
            if (a < parts && b < parts) {
                partner[a] = b;
                partner[b] = a;
            }
        };
        pair(r, m - 1);
        for (int i = 1; i < m / 2; ++i)
            pair((r + i) % (m - 1), (r - i + m - 1) % (m - 1));
        rounds.push_back(partner);
    }
    return rounds;
}

} // namespace detail
} // namespace gpufft
} // namespace gr
