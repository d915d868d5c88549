/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The CPU backend of spectrum sensing: the window applied to the samples as they are
// copied for FFTW (the CUDA backend applies it as a 7-tap kernel on the spectrum: the
// same X_w, exactly, up to float rounding, and the copy costs less than the 14
// multiply-adds a bin of the kernel), then one pass over the spectrum that makes |X_w|^2
// block by block and each sub-band's floor as soon as its bins are made (while they are
// in cache), then one pass over the power for the threshold. Only
// the bins of the bands and of the gaps between runs are read again, never the rest.
// The loops are in sensing_cpu_loops.cc (vectorised, AVX2 where the CPU has it).

#include "sensing/sensing_backend.h"
#include "sensing/sensing_cpu_loops.h"
#include <gnuradio/gpufft/dense_fft_plan.h>
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <thread>

namespace gr {
namespace gpufft {
namespace detail {

namespace {


class sensing_cpu final : public sensing_backend
{
public:
    sensing_cpu(const sensing_params& p, int threads)
        : d_p(p), d_fft(p.k.n, 1, direction::forward, fft_options(p, threads))
    {
        d_X.resize(std::size_t(d_k.n));
        if (d_k.n <= out_of_place_max)
            d_xw.resize(std::size_t(d_k.n));
        d_P.resize(std::size_t(d_k.n));
        d_w.resize(std::size_t(d_k.n));
        sensing_make_window(d_k, d_w.data());
        d_fixed.resize(std::size_t(floor_group_size) * sensing_floor_samples);
        d_group.resize(floor_group_size);
        d_idx.resize(block);
        d_block_floor.resize(block);
        d_bits.resize(block / 64);
        d_cand.resize(block / 64);
        d_sums.resize(std::size_t((d_k.n + 63) / 64));
        if (d_tops)
            d_top.resize(d_sums.size());
        d_floor.resize(std::size_t(d_k.subbands));
        d_scratch.resize(2 * std::size_t(d_k.subbands));
        make_piece_ends();
    }

    bool spectrum(const std::complex<float>* x,
                  memory where,
                  const sensing_floor_track& track,
                  std::vector<double>& floors,
                  std::vector<sensing_run>& runs,
                  sensing_time_power& time) override
    {
        if (where != memory::host)
            throw std::invalid_argument(
                "where: the CPU backend takes host arrays only (memory::host)");
        // Out of place where the second array is small: FFTW's in-place plan copies
        // (fftwf_cpy1d, ~4 % of the FFT at 2^16).
        std::complex<float>* xw = d_xw.empty() ? d_X.data() : d_xw.data();
        // The sub-frames' powers on the window's way through the samples.
        double power[sensing_time_blocks];
        sensing_window(x, d_w.data(), d_k.n, xw, power, d_k.time_stride);
        time.quiet = sensing_quiet_power(power);
        time.last = power[sensing_time_blocks - 1];
        d_fft.execute(xw, d_X.data(), memory::host);
        power_and_floor();
        sensing_open_floor(d_k, d_floor.data(), d_scratch.data());
        floors = d_floor;
        // The frame's threshold and floor from the plan's track (sensing_plan.cc).
        d_p.k.eta = track.eta;
        if (track.prior != nullptr) {
            const int S = d_k.subbands;
            const double level = sensing_burst_level(
                d_k,
                sensing_track_level(d_k, d_floor.data(), track.prior, d_scratch.data()),
                time,
                track.prior_quiet,
                track.prior);
            double l, w, h;
            for (int i = 0; i < S; ++i) {
                d_floor[std::size_t(i)] = sensing_track_floor(d_k,
                                                              d_floor[std::size_t(i)],
                                                              track.prior[i] + level,
                                                              track.prior[S + i],
                                                              track.prior[2 * S + i],
                                                              l,
                                                              w,
                                                              h);
                // The plan's update of the track makes the same values from the same
                // floors (2 S logs, S exponentials and two ranks a frame, a few per
                // cent of detect() at n = 1024): it takes these.
                if (track.next != nullptr) {
                    track.next[i] = l;
                    track.next[S + i] = w;
                    track.next[2 * S + i] = h;
                    track.next[3 * S + i] = d_floor[std::size_t(i)];
                }
            }
            if (track.next != nullptr)
                track.next[4 * S] = 1;
        }
        return find_runs(runs);
    }

    void bands(std::vector<sensing_band>& bands) override
    {
        // Every band takes its floors from a buffer filled a line of the floor at a
        // time (the same values as sensing_floor_at, without its branches and
        // conversions a bin, read two or three times a bin), then the vectorised sums.
        for (auto& b : bands) {
            const std::int64_t width = b.last - b.first + 1;
            if (d_band_floor.size() < std::size_t(width))
                d_band_floor.resize(std::size_t(width));
            fill_floors(b.first, b.last + 1, d_band_floor.data());
            const std::size_t blocks = std::size_t((b.core_last - b.core_first + 1) / 64);
            if (d_band_blocks.size() < blocks)
                d_band_blocks.resize(blocks);
            sensing_band_sums_buffered(b,
                                       d_k,
                                       d_P.data(),
                                       d_band_floor.data() - b.first,
                                       d_X.data(),
                                       d_p.rule,
                                       d_p.xdb_ratio,
                                       d_band_blocks.data());
        }
    }

    void gap_levels(const std::vector<sensing_run>& runs,
                    std::int64_t max_gap,
                    bool exact,
                    std::vector<double>& level) override
    {
        level.assign(runs.empty() ? 0 : runs.size() - 1, 0.0);
        // The least floor of the frame: every floor of a bin lies between two
        // sub-bands' floors (sensing_floor_at), so it bounds any gap's level from above.
        const double frame_least =
            d_floor.empty() ? 0.0 : *std::min_element(d_floor.begin(), d_floor.end());
        // And the greatest bounds it from below.
        const double frame_most =
            d_floor.empty() ? 0.0 : *std::max_element(d_floor.begin(), d_floor.end());
        for (std::size_t i = 0; i + 1 < runs.size(); ++i) {
            const std::int64_t a = runs[i].last + 1, b = runs[i + 1].first;
            // A gap of gap_bins or fewer always joins its runs (the plan's bridge()
            // reads no level for it): in a carrier near the threshold most gaps are such
            // (LTE: a sixth of detect()'s time beside the FFT went on gap levels).
            if (exact) {
                if (b > a && b - a <= max_gap)
                    level[i] = ratio_sum(a, b) / double(b - a);
                continue;
            }
            if (b - a <= std::int64_t(d_p.gap_bins) || b - a > max_gap)
                continue;
            const double sum = power_sum(a, b);
            // Noise gaps are far under the level that joins even over the frame's least
            // floor: that bound decides them, without the gap's own floors; most even
            // under the least level that joins any gap (sensing_gap_fill_level() is 1.6
            // at least), without its square root and division (a twentieth of
            // gap_levels() for a thousand tones).
            double loose = 0;
            if (frame_least > 0) {
                loose = sum / frame_least / double(b - a);
                if (loose * (1 + 1e-4) < least_fill) {
                    level[i] = loose;
                    continue;
                }
            }
            const double fill = sensing_gap_fill_level(b - a);
            // A bound from below decides only where it clears every level the plan
            // holds a gap against: between two lone tones that is
            // sensing_tone_gap_level(), over the fill level for short gaps. Against
            // the fill level alone, the NFM capture's weak lines 6-8 bins apart stayed
            // two signals here in 4 of 1687 frames and joined on CUDA, which reads
            // such gaps exactly.
            const double over_all = std::max(fill, sensing_tone_gap_level(b - a));
            if (frame_least > 0 && loose * (1 + 1e-4) < fill) {
                level[i] = loose;
                continue;
            }
            // A gap inside a carrier, far over the level, is decided over the frame's
            // greatest floor, without the gap's own floors (LTE: most of its gaps).
            if (frame_most > 0) {
                const double over = sum / frame_most / double(b - a);
                if (over > over_all * (1 + 1e-4)) {
                    level[i] = over;
                    continue;
                }
            }
            // Most gaps are noise, far under the level that joins: the gap's power over
            // its least floor bounds the level from above and needs no division a bin
            // (sums of 64 bins kept from the power pass), so such a gap gets the bound.
            // Inside a carrier most gaps are far over it: the power over the gap's
            // greatest floor bounds the level from below, and where that bound clears
            // the level by 1e-4 (ratio_sum's float terms are within 1e-5), the join is
            // decided as the bins' own sum would decide it, and the plan only compares
            // the level with sensing_gap_fill_level().
            double least, most;
            floor_range(a, b, least, most);
            const double bound = sum / least / double(b - a);
            if (bound * (1 + 1e-4) < fill) {
                level[i] = bound;
                continue;
            }
            const double under = sum / most / double(b - a);
            if (under > over_all * (1 + 1e-4)) {
                level[i] = under;
                continue;
            }
            // Each bin over its own floor: a gap of thousands of bins crosses sub-bands
            // whose floors differ (one floor at the gap's centre split the LTE TDD
            // carrier into 136 transmissions, not 78).
            level[i] = ratio_sum(a, b) / double(b - a);
        }
    }

    std::int64_t memory_bytes() const override
    {
        // The windowed samples and their spectrum (one array above out_of_place_max),
        // its power, the window, plus FFTW's plan.
        return d_k.n * std::int64_t(sizeof(std::complex<float>) + 2 * sizeof(float)) +
               std::int64_t(d_xw.size() * sizeof(std::complex<float>));
    }

private:
    static constexpr std::size_t block = 2048;
    //! The least sensing_gap_fill_level() of any gap.
    static constexpr double least_fill = 1.0 + 0.6;
    //! Frames up to this size keep the windowed samples apart from the spectrum.
    static constexpr std::int64_t out_of_place_max = std::int64_t(1) << 22;

    static dense_fft_options fft_options(const sensing_params& p, int threads)
    {
        dense_fft_options o;
        o.backend = backend::cpu;
        // Below 2^18 points FFTW's threads cost more than they save.
        o.threads = threads > 0 ? threads : (p.k.n < (1 << 18) ? 1 : 0);
        return o;
    }


    // The piece of sensing_floor_at()'s line under bin s: -1 left of the first
    // sub-band's centre, subbands - 1 right of the last one's (flat floors there).
    int floor_piece(std::int64_t s) const
    {
        if (d_k.subbands == 1)
            return -1;
        const double x = (double(s) + 0.5) * d_k.inv_sub_bins - 0.5;
        if (x <= 0)
            return -1;
        return std::min(int(x), d_k.subbands - 1);
    }

    // sensing_floor_range()'s least and greatest floor over [a, b), the same floors
    // compared; its sub-bands by a shift where sub_bins is a power of two (two 64-bit
    // divisions a gap, in an LTE carrier a few hundred gaps a frame).
    void floor_range(std::int64_t a, std::int64_t b, double& least, double& most) const
    {
        const double* f = d_floor.data();
        const double fa = sensing_floor_at(d_k, f, a),
                     fb = sensing_floor_at(d_k, f, b - 1);
        least = fa < fb ? fa : fb;
        most = fa < fb ? fb : fa;
        const auto sub = [this](std::int64_t x) { // x / sub_bins, x >= 0
            return d_sub_shift >= 0 ? x >> d_sub_shift : x / d_k.sub_bins;
        };
        const std::int64_t end = std::min<std::int64_t>(sub(b) + 1, d_k.subbands);
        for (std::int64_t i = sub(a); i < end; ++i) {
            const std::int64_t centre = i * d_k.sub_bins + d_k.sub_bins / 2;
            if (centre >= a && centre < b) {
                least = f[i] < least ? f[i] : least;
                most = f[i] > most ? f[i] : most;
            }
        }
    }

    // The sum of P over [a, b): whole 64-bin blocks from their sums, the ends bin by bin
    // in four partial sums (one chain of dependent additions was half of gap_levels()'s
    // time: the sum only bounds a gap's level, which decides with a margin of 1e-4).
    double power_sum(std::int64_t a, std::int64_t b) const
    {
        const float* P = d_P.data();
        const std::int64_t a64 = std::min(b, (a + 63) / 64 * 64),
                           b64 = std::max(a64, b / 64 * 64);
        double lane[4] = {};
        const auto add = [&](std::int64_t s, std::int64_t e) {
            for (; s + 4 <= e; s += 4)
                for (int k = 0; k < 4; ++k)
                    lane[k] += double(P[s + k]);
            for (; s < e; ++s)
                lane[0] += double(P[s]);
        };
        add(a, a64);
        add(b64, b);
        double sum = (lane[0] + lane[1]) + (lane[2] + lane[3]);
        for (std::int64_t j = a64 / 64; j < b64 / 64; ++j)
            sum += double(d_sums[std::size_t(j)]);
        return sum;
    }

    // out[s - a] = sensing_floor_at(s) for s in [a, b), the same arithmetic a line of
    // the floor at a time.
    void fill_floors(std::int64_t a, std::int64_t b, double* out) const
    {
        const int S = d_k.subbands;
        const double* f = d_floor.data();
        for (std::int64_t s = a; s < b;) {
            const int i = floor_piece(s);
            const std::int64_t e = piece_end(s, b, i);
            if (i < 0 || i >= S - 1) {
                const double v = i < 0 ? f[0] : f[S - 1];
                for (std::int64_t t = s; t < e; ++t)
                    out[t - a] = v;
            } else {
                sensing_floor_line(
                    s, e, d_k.inv_sub_bins, double(i), f[i], f[i + 1], out + (s - a));
            }
            s = e;
        }
    }

    // The end of floor piece i that holds bin a (b at most): the first bin of the next
    // piece (floor_piece is monotonic), kept for the plan (d_piece_end): a thousand
    // tones' bands stepped to it from an estimate, two floor_piece() a band.
    std::int64_t piece_end(std::int64_t, std::int64_t b, int i) const
    {
        return std::min(b, d_piece_end[std::size_t(i + 1)]);
    }

    // d_piece_end[i + 1]: the first bin after floor piece i, i in [-1, subbands - 1]
    // (n for the last).
    void make_piece_ends()
    {
        const int S = d_k.subbands;
        d_piece_end.assign(std::size_t(S + 1), d_k.n);
        for (int i = -1; i < S - 1; ++i) {
            std::int64_t lo = 0, hi = d_k.n; // the first s with floor_piece(s) > i
            while (lo < hi) {
                const std::int64_t mid = lo + (hi - lo) / 2;
                if (floor_piece(mid) > i)
                    hi = mid;
                else
                    lo = mid + 1;
            }
            d_piece_end[std::size_t(i + 1)] = lo;
        }
    }

    // sum over s in [a, b) of P(s) / floor(s), one stretch of the floor's line at a time.
    double ratio_sum(std::int64_t a, std::int64_t b) const
    {
        const int S = d_k.subbands;
        const double* f = d_floor.data();
        double sum = 0;
        while (a < b) {
            const int i = floor_piece(a);
            const std::int64_t e = piece_end(a, b, i);
            if (i < 0 || i >= S - 1) {
                const double v = i < 0 ? f[0] : f[S - 1];
                sum += sensing_ratio_sum(d_P.data(), a, e, 0, 0, v, v);
            } else {
                sum += sensing_ratio_sum(
                    d_P.data(), a, e, d_k.inv_sub_bins, double(i), f[i], f[i + 1]);
            }
            a = e;
        }
        return sum;
    }

    // |X_w|^2 of shifted bins [s0, s0 + len) into d_P: natural order is contiguous
    // on either side of shifted bin `half` (natural bin 0; for odd n not n - half).
    void power_block(std::int64_t s0, std::int64_t len)
    {
        const std::int64_t wrap = d_k.half, end = s0 + len;
        if (s0 < wrap) {
            const std::int64_t e = std::min(end, wrap);
            sensing_magnitude_squared(
                d_X.data() + sensing_natural(d_k, s0), e - s0, d_P.data() + s0);
            s0 = e;
        }
        if (s0 < end)
            sensing_magnitude_squared(
                d_X.data() + sensing_natural(d_k, s0), end - s0, d_P.data() + s0);
    }

    // The power of block [s0, s0 + len), its 64-bin sums and, where n is a multiple of
    // 128 (d_tops: every block and half of them then a multiple of 64), their largest
    // values (find_runs()), in one pass on either side of natural bin 0.
    void power_sums(std::int64_t s0, std::int64_t len)
    {
        if (!d_tops) {
            power_block(s0, len);
            sensing_block_sums(d_P.data() + s0, len, d_sums.data() + s0 / 64);
            return;
        }
        const std::int64_t end = s0 + len;
        while (s0 < end) {
            const std::int64_t e = s0 < d_k.half ? std::min(end, d_k.half) : end;
            sensing_power_sums(d_X.data() + sensing_natural(d_k, s0),
                               e - s0,
                               d_P.data() + s0,
                               d_sums.data() + s0 / 64,
                               d_top.data() + s0 / 64);
            s0 = e;
        }
    }

    //! Sub-bands whose censoring passes run interleaved (floor_group()).
    static constexpr int floor_group_size = 4;

    // A sub-band's floor while its censoring passes run: its samples' logs, the exponent
    // e of sensing_floor_exponent and the last cut.
    struct floor_state {
        int band = 0;
        const std::int32_t* iv = nullptr;
        std::int64_t m = 0;
        double e = 0;
        bool have = false; // no samples: no floor (0)
        bool done = false;
        std::int32_t last_cut = INT32_MAX;
    };

    // Sub-band i's logs into slot `slot` of the group, and its first, uncensored pass.
    void subband_logs(int i, int slot)
    {
        std::int64_t first, count;
        sensing_subband(d_k, i, first, count);
        auto& st = d_group[std::size_t(slot)];
        st = floor_state();
        st.band = i;
        st.m = sensing_sample_count(d_k, i);
        // The logs in fixed point (2^-16 nepers): integer sums are exact and their
        // loops vectorise, so each censoring pass is one cheap sweep.
        std::int32_t* iv = d_fixed.data() + std::size_t(slot) * sensing_floor_samples;
        st.iv = iv;
        std::int64_t total = 0;
        if (!sensing_log_fixed(
                d_P.data() + first, d_k.stride, st.m, float(d_k.floor_min), iv, total))
            throw_non_finite_frame();
        // The first pass takes every sample (its sum came with the logs).
        st.e = sensing_floor_exponent(d_k, total, st.m, true);
        st.have = st.m > 0;
    }

    // The censoring passes of the group's `count` sub-bands (sensing_floor_cut, then
    // sensing_floor_exponent), then their floors. Each sub-band's passes are its
    // own, in the same order; they run interleaved across the group, so that one's
    // chain of a sum, a division and a conversion a pass overlaps the others' (at n =
    // 1024, four such chains one after the other were 6 % of detect()).
    void floor_group(int count)
    {
        for (int pass = 1; pass <= sensing_floor_passes; ++pass) {
            bool any = false;
            for (int g = 0; g < count; ++g) {
                auto& st = d_group[std::size_t(g)];
                if (st.done)
                    continue;
                const std::int32_t cut =
                    st.have ? sensing_floor_cut(d_k, st.e) : INT32_MAX;
                // The same cut gives the same sums, and so the same floor in every pass
                // left: the estimate has converged (to the cut's 2^-16 nepers).
                if (pass > 1 && cut == st.last_cut) {
                    st.done = true;
                    continue;
                }
                st.last_cut = cut;
                std::int64_t total, below;
                sensing_censored_sum(st.iv, st.m, cut, total, below);
                if (below > 0) {
                    st.e = sensing_floor_exponent(d_k, total, below, false);
                    st.have = true;
                }
                any = true;
            }
            if (!any)
                break;
        }
        for (int g = 0; g < count; ++g) {
            const auto& st = d_group[std::size_t(g)];
            d_floor[std::size_t(st.band)] = st.have ? sensing_floor_of(d_k, st.e) : 0.0;
        }
    }

    // One pass: the power block by block, and each sub-band's logs once its last bin
    // is made (in cache), its floor with its group's.
    void power_and_floor()
    {
        const std::int64_t n = d_k.n;
        int next = 0, grouped = 0;
        for (std::int64_t s0 = 0; s0 < n; s0 += std::int64_t(block)) {
            const std::int64_t len = std::min<std::int64_t>(std::int64_t(block), n - s0);
            power_sums(s0, len);
            for (; next < d_k.subbands; ++next) {
                std::int64_t first, count;
                sensing_subband(d_k, next, first, count);
                if (first + count > s0 + len)
                    break;
                subband_logs(next, grouped++);
                if (grouped == floor_group_size || next == d_k.subbands - 1) {
                    floor_group(grouped);
                    grouped = 0;
                }
            }
        }
    }

    // runs.push_back({ first, last }) without the pair made on the stack: its two
    // 8-byte stores, read back by one 16-byte load for the copy, stalled every run.
    static void
    push_run(std::vector<sensing_run>& runs, std::int64_t first, std::int64_t last)
    {
        runs.emplace_back();
        runs.back().first = first;
        runs.back().last = last;
    }

    //! Blocks with more candidates than this take above_stretches().
    static constexpr std::int64_t dense_block = 256;

    // find_runs() over block [s0, s0 + len) from the bits of sensing_above_bits (its
    // floors in d_block_floor): each stretch of set bits extends the open run or, as
    // the bin-by-bin loop does for its first bin, closes it and opens the next.
    void above_stretches(std::int64_t s0,
                         std::int64_t len,
                         std::int64_t& open_first,
                         std::int64_t& open_last,
                         std::vector<sensing_run>& runs,
                         bool& complete)
    {
        sensing_above_bits(
            d_P.data() + s0, d_block_floor.data(), d_k.eta, len, d_bits.data());
        walk_bits(s0, len, open_first, open_last, runs, complete);
    }

    // find_runs() over block [s0, s0 + len) from its bits in d_bits (set: above the
    // threshold, bar the DC mask): each stretch of set bits extends the open run or, as
    // the bin-by-bin loop does for its first bin, closes it and opens the next.
    void walk_bits(std::int64_t s0,
                   std::int64_t len,
                   std::int64_t& open_first,
                   std::int64_t& open_last,
                   std::vector<sensing_run>& runs,
                   bool& complete)
    {
        std::uint64_t* words = d_bits.data();
        if (d_k.mask_dc) { // sensing_masked()'s bins never stand out
            const std::int64_t a = std::max(s0, d_k.half - d_k.dc_mask),
                               b = std::min(s0 + len - 1, d_k.half + d_k.dc_mask);
            for (std::int64_t s = a; s <= b; ++s)
                words[(s - s0) / 64] &= ~(std::uint64_t(1) << ((s - s0) % 64));
        }
        // Each word's stretches from its bits where a stretch starts and where one
        // ends, taken in order (one branch a stretch, well predicted: the walk from
        // set bit to clear bit, with its scans over words and its branches, took a few
        // hundred LTE runs a frame 30 cycles each). A stretch that starts at the
        // block's first bit may go on the open run (the test below, as for any other).
        const std::int64_t nwords = (len + 63) / 64;
        for (std::int64_t q = 0; q < nwords; ++q) {
            const std::uint64_t w = words[q];
            if (w == 0)
                continue;
            const std::uint64_t before = q > 0 ? words[q - 1] >> 63 : 0;
            const std::uint64_t after = q + 1 < nwords ? words[q + 1] << 63 : 0;
            std::uint64_t starts = w & ~((w << 1) | before);
            std::uint64_t ends = w & ~((w >> 1) | after);
            const std::int64_t base = s0 + 64 * q;
            // The word opens inside a stretch begun before it: its first end is that
            // stretch's (the open run's).
            if (before != 0 && (w & 1) != 0) {
                if (ends == 0)
                    continue; // it goes on through the word
                open_last = base + __builtin_ctzll(ends);
                ends &= ends - 1;
            }
            while (starts != 0) {
                const std::int64_t first = base + __builtin_ctzll(starts);
                starts &= starts - 1;
                if (first != open_last + 1) {
                    if (open_first >= 0) {
                        if (std::int64_t(runs.size()) == sensing_max_runs) {
                            complete = false;
                            return;
                        }
                        push_run(runs, open_first, open_last);
                    }
                    open_first = first;
                }
                if (ends == 0) { // it goes on into the next word
                    open_last = base + 63;
                    break;
                }
                open_last = base + __builtin_ctzll(ends);
                ends &= ends - 1;
            }
        }
    }

    // The threshold pass over d_P; a bin is checked against its own threshold only where
    // it beats the block's lowest one.
    bool find_runs(std::vector<sensing_run>& runs)
    {
        runs.clear();
        const std::int64_t n = d_k.n;
        std::int64_t open_first = -1, open_last = -2;
        bool complete = true;
        for (std::int64_t s0 = 0; s0 < n && complete; s0 += std::int64_t(block)) {
            const std::int64_t len = std::min<std::int64_t>(std::int64_t(block), n - s0);
            const float* P = d_P.data() + s0;
            double fmin, fmax;
            floor_range(s0, s0 + len, fmin, fmax);
            // A hair under the least threshold, so that float rounding drops no bin.
            const float low = float(d_k.eta * fmin) * (1.0f - 1e-6f);
            // Most stretches hold nothing above even the lowest threshold: a test that
            // vectorises passes over them, and only candidates are checked one by one.
            if (d_tops) {
                // AVX-512: the candidates' bits, and where they are not dense each
                // stretch's bins tested at once (sensing_above()'s test, bit for bit)
                // and the runs taken off the bits (a candidate at a time, with a
                // branch a run, was most of the pass for a thousand tones).
                const std::int64_t c = sensing_top_bits(d_k,
                                                        d_floor.data(),
                                                        P,
                                                        d_top.data() + s0 / 64,
                                                        s0,
                                                        len,
                                                        low,
                                                        dense_block,
                                                        d_cand.data(),
                                                        d_bits.data());
                if (c > dense_block) {
                    fill_floors(s0, s0 + len, d_block_floor.data());
                    above_stretches(s0, len, open_first, open_last, runs, complete);
                    continue;
                }
                if (c >= 0) {
                    walk_bits(s0, len, open_first, open_last, runs, complete);
                    continue;
                }
            }
            const std::int64_t m =
                d_tops ? sensing_candidates_top(
                             P, d_top.data() + s0 / 64, len, low, d_idx.data())
                       : sensing_candidates(P, len, low, d_idx.data());
            // A dense block (a carrier near the threshold): the block's floors a line
            // at a time (sensing_floor_at's values, bit for bit), every bin tested at
            // once and the runs taken off the bits, a stretch at a time. Fewer
            // candidates (a thousand tones: 170 a block) take sensing_above() one by
            // one, the same values: the block's 2048 floors made for them cost more.
            if (m > dense_block) {
                fill_floors(s0, s0 + len, d_block_floor.data());
                above_stretches(s0, len, open_first, open_last, runs, complete);
                continue;
            }
            for (std::int64_t c = 0; c < m; ++c) {
                const std::int64_t i = d_idx[std::size_t(c)];
                const std::int64_t s = s0 + i;
                if (!sensing_above(d_k, d_k.eta, d_floor.data(), s, P[i]))
                    continue;
                if (s == open_last + 1) {
                    open_last = s;
                    continue;
                }
                if (open_first >= 0) {
                    if (std::int64_t(runs.size()) == sensing_max_runs) {
                        complete = false;
                        break;
                    }
                    push_run(runs, open_first, open_last);
                }
                open_first = open_last = s;
            }
        }
        if (open_first >= 0 && complete) {
            if (std::int64_t(runs.size()) == sensing_max_runs)
                complete = false;
            else
                push_run(runs, open_first, open_last);
        }
        return complete;
    }

    sensing_params d_p; // k.eta: the frame's (spectrum())
    const sensing_consts& d_k = d_p.k;
    dense_fft_plan d_fft;
    sensing_aligned_vector<std::complex<float>> d_X, d_xw;
    sensing_aligned_vector<float> d_P;    // windowed power, shifted order
    sensing_aligned_vector<float> d_w;    // the window in time
    std::vector<float> d_sums;            // sums of P over 64 bins (block = 2048: whole)
    std::vector<float> d_top;             // the largest P of each 64 bins (power_sums())
    const bool d_tops = d_k.n % 128 == 0; // d_top is kept (power_sums())
    std::vector<std::int32_t> d_fixed, d_idx; // d_fixed: a floor group's logs
    std::vector<floor_state> d_group;
    std::vector<double> d_band_floor;  // a band's floors (bands())
    std::vector<double> d_band_blocks; // its core's sums of 64 bins (bands())
    std::vector<double> d_block_floor; // a block's floors (find_runs())
    std::vector<std::uint64_t> d_bits; // a dense block's bins above (find_runs())
    std::vector<std::uint64_t> d_cand; // a block's candidates (sensing_top_bits())
    std::vector<double> d_floor, d_scratch;
    std::vector<std::int64_t> d_piece_end; // piece_end()'s
    //! log2(sub_bins) where it is a power of two, else -1 (floor_range()).
    const int d_sub_shift = (d_k.sub_bins & (d_k.sub_bins - 1)) == 0
                                ? __builtin_ctzll(std::uint64_t(d_k.sub_bins))
                                : -1;
    //! ln(cut) and ln(floor_min): the floor's passes in the log (subband_floor()).
};

} // namespace

std::unique_ptr<sensing_backend> make_sensing_cpu(const sensing_params& p, int threads)
{
    return std::make_unique<sensing_cpu>(p, threads);
}

} // namespace detail
} // namespace gpufft
} // namespace gr
