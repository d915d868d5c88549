/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The order between the passes of the in-place row round (rows_transposed_round) when
// its passes are dealt out to G executors (pass i to executor i % G). Pass i reads its
// own rows and, from each earlier pass k, the tile that pass k's host moves put in
// memory tile (k, i); pass k moves tile rows k + 1, k + 2, ... in that order, each
// executor's moves one pass after another on its own stream.
//
// Waiting for all moves of the last G passes before reading any moved tile chains the
// copies in: pass i cannot read until pass i - G's moves (up to a GiB of tiles, tens
// of ms on a busy host) are done, and those start only when pass i - G is read, so on
// 2 GPUs the row round ran no faster than on one (H200 x4, 2^32 in place: 868-960 ms
// against 924-964). Here pass k's moves are cut into G + 1 jobs: tile row k + 1 + r
// alone for r < G (what the next G passes read), then the rest; pass i reads the tiles
// of passes older than i - G first (after their last job), then those of passes i - G ..
// i - 1, oldest first, each after the one job that moved it. So a pass's copy in waits
// only for one tile move of each of the G passes before it.
//
// That holds up to two executors. With more, every executor's moves run at once, and on
// an H200 x4 host (64 cores) they ran three times slower (pass 0's: 125 ms against 41)
// and the round took 1262-1412 ms on 4 GPUs against 910-970 ms with the rule before
// it, which stays for G > 2: two jobs (tile row k + 1, then the rest) started after
// pass k's whole copy in, and pass i's moved tiles read after the first job of pass
// i - 1 and all jobs of passes i - 2 .. i - G. The CUDA executor
// (large_fft_cuda.cc) runs this order and test_large_fft_devices checks it in a model
// that runs the round's pieces in random orders allowed by it.

#ifndef INCLUDED_GPUFFT_ROW_ROUND_ORDER_H
#define INCLUDED_GPUFFT_ROW_ROUND_ORDER_H

#include "large/large_fft_schedule.h"
#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace gr {
namespace gpufft {
namespace detail {

class row_round_order
{
public:
    using range = std::pair<std::size_t, std::size_t>; // [first, last)
    //! A host-move job of a pass: (pass, job).
    using job_ref = std::pair<std::size_t, std::size_t>;

    row_round_order(const rows_transposed_round& r, std::size_t executors)
        : d_blocks(std::size_t(r.blocks)),
          d_g(std::max<std::size_t>(1, executors)),
          d_fine(d_g <= 2)
    {
    }

    //! Host-move jobs per pass: one per tile row the next G passes read (G <= 2; else
    //! the next pass's alone), then the rest.
    std::size_t move_jobs() const { return d_fine ? d_g + 1 : 2; }
    //! The moves (indices into large_pass::moves) of job `job` of pass `p`.
    range moves_of(const large_pass& p, std::size_t job) const
    {
        const std::size_t n = p.moves.size();
        const std::size_t lo = std::min(n, job * d_blocks);
        const std::size_t hi = job + 1 < move_jobs() ? std::min(n, lo + d_blocks) : n;
        return { lo, hi };
    }
    //! The job whose end means that all of a pass's moves are done.
    std::size_t last_job() const { return move_jobs() - 1; }
    //! A pass's moves start once this piece of its copy in is done (the pieces before
    //! it too).
    std::size_t moves_after_piece() const { return d_fine ? 0 : read_pieces() - 1; }

    /*!
     * Pieces of pass i's copy in: 0 its own rows (which free the memory its moves
     * fill), 1 the tiles of passes before i - G, then 1 + d for d = 1 .. G the tile of
     * pass i - G - 1 + d. Each is a range of large_pass::reads, maybe empty.
     */
    std::size_t read_pieces() const { return d_fine ? d_g + 2 : 2; }
    range reads_of(std::size_t i, std::size_t piece) const
    {
        const std::size_t nb = d_blocks;
        if (i == 0)
            return piece == 0 ? range{ 0, nb } : range{ nb, nb };
        if (piece == 0)
            return { 0, nb };
        if (!d_fine) // G > 2: every moved tile in piece 1
            return { nb, nb + i * nb };
        const std::size_t old = i > d_g ? i - d_g : 0; // passes [0, old) in piece 1
        if (piece == 1)
            return { nb, nb + old * nb };
        const std::size_t d = piece - 1;
        if (i + d < d_g + 1)
            return { nb, nb }; // that pass does not exist
        const std::size_t k = i - d_g - 1 + d;
        return { nb + k * nb, nb + (k + 1) * nb };
    }
    //! The move jobs piece `piece` of pass i's copy in waits for.
    std::vector<job_ref> waits_of(std::size_t i, std::size_t piece) const
    {
        std::vector<job_ref> w;
        const auto r = reads_of(i, piece);
        if (piece == 0 || r.first == r.second)
            return w;
        if (!d_fine) {
            w.push_back({ i - 1, 0 });
            for (std::size_t k = 2; k <= std::min(d_g, i); ++k)
                w.push_back({ i - k, last_job() });
            return w;
        }
        if (piece == 1) {
            // the latest older pass of each executor; its stream ran the others first
            const std::size_t old = i - d_g;
            for (std::size_t k = old > d_g ? old - d_g : 0; k < old; ++k)
                w.push_back({ k, last_job() });
            return w;
        }
        const std::size_t k = i - d_g - 1 + (piece - 1);
        w.push_back({ k, i - k - 1 });
        return w;
    }

private:
    std::size_t d_blocks, d_g;
    bool d_fine; // the rule above for G <= 2
};

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_ROW_ROUND_ORDER_H */
