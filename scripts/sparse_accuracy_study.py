#!/usr/bin/python3
#
# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Accuracy of gr-gpufft's sparse FFT in noise: recovery, false detections, amplitude error.

Measures, against total SNR (signal power / noise power over the frame, as the sFFT
papers define it; per-bin SNR = total + 10 log10(n / k)):

  exact   sparse_fft_plan(mode="exact").execute(): every returned bin counts as a tone
  robust  sparse_fft_plan(mode="robust", min_snr_db=max(20, per-bin SNR - 6)).detect()
          (the user states the weakest tone needed; the planner then runs sparse or
          falls back to a dense FFT + threshold: recorded per trial)
  dense   the oracle: robust mode with force_dense=True (dense FFT + threshold).detect()

on on-grid and off-grid (uniform fractional offsets) frames of k equal-amplitude tones
with random phases at random frequencies plus complex white Gaussian noise, and on
frames of pure noise (false alarms). A detection matches a true tone within 0.5 bin
(circular); unmatched detections (duplicates included) count as false.

Writes sparse_accuracy.csv (one row per point), sparse_accuracy_trials.csv (one row per
trial and method), sparse_accuracy_noise.csv and PNG plots into --out. See
docs/sparse_fft_accuracy.md.

Run from a build tree:  scripts/sparse_accuracy_study.py --build build
Installed module:       scripts/sparse_accuracy_study.py
Smoke run (~1 min):     scripts/sparse_accuracy_study.py --build build --quick
"""

import argparse
import contextlib
import csv
import math
import os
import platform
import sys
import tempfile
import time

import numpy as np

METHODS = ("exact", "robust", "dense")
GRIDS = ("on-grid", "off-grid")


def parse_args():
    here = os.path.dirname(os.path.abspath(__file__))
    repo_img = os.path.join(os.path.dirname(here), "docs", "img")
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                epilog="\n\n".join(__doc__.split("\n\n")[1:]),
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", metavar="DIR",
                   help="build tree: puts DIR/test_modules first on sys.path")
    p.add_argument("--quick", action="store_true",
                   help="smoke run: n = 2^20, total SNR -10/10/30 dB, 2 trials, "
                        "10 noise frames; output to ./sparse-accuracy-quick unless --out")
    p.add_argument("--trials", type=int, default=20,
                   help="trials per point for k = 50 (default: %(default)s)")
    p.add_argument("--trials-k1000", type=int, default=None, metavar="T",
                   help="trials per point for k = 1000 (default: --trials)")
    p.add_argument("--noise-frames", type=int, default=100,
                   help="pure-noise frames per configuration (default: %(default)s)")
    p.add_argument("--out", metavar="DIR", default=None,
                   help="output folder (default: docs/img of this checkout when the "
                        "script sits in one, else ./sparse-accuracy)")
    p.add_argument("--seed", type=int, default=20261124,
                   help="master seed; every trial's seeds derive from it and are "
                        "written to the trials CSV (default: %(default)s)")
    p.add_argument("--log2n", type=int, default=22, help="n = 2^LOG2N (default: 22)")
    p.add_argument("--ks", default="50,1000", help="tone counts (default: %(default)s)")
    p.add_argument("--snrs", default="-20:40:5", metavar="LO:HI:STEP",
                   help="total SNR points in dB (default: %(default)s)")
    p.add_argument("--backend", default="cpu", choices=("cpu", "cuda", "auto"),
                   help="engine backend (default: %(default)s)")
    args = p.parse_args()
    if args.quick:
        args.log2n = 20
        args.snrs = "-10:30:20"
        args.trials = 2
        args.trials_k1000 = 2
        args.noise_frames = 10
        if args.out is None:
            args.out = "sparse-accuracy-quick"
    if args.out is None:
        args.out = repo_img if os.path.isdir(os.path.dirname(repo_img)) else "sparse-accuracy"
    if args.trials_k1000 is None:
        args.trials_k1000 = args.trials
    lo, hi, step = (float(v) for v in args.snrs.split(":"))
    args.snr_list = [float(v) for v in np.arange(lo, hi + step / 2, step)]
    args.k_list = [int(v) for v in args.ks.split(",")]
    return args


ARGS = parse_args()
if ARGS.build:
    sys.path.insert(0, os.path.join(os.path.abspath(ARGS.build), "test_modules"))
try:
    from gnuradio import gpufft
except ImportError as e:
    sys.exit(f"sparse_accuracy_study: cannot import gnuradio.gpufft ({e}); pass --build "
             "BUILD_DIR for a build tree, or install gr-gpufft")


@contextlib.contextmanager
def quiet_stderr():
    """The plan prints one line on stderr when it falls back to a dense FFT; the study
    records the same thing from describe() and dense_fallback, so the line is dropped."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as tmp:
        os.dup2(tmp.fileno(), 2)
        try:
            yield
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)


_DENSE_PLANS = {}


def make_plan(n, k, method, seed, per_bin_db):
    """A fresh plan (fresh permutations) per trial; a plan that runs the dense FFT +
    threshold has no randomness, so it is made once per (k, method, min_snr_db) and
    reused (planning an n-point FFT costs ~0.2 s here)."""
    key = (n, k, method, robust_min_snr(per_bin_db) if method == "robust" else None)
    if key in _DENSE_PLANS:
        return _DENSE_PLANS[key]
    plan = _make_plan(n, k, method, seed, per_bin_db)
    if plan.dense_fallback and method != "exact":
        while len(_DENSE_PLANS) >= 3:  # a few n-point plans at a time (memory)
            _DENSE_PLANS.pop(next(iter(_DENSE_PLANS)))
        _DENSE_PLANS[key] = plan
    return plan


def _make_plan(n, k, method, seed, per_bin_db):
    kw = dict(backend=ARGS.backend, seed=int(seed))
    if method == "exact":
        kw["mode"] = "exact"
    elif method == "robust":
        kw.update(mode="robust", min_snr_db=robust_min_snr(per_bin_db))
    else:
        kw.update(mode="robust", force_dense=True)
    with quiet_stderr():
        return gpufft.sparse_fft_plan(n, k, **kw)


def robust_min_snr(per_bin_db):
    return max(20.0, per_bin_db - 6.0)


def seed_of(*parts):
    """A 63-bit integer seed from the master seed and the point's coordinates."""
    return int(np.random.SeedSequence([ARGS.seed, *parts]).generate_state(2, np.uint64)[0]
               >> np.uint64(1))


def clean_signal(n, k, off_grid, seed):
    """k tones of amplitude 1 (|a| = 1, random phase) at random distinct integer bins,
    plus a uniform [0, 1) fractional offset each when off_grid. Returns x (complex64),
    the true frequencies (fractional bins) and amplitudes n a (numpy.fft convention: an
    on-grid tone's X[f])."""
    rng = np.random.default_rng(seed)
    freqs = rng.choice(n, k, replace=False).astype(np.float64)
    if off_grid:
        freqs += rng.uniform(0.0, 1.0, k)
    a = np.exp(2j * np.pi * rng.uniform(0.0, 1.0, k))
    if not off_grid:
        X = np.zeros(n, np.complex128)
        X[freqs.astype(np.int64)] = n * a
        x = np.fft.ifft(X).astype(np.complex64)
    else:
        # x[t1 M + t2] = sum_j (a_j e^{2 pi i f_j t1 M / n}) e^{2 pi i f_j t2 / n}: one
        # (n/M x k) by (k x M) product, exact to float rounding (phases reduced mod n in
        # double precision).
        M = 1 << (int(math.log2(n)) // 2)
        t1 = np.arange(n // M, dtype=np.float64) * M
        t2 = np.arange(M, dtype=np.float64)
        left = (a[None, :] * np.exp(2j * np.pi * (np.outer(t1, freqs) % n) / n))
        right = np.exp(2j * np.pi * (np.outer(freqs, t2) % n) / n)
        x = (left.astype(np.complex64) @ right.astype(np.complex64)).reshape(-1)
    return x, freqs, n * a


def add_noise(x, noise_power, seed):
    """x + complex white Gaussian noise of noise_power per sample (E|w|^2)."""
    rng = np.random.default_rng(seed)
    w = rng.standard_normal(2 * len(x), dtype=np.float32).view(np.complex64)
    w *= np.float32(math.sqrt(noise_power / 2.0))
    w += x
    return w


def match(n, f_est, a_est, f_true, a_true):
    """Greedy matching, strongest detection first, to the nearest unmatched true tone
    within 0.5 bin (circular). Returns (indices of matched true tones, their matched
    detections' indices, number of false detections, of which duplicates)."""
    order_t = np.argsort(f_true)
    ft = f_true[order_t]
    used = np.zeros(len(ft), bool)
    mt, md = [], []
    false = dup = 0
    for j in np.argsort(-np.abs(a_est), kind="stable"):
        f = float(f_est[j]) % n
        i = int(np.searchsorted(ft, f))
        best, bd, near_used = -1, 0.5 + 1e-12, False
        for c in (i - 1, i, i + 1, 0, len(ft) - 1):
            if c < 0 or c >= len(ft):
                continue
            d = abs(ft[c] - f)
            d = min(d, n - d)
            if d <= 0.5 + 1e-12:
                if used[c]:
                    near_used = True
                elif d < bd:
                    best, bd = c, d
        if best < 0:
            false += 1
            dup += near_used
            continue
        used[best] = True
        mt.append(order_t[best])
        md.append(j)
    return np.array(mt, np.int64), np.array(md, np.int64), false, dup


# Two tones closer than this (bins) share the window's main lobe (Blackman-Harris:
# +-4 bins) and may not be told apart by any detector that windows.
CROWDED_BINS = 8.0


def nearest_other(n, f):
    """Per tone, the circular distance (bins) to the nearest other tone."""
    order = np.argsort(f)
    fs = f[order]
    gaps = np.diff(np.concatenate((fs, [fs[0] + n])))
    nn_sorted = np.minimum(gaps, np.roll(gaps, 1))
    nn = np.empty_like(nn_sorted)
    nn[order] = nn_sorted
    return nn


def run_method(plan, method, x):
    t0 = time.perf_counter()
    if method == "exact":
        bins, values = plan.execute(x)
        f, a = bins.astype(np.float64), values.astype(np.complex128)
    else:
        f, a, _ = plan.detect(x)
    return f, a, time.perf_counter() - t0


def circ_err(n, fe, ft):
    d = np.abs(fe - ft) % n
    return np.minimum(d, n - d)


def study_point(n, k, grid, snr_db, trials, clean):
    """All trials of one (k, grid, total SNR) point for every method."""
    per_bin = snr_db + 10 * math.log10(n / k)
    noise_power = k / 10 ** (snr_db / 10)   # signal power is k (k tones of |a| = 1)
    rows = []
    for trial in range(trials):
        x0, f_true, a_true, sig_seed = clean[trial]
        nn = nearest_other(n, f_true)
        nseed = seed_of(1, k, GRIDS.index(grid), trial, int(round(snr_db * 10)) + 1000)
        x = add_noise(x0, noise_power, nseed)
        for mi, method in enumerate(METHODS):
            pseed = seed_of(2, k, GRIDS.index(grid), trial, int(round(snr_db * 10)) + 1000, mi)
            t0 = time.perf_counter()
            plan = make_plan(n, k, method, pseed, per_bin)
            t_plan = time.perf_counter() - t0
            f, a, t_run = run_method(plan, method, x)
            mt, md, false, dup = match(n, f, a, f_true, a_true)
            missed = np.ones(len(f_true), bool)
            missed[mt] = False
            rel = np.abs(a[md] - a_true[mt]) / np.abs(a_true[mt])
            db = 20 * np.log10(np.maximum(np.abs(a[md]), 1e-300) / np.abs(a_true[mt]))
            ferr = circ_err(n, f[md], f_true[mt])
            rows.append(dict(
                k=k, grid=grid, snr_total_db=snr_db, snr_per_bin_db=round(per_bin, 2),
                method=method, trial=trial, signal_seed=sig_seed, noise_seed=nseed,
                plan_seed=pseed,
                min_snr_db=robust_min_snr(per_bin) if method == "robust" else "",
                sparse=int(not plan.dense_fallback), detections=len(f),
                recovered=len(mt), false=false, duplicates=dup,
                missed_crowded=int(np.sum(missed & (nn < CROWDED_BINS))),
                rel_err_sum=float(rel.sum()), rel_errs=rel, db_errs=db, f_errs=ferr,
                isolated=nn[mt] >= CROWDED_BINS,
                t_plan=t_plan, t_run=t_run, describe=plan.describe()))
    return rows


def summarize(rows, n, k, grid, snr_db, method):
    r = [x for x in rows if x["method"] == method]
    rel = np.concatenate([x["rel_errs"] for x in r]) if r else np.zeros(0)
    db = np.concatenate([x["db_errs"] for x in r]) if r else np.zeros(0)
    fe = np.concatenate([x["f_errs"] for x in r]) if r else np.zeros(0)
    iso = np.concatenate([x["isolated"] for x in r]) if r else np.zeros(0, bool)
    trials = len(r)
    recovered = sum(x["recovered"] for x in r)
    nan = float("nan")
    return dict(
        k=k, grid=grid, snr_total_db=snr_db,
        snr_per_bin_db=round(snr_db + 10 * math.log10(n / k), 2), method=method,
        trials=trials,
        min_snr_db=r[0]["min_snr_db"] if r else "",
        sparse_fraction=sum(x["sparse"] for x in r) / max(trials, 1),
        recovery=recovered / (k * trials),
        frames_all_recovered=sum(x["recovered"] == k for x in r),
        frames_exact_k_once=sum(x["recovered"] == k and x["false"] == 0 for x in r),
        false_per_frame=sum(x["false"] for x in r) / trials,
        duplicates_per_frame=sum(x["duplicates"] for x in r) / trials,
        missed_crowded=sum(x["missed_crowded"] for x in r),
        missed=sum(k - x["recovered"] for x in r),
        max_false_in_frame=max((x["false"] for x in r), default=0),
        l1_rel_err=float(rel.mean()) if len(rel) else nan,
        median_rel_err=float(np.median(rel)) if len(rel) else nan,
        p99_rel_err=float(np.quantile(rel, 0.99)) if len(rel) else nan,
        median_abs_db_err=float(np.median(np.abs(db))) if len(db) else nan,
        max_abs_db_err=float(np.abs(db).max()) if len(db) else nan,
        p99_abs_db_err=float(np.quantile(np.abs(db), 0.99)) if len(db) else nan,
        median_freq_err_bins=float(np.median(fe)) if len(fe) else nan,
        max_freq_err_bins=float(fe.max()) if len(fe) else nan,
        p99_freq_err_bins=float(np.quantile(fe, 0.99)) if len(fe) else nan,
        isolated_max_freq_err_bins=float(fe[iso].max()) if iso.any() else nan,
        isolated_max_abs_db_err=float(np.abs(db[iso]).max()) if iso.any() else nan,
        mean_run_s=float(np.mean([x["t_run"] for x in r])),
        mean_plan_s=float(np.mean([x["t_plan"] for x in r])),
    )


def noise_only(n, frames):
    """Pure noise frames (unit power per sample): frames with any detection."""
    configs = [("robust", 50, {}, "robust defaults (min_snr_db 20, false_alarm 0.01)"),
               ("robust", 50, dict(min_snr_db=60.0), "robust, min_snr_db 60"),
               ("robust", 1000, {}, "robust defaults (min_snr_db 20, false_alarm 0.01)"),
               ("dense", 50, dict(force_dense=True), "dense FFT + threshold (oracle)"),
               ("exact", 50, dict(mode="exact"), "exact mode")]
    out = []
    for ci, (method, k, kw, label) in enumerate(configs):
        hits, total, sparse = 0, 0, 0
        snrs = []
        t0 = time.perf_counter()
        plan = None
        for fr in range(frames):
            pseed = seed_of(3, ci, fr)
            if plan is None or not plan.dense_fallback:  # a dense plan has no randomness
                with quiet_stderr():
                    plan = gpufft.sparse_fft_plan(n, k, backend=ARGS.backend, seed=pseed, **kw)
            x = add_noise(np.zeros(n, np.complex64), 1.0, seed_of(4, fr))
            if method == "exact":
                f, a = plan.execute(x)
                s = np.zeros(len(f))
            else:
                f, a, s = plan.detect(x)
            hits += len(f) > 0
            total += len(f)
            sparse += not plan.dense_fallback
            snrs.extend(s.tolist())
        row = dict(label=label, method=method, k=k, options=repr(kw), frames=frames,
                   frames_with_detection=hits, detections=total,
                   sparse_fraction=sparse / frames,
                   max_snr_db=max(snrs) if snrs else float("nan"),
                   seconds=time.perf_counter() - t0)
        print(f"  noise only, {label}, k={k}: {hits} of {frames} frames with a detection "
              f"({total} detections; ran sparse in {sparse} of {frames}; "
              f"{row['seconds']:.0f} s)", flush=True)
        out.append(row)
    return out


POINT_FIELDS = ["k", "grid", "snr_total_db", "snr_per_bin_db", "method", "trials",
                "min_snr_db", "sparse_fraction", "recovery", "frames_all_recovered",
                "frames_exact_k_once", "false_per_frame", "duplicates_per_frame",
                "max_false_in_frame", "missed", "missed_crowded", "l1_rel_err", "median_rel_err", "p99_rel_err",
                "median_abs_db_err", "max_abs_db_err", "p99_abs_db_err", "median_freq_err_bins",
                "max_freq_err_bins", "p99_freq_err_bins", "isolated_max_freq_err_bins",
                "isolated_max_abs_db_err", "mean_run_s", "mean_plan_s"]
TRIAL_FIELDS = ["k", "grid", "snr_total_db", "snr_per_bin_db", "method", "trial",
                "signal_seed", "noise_seed", "plan_seed", "min_snr_db", "sparse",
                "detections", "recovered", "false", "duplicates", "missed_crowded",
                "rel_err_sum",
                "t_plan", "t_run"]


def fmt(v):
    if isinstance(v, float):
        return f"{v:.6g}"
    return v


def plots(points, n, out, stamp):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("no plots: matplotlib is not installed (apt install python3-matplotlib)")
        return []
    style = {"exact": ("tab:orange", "s", "exact mode (execute)"),
             "robust": ("tab:blue", "o", "robust mode (detect)"),
             "dense": ("tab:gray", "^", "dense FFT + threshold (oracle)")}
    ks = sorted({p["k"] for p in points})
    metrics = [
        ("recovery", "recovered fraction of tones", "linear", "sparse_accuracy_recovery.png"),
        ("false_per_frame", "false detections per frame", "symlog",
         "sparse_accuracy_false.png"),
        ("median_rel_err", "median |A_est - A| / |A| (recovered tones)", "log",
         "sparse_accuracy_amplitude.png"),
        ("isolated_max_freq_err_bins", "max frequency error (bins)", "log",
         "sparse_accuracy_frequency.png"),
        ("isolated_max_abs_db_err", "max |amplitude error| (dB)", "log",
         "sparse_accuracy_amplitude_db.png"),
    ]
    # Dashed beside them: the same over every recovered tone (crowded pairs included).
    companions = {"isolated_max_freq_err_bins": "max_freq_err_bins",
                  "isolated_max_abs_db_err": "max_abs_db_err"}
    written = []
    for key, label, scale, name in metrics:
        fig, axes = plt.subplots(len(ks), 2, figsize=(12, 4.2 * len(ks)), squeeze=False,
                                 constrained_layout=True)
        for row, k in enumerate(ks):
            for col, grid in enumerate(GRIDS):
                ax = axes[row][col]
                for method in METHODS:
                    sel = sorted((p for p in points if p["k"] == k and p["grid"] == grid
                                  and p["method"] == method), key=lambda p: p["snr_total_db"])
                    if not sel:
                        continue
                    color, marker, lab = style[method]
                    xs = [p["snr_total_db"] for p in sel]
                    ys = [p[key] for p in sel]
                    ax.plot(xs, ys, "-", color=color, linewidth=1.2, label=lab)
                    if key in companions:
                        ax.plot(xs, [p[companions[key]] for p in sel], "--", color=color,
                                linewidth=0.8,
                                label=f"{method}: every recovered tone" if method != "exact"
                                else None)
                    if method == "robust":
                        sp = [p["sparse_fraction"] > 0.5 for p in sel]
                        ax.plot([x for x, s in zip(xs, sp) if s], [y for y, s in zip(ys, sp) if s],
                                marker, color=color, markersize=7, linestyle="none",
                                label="robust: ran sparse")
                        ax.plot([x for x, s in zip(xs, sp) if not s],
                                [y for y, s in zip(ys, sp) if not s], marker, color=color,
                                markerfacecolor="white", markersize=7, linestyle="none",
                                label="robust: planner chose dense")
                    else:
                        ax.plot(xs, ys, marker, color=color, markersize=5, linestyle="none")
                if scale == "symlog":
                    ax.set_yscale("symlog", linthresh=0.1)
                    top = max([p[key] for p in points if p["k"] == k and p["grid"] == grid]
                              + [0.0])
                    ax.set_ylim(-0.01, max(1.0, 2.0 * top))
                elif scale == "log":
                    ax.set_yscale("log")
                if key == "recovery":
                    ax.set_ylim(-0.02, 1.02)
                ax.set_xlabel("total SNR (dB)")
                ax.set_ylabel(label)
                ax.set_title(f"{grid}, n = 2^{int(math.log2(n))}, k = {k}")
                ax.grid(alpha=0.3, which="both")
                off = 10 * math.log10(n / k)
                sec = ax.secondary_xaxis("top", functions=(lambda v, o=off: v + o,
                                                           lambda v, o=off: v - o))
                sec.set_xlabel("per-bin SNR (dB)")
                if row == 0 and col == 0:
                    ax.legend(fontsize=8, loc="best")
        what = label + (" over tones >= 8 bins from any other (solid) and over every "
                        "recovered tone (dashed)" if key in companions else "")
        fig.suptitle(f"sparse_fft_plan accuracy: {what}\n({stamp})", fontsize=10)
        path = os.path.join(out, name)
        fig.savefig(path, dpi=90)
        plt.close(fig)
        written.append(path)
    return written


def pct(v):
    return f"{100 * v:.1f}%"


def summary(points, noise_rows, n):
    """The targets of docs/sparse_fft_accuracy.md, checked on the measured points, and
    the table of every point, as Markdown."""
    out = []
    get = lambda k, grid, m: [p for p in points if p["k"] == k and p["grid"] == grid
                              and p["method"] == m]

    def verdict(ok):
        return "**met**" if ok else "**missed**"

    out.append("## Targets\n")
    out.append("| target | method | points | worst recovery | worst false / frame | "
               "worst median rel. error | verdict |")
    out.append("|---|---|---|---|---|---|---|")
    for k, lo in ((50, 0.0), (1000, 10.0)):
        for m in METHODS:
            sel = [p for p in get(k, "on-grid", m) if p["snr_total_db"] >= lo]
            if not sel:
                continue
            rec = min(p["recovery"] for p in sel)
            fal = max(p["false_per_frame"] for p in sel)
            med = max((p["median_rel_err"] for p in sel), key=lambda v: -1 if v != v else v)
            ok = rec >= 0.99 and fal <= 1 and med == med and med <= 0.05
            out.append(f"| on-grid, k = {k}, total SNR >= {lo:g} dB: >= 99% recovered, <= 1 "
                       f"false / frame, median rel. error <= 0.05 | {m} | {len(sel)} | "
                       f"{pct(rec)} | {fal:.2f} | {med:.3g} | {verdict(ok)} |")
    out.append("")
    out.append("| target | method | points | frames with every tone once / all | worst max "
               "freq. error (bins): all / isolated / worst p99 | worst max amplitude error "
               "(dB): all / isolated / worst p99 | verdict |")
    out.append("|---|---|---|---|---|---|---|")
    for k in sorted({p["k"] for p in points}):
        for m in METHODS:
            sel = [p for p in get(k, "off-grid", m) if p["snr_per_bin_db"] >= 30.0]
            if not sel:
                continue
            once = sum(p["frames_exact_k_once"] for p in sel)
            frames = sum(p["trials"] for p in sel)
            fmax = max(p["max_freq_err_bins"] for p in sel)
            fiso = max(p["isolated_max_freq_err_bins"] for p in sel)
            dmax = max(p["max_abs_db_err"] for p in sel)
            diso = max(p["isolated_max_abs_db_err"] for p in sel)
            f99 = max(p["p99_freq_err_bins"] for p in sel)
            d99 = max(p["p99_abs_db_err"] for p in sel)
            ok = once == frames and fmax <= 0.05 and dmax <= 0.5
            out.append(f"| off-grid, k = {k}, per-bin SNR >= 30 dB: every tone once, "
                       f"freq. error <= 0.05 bin, amplitude within 0.5 dB | {m} | {len(sel)} | "
                       f"{once} / {frames} | {fmax:.3g} / {fiso:.3g} / {f99:.3g} | "
                       f"{dmax:.3g} / {diso:.3g} / {d99:.3g} | {verdict(ok)} |")
    out.append("")
    out.append("| pure noise (unit power per sample) | k | frames with a detection | "
               "detections | ran sparse | verdict (target: none in >= 95% of frames) |")
    out.append("|---|---|---|---|---|---|")
    for r in noise_rows:
        ok = r["frames_with_detection"] <= 0.05 * r["frames"]
        out.append(f"| {r['label']} | {r['k']} | {r['frames_with_detection']} / {r['frames']} "
                   f"| {r['detections']} | {pct(r['sparse_fraction'])} | {verdict(ok)} |")
    out.append("")
    out.append("## Every point\n")
    out.append("recovered % / false per frame / median relative amplitude error; robust: "
               "[s] ran sparse, [d] the planner chose the dense FFT + threshold; "
               "exact: '-' where nothing was recovered.\n")
    for k in sorted({p["k"] for p in points}):
        for grid in GRIDS:
            out.append(f"**{grid}, n = 2^{int(math.log2(n))}, k = {k}** "
                       f"({get(k, grid, 'robust')[0]['trials'] if get(k, grid, 'robust') else 0}"
                       f" trials a point)\n")
            out.append("| total SNR (dB) | per-bin SNR (dB) | robust min_snr_db | exact | "
                       "robust | dense oracle |")
            out.append("|---|---|---|---|---|---|")
            for snr in sorted({p["snr_total_db"] for p in points}):
                row = {m: [p for p in get(k, grid, m) if p["snr_total_db"] == snr] for m in METHODS}
                if not all(row.values()):
                    continue
                cells = []
                for m in METHODS:
                    p = row[m][0]
                    med = "-" if p["median_rel_err"] != p["median_rel_err"] else \
                        f"{p['median_rel_err']:.2g}"
                    tag = (" [s]" if p["sparse_fraction"] > 0.5 else " [d]") if m == "robust" else ""
                    cells.append(f"{pct(p['recovery'])} / {p['false_per_frame']:.2f} / {med}{tag}")
                p = row["robust"][0]
                out.append(f"| {snr:g} | {p['snr_per_bin_db']:.1f} | {p['min_snr_db']:.1f} | "
                           + " | ".join(cells) + " |")
            out.append("")
    return "\n".join(out) + "\n"


def main():
    n = 1 << ARGS.log2n
    os.makedirs(ARGS.out, exist_ok=True)
    stamp = (f"{time.strftime('%Y-%m-%d')}, {platform.node()}, {os.cpu_count()} cores, "
             f"backend {ARGS.backend}, seed {ARGS.seed}")
    print(f"sparse_accuracy_study: n = 2^{ARGS.log2n}, k = {ARGS.k_list}, total SNR "
          f"{ARGS.snr_list[0]:g}..{ARGS.snr_list[-1]:g} dB, trials {ARGS.trials} "
          f"(k >= 1000: {ARGS.trials_k1000}), noise frames {ARGS.noise_frames}, "
          f"master seed {ARGS.seed}, backend {ARGS.backend}")
    print(f"  gpufft: {gpufft.__file__}")
    print(f"  {stamp}")
    print("  seeds: signal = SeedSequence([seed, 0, k, grid, trial]), noise = "
          "SeedSequence([seed, 1, k, grid, trial, 10*snr+1000]), plan = SeedSequence([seed, "
          "2, k, grid, trial, 10*snr+1000, method]) (first 64-bit word >> 1); all in "
          "sparse_accuracy_trials.csv", flush=True)
    t_start = time.time()
    points, trial_rows = [], []
    for k in ARGS.k_list:
        trials = ARGS.trials if k < 1000 else ARGS.trials_k1000
        for grid in GRIDS:
            t0 = time.perf_counter()
            clean = []
            for trial in range(trials):
                s = seed_of(0, k, GRIDS.index(grid), trial)
                clean.append((*clean_signal(n, k, grid == "off-grid", s), s))
            print(f"k = {k}, {grid}: {trials} clean signals in "
                  f"{time.perf_counter() - t0:.1f} s (the same tones at every SNR point, "
                  f"fresh noise and plan seeds per point)", flush=True)
            for snr in ARGS.snr_list:
                t0 = time.perf_counter()
                rows = study_point(n, k, grid, snr, trials, clean)
                trial_rows += rows
                line = []
                for method in METHODS:
                    s = summarize(rows, n, k, grid, snr, method)
                    points.append(s)
                    line.append(f"{method} {100 * s['recovery']:5.1f}%/"
                                f"{s['false_per_frame']:.2f}f/"
                                f"{s['median_rel_err']:.2g}"
                                + (f" [{'sparse' if s['sparse_fraction'] > 0.5 else 'dense'}]"
                                   if method == "robust" else ""))
                print(f"  SNR {snr:6.1f} dB (per bin {snr + 10 * math.log10(n / k):5.1f}): "
                      + "  ".join(line) + f"  ({time.perf_counter() - t0:.1f} s)", flush=True)
            del clean
    print("pure noise (unit power per sample):", flush=True)
    noise_rows = noise_only(n, ARGS.noise_frames)
    elapsed = time.time() - t_start

    with open(os.path.join(ARGS.out, "sparse_accuracy.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, POINT_FIELDS)
        w.writeheader()
        for p in points:
            w.writerow({key: fmt(p[key]) for key in POINT_FIELDS})
    with open(os.path.join(ARGS.out, "sparse_accuracy_trials.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, TRIAL_FIELDS)
        w.writeheader()
        for r in trial_rows:
            w.writerow({key: fmt(r[key]) for key in TRIAL_FIELDS})
    with open(os.path.join(ARGS.out, "sparse_accuracy_noise.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, list(noise_rows[0].keys()))
        w.writeheader()
        for r in noise_rows:
            w.writerow({key: fmt(v) for key, v in r.items()})
    # One plan description per method and k (the planner's choice at the highest SNR).
    with open(os.path.join(ARGS.out, "sparse_accuracy_plans.txt"), "w") as f:
        seen = set()
        for r in trial_rows:
            key = (r["k"], r["method"], r["snr_total_db"])
            if key not in seen and r["trial"] == 0 and r["grid"] == "off-grid":
                seen.add(key)
                f.write(f"k={r['k']} {r['method']} total SNR {r['snr_total_db']:g} dB: "
                        f"{r['describe']}\n")
    text = summary(points, noise_rows, n)
    with open(os.path.join(ARGS.out, "sparse_accuracy_summary.md"), "w") as f:
        f.write(f"<!-- written by scripts/sparse_accuracy_study.py, {stamp} -->\n\n" + text)
    print(text.split("## Every point")[0])
    written = plots(points, n, ARGS.out, stamp)
    print(f"wrote {ARGS.out}/sparse_accuracy.csv, sparse_accuracy_trials.csv, "
          f"sparse_accuracy_noise.csv, sparse_accuracy_plans.txt, sparse_accuracy_summary.md"
          + "".join(f", {os.path.basename(p)}" for p in written))
    print(f"total {elapsed:.0f} s ({elapsed / 60:.1f} min)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
