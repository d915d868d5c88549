#!/usr/bin/env python3
#
# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Score gpufft.sensing_plan (and gpufft.transmission_tracker) against the independent
reference detector (scripts/reference_detector.py) on real SigMF captures: the same
frames through both, per capture.

    scripts/score_sensing.py [--captures DIR] [--build BUILD] [--backend cpu]
                             [--fft-size N] [--only NAME] [--json out.json]

DIR defaults to tests/data (the recordings shipped with the tests). BUILD is a build directory whose test_modules (or python/) hold
gnuradio.gpufft; without it the installed module is used. With --reference-only (or when
gnuradio.gpufft has no sensing_plan) only the reference half runs. --self-test scores
the reference against itself (0 missed, 0 false, 0 bandwidth error expected) to check
the scoring.

Per capture it prints:
- emitters: the reference's per-capture intervals (its per-frame band extents merged
  across frames) with the frames each is found in; and how many Welch bands it finds;
- found / missed / false: per frame a reference band is found when one of our signals
  overlaps its extent (within --tol bins, default 1); missed otherwise; our signal is
  false when it overlaps no reference band. Summed over frames, and per emitter
  (frames where the reference finds it vs frames where we do);
- below threshold: our signals with snr_db < --threshold-db (default: the CFAR
  threshold of the plan's false_alarm per bin, 10 log10(-ln false_alarm)) and < 0 dB;
- bandwidth error: for each found reference band, our signal with the largest overlap;
  narrow bands (reference bandwidth <= --narrow-bins, default 8) in bins (target <= 2),
  wide ones in % (target <= 10 %); and each wide emitter (in 3 frames or more) against
  the 99 % occupied bandwidth of the mean periodogram of its frames over the floor
  beside it (a truth for carriers that the reference's per-frame test fragments);
- DC: reference bands touching DC, and how many of our matches have dc set;
- time per frame: our detect() and the reference, ms (mean);
- transmissions: our tracker's rows (and the reference's chained rows) assigned to the
  emitter they overlap most in frequency; rows overlapping no emitter are listed.
"""

import argparse
import json
import math
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import reference_detector as ref  # noqa: E402


def default_captures():
    """The recordings shipped with the tests; any other folder is given with --captures."""
    return os.path.join(ROOT, "tests", "data")


def auto_fft_size(rate, num_samples, target_s=0.002, min_frames=8):
    """A power of two near `target_s` of samples (a time resolution of a few ms, so
    bursts of ~10 ms stay apart), 1024..65536, halved until the capture holds
    min_frames frames."""
    n = 1 << int(round(math.log2(max(1024, rate * target_s))))
    n = min(max(n, 1024), 65536)
    while n > 1024 and num_samples // n < min_frames:
        n //= 2
    return n


def import_gpufft(build):
    if build:
        for sub in ("test_modules", "python"):
            p = os.path.join(build, sub)
            if os.path.isdir(os.path.join(p, "gnuradio")):
                sys.path.insert(0, p)
                break
    try:
        from gnuradio import gpufft
    except ImportError as e:
        return None, f"gnuradio.gpufft does not import: {e}"
    if not hasattr(gpufft, "sensing_plan"):
        return None, f"{gpufft.__file__} has no sensing_plan"
    return gpufft, None


class reference_as_plan:
    """The reference wrapped in the sensing_plan result format (for --self-test)."""

    def __init__(self, det):
        self.det = det

    def detect(self, x):
        r = self.det.detect(x)
        s = r["signals"]
        col = lambda k, t=float: np.array([v[k] for v in s], t)  # noqa: E731
        return {"center_bin": col("center_bin"), "lower_bin": col("lower_bin"),
                "upper_bin": col("upper_bin"), "bandwidth_bins": col("bandwidth_bins"),
                "peak_power_dbfs": col("peak_power_dbfs"), "snr_db": col("snr_db"),
                "dc": col("dc", bool), "truncated": False,
                "_extent": [(v["extent_lower_bin"], v["extent_upper_bin"]) for v in s]}


def our_intervals(r, extent=True):
    """Each signal's bins: its extent, the bins above the threshold (first_bin..last_bin),
    which is what finds a reference band (the reference's bands are matched by their
    extents too; a band's 99 % edges may sit inside the bins it covers, a burst's skirts
    that the other detector reports apart); or its edges by the bandwidth rule, which is
    what pairs bands for a bandwidth comparison."""
    if "_extent" in r:
        return [(float(a), float(b)) for a, b in r["_extent"]]
    lo, hi = ("first_bin", "last_bin") if extent else ("lower_bin", "upper_bin")
    return [(float(a), float(b)) for a, b in zip(r[lo], r[hi])]


def overlap(a, b, tol):
    return min(a[1], b[1]) - max(a[0], b[0]) + tol


def print_profile_bursts(pgrams, n, hz, args, on_db=11.4, stay_db=5.4):
    """Bursts of the lines at --profile-hz offsets, counted as a person does on a
    spectrogram at the frame's time resolution: per frame the strongest of the 3 bins
    about the line over the floor beside it (bins 5-30 away, the median over frames
    of their median / ln 2); a burst starts above on_db (the reference's threshold),
    goes on while over stay_db (6 dB less: a line still plainly there) and ends after
    more than --hold frames under it."""
    fl = np.median(pgrams, axis=0) / math.log(2)
    for f in args.profile_hz:
        c = int(round(f / hz)) + n // 2
        if c < 31 or c > n - 31:
            continue
        v = pgrams[:, c - 1: c + 2].max(axis=1) / np.median(np.r_[fl[c - 30: c - 5], fl[c + 6: c + 31]])
        on, off, count, lit = False, 0, 0, 0
        for x in v:
            lit += x > 10 ** (stay_db / 10)
            if x > 10 ** (on_db / 10) and not on:
                on, off, count = True, 0, count + 1
            elif on:
                off = 0 if x > 10 ** (stay_db / 10) else off + 1
                if off > args.hold:
                    on = False
        print(f"  profile {f:+10.0f} Hz: {count} bursts, lit in {lit} of {len(v)} frames")


def mean_spectrum_obw(mean, lo, hi, n, frames):
    """The 99 % occupied bandwidth (bins) of the emitter on signed bins lo..hi in the
    mean periodogram of its frames, over the local floor: the median of the bins
    beside it (from 1 % of its width, at least 4 bins, out to a quarter of it, at
    least 64 bins), a Gamma(frames) median corrected to its mean; summed over lo..hi
    widened by that margin. None when fewer than 8 bins lie beside it (a carrier that
    fills the band)."""
    a, b = int(lo) + n // 2, int(hi) + n // 2
    width = b - a + 1
    m = max(4, int(math.ceil(0.01 * width)))
    reach = max(64, width // 4)
    side = np.r_[mean[max(0, a - reach): max(0, a - m)], mean[min(n, b + m + 1): min(n, b + reach + 1)]]
    if len(side) < 8:
        return None
    floor = float(np.median(side)) / (1 - 1 / (3 * frames))
    a, b = max(0, a - m), min(n - 1, b + m)
    k = np.arange(a, b + 1, dtype=np.float64) - n // 2
    q = mean[a: b + 1] - floor
    tot = float(q.sum())
    if tot <= 0:
        return None
    lower, upper = ref.reference_detector._obw(k, q, tot, 0.99)
    return upper - lower, len(side)


def wide_against_mean(emitters, em_frames, em_extent, pgrams, ours, tx, fc, n, hz, args):
    """Wide steady emitters (wider than --narrow-bins, in 3 frames or more, and in its
    frames the reference's bands on it span half its width or more: not a narrow line
    that moves, as an FM carrier): our bandwidth (the median over the frames where the
    reference finds the emitter, of our signal overlapping it most; and the bandwidth of
    our transmission on it seen in most frames) against the 99 % occupied bandwidth of
    the mean periodogram of those frames (mean_spectrum_obw): a truth for the edges of
    carriers that the reference's per-frame test breaks into fragments (wider than
    40 % of the band)."""
    out = []
    for j, e in enumerate(emitters):
        fr = em_frames[j]
        width = e["upper_bin"] - e["lower_bin"] + 1
        if width <= args.narrow_bins or len(fr) < 3 or np.median(em_extent[j]) < width / 2:
            continue
        t = mean_spectrum_obw(pgrams[fr].mean(axis=0), e["lower_bin"], e["upper_bin"], n,
                              len(fr))
        ob = []
        for fi in fr:
            mine = our_intervals(ours[fi], extent=False)
            ov = [overlap((e["lower_bin"], e["upper_bin"]), m, args.tol) for m in mine]
            hits = [k for k, v in enumerate(ov) if v >= 0]
            if hits:
                ob.append(float(ours[fi]["bandwidth_bins"][max(hits, key=lambda k: ov[k])]))
        rows = [r for r in tx
                if overlap(((r["lower_hz"] - fc) / hz, (r["upper_hz"] - fc) / hz),
                           (e["lower_bin"], e["upper_bin"]), args.tol) >= 0]
        row_bw = (float(max(rows, key=lambda r: r["frames"])["bandwidth_hz"]) if rows
                  else None)
        row = {"lower_hz": (e["lower_bin"] - 0.5) * hz, "upper_hz": (e["upper_bin"] + 0.5) * hz,
               "frames": len(fr), "ours_frames": len(ob),
               "ours_bw_hz": float(np.median(ob)) * hz if ob else None,
               "ours_row_bw_hz": row_bw,
               "truth_bw_hz": t[0] * hz if t else None, "side_bins": t[1] if t else 0}
        row["error_percent"] = (abs(row["ours_bw_hz"] - row["truth_bw_hz"]) / row["truth_bw_hz"]
                                * 100 if ob and t and t[0] > 0 else None)
        row["row_error_percent"] = (abs(row_bw - row["truth_bw_hz"]) / row["truth_bw_hz"] * 100
                                    if row_bw is not None and t and t[0] > 0 else None)
        out.append(row)
        what = (f"mean-spectrum 99 % {row['truth_bw_hz'] / 1e3:.1f} kHz" if t
                else "no truth (no floor beside it)")
        ours_s = f"ours {row['ours_bw_hz'] / 1e3:.1f} kHz in {len(ob)}" if ob else "ours none"
        err = (f", error {row['error_percent']:.1f} %" if row["error_percent"] is not None
               else "")
        if row_bw is not None:
            err += f"; our row {row_bw / 1e3:.1f} kHz"
            if row["row_error_percent"] is not None:
                err += f", error {row['row_error_percent']:.1f} %"
        print(f"  wide emitter {row['lower_hz']:+12.0f}..{row['upper_hz']:+12.0f} Hz "
              f"({len(fr)} frames): {what}; {ours_s} frames (median){err}")
    return out


def score_capture(meta, args, gpufft):
    x, info = ref.read_sigmf(meta)
    rate, fc = info["sample_rate"], info["center_freq"]
    n = args.fft_size or auto_fft_size(rate, len(x))
    start = int(round(args.frame_offset * n))
    starts = ref.frame_starts(len(x), n, start=start, max_frames=args.max_frames)
    det = ref.reference_detector(n, rate, fc, pfa=args.pfa)
    plan = None
    if args.self_test:
        plan = reference_as_plan(ref.reference_detector(n, rate, fc, pfa=args.pfa))
    elif gpufft is not None:
        plan = gpufft.sensing_plan(n, backend=args.backend, false_alarm=args.false_alarm,
                                   **args.plan_kw)
    thr = args.threshold_db
    if thr is None:
        thr = 10 * math.log10(-math.log(args.false_alarm))
    hz = rate / n
    name = os.path.basename(meta)[: -len(".sigmf-meta")]
    print(f"\n## {name}: {info['datatype']}, {rate / 1e6:g} MS/s, N = {n} "
          f"({hz:.1f} Hz/bin, {n / rate * 1e3:.2f} ms/frame), {len(starts)} frames")
    if not starts:
        print(f"  skipped: {len(x)} samples hold no frame of {n}")
        return None

    frames, ours, pgrams, t_ref, t_our = [], [], [], 0.0, 0.0
    for i, s in enumerate(starts):
        xs = x[s: s + n]
        if not np.all(np.isfinite(xs)):
            continue
        t0 = time.perf_counter()
        pg = det.periodogram(xs)
        r = det.detect_periodogram(pg)
        t_ref += time.perf_counter() - t0
        pgrams.append(pg)
        r.update(index=i, first_sample=s, start_s=s / rate)
        frames.append(r)
        if plan is not None:
            t0 = time.perf_counter()
            o = plan.detect(np.ascontiguousarray(xs, np.complex64))
            t_our += time.perf_counter() - t0
            ours.append(o)
    nf = max(1, len(frames))
    emitters = ref.merge_emitters(frames, tol=max(1, n // 256))
    welch = ref.reference_detector(n, rate, fc, pfa=args.pfa, averaged=len(frames))
    pgrams = np.array(pgrams)
    wp = pgrams.mean(axis=0)
    wb = welch.detect_periodogram(wp)["signals"]
    welch_iv = [(b["extent_lower_bin"], b["extent_upper_bin"]) for b in wb]
    pg_sum = pgrams.sum(axis=0)
    res = {"capture": name, "fft_size": n, "frames": len(frames), "bin_hz": hz,
           "reference_ms_per_frame": t_ref / nf * 1e3,
           "emitters": [dict(e, lower_hz=fc + (e["lower_bin"] - 0.5) * hz,
                             upper_hz=fc + (e["upper_bin"] + 0.5) * hz) for e in emitters],
           "welch_bands": len(wb)}
    if args.profile_hz:
        print_profile_bursts(np.array(pgrams), n, hz, args)
    print(f"reference: {sum(len(f['signals']) for f in frames)} bands in {len(frames)} frames, "
          f"{len(emitters)} emitters, {len(wb)} Welch bands, {t_ref / nf * 1e3:.2f} ms/frame")
    big = sorted(emitters, key=lambda e: -e["frames"])[: args.list_emitters]
    for e in sorted(big, key=lambda e: e["lower_bin"]):
        print(f"  emitter {(e['lower_bin'] - 0.5) * hz:+12.0f} .. {(e['upper_bin'] + 0.5) * hz:+12.0f}"
              f" Hz: {e['frames']:4d} frames, max snr {e['peak_snr_db']:5.1f} dB"
              f"{', DC' if e['dc'] else ''}")
    if len(emitters) > len(big):
        print(f"  ... and {len(emitters) - len(big)} emitters seen in fewer frames")
    if plan is None:
        return res

    tol = args.tol
    false_listed = [0]
    missed_listed = [0]
    found = missed = false = below = negative = truncated = 0
    false_steady = 0

    # Frames in which each bin lies in a signal's core of ours (+-1 bin) or a band of
    # the reference: a signal that recurs on the same bins is an emitter.
    seen_bins = np.zeros(n + 1, np.int32)

    def cores(o):
        core = ((o["first_bin"], o["last_bin"]) if "first_bin" in o
                else (o["lower_bin"], o["upper_bin"]))
        return [(float(a), float(b)) for a, b in zip(*core)]

    for f, o in zip(frames, ours):
        d = np.zeros(n + 1, np.int32)
        for iv in cores(o) + [(b["extent_lower_bin"], b["extent_upper_bin"])
                              for b in f["signals"]]:
            d[max(0, int(math.floor(iv[0])) + n // 2 - 1)] += 1
            d[min(n, int(math.ceil(iv[1])) + n // 2 + 2)] -= 1
        seen_bins[:n] += (np.cumsum(d[:n]) > 0).astype(np.int32)

    def recurring(lo, hi):
        """Whether bins lo..hi (signed) hold a signal in 2 frames besides this one: noise
        crosses the threshold on given bins in about false_alarm x width / n of the
        frames, so twice more on the same bins is not noise."""
        a, b = max(0, int(lo) + n // 2), min(n, int(hi) + n // 2 + 1)
        return b > a and int(seen_bins[a:b].max()) - 1 >= 2

    def steady(fi, lo, hi):
        """Whether bins lo..hi (signed) hold a steady emitter by the whole capture: on
        a Welch band of the reference (its test on the mean of all frames), or a line
        in the mean of the other frames (this one left out) standing 6 standard
        deviations of that mean over the median of the bins 6-24 either side."""
        if any(overlap((lo, hi), iv, tol) >= 0 for iv in welch_iv):
            return True
        m = len(pgrams)
        if m < 2:
            return False
        a, b = max(0, int(lo) + n // 2 - 1), min(n, int(hi) + n // 2 + 2)
        loo = (pg_sum - pgrams[fi]) / (m - 1)
        side = np.r_[loo[max(0, a - 23): max(0, a - 5)], loo[b + 5: b + 23]]
        if len(side) < 8:
            return False
        return float(loo[a:b].max()) > float(np.median(side)) * (1 + 6 / math.sqrt(m - 1))
    dc_ref = dc_ok = 0
    bw_narrow, bw_wide = [], []
    em_ref = np.zeros(len(emitters), int)
    em_found = np.zeros(len(emitters), int)
    em_frames = [[] for _ in emitters]  # the frames where the reference finds each
    em_extent = [[] for _ in emitters]  # and the width of its bands' union there

    def emitter_of(iv):
        for j, e in enumerate(emitters):
            if overlap(iv, (e["lower_bin"], e["upper_bin"]), tol) >= 0:
                return j
        return None

    for fi, (f, o) in enumerate(zip(frames, ours)):
        mine = our_intervals(o)
        edges = our_intervals(o, extent=False)
        snr = np.asarray(o["snr_db"], float)
        below += int(np.sum(snr < thr))
        negative += int(np.sum(snr < 0))
        truncated += bool(o.get("truncated", False))
        used = np.zeros(len(mine), bool)
        seen_em, found_em = set(), set()
        union = {}
        for s in f["signals"]:
            iv = (s["extent_lower_bin"], s["extent_upper_bin"])
            ov = [overlap(iv, m, tol) for m in mine]
            hits = [k for k, v in enumerate(ov) if v >= 0]
            j = emitter_of(iv)
            if j is not None:
                seen_em.add(j)
                u = union.get(j, iv)
                union[j] = (min(u[0], iv[0]), max(u[1], iv[1]))
            if s["dc"]:
                dc_ref += 1
            if not hits:
                missed += 1
                if missed_listed[0] < args.list_missed:
                    missed_listed[0] += 1
                    print(f"  missed: frame {f.get('index', '?')}, "
                          f"{s['extent_lower_bin'] * hz:+.0f}..{s['extent_upper_bin'] * hz:+.0f} Hz, "
                          f"SNR {s['snr_db']:.1f} dB over the reference's floor"
                          f"{', DC' if s['dc'] else ''}")
                continue
            found += 1
            if j is not None:
                found_em.add(j)
            used[hits] = True
            best = max(hits, key=lambda k: ov[k])
            # A bandwidth is compared where our band's edges meet the reference's band:
            # a spur that a burst's skirts cover is found, but measures nothing of it.
            ev = [overlap(iv, m, tol) for m in edges]
            paired = [k for k, v in enumerate(ev) if v >= 0]
            if paired:
                ob = float(o["bandwidth_bins"][max(paired, key=lambda k: ev[k])])
                if s["bandwidth_bins"] <= args.narrow_bins:
                    bw_narrow.append(abs(ob - s["bandwidth_bins"]))
                else:
                    bw_wide.append(abs(ob - s["bandwidth_bins"]) / s["bandwidth_bins"] * 100)
            if s["dc"] and bool(o["dc"][best]):
                dc_ok += 1
        false += int(np.sum(~used))
        cs = cores(o)
        for k in np.flatnonzero(~used):
            kind = ("line" if steady(fi, *cs[k]) else
                    "recurring" if recurring(*cs[k]) else "noise")
            false_steady += kind != "noise"
            if false_listed[0] < args.list_false:
                false_listed[0] += 1
                print(f"  false: frame {f.get('index', '?')}, "
                      f"{float(o['center_bin'][k]) * hz:+.0f} Hz, "
                      f"{float(o['bandwidth_bins'][k]) * hz:.0f} Hz wide, "
                      f"SNR {float(o['snr_db'][k]):.1f} dB, {kind}"
                      f"{', held' if o.get('held') is not None and o['held'][k] else ''}")
        for j in seen_em:
            em_ref[j] += 1
            em_frames[j].append(fi)
            em_extent[j].append(union[j][1] - union[j][0] + 1)
        for j in found_em:
            em_found[j] += 1

    def stats(v, unit, target):
        if not v:
            return "none"
        v = np.asarray(v)
        return (f"median {np.median(v):.2f}{unit}, p95 {np.percentile(v, 95):.2f}{unit}, "
                f"max {v.max():.2f}{unit}, within {target}{unit}: {np.sum(v <= target)}/{len(v)}")

    print(f"ours: found {found}, missed {missed}, false {false} "
          f"(per frame: {found / nf:.2f} / {missed / nf:.2f} / {false / nf:.2f}); "
          f"truncated frames {truncated}")
    print(f"  false: {false_steady} on an emitter of the capture (a Welch band, a line in "
          f"the mean of the other frames, or a signal on the same bins in 2 other "
          f"frames), {false - false_steady} noise crossings (false_alarm x frames: "
          f"{args.false_alarm * nf:.1f})")
    print(f"  below threshold ({thr:.1f} dB): {below}; below 0 dB: {negative}")
    print(f"  bandwidth error, narrow (<= {args.narrow_bins} bins): {stats(bw_narrow, ' bins', 2)}")
    print(f"  bandwidth error, wide: {stats(bw_wide, ' %', 10)}")
    print(f"  DC: reference bands on DC {dc_ref}, ours labelled dc {dc_ok}")
    print(f"  time per frame: ours {t_our / nf * 1e3:.2f} ms ({args.backend}), "
          f"reference {t_ref / nf * 1e3:.2f} ms")
    for j in np.argsort([-e["frames"] for e in emitters])[: args.list_emitters]:
        e = emitters[j]
        print(f"  emitter {(e['lower_bin'] - 0.5) * hz:+12.0f} Hz..: found in "
              f"{em_found[j]}/{em_ref[j]} frames")
    res.update(found=found, missed=missed, false=false, false_steady=false_steady,
               false_noise=false - false_steady, false_expected=args.false_alarm * nf,
               below_threshold=below,
               below_zero=negative, truncated_frames=truncated, dc_reference=dc_ref,
               dc_labelled=dc_ok, ours_ms_per_frame=t_our / nf * 1e3,
               bw_narrow_bins=bw_narrow, bw_wide_percent=bw_wide,
               emitter_frames_found=em_found.tolist(), emitter_frames_reference=em_ref.tolist())

    # transmissions
    ref_tx = ref.chain_transmissions(frames, args.hold)
    if gpufft is None or not hasattr(gpufft, "transmission_tracker"):
        print(f"  transmissions: reference {len(ref_tx)} rows; no transmission_tracker to score")
        return res
    tr = gpufft.transmission_tracker(rate, center_freq=fc, fft_size=n, hold_frames=args.hold)
    tx = []
    for f, o in zip(frames, ours):
        tx += list(tr.update(f["first_sample"], o))
    tx += list(tr.flush())

    def assign(lo_bin, hi_bin):
        best, bo = None, -1e300
        for j, e in enumerate(emitters):
            v = overlap((lo_bin, hi_bin), (e["lower_bin"], e["upper_bin"]), tol)
            if v >= 0 and v > bo:
                best, bo = j, v
        return best

    ours_per = np.zeros(len(emitters) + 1, int)
    for t in tx:
        j = assign((t["lower_hz"] - fc) / hz, (t["upper_hz"] - fc) / hz)
        ours_per[len(emitters) if j is None else j] += 1
    ref_per = np.zeros(len(emitters) + 1, int)
    for t in ref_tx:
        j = assign(t["lower_bin"], t["upper_bin"])
        ref_per[len(emitters) if j is None else j] += 1
    print(f"  transmissions: ours {len(tx)} rows, reference {len(ref_tx)} rows")
    for j in np.argsort([-e["frames"] for e in emitters])[: args.list_emitters]:
        e = emitters[j]
        print(f"    emitter {(e['lower_bin'] - 0.5) * hz:+12.0f} Hz..: ours {ours_per[j]}, "
              f"reference {ref_per[j]}")
    print(f"    on no reference emitter: ours {ours_per[-1]}")
    for want in args.list_rows:
        b = want / hz
        em = [j for j, e in enumerate(emitters) if e["lower_bin"] - tol <= b <= e["upper_bin"] + tol]
        print(f"  rows of the emitter at {want:+.0f} Hz:" if em else
              f"  rows at {want:+.0f} Hz: no reference emitter there")
        for t in tx:
            j = assign((t["lower_hz"] - fc) / hz, (t["upper_hz"] - fc) / hz)
            if (j in em) if em else (t["lower_hz"] - fc <= want <= t["upper_hz"] - fc):
                print(f"    {t['start_s'] * 1e3:9.1f} ms +{t['duration_s'] * 1e3:8.1f} ms  "
                      f"{t['lower_hz'] - fc:+10.0f}..{t['upper_hz'] - fc:+10.0f} Hz  "
                      f"{t['frames']:5d} frames  mean snr {t['mean_snr_db']:5.1f} dB")
    res.update(bw_wide_mean_spectrum=wide_against_mean(
        emitters, em_frames, em_extent, pgrams, ours, tx, fc, n, hz, args))
    res.update(transmissions=len(tx), transmissions_reference=len(ref_tx),
               transmissions_per_emitter=ours_per[:-1].tolist(),
               transmissions_per_emitter_reference=ref_per[:-1].tolist(),
               transmissions_off_emitters=int(ours_per[-1]))
    return res


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--captures", default=default_captures(),
                    help="directory of .sigmf-meta/.sigmf-data pairs")
    ap.add_argument("--only", action="append", help="capture names (substring) to score")
    ap.add_argument("--build", help="build directory holding gnuradio.gpufft")
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--fft-size", type=int, help="default: per capture, a few ms")
    ap.add_argument("--max-frames", type=int)
    ap.add_argument("--frame-offset", type=float, default=0.0, metavar="F",
                    help="start the frames F frames into the capture (0 <= F < 1): "
                         "the same capture framed elsewhere, as a live stream may be")
    ap.add_argument("--false-alarm", type=float, default=0.01, help="the plan's false_alarm")
    ap.add_argument("--list-missed", type=int, default=0, metavar="N",
                    help="print the first N reference bands we miss")
    ap.add_argument("--list-false", type=int, default=0, metavar="N",
                    help="print our first N false signals of each capture")
    ap.add_argument("--plan-arg", action="append", default=[],
                    help="more sensing_plan keywords, key=value (e.g. dc_mask_bins=2)")
    ap.add_argument("--threshold-db", type=float)
    ap.add_argument("--pfa", type=float, default=1e-6, help="the reference's pfa per bin")
    ap.add_argument("--tol", type=float, default=1.0, help="overlap tolerance, bins")
    ap.add_argument("--narrow-bins", type=float, default=8.0)
    ap.add_argument("--hold", type=int, default=2)
    ap.add_argument("--list-emitters", type=int, default=8)
    ap.add_argument("--list-rows", type=float, action="append", default=[], metavar="HZ",
                    help="list our rows assigned to the reference emitter at HZ (offset "
                         "from the centre; rows covering HZ where no emitter is there)")
    ap.add_argument("--profile-hz", type=float, action="append", default=[],
                    help="count the bursts of the line at this offset (Hz) in the "
                         "frames' power profile (the by-eye count; repeatable)")
    ap.add_argument("--reference-only", action="store_true")
    ap.add_argument("--self-test", action="store_true",
                    help="score the reference against itself")
    ap.add_argument("--json", help="write the figures as JSON")
    args = ap.parse_args(argv)
    if not 0 <= args.frame_offset < 1:
        ap.error(f"--frame-offset must be in [0, 1), got {args.frame_offset}")
    args.plan_kw = {}
    for kv in args.plan_arg:
        k, _, v = kv.partition("=")
        try:
            args.plan_kw[k] = json.loads(v)
        except json.JSONDecodeError:
            args.plan_kw[k] = v
    if not os.path.isdir(args.captures):
        print(f"--captures: {args.captures} is not a directory", file=sys.stderr)
        return 2
    gpufft = None
    if not args.reference_only:
        gpufft, why = import_gpufft(args.build)
        if gpufft is None and not args.self_test:
            print(f"reference only: {why}")
        elif gpufft is not None:
            print(f"gpufft: {gpufft.__file__}")
    metas = sorted(f for f in os.listdir(args.captures) if f.endswith(".sigmf-meta"))
    if args.only:
        metas = [m for m in metas if any(o in m for o in args.only)]
    print(f"captures: {args.captures} ({len(metas)})")
    out = []
    for m in metas:
        scored = score_capture(os.path.join(args.captures, m), args,
                               None if args.self_test else gpufft)
        if scored is not None:
            out.append(scored)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1, default=float)
    return 0


if __name__ == "__main__":
    sys.exit(main())
