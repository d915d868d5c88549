/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The backend-independent pass planner of the large FFT. A schedule is a list of rounds;
// each round streams the whole host array through the working memory in passes, and a
// pass moves rectangular host blocks in, transforms them and moves them out. The CPU and
// CUDA backends execute the same schedule: only where the "working memory" is differs.

#ifndef INCLUDED_GPUFFT_LARGE_FFT_SCHEDULE_H
#define INCLUDED_GPUFFT_LARGE_FFT_SCHEDULE_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace gr {
namespace gpufft {
namespace detail {

/*!
 * Passes in flight at once on the CUDA ring (copy in, compute, copy out): three, or
 * two where three would leave the column passes' rows so narrow that the copies in are
 * bound by the row width (choose_ring_slots).
 */
constexpr int large_fft_max_slots = 3;
//! Budget units per pass: two buffers per slot plus one shared FFT work area.
constexpr int large_fft_budget_units(int slots) { return 2 * slots + 1; }

/*!
 * A rectangle of `rows` x `width` elements of a host array (row pitch `pitch`, first
 * element at `host_offset`), stored at `dev_offset` in a pass buffer with row pitch
 * `dev_pitch` (0: dense, rows x width).
 */
struct host_block {
    std::int64_t host_offset = 0;
    std::int64_t rows = 1;
    std::int64_t width = 0;
    std::int64_t pitch = 0;
    std::int64_t dev_offset = 0;
    std::int64_t dev_pitch = 0;
    std::int64_t elements() const { return rows * width; }
    std::int64_t dpitch() const { return dev_pitch ? dev_pitch : width; }
};

//! A host-to-host copy of a `rows` x `width` rectangle (row pitch `pitch`).
struct host_move {
    std::int64_t from = 0, to = 0;
    std::int64_t rows = 1, width = 0, pitch = 0;
};

//! A pass: what it reads, what it writes, and its geometry inside the round.
struct large_pass {
    std::int64_t a0 = 0, ac = 1, b0 = 0,
                 bc = 1;         //!< columns: the block of the [A][L][B] view
    std::int64_t ti = 0, tj = 0; //!< tile_transpose: the tile pair
    std::vector<host_block> reads, writes;
    //! Made on the host after `reads` have left the host array and before `writes`
    //! arrive; later passes may read what they put in place.
    std::vector<host_move> moves;
    std::int64_t elements = 0; //!< elements in the pass buffer
};

//! The whole array fits: copy in by chunks, one multi-dimensional FFT, copy out.
struct whole_round {
    std::vector<std::int64_t> dims;
    std::int64_t chunk = 0; //!< elements per transfer
};

/*!
 * The array viewed as [A][L][B] (row-major); FFTs of length L along the middle axis
 * (stride B), passes of ac x L x bc elements (ac > 1 only when bc == B).
 */
struct column_round {
    std::int64_t A = 1, L = 1, B = 1;
    std::int64_t ac = 1, bc = 1;
    //! Multiply element (k, b) of the result by exp(sign 2 pi i k * (b / tw_div) / tw_n).
    bool twiddle = false;
    std::int64_t tw_n = 1, tw_div = 1;
    //! After the L transform, also transform the contiguous rows of length `trail`
    //! (0: B, and then bc == B); with trail_rows > 1, 2-D transforms of each row seen
    //! as trail_rows x (trail / trail_rows) (the planes of a 3-D array).
    bool trailing = false;
    std::int64_t trail = 0;
    std::int64_t trail_rows = 1;
    /*!
     * Write element (k, b) to host position b * L + k (A == 1): the four-step transpose.
     * With unit u > 1, runs of u elements move as one: (k, q u + v) -> (q L + k) u + v.
     */
    bool transposed_write = false;
    std::int64_t unit = 1;
};

//! `blocks` M x M squares side by side (row pitch blocks M), each transposed in place
//! by swapping tile x tile pairs.
struct tile_transpose_round {
    std::int64_t M = 0, tile = 0, blocks = 1;
};

/*!
 * M x (blocks M) array, in place: FFTs of length blocks M along the rows, `tile` rows
 * per pass, and pass j writes its rows transposed into column strip j of each M x M
 * square. The strips' tiles below the diagonal still hold unread rows: each pass first
 * moves them on the host into its own row block, which it has just read (the four-step
 * transpose folded into the row round: 4x the data over PCIe instead of 6x). Result
 * column c = blocks i + h lands in row i of square h: natural order.
 */
struct rows_transposed_round {
    std::int64_t M = 0, tile = 0, blocks = 1;
};

//! What a round does: one of the kinds above, each with only its own parameters.
using round_op =
    std::variant<whole_round, column_round, tile_transpose_round, rows_transposed_round>;

struct large_round {
    round_op op;
    bool from_input = false; //!< reads the caller's input (else the output array)
    std::vector<large_pass> pass_list; //!< filled by the planner

    //! The kind's parameters, or null when the round is of another kind.
    template <typename Kind>
    const Kind* as() const
    {
        return std::get_if<Kind>(&op);
    }
    std::int64_t passes() const;
    std::string describe(std::size_t elem_bytes) const;
    //! "whole", "columns", "tile_transpose" or "rows_transposed".
    const char* kind_name() const;
};

//! Visitor from lambdas: std::visit(overloaded{ [](const whole_round&) {...}, ... }, op).
template <typename... F>
struct overloaded : F... {
    using F::operator()...;
};
template <typename... F>
overloaded(F...) -> overloaded<F...>;

//! Enumerates the passes of a round (whole rounds: one pass per chunk of the array).
std::vector<large_pass> make_passes(const large_round& r);

struct large_schedule {
    std::vector<std::int64_t> shape;
    std::int64_t size = 0;
    std::size_t elem_bytes = 8;
    std::size_t budget = 0;          //!< bytes
    std::int64_t pass_elems = 0;     //!< capacity of one pass buffer (0 for whole)
    int slots = large_fft_max_slots; //!< the ring's depth: budget = (2 slots + 1) passes
    bool in_place = false;
    std::vector<large_round> rounds;
    //! Non-empty: after the rounds the element at row-major digit position (k1..kr) over
    //! these factors belongs at natural index k1 + N1*(k2 + N2*(...)); permuted on the
    //! host.
    std::vector<std::int64_t> host_permute;
    //! Elements moved as one item by the host permutation (contiguous runs).
    std::int64_t permute_unit = 1;
    std::string describe() const;
};

/*!
 * Plans the transform of `shape` (1-3 dims, validated by the caller) with `budget` bytes
 * of working memory and a ring of `slots` passes (2 or 3; 0: choose_ring_slots).
 * Throws std::invalid_argument when the budget is below the smallest workable pass (the
 * message gives the minimum).
 */
large_schedule plan_large_fft(const std::vector<std::int64_t>& shape,
                              std::size_t elem_bytes,
                              std::size_t budget,
                              bool in_place,
                              int slots = 0);

/*!
 * The ring's depth for `shape` under `budget`, the same for both schedules of a plan:
 * 2 where a ring of 3 would give column passes of at least large_ring_min_pass_bytes
 * whose strided rows are narrower than large_ring_narrow_row_bytes, else 3. Measured on
 * an H200 (docs/large_fft.md): 2^30 at a budget of 1/8 (rows of 4.5 KiB at 3 slots,
 * 6 KiB at 2) runs 8 % faster on 2 slots; 2^32 in place at 8 GiB (rows of 18 KiB) 17 %
 * slower, where the copies no longer overlap the compute.
 */
int choose_ring_slots(const std::vector<std::int64_t>& shape,
                      std::size_t elem_bytes,
                      std::size_t budget);
constexpr std::int64_t large_ring_narrow_row_bytes = 8 << 10;
constexpr std::int64_t large_ring_min_pass_bytes = std::int64_t(64) << 20;

//! Prime factors of n (with multiplicity, ascending).
std::vector<std::int64_t> prime_factors(std::int64_t n);

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_LARGE_FFT_SCHEDULE_H */
