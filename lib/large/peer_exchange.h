/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The peer-exchange schedule of a 1-D large FFT on G GPUs (no CUDA here): when the
// array fits in the devices' budgets taken together but not in one, each GPU takes a
// slab of columns, the GPUs exchange the four-step's middle transpose over peer copies,
// and the data crosses PCIe once in and once out instead of in two host rounds.
//
// N = N1 x N2, x[N2 n1 + n2] seen as [N1][N2]. GPU g holds columns n2 in
// [g S2, (g+1) S2), S2 = N2 / G, as [N1][S2]:
//   1. column FFTs of N1 and the twiddle exp(sign 2 pi i n2 k1 / N): [k1][S2];
//   2. the slab's rows k1 in [h S1, (h+1) S1), S1 = N1 / G, are slot h; slot h of GPU g
//      and slot g of GPU h are swapped (pairwise, in chunks through a temporary);
//      GPU g then holds rows k1 of its range, slot s holding columns n2 of range s;
//   3. a radix-G step across the slots (segment_butterfly below) and FFTs of S2 along
//      each slot's rows give X[k1 + N1 (G m + r)] in slot r, row k1, column m;
//   4. each slot goes out transposed: rows m of the output's [N2][N1] view, G N1 apart.

#ifndef INCLUDED_GPUFFT_LARGE_PEER_EXCHANGE_H
#define INCLUDED_GPUFFT_LARGE_PEER_EXCHANGE_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gr {
namespace gpufft {
namespace detail {

struct peer_layout {
    std::int64_t n = 0, n1 = 0, n2 = 0;
    int parts = 0; //!< G, the devices
    std::int64_t s1 = 0, s2 = 0;
    std::size_t elem_bytes = 8;
    std::int64_t chunk = 0;     //!< elements of each of the two temporaries per device
    std::int64_t col_batch = 0; //!< columns per column-FFT call
    std::int64_t row_batch = 0; //!< rows of S2 per row-FFT call
    std::int64_t out_cols = 0;  //!< slot columns per transposed copy out (rows of S1)
    int in_parts = 1;           //!< copies in per slab (column ranges)

    std::int64_t slab() const { return n / parts; }
    std::int64_t slot() const { return s1 * s2; }
    //! Device bytes besides the cuFFT work area: the slab and two temporaries.
    std::size_t device_bytes() const
    {
        return std::size_t(slab() + 2 * chunk) * elem_bytes;
    }
    std::string describe() const;
};

/*!
 * The peer-exchange layout of an n-point transform on `parts` devices with `budget`
 * bytes each, or nothing (with the reason in `why`) when n has no factors N1, N2 that
 * `parts` divides or the slab and its temporaries do not fit. `work_bytes` is the
 * room kept for the cuFFT work area (the executor checks the real size).
 */
std::optional<peer_layout> plan_peer_exchange(std::int64_t n,
                                              int parts,
                                              std::size_t elem_bytes,
                                              std::size_t budget,
                                              std::string& why);

/*!
 * Round-robin pairings of `parts` devices: entry [r][g] is the device g swaps with in
 * round r, or -1 (a bye, when parts is odd). Every pair meets exactly once, and in each
 * round a device has at most one partner, so a swap never overwrites a slot that is yet
 * to be sent.
 */
std::vector<std::vector<int>> exchange_rounds(int parts);

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_LARGE_PEER_EXCHANGE_H */
