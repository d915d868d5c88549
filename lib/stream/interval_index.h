/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_STREAM_INTERVAL_INDEX_H
#define INCLUDED_GPUFFT_STREAM_INTERVAL_INDEX_H

#include <algorithm>
#include <array>
#include <cstddef>
#include <limits>
#include <vector>

namespace gr {
namespace gpufft {
namespace stream {

/*!
 * Intervals [lo, hi], each with an id, that answer "which hold [a, b]" (lo <= a and
 * hi >= b) without a look at every one: sorted by lo, under a tree of the greatest hi
 * (each node the largest hi of its leaves), a query visits the nodes whose leaves
 * start at or under a and reach b. The transmission tracker's tests of every pair of
 * a frame's rows were quadratic in the signals a frame.
 */
class interval_index
{
public:
    struct interval {
        double lo, hi;
        std::size_t id;
    };

    //! Makes the index of `v` (replacing the last one); equal lo's keep id order.
    void assign(const std::vector<interval>& v)
    {
        d_by_lo = v;
        std::sort(d_by_lo.begin(), d_by_lo.end(), [](const auto& x, const auto& y) {
            return x.lo < y.lo || (x.lo == y.lo && x.id < y.id);
        });
        d_leaves = 1;
        while (d_leaves < d_by_lo.size())
            d_leaves *= 2;
        d_most_hi.assign(2 * d_leaves, -std::numeric_limits<double>::infinity());
        for (std::size_t k = 0; k < d_by_lo.size(); ++k)
            d_most_hi[d_leaves + k] = d_by_lo[k].hi;
        for (std::size_t node = d_leaves - 1; node >= 1; --node)
            d_most_hi[node] = std::max(d_most_hi[2 * node], d_most_hi[2 * node + 1]);
    }

    //! visit(id) for every interval with lo <= a and hi >= b (in no set order).
    template <class Visit>
    void holding(double a, double b, Visit&& visit)
    {
        const std::size_t end = std::size_t(
            std::partition_point(d_by_lo.begin(),
                                 d_by_lo.end(),
                                 [&](const interval& r) { return r.lo <= a; }) -
            d_by_lo.begin());
        d_stack.assign(1, { 1, 0, d_leaves }); // (node, its first leaf, its leaves)
        while (!d_stack.empty()) {
            const auto [node, first, width] = d_stack.back();
            d_stack.pop_back();
            if (first >= end || d_most_hi[node] < b)
                continue;
            if (width == 1) {
                visit(d_by_lo[first].id);
                continue;
            }
            d_stack.push_back({ 2 * node + 1, first + width / 2, width / 2 });
            d_stack.push_back({ 2 * node, first, width / 2 });
        }
    }

private:
    std::vector<interval> d_by_lo;
    std::vector<double> d_most_hi; //!< 1-based: node k's children are 2k and 2k + 1
    std::size_t d_leaves = 1;
    std::vector<std::array<std::size_t, 3>> d_stack;
};

} // namespace stream
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_STREAM_INTERVAL_INDEX_H */
