/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_STREAM_TRANSMISSION_TRACKER_H
#define INCLUDED_GPUFFT_STREAM_TRANSMISSION_TRACKER_H

#include "stream/interval_index.h"
#include <gnuradio/gpufft/api.h>
#include <gnuradio/gpufft/sensing_plan.h>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace gr {
namespace gpufft {
namespace stream {

//! A signal of one frame in Hz (sensed_signal at the frame's rate and centre).
struct frame_signal {
    double center_hz = 0, lower_hz = 0, upper_hz = 0;
    double peak_power_dbfs = 0, total_power_dbfs = 0, snr_db = 0;
    bool dc = false;
    bool held = false; //!< found by the plan's held test (sensing_options::watch_frames)
    //! Its core, the bins over the threshold (sensed_signal first_bin - 1/2 to last_bin
    //! + 1/2), in Hz; both 0: not known, lower_hz..upper_hz stand for it.
    double core_lower_hz = 0, core_upper_hz = 0;
};

//! The sensed_signals of a frame in Hz: center_freq + bin * rate / fft_size.
GPUFFT_API std::vector<frame_signal> to_hz(const std::vector<sensed_signal>& signals,
                                           std::int64_t fft_size,
                                           double rate,
                                           double center_freq);

//! A signal followed over frames: one emitter's burst, packet or carrier.
struct transmission {
    //! Counts from 0 in order of start; a row split off another takes the next id.
    std::uint64_t id = 0;
    std::int64_t start_sample = 0; //!< first sample of its first frame
    std::int64_t sample_count = 0; //!< to the end of its last frame
    double start_s = 0;            //!< start_sample / rate
    double duration_s = 0;         //!< sample_count / rate
    double center_hz = 0;          //!< power-weighted mean of its frames' centres
    //! Its edges: from edge_frames frames on, the edge_trim quantiles of its frames'
    //! edges (the lowest tenth of lower edges and highest tenth of upper ones left
    //! out); seen in fewer, its strongest frame's (no sliver's).
    double lower_hz = 0, upper_hz = 0;
    double bandwidth_hz = 0;    //!< upper_hz - lower_hz
    double peak_power_dbfs = 0; //!< the largest of its frames' peaks
    double mean_snr_db = 0;     //!< mean of its frames' SNR
    int frames = 0;             //!< frames it was seen in (summed when pieces merge)
    bool dc = false;            //!< it covered DC in any frame
};

/*!
 * Signals followed from frame to frame into transmissions (docs/sensing.md,
 * "Transmissions"). A signal continues the transmission whose last edges it overlaps
 * most (within one bin), each transmission paired with one signal first, so two
 * emitters a few bins apart stay two; but the radio's DC spike (a dc signal under an
 * eighth of a transmission's width, the frame's other signals over it covering no
 * eighth of it either) does not continue it, nor a carrier the spike's transmission,
 * and the spike inside a carrier in its hold is no transmission of its own: seen alone
 * while a TDD carrier is off, it would otherwise chain the bursts. A signal left over
 * that overlaps a paired transmission's last edges is a piece of it (a wide band
 * broken up this frame); a transmission left over that overlaps a signal paired with
 * another joined it (the pieces met again) and is merged into it. A transmission seen
 * in no frame for more than its hold has ended: hold_frames for one seen in every frame
 * of its span (2 at least: a burst, a pulse, a carrier) or whose last sightings in a row
 * are too many for its rate before them (streak_chance), else the frames it takes to
 * miss it with chance 1 % while it is still on, ln 0.01 / ln(1 - p), p = frames seen /
 * (frames spanned + 1) (a signal seen once: p = 1/2, 7 frames), at most
 * flicker_hold_factor x hold_frames. A line (a transmission no wider than line_bins
 * bins) that flickered or was seen once is then not reported at once: it waits,
 * dormant, and a signal on its bins that would open a new transmission continues it
 * while missing the line that long would still have a chance over 1 % if it were on
 * (its rate unknown but for its sightings, a uniform prior: may_still_be_on()) and at
 * most line_memory x hold_frames frames have passed since it was last seen. A line
 * near the threshold seen in single frames far apart (a spur, an intermod product) is
 * then one row, at the cost of reporting it up to that many frames late. A wide
 * transmission's own spectrum at its edges is part of it (in a frame where it is
 * contiguous it is part of the band): its extent is the union of its signals' cores
 * (the bins over the threshold) in this frame and the hold_frames before, and a narrow
 * signal (no wider than line_bins, not the DC spike) that would open a transmission
 * inside the extent of one seen this frame and wider than a line in its strongest
 * frame, reaching the extent's edge within a bin, joins it; so does a line seen once,
 * in the wide one's first frame (its onset), that lies inside its extent. A line seen in
 * a single frame, within beside_bins of a line on in that frame (seen in two frames or
 * more, its span holding that frame), is that line's skirt or noise beside it, not a row
 * of its own; a neighbour seen twice or more stays one. A row whose pieces are two
 * groups with a clear gap between them, in one place and each group as wide as before,
 * in split_frames frames in a row, is two emitters a band took in at first: it is split
 * (split_apart()). A row reports its frames' edges
 * (edge_frames, edge_trim); the rules above use its strongest frame's. Frames must come
 * in order of first_sample (update() refuses one that goes back); flush() ends the
 * stream, and the next may start anywhere.
 */
class GPUFFT_API transmission_tracker
{
public:
    //! A dormant line is remembered this many times hold_frames frames by default.
    static constexpr int default_line_memory = 64;

    //! hold_frames and line_memory in [0, 1000] (line_memory 0: no memory of lines,
    //! as before it); std::invalid_argument naming the parameter otherwise.
    explicit transmission_tracker(int hold_frames = 1,
                                  int line_memory = default_line_memory);

    //! A flickering transmission's hold is at most this many times hold_frames.
    static constexpr int flicker_hold_factor = 8;
    //! Chance of missing a flickering transmission that is still on, hold frames in a
    //! row, that its hold allows.
    static constexpr double flicker_miss_chance = 0.01;
    //! A dc signal this many times narrower than a transmission is the DC spike.
    static constexpr double width_ratio = 8;
    //! A transmission at most this many bins wide in its strongest frame is a line,
    //! remembered after its hold when it flickered (a carrier's bursts are not).
    static constexpr double line_bins = 16;
    //! Frames a line is seen in before a wider signal over it hides it (update()).
    static constexpr int occlude_frames = 8;
    //! Two transmissions seen apart in this many frames each are two emitters when a
    //! frame's band joins them now and then (update()).
    static constexpr int apart_frames = 3;
    //! A row seen as two groups of pieces with a clear gap (split_apart()), each as
    //! wide as in the frame before within split_width_ratio, in split_frames frames in
    //! a row, is two emitters. (A carrier whose load leaves a gap between halves of it
    //! does so for a few frames at a time: the LTE FDD capture, 3 frames.)
    static constexpr double split_width_ratio = 1.5;
    static constexpr int split_frames = 4;
    //! split_apart()'s clear gap: wider than this times the narrower group.
    static constexpr double split_gap_ratio = 1.0;
    //! A line seen in a single frame whose edges come within this many bins (two
    //! Blackman-Harris main lobes) of a line on in that frame is that line's.
    static constexpr double beside_bins = 8;
    //! A flickering line's sightings in a row that its rate before them gives with
    //! less than this chance mark it on, not flickering: a miss after them is its end,
    //! with the plain hold, and it is not remembered as a line (a pulse train whose
    //! bins held one stray sighting 11 frames before it was one row of 14 pulses).
    static constexpr double streak_chance = 1e-4;
    //! A transmission seen in this many frames or more reports edges from all its
    //! frames', not its strongest frame's: a 2-FSK burst whose strongest frame held
    //! one tone was reported one tone wide, 1.9 of its 14 kHz.
    static constexpr int edge_frames = 10;
    //! The share of its frames' lower (upper) edges left out below (above) the
    //! reported ones: a frame joined to a neighbour, or a strong frame's skirt.
    static constexpr double edge_trim = 0.1;
    //! Frames' edges kept a transmission (24 KiB); past it every other is dropped and
    //! every other frame on recorded, an even sample of a long carrier's frames (512
    //! to 1024 of them: a quantile's error under 1.5 % of its frames' spread).
    static constexpr std::size_t edge_record_cap = 1024;
    //! A moving signal (continue_moving(), docs/sensing.md "A moving signal"): a
    //! signal that would open a transmission and lies beside one seen in the frame
    //! before and not this one, its edges no further from that frame's than the
    //! wider's width, moved by half its width or more, as wide within
    //! sweep_width_ratio (or narrower, from a moving one: the piece at the channel's
    //! end where a chirp wraps) and as strong within sweep_peak_db, continues it (a
    //! step): a chirp or a drifting carrier that moves further than its width a frame
    //! (a LoRa chirp at SF 12 sweeps 16 bins a 2 ms frame, of which the window shows
    //! 9, and was a row a frame). A young one (seen once) steps only where one seen two
    //! frames back made the same step to it; a stationary row (seen in 3 frames or
    //! more, never moving) does not. A transmission that moved (note_move()) in
    //! sweep_steps frames sweeps (sweeping()): a signal no wider than sweep_width_ratio
    //! times its widest step, inside the edges its moves have covered (within that
    //! width), continues it too, seen this frame or within its hold (a jump: the chirp
    //! wrapped to the channel's other end, or a symbol began elsewhere in it), and it
    //! reports its edges with sweep_edge_trim for edge_trim (each frame's edges are a
    //! part of the channel it sweeps); seen in the frame before, it pairs first with
    //! a signal where its last move puts it (a chirp's preamble repeats its segments
    //! at one place, where a flickering row would take them by overlap). A young row
    //! that took a moving one's step by overlap, or that began where it left off and
    //! steps as it did, joins it (the chirp's wrap, before it had covered its channel).
    static constexpr double sweep_width_ratio = 2;
    static constexpr double sweep_peak_db = 6;
    static constexpr int sweep_steps = 2;
    static constexpr double sweep_edge_trim = 0.01;

    /*!
     * The signals of the frame of frame_len samples starting at first_sample (rate in
     * Hz, bin_hz the frame's bin width). Appends the transmissions that ended to
     * `ended`, in order of start. std::invalid_argument for rate or bin_hz <= 0,
     * frame_len < 1, or a first_sample before the last frame's (since flush()).
     */
    void update(std::int64_t first_sample,
                std::int64_t frame_len,
                double rate,
                double bin_hz,
                const std::vector<frame_signal>& signals,
                std::vector<transmission>& ended);
    //! Ends every open transmission (end of stream).
    void flush(std::vector<transmission>& ended);
    //! Transmissions open now (dormant lines included: not reported yet).
    std::size_t active() const { return d_active.size() + d_dormant.size(); }
    int hold_frames() const { return d_hold; }
    int line_memory() const { return d_line_memory; }

    /*!
     * Whether a line seen in `found` frames by the band's threshold, over `span` frames
     * from its first sighting to its last, may still be on after `missed` frames
     * without it: the chance of missing it that long, averaged over the rates p its
     * sightings allow (a uniform prior on p, so Beta(found + 1, span - found + 1)
     * after them), is over flicker_miss_chance. Seen once: 13 frames; 2 of 12: 44.
     */
    static bool may_still_be_on(int found, int span, int missed);

private:
    struct open_tx {
        transmission t;
        double lo = 0, hi = 0; //!< edges in its last frame
        double best_power = -1e300;
        double power_sum = 0, weighted_center = 0, snr_sum = 0;
        std::int64_t end_sample = 0;
        int missed = 0;
        int held = 0;                //!< frames it was seen in by the held test only
        std::int64_t hidden_by = -1; //!< the wide transmission hiding it (update())
        double frame_power = 0;      //!< its signals' power in the current frame
        std::int64_t first_frame = 0, last_frame = 0; //!< update() counts, seen
        std::int64_t streak = 0; //!< its sightings in a row up to last_frame (not held)
        //! Its signals' cores (union a frame) in the frames it was seen, the last few.
        struct core_frame {
            std::int64_t frame;
            double lo, hi;
        };
        std::vector<core_frame> cores;
        //! Its edges in the frames it was seen (its pieces' union), every
        //! edge_stride-th such frame (edge_record_cap); a merge adds the other's.
        struct frame_edges {
            std::int64_t frame, sample; // update() count, first sample
            double lo, hi;
        };
        std::vector<frame_edges> edges;
        std::int64_t edge_stride = 1, edge_count = 0;
        //! split_apart(): the gap between its two groups of pieces in split_frame,
        //! and the groups' widths there, seen in split_streak frames in a row.
        double split_lo = 0, split_hi = 0, split_low_width = 0, split_high_width = 0;
        std::int64_t split_frame = -2;
        int split_streak = 0;
        //! A moving signal (a chirp, a drifting carrier): the frames it moved in by
        //! half its width or more (sweep_steps), its widest width in them, the
        //! edges its frames have covered (span) and its peak in its last frame.
        int sweeps = 0;
        //! Signals inside the edges it had covered that continued it (sweeping()).
        int jumps = 0;
        //! Its last move, in Hz (the centre's), where the next frame's step is looked
        //! for first.
        double step_hz = 0;
        double sweep_width = 0, span_lo = 0, span_hi = 0, last_peak_dbfs = 0;
    };
    //! o is on, not flickering: seen in every frame of its span, or its last
    //! sightings in a row beat streak_chance at its rate before them.
    static bool steady(const open_tx& o);
    //! Frames o may go unseen before it has ended.
    int hold_of(const open_tx& o) const;
    //! o's hold has run out: o waits as a dormant line, or has ended.
    bool is_line(const open_tx& o, double bin_hz) const;
    //! A dormant line not seen up to this frame has ended.
    bool line_ended(const open_tx& o) const;
    void add(open_tx& o, const frame_signal& s, std::int64_t first, std::int64_t len);
    //! Another piece of o in the frame add() began.
    //! (Its core joins o's: `core`.)
    void add_piece(open_tx& o, const frame_signal& s, bool core = true) const;
    static void merge(open_tx& into, const open_tx& o);
    //! o, about to end, is a single sighting beside a line still open (beside_bins).
    bool beside_a_line(const open_tx& o, double bin_hz) const;
    //! s's core in Hz (its edges where the core is not known).
    static void core_of(const frame_signal& s, double& lo, double& hi);
    //! s's core joins o's cores of this frame.
    void add_core(open_tx& o, const frame_signal& s) const;
    //! Whether lo..hi lies inside o's extent (the union of its cores in this frame and
    //! the hold_frames before, within a bin), that is wider than a line, and (at_edge)
    //! lo..hi reaches its edge within a bin.
    bool inside_wide(
        const open_tx& o, double lo, double hi, double bin_hz, bool at_edge) const;
    //! An interval holding every [lo, hi] that inside_wide(o, lo, hi) or o's strongest
    //! frame's edges hold: the hull the line's hiding test indexes.
    void wide_hull(const open_tx& o, double bin_hz, double& lo, double& hi) const;
    //! o was seen this frame: its edges now join its record.
    void record_edges(open_tx& o) const;
    //! update()'s split of rows seen as two groups of pieces apart_frames frames in a
    //! row; the rows split off go to the end of d_active, and their flags (seen, not
    //! merged, not hidden) to the vectors.
    void split_apart(const std::vector<frame_signal>& signals,
                     const std::vector<char>& s_used,
                     const std::vector<std::size_t>& s_to,
                     std::vector<char>& t_used,
                     std::vector<char>& merged,
                     std::vector<char>& hidden);
    //! The least move of a moving signal whose widths in two frames are w1 and w2:
    //! half the wider, and beside_bins bins at least (a weak line's sightings wander
    //! by a few bins about it: the OOK capture's +160 kHz line, 2 bins wide, seen 3-6
    //! kHz off now and then, swept into the +132 kHz line's bins as one row).
    double min_move(double w1, double w2) const;
    //! o moved in sweep_steps frames, and in more frames than signals inside the
    //! edges it had covered continued it (each jump paid for by a move): a chirp
    //! moves in most frames and jumps once a symbol; a hopper's row that hops beside
    //! each other made move now and then would otherwise take in every hop inside its
    //! edges (800 hops, 157 rows).
    bool sweeping(const open_tx& o) const;
    //! s continues o: o moved (sweep_steps) when s moved by half the wider's width or
    //! more from o's edges in the frame before, as wide within sweep_width_ratio, or
    //! when `step` says so.
    void note_move(open_tx& o, const frame_signal& s, bool step) const;
    //! update()'s rules for a moving signal (sweep_steps): the signals left over
    //! that continue a transmission beside them or one that sweeps.
    void continue_moving(const std::vector<frame_signal>& signals,
                         std::int64_t first_sample,
                         std::int64_t frame_len,
                         std::vector<char>& s_used,
                         std::vector<std::size_t>& s_to,
                         std::vector<char>& t_used,
                         std::vector<char>& merged,
                         const std::vector<char>& hidden);
    //! o from this frame's pieces `group` (of `signals`) alone: its edges, power and
    //! cores; its start where its frames' edges have met the group's in every frame
    //! recorded up to this one.
    void restart_as(open_tx& o,
                    const std::vector<frame_signal>& signals,
                    const std::vector<std::size_t>& group) const;
    //! Every other entry of o's record dropped when it reaches edge_record_cap.
    static void thin_edges(open_tx& o);
    //! The edges close() reports: the trimmed quantiles of o's frames' edges, or its
    //! strongest frame's.
    static void reported_edges(open_tx& o, double& lower, double& upper);
    static void close(open_tx& o, double rate, std::vector<transmission>& ended);

    int d_hold;
    int d_line_memory;
    int d_memory; //!< line_memory x hold_frames frames
    std::uint64_t d_next_id = 0;
    std::int64_t d_frame = 0; //!< update() calls so far
    //! The last frame's first_sample since flush(); frames before it are refused.
    std::int64_t d_last_first = std::numeric_limits<std::int64_t>::min();
    double d_rate = 1.0;
    double d_bin_hz = 1.0; //!< the last frame's, for flush()
    std::vector<open_tx> d_active;
    std::vector<open_tx> d_dormant; //!< lines past their hold, not reported yet
    // update()'s sorting of the open transmissions, kept between frames so a frame
    // allocates nothing there (fresh vectors cost 8% of the CPU block's thread at 2^16
    // with 64 signals a frame, in their reallocations).
    std::vector<open_tx> d_keep, d_asleep, d_ending;
    //! update()'s copy of each transmission's edges as the frame before left them.
    struct before_frame {
        double lo, hi, best, lower, upper, span_lo, span_hi;
        std::int64_t last;
    };
    std::vector<before_frame> d_before;
    // split_apart()'s (row, signal) pieces of this frame, and a group of them
    std::vector<std::pair<std::size_t, std::size_t>> d_pieces;
    std::vector<std::size_t> d_low, d_high;
    // update()'s indexes of the rows' reaches and hulls (interval_index.h).
    std::vector<interval_index::interval> d_spans;
    interval_index d_reaches, d_hulls;
};

} // namespace stream
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_STREAM_TRANSMISSION_TRACKER_H */
