/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The sensing plan's front end: the backend's runs become bands (gap bridging), bands
// become signals (the cap, dBFS, the tone fit of narrow ones). The same host code for
// both backends.

#include "core/host_memory.h"
#include "sensing/sensing_backend.h"
#include "sensing/sensing_fit.h"
#include "sparse/common/sparse_params.h"
#include "sparse/robust/robust_math.h"
#include <gnuradio/gpufft/device.h>
#include <gnuradio/gpufft/sensing_plan.h>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <deque>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace gr {
namespace gpufft {

using namespace detail;

class sensing_plan::impl
{
public:
    impl(std::int64_t n, const sensing_options& o)
        : options(o),
          params(make_sensing_params(n, o)),
          fit_table(params.tone),
          floor_log_var(sensing_floor_log_var(params.k))
    {
        options.max_signals = resolve_max_signals(n, o.max_signals);
        used = resolve_backend(o.backend, o.device_id, o.log);
        check_memory();
        be = make_backend();
        reset_floor();
    }

    // The backend holds the frame's spectrum and its power, and the window or the
    // frame: 16 bytes a sample at least, on the device for CUDA. Refused up front:
    // allocating past the host's memory swaps for minutes, or the kernel's out-of-memory
    // killer ends the process, before an allocation fails.
    void check_memory() const
    {
        const std::int64_t n = params.k.n;
        const std::uint64_t need = 16 * std::uint64_t(n);
        const backend_memory have = memory_of(used, options.device_id);
        if (have.bytes > 0 && need > have.bytes)
            throw std::invalid_argument(
                "n: " + std::to_string(n) + " needs at least " + gib_string(need) +
                " for the sensing plan's spectra; " + have.holder + " " +
                gib_string(have.bytes) + " (a smaller n)");
    }

    void detect(const std::complex<float>* x, sensing_result& r, memory where)
    {
        if (x == nullptr)
            throw std::invalid_argument("x must not be null");
        const sensing_floor_track t = next_track();
        shown_eta = t.eta;
        sensing_time_power time;
        const bool complete = be->spectrum(x, where, t, floors, runs, time);
        update_track(time);
        prior_quiet = time.quiet;
        r.signals.clear();
        r.bins_above = 0;
        for (const auto& run : runs)
            r.bins_above += run.last - run.first + 1;
        bridge();
        join_combs();
        join_weak_chains();
        add_watched();
        widen();
        be->bands(bands);
        confirm_watched();
        r.held_threshold_db = held_eta > 0 ? 10.0 * std::log10(held_eta) : 0.0;
        r.bands_found = std::int64_t(bands.size());
        const auto cap = std::size_t(options.max_signals);
        r.truncated = !complete || bands.size() > cap;
        if (bands.size() > cap)
            keep_strongest(cap);
        for (std::size_t i = 0; i < bands.size(); ++i) {
            r.signals.push_back(to_signal(bands[i]));
            r.signals.back().held = held[i] != 0;
            if (!r.signals.back().held)
                snr_over_its_runs(bands[i], r.signals.back());
        }
        remember(r.signals);
        fit_narrow(r.signals);
        drop_edge_half(r.signals);
        r.tone_fits_skipped = skipped_fits;
        median_scratch.assign(floors.begin(), floors.end()); // no allocation a frame
        std::nth_element(median_scratch.begin(),
                         median_scratch.begin() + std::ptrdiff_t(floors.size() / 2),
                         median_scratch.end());
        r.noise_floor_dbfs = dbfs_peak(median_scratch[floors.size() / 2]);
        r.threshold_db = threshold_db();
    }

    std::string describe() const
    {
        const auto& k = params.k;
        std::ostringstream s;
        s << "sensing n=" << k.n << " backend=" << to_string(used)
          << " window=" << options.window << " floor=" << k.subbands << "x" << k.sub_bins
          << " bins (opening +-" << k.opening << ", every " << k.stride << ". bin)"
          << " threshold=" << threshold_db() << " dB"
          << " floor_frames=" << options.floor_frames
          << " watch_frames=" << options.watch_frames
          << " rule=" << to_string(options.bandwidth_rule) << " gap=" << params.gap_bins
          << " max_signals=" << options.max_signals;
        if (k.mask_dc)
            s << " dc_mask=+-" << k.dc_mask;
        return s.str();
    }

    // The last frame's threshold; before a frame (and after a change that moves it),
    // the next frame's.
    double threshold_db() const { return 10.0 * std::log10(shown_eta); }

    // The floor tracked over frames (docs/sensing.md, "The noise floor over frames"):
    // the track lives here, the same for both backends; each backend applies it to the
    // frame's floors with sensing_track_floor(), and the plan then updates it from the
    // frame's own floors with the same function.
    void reset_floor()
    {
        const auto S = std::size_t(params.k.subbands);
        track.assign(3 * S, 0.0);
        track_var.assign(S, 1.0);
        tracked = false;
        prior_quiet = 0;
        history.clear();
        shown_eta = frame_eta();
    }

    // The threshold of the next frame: eta for the largest variance of a sub-band's
    // tracked floor after it (sensing_track_var), so that noise crosses it at the
    // rate false_alarm asks. A sub-band whose track the frame starts again (a jump)
    // has a floor of one frame's scatter in that frame only.
    double frame_eta() const
    {
        frame_var = 1;
        if (!tracked)
            return params.k.eta;
        const int S = params.k.subbands;
        double r = 0;
        for (int i = 0; i < S; ++i) {
            const double w =
                std::min(track[std::size_t(S + i)] + 1, params.k.track_frames);
            r = std::max(r, sensing_track_var(track_var[std::size_t(i)], w));
        }
        frame_var = sensing_tracked_var(r, S);
        if (r != eta_var) {
            eta_var = r;
            // r moves in most frames of a bursty capture (a track started again runs
            // through the same values after each jump): the thresholds of the last
            // values of r are kept, with ln(n / false_alarm) (sensing_eta's root, eight
            // dependent steps, was 1.5 % of detect() at n = 1024).
            if (options.false_alarm != eta_base_alarm) {
                eta_base_alarm = options.false_alarm;
                eta_base = sensing_eta_base(params.k.n, options.false_alarm);
                for (auto& e : eta_memo)
                    e = { -1.0, 0.0 };
            }
            std::uint64_t bits;
            std::memcpy(&bits, &r, sizeof bits);
            auto& e = eta_memo[(bits ^ (bits >> 29) ^ (bits >> 41)) % eta_memo.size()];
            if (e.first != r)
                e = { r,
                      sensing_eta_from_base(eta_base,
                                            floor_log_var * sensing_tracked_var(r, S)) };
            eta_cached = e.second;
        }
        return eta_cached;
    }

    sensing_floor_track next_track()
    {
        sensing_floor_track t;
        t.eta = frame_eta();
        t.prior = tracked ? track.data() : nullptr;
        t.prior_quiet = prior_quiet;
        track_next.resize(4 * std::size_t(params.k.subbands) + 1);
        track_next.back() = 0; // set to 1 by a backend that fills it
        t.next = track_next.data();
        return t;
    }

    // The track after this frame, from the frame's own floors (which `floors` then
    // holds no more: it becomes the floors used, as the backend's).
    void update_track(const sensing_time_power& time)
    {
        if (params.k.track_frames <= 1 || floors.size() != track_var.size())
            return;
        const int S = params.k.subbands;
        // The backend's own update from the same floors, where it made one.
        if (tracked && track_next.size() == 4 * std::size_t(S) + 1 &&
            track_next[4 * std::size_t(S)] == 1) {
            for (int i = 0; i < S; ++i) {
                const auto u = std::size_t(i), v = std::size_t(S + i),
                           h = std::size_t(2 * S + i);
                if (track_next[h] == 0) // a held frame leaves the track as it was
                    track_var[u] = sensing_track_var(track_var[u], track_next[v]);
                track[u] = track_next[u];
                track[v] = track_next[v];
                track[h] = track_next[h];
                floors[u] = track_next[3 * std::size_t(S) + u];
            }
            return;
        }
        level_scratch.resize(std::size_t(S));
        const double level =
            tracked
                ? sensing_burst_level(
                      params.k,
                      sensing_track_level(
                          params.k, floors.data(), track.data(), level_scratch.data()),
                      time,
                      prior_quiet,
                      track.data())
                : 0.0;
        for (int i = 0; i < S; ++i) {
            const auto u = std::size_t(i), v = std::size_t(S + i),
                       g = std::size_t(2 * S + i);
            double l = 0, w = 0, h = 0;
            const double used = sensing_track_floor(params.k,
                                                    floors[u],
                                                    tracked ? track[u] + level : 0.0,
                                                    tracked ? track[v] : 0.0,
                                                    tracked ? track[g] : 0.0,
                                                    l,
                                                    w,
                                                    h);
            if (h == 0)
                track_var[u] = sensing_track_var(track_var[u], w);
            track[u] = l;
            track[v] = w;
            track[g] = h;
            floors[u] = used;
        }
        tracked = true;
    }

    std::unique_ptr<sensing_backend> make_backend() const
    {
#ifdef GPUFFT_HAVE_CUDA
        if (used == backend::cuda)
            return make_sensing_cuda(params, options.device_id);
#endif
        return make_sensing_cpu(params, options.threads);
    }

    sensing_options options;
    sensing_params params;
    sensing_fit_table fit_table;
    //! sensing_floor_log_var(params.k), fixed for the plan: its sums over the window's
    //! taps were 1 % of detect() at n = 1024, made for every threshold.
    const double floor_log_var;
    gpufft::backend used = gpufft::backend::cpu;
    std::unique_ptr<sensing_backend> be;
    std::vector<double> track;     // the floor track: mean log floors, then frames
    std::vector<double> track_var; // its log's variance in units of one frame's
    bool tracked = false;          // the track holds a frame
    double prior_quiet = 0;        // the last frame's sensing_quiet_power (0: none)
    mutable double eta_var = -1, eta_cached = 0;
    mutable double eta_base_alarm = -1, eta_base = 0; // frame_eta()'s ln(n / false_alarm)
    mutable std::array<std::pair<double, double>, 32> eta_memo{}; // frame_eta()'s r, eta
    mutable double frame_var = 1; // the floor's variance factor (frame_eta())
    double shown_eta = 0;         // threshold_db()'s
    std::vector<double> level_scratch;
    std::vector<double> track_next; // the backend's update of the track (next_track())

private:
    // A tone of amplitude 1 peaks at (a0 n)^2 in the windowed spectrum and spreads
    // n^2 sum c_m^2 over its bins.
    double dbfs_peak(double p) const
    {
        const double full = params.a0 * double(params.k.n);
        return 10.0 * std::log10(std::max(p, 1e-300) / (full * full));
    }
    double dbfs_total(double p) const
    {
        const double n = double(params.k.n);
        return 10.0 * std::log10(std::max(p, 1e-300) / (n * n * params.power_sum));
    }

    // Runs closer than gap_bins, or than an eighth of the wider of the two, are one
    // band: a carrier that dips under the threshold for a few bins stays whole, and the
    // skirts of a modulated carrier (its pulse shape's sidelobes, a PA's regrowth) join
    // it, while two emitters with a clear gap stay apart.
    void bridge()
    {
        // A stack: a wide run that arrives joins the narrow ones before it (its skirts)
        // one after the other, as each join makes the band wider still. A gap also
        // joins where its bins average clearly over the floor: a wide carrier too weak
        // for most of its bins to pass the threshold (a few dB over the floor) comes back
        // as one band, not as hundreds of its own peaks (sensing_gap_fill_level).
        // On (first, last) spans: a frame of thousands of runs copied and zeroed a
        // 240-byte sensing_band a run; the bands are made once the spans are final.
        spans.clear();
        band_run.clear();
        be->gap_levels(runs, params.max_fill_gap, false, levels);
        read_tone_gaps();
        // The radio's DC spike (its LO leakage: a run no wider than the window's main
        // lobe on DC +-1 bin) is no link of a band: the bands are made without it (a
        // gap across it joins where both gaps beside it do), then it joins the band it
        // lies in, or a neighbour (place_dc_spike()). With the spike as a link, the
        // NFM capture's -15 kHz FM product, 55 bins off DC, and the spike came back as
        // one band in the frames where the product's splatter filled the gap's far end.
        const std::size_t dc_run = dc_spike_run();
        // g: the run gap (its inner read for two lone tones), or none across the spike.
        const std::size_t none = runs.size();
        const auto passes =
            [&](std::int64_t gap, std::int64_t wider, double level, std::size_t g) {
                if (gap <= std::max<std::int64_t>(params.gap_bins, wider / 8))
                    return true;
                if (tone_like(wider)) // two lone tones: noise and skirts between
                    return level >= sensing_tone_gap_level(gap) &&
                           (g == none || tone_gap_inner[g] != 0);
                return filled(level, gap);
            };
        const auto joins = [&](std::size_t a, std::size_t b) {
            const auto &A = spans[a], &B = spans[b];
            const std::int64_t gap = B.first - A.last - 1;
            const std::int64_t wider =
                std::max(A.last - A.first + 1, B.last - B.first + 1);
            // B's first run follows the gap levels[band_run[b] - 1].
            const std::size_t g = band_run[b] - 1;
            if (g != dc_run)
                return passes(gap, wider, levels[g], g);
            // Across the spike: the whole gap, or each gap beside it.
            const auto& d = runs[dc_run];
            return passes(gap, wider, 0.0, none) ||
                   (passes(d.first - A.last - 1, wider, levels[g - 1], g - 1) &&
                    passes(B.first - d.last - 1, wider, levels[g], g));
        };
        for (std::size_t r = 0; r < runs.size(); ++r) {
            if (r == dc_run)
                continue;
            spans.push_back(runs[r]);
            band_run.push_back(r);
            while (spans.size() > 1 && joins(spans.size() - 2, spans.size() - 1)) {
                spans[spans.size() - 2].last = spans.back().last;
                spans.pop_back();
                band_run.pop_back();
            }
        }
        if (dc_run < runs.size())
            place_dc_spike(dc_run);
    }

    // A run or band no wider than the window's main lobe: a lone tone's (or the DC
    // spike's), not a carrier's.
    bool tone_like(std::int64_t width) const { return width <= 2 * params.lobe + 1; }

    // Two lone tones' skirts, the bins of their main lobes just under the threshold,
    // lift the mean of a short gap between them: two 25 dB tones 40 bins apart had a
    // gap of 37 bins at 2.415 x the floor (its level to join, 2.395). So a gap between
    // two runs no wider than a main lobe whose level passes sensing_tone_gap_level()
    // joins only where its bins beyond a main lobe from either run pass it too, for
    // their own length (tone_gap_inner[g]; a gap of two main lobes or less has no
    // such bins and joins on its level). One more backend read, of those gaps only,
    // in frames that have them.
    void read_tone_gaps()
    {
        const std::int64_t w = params.lobe;
        tone_gap_inner.assign(runs.size(), 1);
        tone_gap_runs.clear();
        tone_gap_index.clear();
        std::int64_t longest = 0; // the longest inner stretch to read
        for (std::size_t g = 0; g + 1 < runs.size(); ++g) {
            const auto &a = runs[g], &b = runs[g + 1];
            const std::int64_t gap = b.first - a.last - 1;
            if (!tone_like(a.last - a.first + 1) || !tone_like(b.last - b.first + 1) ||
                gap <= std::max<std::int64_t>(params.gap_bins, 2 * w) ||
                levels[g] < sensing_tone_gap_level(gap))
                continue;
            // Each gap as the one between two pseudo-runs: the runs with a main lobe
            // added on the gap's side.
            tone_gap_runs.push_back({ a.first, a.last + w });
            tone_gap_runs.push_back({ b.first - w, b.last });
            tone_gap_index.push_back(g);
            longest = std::max(longest, gap - 2 * w);
        }
        if (tone_gap_index.empty())
            return;
        // The gaps between one pair and the next are not used: those longer than every
        // inner stretch are not read (bin by bin, up to max_fill_gap bins each).
        be->gap_levels(tone_gap_runs, longest, true, tone_gap_level);
        for (std::size_t i = 0; i < tone_gap_index.size(); ++i) {
            const std::size_t g = tone_gap_index[i];
            const std::int64_t inner = runs[g + 1].first - runs[g].last - 1 - 2 * w;
            tone_gap_inner[g] =
                tone_gap_level[2 * i] >= sensing_tone_gap_level(inner) ? 1 : 0;
        }
    }

    // The run of the radio's DC spike (runs.size() where there is none): on DC +-1 bin,
    // no wider than the window's main lobe.
    std::size_t dc_spike_run() const
    {
        const std::int64_t h = params.k.half;
        for (std::size_t r = 0; r < runs.size(); ++r) {
            if (runs[r].first > h + 1)
                break;
            if (runs[r].last >= h - 1)
                return tone_like(runs[r].last - runs[r].first + 1) ? r : runs.size();
        }
        return runs.size();
    }

    // The spike among the bands bridge() made without it: inside one it is part of it.
    // Else it joins a neighbour within the plain gap rule, or across a gap that passes
    // the fill level where the half of the gap beside the spike passes it too (a
    // carrier whose weak part reaches DC: the LTE FDD carrier's load leaves it a few dB
    // over the floor there). A neighbour whose skirts fill only the gap's far end is
    // another emitter beside the spike, however wide: an FM station 150-180 kHz off DC
    // is wider than its gap, and took the spike by its width alone.
    void place_dc_spike(std::size_t d)
    {
        const sensing_run spike = runs[d];
        std::size_t p = 0;
        while (p < spans.size() && spans[p].last < spike.first)
            ++p;
        if (p < spans.size() && spans[p].first <= spike.first)
            return; // inside spans[p]
        // The neighbours' runs next to the spike are d - 1 and d + 1, their gaps'
        // levels levels[d - 1] and levels[d].
        const auto joins = [&](const sensing_run& band, bool below) {
            const std::int64_t gap =
                below ? spike.first - band.last - 1 : band.first - spike.last - 1;
            const std::int64_t width = band.last - band.first + 1;
            if (gap <= std::max<std::int64_t>(params.gap_bins, width / 8))
                return true;
            if (!filled(levels[below ? d - 1 : d], gap))
                return false;
            return below ? near_spike_filled(band.last + 1, spike.first - 1, true)
                         : near_spike_filled(spike.last + 1, band.first - 1, false);
        };
        bool left = p > 0 && joins(spans[p - 1], true);
        bool right = p < spans.size() && joins(spans[p], false);
        // Runs of a main lobe or less beside it are its skirts: they join it unread.
        const auto wide = [&](const sensing_run& r) {
            return !tone_like(r.last - r.first + 1);
        };
        const sensing_run* below = left && wide(spans[p - 1]) ? &spans[p - 1] : nullptr;
        const sensing_run* above = right && wide(spans[p]) ? &spans[p] : nullptr;
        if (below || above)
            keep_outweighed_neighbours(spike, below, above, left, right);
        if (left && right) {
            spans[p - 1].last = spans[p].last;
            spans.erase(spans.begin() + std::ptrdiff_t(p));
        } else if (left) {
            spans[p - 1].last = spike.last;
        } else if (right) {
            spans[p].first = spike.first;
        } else {
            spans.insert(spans.begin() + std::ptrdiff_t(p), spike);
        }
    }

    // A neighbour the spike would join (below / above, wider than the window's main
    // lobe; left / right say it joins) keeps apart from it where the spike's power over
    // the floor, summed over its bins, is over spike_outweighs times the neighbour's
    // (over its spike_reach bins nearest the spike): the neighbour would hold under
    // half a per cent of the joined band, which its 99 % edges leave out, and the
    // emitter beside DC would drop out of the frame. An FM station 50-150 kHz off DC,
    // whose skirt came within an eighth of its width of an 8-bit radio's spike (some
    // 450 times the station's sum), vanished so in 40 % of frames. On the captures the
    // carriers that took the spike held from a thirteenth of its sum (a 75-bin weak
    // piece of the LTE FDD carrier) to 36 times it. One backend read, in the frames
    // where the spike would join such a neighbour.
    void keep_outweighed_neighbours(const sensing_run& spike,
                                    const sensing_run* below,
                                    const sensing_run* above,
                                    bool& left,
                                    bool& right)
    {
        // Each stretch as the gap between two one-bin pseudo-runs beside it; of a
        // neighbour, its spike_reach bins nearest the spike at most (an LTE carrier
        // beside it is 15000 bins, and a part of it outweighs the spike many times).
        const sensing_run near_below =
            below ? sensing_run{ std::max(below->first, below->last - spike_reach + 1),
                                 below->last }
                  : sensing_run{};
        const sensing_run near_above =
            above ? sensing_run{ above->first,
                                 std::min(above->last, above->first + spike_reach - 1) }
                  : sensing_run{};
        spike_runs.clear();
        std::int64_t longest = 0;
        for (const sensing_run* r :
             { below ? &near_below : nullptr, &spike, above ? &near_above : nullptr }) {
            if (r == nullptr)
                continue;
            spike_runs.push_back({ r->first - 1, r->first - 1 });
            spike_runs.push_back({ r->last + 1, r->last + 1 });
            longest = std::max(longest, r->last - r->first + 1);
        }
        be->gap_levels(spike_runs, longest, true, spike_level);
        const auto sum = [&](std::size_t i, const sensing_run& r) {
            return spike_level[i] * double(r.last - r.first + 1);
        };
        const std::size_t at = below ? 2 : 0;
        const double spike_sum = sum(at, spike);
        if (below && spike_sum > spike_outweighs * sum(0, near_below))
            left = false;
        if (above && spike_sum > spike_outweighs * sum(at + 2, near_above))
            right = false;
    }

    // A gap's level joins it: the fill level is 1.6 at least, so a noise gap's level
    // under that needs no square root.
    static bool filled(double level, std::int64_t gap)
    {
        return level >= 1.0 + 0.6 && level >= sensing_gap_fill_level(gap);
    }

    // Whether the half of the gap first..last nearest the spike (after the gap:
    // spike_after), leaving out the spike's own skirts (its main lobe beside it),
    // passes the fill level of its length. A near half of a main lobe or less is the
    // spike's skirts alone: the whole gap's level decides.
    bool near_spike_filled(std::int64_t first, std::int64_t last, bool spike_after)
    {
        const std::int64_t w = params.lobe, mid = first + (last - first + 1) / 2;
        const std::int64_t lo = spike_after ? mid : first + w;
        const std::int64_t hi = spike_after ? last - w : mid - 1;
        if (hi - lo + 1 <= std::max<std::int64_t>(params.gap_bins, w))
            return true;
        // The backend's gap level of the bins lo..hi, between two one-bin runs.
        near_runs.resize(2);
        near_runs[0].first = near_runs[0].last = lo - 1;
        near_runs[1].first = near_runs[1].last = hi + 1;
        be->gap_levels(near_runs, params.max_fill_gap, false, near_level);
        return !near_level.empty() && filled(near_level[0], hi - lo + 1);
    }

    // A wide emitter whose spectrum is a comb of lines with noise between them (OFDM
    // pilots standing out of weak data carriers, a frequency-hopping or FSK burst
    // caught within a frame) comes out of the threshold as lines a few bins apart. A
    // chain of at least comb_runs bands, each within comb_gap bins (four main lobes)
    // of the next, is one band: noise crosses the threshold in about false_alarm of
    // the frames, so such a chain is never noise, and two or three close tones stay
    // apart.
    void join_combs()
    {
        const std::int64_t reach = std::int64_t(comb_lobes) * params.lobe;
        std::size_t out = 0;
        for (std::size_t i = 0; i < spans.size();) {
            std::size_t j = i;
            while (j + 1 < spans.size() &&
                   spans[j + 1].first - spans[j].last - 1 <= reach)
                ++j;
            spans[out] = spans[i];
            if (j + 1 - i >= comb_runs)
                spans[out].last = spans[j].last;
            else
                j = i;
            ++out;
            i = j + 1;
        }
        spans.resize(out);
    }
    static constexpr int comb_lobes = 4;
    static constexpr std::size_t comb_runs = 4;

    // A wide emitter only a few dB over the floor (a distant OFDM link) passes the
    // threshold on its pilots and peaks alone, lines 10-90 bins apart: too far apart
    // for join_combs() and each gap too short for its own mean to clear the fill level
    // (DroneID's weak links, 2 dB over the floor between lines: 100-130 bands a frame,
    // and which of them a frame joined depended on where it fell). Their gaps together
    // are strong evidence: a gap of a chain of at least comb_runs bands, each within
    // weak_lobes main lobes of the next, joins where the gaps around it (up to
    // weak_gaps either side, by length) average over the fill level of their summed
    // length, and never under weak_level: well above the floor's own error, and above
    // the skirts that strong separate emitters leave in the gaps between them. One
    // exact read of the chains' gaps (no bound decides it), only in frames that have
    // such a chain.
    void join_weak_chains()
    {
        const std::int64_t reach = std::int64_t(weak_lobes) * params.lobe;
        const auto gap_at = [&](std::size_t i) {
            return spans[i + 1].first - spans[i].last - 1;
        };
        // Each gap's level from bridge()'s read of the runs' gaps: exact, or a bound from
        // above where it was under the fill level (a gap between two bands is one that
        // did not join). Unknown (infinite) where the gap is not one run gap (across
        // the DC spike) or was not read.
        constexpr double unknown = std::numeric_limits<double>::infinity();
        // Spans and runs both ascend: one walk finds each span's first run (a binary
        // search a gap was half of this function's time with 828 signals).
        chain_levels.assign(spans.empty() ? 0 : spans.size() - 1, unknown);
        std::size_t k = 0; // the first run that starts at or after span g + 1
        for (std::size_t g = 0; g < chain_levels.size(); ++g) {
            while (k < runs.size() && runs[k].first < spans[g + 1].first)
                ++k;
            if (k < runs.size() && runs[k].first == spans[g + 1].first && k > 0 &&
                runs[k - 1].last == spans[g].last && k - 1 < levels.size() &&
                levels[k - 1] > 0)
                chain_levels[g] = levels[k - 1];
        }
        // Gap g of the chain i..j joins on the mean level of the gaps around it.
        const auto joins = [&](std::size_t g, std::size_t i, std::size_t j) {
            const std::size_t lo = g - std::min(g - i, weak_gaps),
                              hi = std::min(j - 1, g + weak_gaps);
            double sum = 0;
            std::int64_t len = 0;
            for (std::size_t h = lo; h <= hi; ++h) {
                sum += chain_levels[h] * double(gap_at(h));
                len += gap_at(h);
            }
            const double level = len > 0 ? sum / double(len) : 0.0;
            return level >= weak_level &&
                   level >= 1.0 + weak_sigmas / std::sqrt(0.5 * double(len));
        };
        // A chain: spans i..j, every gap within reach, at least weak_runs bands. Only
        // a chain that may join on those bounds has its gaps read exactly: tones a few
        // dozen bins apart with noise between them (spread1000 at 2^16: 828 signals)
        // cost a fifth of an FFT in exact reads that joined nothing.
        chain_spans.clear();
        chain_first.clear();
        for (std::size_t i = 0, j = 0; i < spans.size(); i = j + 1) {
            j = i;
            while (j + 1 < spans.size() && gap_at(j) <= reach)
                ++j;
            if (j + 1 - i < weak_runs)
                continue;
            bool may = false;
            for (std::size_t g = i; g < j && !may; ++g)
                may = joins(g, i, j);
            if (!may)
                continue;
            chain_first.push_back(i);
            chain_spans.insert(chain_spans.end(),
                               spans.begin() + std::ptrdiff_t(i),
                               spans.begin() + std::ptrdiff_t(j + 1));
        }
        if (chain_first.empty())
            return;
        // Chains apart by more than reach: the gaps between them are not read.
        be->gap_levels(chain_spans, reach, true, exact_levels);
        chain_join.assign(spans.size(), 0);
        std::size_t at = 0; // chain_spans' index of chain c's first span
        for (const std::size_t i : chain_first) {
            std::size_t j = i;
            while (j + 1 < spans.size() && gap_at(j) <= reach)
                ++j;
            for (std::size_t g = i; g < j; ++g)
                chain_levels[g] = exact_levels[at + (g - i)];
            for (std::size_t g = i; g < j; ++g)
                chain_join[g] = joins(g, i, j);
            at += j + 1 - i;
        }
        std::size_t out = 0;
        for (std::size_t i = 0; i < spans.size(); ++i) {
            if (i > 0 && chain_join[i - 1])
                spans[out - 1].last = spans[i].last;
            else
                spans[out++] = spans[i];
        }
        spans.resize(out);
    }
    static constexpr int weak_lobes = 32;
    static constexpr std::size_t weak_runs = 8;
    static constexpr std::size_t weak_gaps = 16;
    static constexpr double weak_sigmas = 4.0;
    static constexpr double weak_level = 1.4;

    // watch: the last frames' cores, a bin wider either side, in ascending order,
    // those that overlap joined (the union of their bins). Each frame's cores ascend
    // (its signals are in frequency order): the frames are merged core by core, where
    // a sort of a thousand signals' cores took a tenth of an FFT, and copies of them
    // merged frame by frame a twentieth of detect() beside the FFT.
    void merge_history()
    {
        const std::int64_t n = params.k.n;
        const auto by_first = [](const sensing_run& a, const sensing_run& b) {
            return a.first < b.first;
        };
        // (Field by field: a pair made on the stack and copied whole stalls on its own
        // stores, a core each.)
        const auto add = [&](const sensing_run& c) {
            const std::int64_t first = std::max<std::int64_t>(0, c.first - 1),
                               last = std::min<std::int64_t>(n - 1, c.last + 1);
            if (!watch.empty() && first <= watch.back().last) {
                watch.back().last = std::max(watch.back().last, last);
                return;
            }
            watch.emplace_back();
            watch.back().first = first;
            watch.back().last = last;
        };
        watch.clear();
        constexpr std::size_t most = 8; // sensing_options::watch_frames' range
        bool sorted = history.size() <= most;
        for (const auto& frame : history)
            sorted = sorted && std::is_sorted(frame.begin(), frame.end(), by_first);
        if (!sorted) {
            watch_next.clear();
            for (const auto& frame : history)
                watch_next.insert(watch_next.end(), frame.begin(), frame.end());
            std::stable_sort(watch_next.begin(), watch_next.end(), by_first);
            for (const auto& c : watch_next)
                add(c);
            return;
        }
        // Each frame's next core and end (the deque's indexing a core was a third of
        // the merge).
        const sensing_run *at[most], *end[most];
        std::size_t frames = 0;
        for (const auto& frame : history)
            if (!frame.empty()) {
                at[frames] = frame.data();
                end[frames++] = frame.data() + frame.size();
            }
        while (frames > 0) {
            // The frame whose next core starts first (max(0, first - 1) keeps the order).
            std::size_t next = 0;
            for (std::size_t f = 1; f < frames; ++f)
                if (at[f]->first < at[next]->first)
                    next = f;
            add(*at[next]++);
            if (at[next] == end[next]) { // that frame is done
                at[next] = at[frames - 1];
                end[next] = end[frames - 1];
                --frames;
            }
        }
    }

    // Signals held (sensing_options::watch_frames): the cores of the last frames'
    // signals, a bin wider either side, that no band of this frame covers are looked at
    // again, and one whose peak bin passes the threshold of a test on those bins alone
    // (ln(W / false_alarm) for W bins, with the floor's allowance) is a signal. Noise
    // passes it with the chance false_alarm, and in noise alone there is rarely
    // anything to look at (a false signal of the frame before); a weak line that
    // flickers about the full band's threshold (ln(n / false_alarm): 2.4 dB higher for
    // 3 bins at n = 1024) is found frame after frame. Only cores up to watch_max_bins:
    // a wide band's test gains little.
    void add_watched()
    {
        held.assign(spans.size(), 0);
        held_eta = 0;
        if (history.empty())
            return;
        merge_history();
        // The cores that no band of this frame is near (within the main lobe) and no
        // masked bin is on. Most frames keep none (a thousand tones seen again): the
        // bands are only rebuilt with them where one is kept.
        const std::int64_t w = params.lobe;
        kept.clear();
        std::int64_t bins = 0;
        std::size_t j = 0;
        for (const auto& c : watch) {
            while (j < spans.size() && spans[j].last + w < c.first)
                ++j;
            if (j < spans.size() && spans[j].first - w <= c.last)
                continue;
            if (sensing_masked(params.k, c.first) || sensing_masked(params.k, c.last) ||
                (c.first < params.k.half && c.last > params.k.half && params.k.mask_dc))
                continue;
            kept.push_back(c);
            bins += c.last - c.first + 1;
        }
        if (bins == 0)
            return;
        // Each kept core after the bands that end more than a lobe before it.
        merged.clear();
        merged_held.clear();
        j = 0;
        for (const auto& c : kept) {
            while (j < spans.size() && spans[j].last + w < c.first) {
                merged.push_back(spans[j++]);
                merged_held.push_back(0);
            }
            merged.push_back(c);
            merged_held.push_back(1);
        }
        for (; j < spans.size(); ++j) {
            merged.push_back(spans[j]);
            merged_held.push_back(0);
        }
        spans.swap(merged);
        held.swap(merged_held);
        // The same held bins and floor variance give the same threshold: the last
        // ones' are kept (a log and the root's eight dependent steps were 1 % of
        // detect() at n = 1024; the variance moves in most frames of a bursty capture,
        // through the same values after each jump, as frame_eta()'s).
        if (options.false_alarm != held_memo_alarm) {
            held_memo_alarm = options.false_alarm;
            for (auto& e : held_memo)
                e = held_entry();
        }
        std::uint64_t bits;
        std::memcpy(&bits, &frame_var, sizeof bits);
        bits ^= std::uint64_t(bins) * 0x9e3779b97f4a7c15ull;
        auto& e = held_memo[(bits ^ (bits >> 29) ^ (bits >> 41)) % held_memo.size()];
        if (e.bins != bins || e.var != frame_var) {
            e.bins = bins;
            e.var = frame_var;
            e.eta = sensing_eta(bins, options.false_alarm, floor_log_var * frame_var);
        }
        held_eta = e.eta;
    }

    // The held bands whose peak does not pass their threshold go.
    void confirm_watched()
    {
        if (held_eta <= 0)
            return;
        std::size_t out = 0;
        for (std::size_t i = 0; i < bands.size(); ++i) {
            if (held[i] && !(double(bands[i].peak) > held_eta * bands[i].floor_at_peak))
                continue;
            if (out != i) {
                bands[out] = bands[i];
                held[out] = held[i];
            }
            ++out;
        }
        bands.resize(out);
        held.resize(out);
    }

    // The cap: the strongest by peak, in ascending order again.
    void keep_strongest(std::size_t cap)
    {
        order.resize(bands.size());
        for (std::size_t i = 0; i < order.size(); ++i)
            order[i] = i;
        std::nth_element(
            order.begin(),
            order.begin() + std::ptrdiff_t(cap),
            order.end(),
            [&](std::size_t a, std::size_t b) { return bands[a].peak > bands[b].peak; });
        order.resize(cap);
        std::sort(order.begin(), order.end());
        for (std::size_t i = 0; i < cap; ++i) {
            bands[i] = bands[order[i]]; // order ascends: order[i] >= i
            held[i] = held[order[i]];
        }
        bands.resize(cap);
        held.resize(cap);
    }

    // This frame's signals' cores for the next frames (the last watch_frames).
    void remember(const std::vector<sensed_signal>& sig)
    {
        if (options.watch_frames <= 0)
            return;
        // The oldest frame's vector is taken for the newest: no allocation a frame.
        std::vector<sensing_run> cores;
        if (history.size() == std::size_t(options.watch_frames)) {
            cores = std::move(history.front());
            history.pop_front();
        }
        cores.clear();
        history.push_back(std::move(cores));
        auto& out = history.back();
        for (const auto& s : sig)
            if (s.last_bin - s.first_bin + 1 <= watch_max_bins) {
                out.emplace_back(); // field by field (merge_history())
                out.back().first = s.first_bin + params.k.half;
                out.back().last = s.last_bin + params.k.half;
            }
    }
    static constexpr std::int64_t watch_max_bins = 64;

    // The threshold finds a band; its sums and edges take in the window's main lobe
    // either side too (halfway to a neighbour at most), where a signal's skirts still
    // hold power above the floor: a tone 25 dB over the floor keeps 75 % of its power
    // over the threshold, and all of it with the lobe.
    void widen()
    {
        const std::int64_t n = params.k.n, w = params.lobe;
        // Each band fresh (the backends' sums start from a default sensing_band).
        bands.assign(spans.size(), sensing_band());
        for (std::size_t i = 0; i < spans.size(); ++i) {
            bands[i].core_first = spans[i].first;
            bands[i].core_last = spans[i].last;
        }
        for (std::size_t i = 0; i < bands.size(); ++i) {
            auto& b = bands[i];
            std::int64_t lo = std::max<std::int64_t>(0, b.core_first - w);
            std::int64_t hi = std::min<std::int64_t>(n - 1, b.core_last + w);
            if (i > 0)
                lo = std::max(lo, (bands[i - 1].core_last + b.core_first) / 2 + 1);
            if (i + 1 < bands.size())
                hi = std::min(hi, (b.core_last + bands[i + 1].core_first) / 2);
            b.first = std::min(lo, b.core_first);
            b.last = std::max(hi, b.core_last);
        }
    }

    sensed_signal to_signal(const sensing_band& b) const
    {
        const double half = double(params.k.half);
        sensed_signal s;
        s.first_bin = b.core_first - params.k.half;
        s.last_bin = b.core_last - params.k.half;
        s.center_bin = (b.excess > 0 ? b.moment / b.excess : double(b.peak_bin)) - half;
        s.lower_bin = b.lower - half;
        s.upper_bin = b.upper - half;
        s.bandwidth_bins = s.upper_bin - s.lower_bin;
        s.peak_power_dbfs = dbfs_peak(b.peak);
        s.total_power_dbfs = dbfs_total(b.power > 0 ? b.power : b.excess);
        s.floor_dbfs = dbfs_peak(b.floor_at_peak);
        s.snr_db = 10.0 * std::log10(double(b.peak) / b.floor_at_peak);
        s.dc = s.first_bin <= 1 && s.last_bin >= -1;
        s.narrow = (b.core_last - b.core_first + 1) <= params.narrow_bins;
        s.tone_bin = double(b.peak_bin) - half;
        return s;
    }

    // A band's SNR is its peak bin's over the floor there. Where the floor steps up
    // across the band (a sub-band whose track holds a burst beside one that follows
    // the frame), the peak may stand on the high side under the threshold while its
    // runs pass it on the low side: random mixes of QPSK and FM carriers after digital
    // silence gave a band 10.9 dB over a floor it crossed at 11.9. Its SNR is then
    // taken over the floor at the end of its runs that lies lower, where a bin passed
    // the threshold (the peak is at least that bin), so no signal is reported under it.
    void snr_over_its_runs(const sensing_band& b, sensed_signal& s) const
    {
        if (double(b.peak) > shown_eta * b.floor_at_peak)
            return;
        const double f = std::min(sensing_floor_at(params.k, floors.data(), b.core_first),
                                  sensing_floor_at(params.k, floors.data(), b.core_last));
        if (!(f < b.floor_at_peak))
            return;
        s.floor_dbfs = dbfs_peak(f);
        s.snr_db = 10.0 * std::log10(double(b.peak) / f);
    }

    // Narrow bands: the tone that explains their main lobe best (robust mode's fit on
    // the windowed bins the backend kept), refined when it explains 90 % of the lobe's
    // energy. At most max_tone_fits a frame, strongest first: the fit's cost is bounded
    // however many carriers a frame holds.
    void fit_narrow(std::vector<sensed_signal>& sig)
    {
        order.clear();
        for (std::size_t i = 0; i < sig.size(); ++i)
            if (sig[i].narrow)
                order.push_back(i);
        const std::size_t budget =
            std::min(order.size(), std::size_t(params.max_tone_fits));
        skipped_fits = std::int64_t(order.size() - budget);
        // Strongest first only where some are left out: each fit is its own, so with
        // every band fitted their order changes nothing (the sort's heap was a twentieth
        // of the fits' time at n = 1024).
        if (budget < order.size())
            std::partial_sort(order.begin(),
                              order.begin() + std::ptrdiff_t(budget),
                              order.end(),
                              [&](std::size_t a, std::size_t b) {
                                  return sig[a].peak_power_dbfs > sig[b].peak_power_dbfs;
                              });
        const int h = params.k.fit_half;
        for (std::size_t o = 0; o < budget; ++o) {
            auto& s = sig[order[o]];
            const auto& b = bands[order[o]];
            double yr[2 * sensing_max_fit_half + 1], yi[2 * sensing_max_fit_half + 1];
            double energy = 0;
            for (int j = 0; j <= 2 * h; ++j) {
                yr[j] = b.lobe[2 * j];
                yi[j] = b.lobe[2 * j + 1];
                energy += yr[j] * yr[j] + yi[j] * yi[j];
            }
            double delta = 0, ar = 0, ai = 0;
            const double explained =
                sensing_fit_tone(params.tone, fit_table, yr, yi, delta, ar, ai);
            s.tone_bin += delta;
            s.tone_amplitude = { ar, ai };
            s.tone_refined = energy > 0 && explained >= 0.9 * energy;
        }
    }

    // A tone within a lobe of the band's edge (+-fs/2) has its main lobe split there:
    // the narrow signals at both ends are its halves, each fitted as a tone, and the
    // weaker one's fit lands beside the tone (a tone at bin 32768.18 of 65536 came back
    // at 32768.18 and at 32767.63). Where the two fits fall within a bin of each other
    // across the edge, the weaker half goes; two tones further apart stay two.
    void drop_edge_half(std::vector<sensed_signal>& sig) const
    {
        if (sig.size() < 2)
            return;
        const sensed_signal &a = sig.front(), &b = sig.back();
        const std::int64_t n = params.k.n, half = params.k.half;
        if (!a.narrow || !b.narrow || a.first_bin != -half || b.last_bin != n - 1 - half)
            return;
        if (std::fabs(a.tone_bin + double(n) - b.tone_bin) > 1.0)
            return;
        if (a.peak_power_dbfs < b.peak_power_dbfs)
            sig.erase(sig.begin());
        else
            sig.pop_back();
    }

    std::vector<double> floors;
    std::vector<sensing_run> runs;
    std::vector<sensing_run> spans; // bands while runs join (bridge, join_combs)
    std::vector<sensing_band> bands;
    std::vector<double> median_scratch;
    std::vector<std::size_t> band_run; // the run each band (on the stack) starts with
    std::vector<double> levels;
    std::vector<char> tone_gap_inner;    // read_tone_gaps()'s, a run gap each
    std::vector<sensing_run> spike_runs; // keep_outweighed_neighbours()'s reads
    std::vector<double> spike_level;
    //! keep_outweighed_neighbours(): the spike's sum over a neighbour's that keeps them
    //! apart (its 99 % edges leave out half a per cent a side).
    static constexpr double spike_outweighs = 200;
    //! keep_outweighed_neighbours(): a neighbour's bins read, nearest the spike.
    static constexpr std::int64_t spike_reach = 4096;
    std::vector<sensing_run> tone_gap_runs;
    std::vector<std::size_t> tone_gap_index;
    std::vector<double> tone_gap_level;
    std::vector<double> chain_levels, exact_levels; // join_weak_chains()'s
    std::vector<sensing_run> chain_spans;
    std::vector<std::size_t> chain_first;
    std::vector<char> chain_join;
    std::vector<sensing_run> near_runs; // near_spike_filled()'s
    std::vector<double> near_level;
    std::vector<std::size_t> order;
    std::int64_t skipped_fits = 0;
    std::deque<std::vector<sensing_run>> history; // the last frames' signals' cores
    std::vector<sensing_run> watch_next;          // merge_history()'s unsorted frames
    std::vector<sensing_run> watch, kept, merged; // add_watched()'s
    std::vector<char> held, merged_held;          // a band a flag: held (add_watched)
    double held_eta = 0;                          // the held bands' threshold (0: none)
    // held_eta by its inputs, the last ones' (add_watched)
    struct held_entry {
        std::int64_t bins = -1;
        double var = 0, eta = 0;
    };
    std::array<held_entry, 32> held_memo{};
    double held_memo_alarm = -1;
};

sensing_plan::sensing_plan(std::int64_t n, const sensing_options& options)
    : d_impl(std::make_unique<impl>(n, options))
{
}
sensing_plan::~sensing_plan() = default;
sensing_plan::sensing_plan(sensing_plan&&) noexcept = default;
sensing_plan& sensing_plan::operator=(sensing_plan&&) noexcept = default;

void sensing_plan::detect(const std::complex<float>* x,
                          sensing_result& result,
                          memory where)
{
    d_impl->detect(x, result, where);
}

std::int64_t sensing_plan::size() const { return d_impl->params.k.n; }
gpufft::backend sensing_plan::backend() const { return d_impl->used; }
int sensing_plan::device_id() const { return d_impl->options.device_id; }
const sensing_options& sensing_plan::options() const { return d_impl->options; }

void sensing_plan::set_max_signals(int max_signals)
{
    d_impl->options.max_signals = resolve_max_signals(size(), max_signals);
}

void sensing_plan::set_false_alarm(double false_alarm)
{
    check_false_alarm(false_alarm);
    d_impl->options.false_alarm = false_alarm;
    // Only the threshold changes; the backends read it from their own copy.
    d_impl->params.k.eta =
        sensing_eta(size(), false_alarm, sensing_floor_log_var(d_impl->params.k));
    d_impl->eta_var = -1; // the tracked threshold again (the track stays)
    d_impl->shown_eta = d_impl->frame_eta();
    d_impl->be = d_impl->make_backend();
}

void sensing_plan::reset_floor() { d_impl->reset_floor(); }

double sensing_plan::threshold_db() const { return d_impl->threshold_db(); }
std::int64_t sensing_plan::memory_bytes() const { return d_impl->be->memory_bytes(); }
std::string sensing_plan::describe() const { return d_impl->describe(); }

} // namespace gpufft
} // namespace gr
