#!/usr/bin/env python3
# The sublinear path's self-check on real captures (docs/sparse_fft_robust.md,
# "Self-check"): robust mode at n = 65536, k = 4, min_snr_db = 55 (the sublinear path on
# the CPU) over real frames, against a dense reference in double (numpy): a
# Blackman-Harris periodogram's strongest peak over its median floor, per bin of the
# rectangular n-point FFT. A frame "holds" a tone at min_snr_db + 6 dB or more by that
# reference. Scores, per seed of the plan:
#   - on the 50 busiest holding frames (most bins over the dense threshold): how many come
#     back empty (the target is 0), and how many the self-check redid on the dense path;
#   - on every frame (hop n): the redo rate per capture, and the time per frame.
#
#   /usr/bin/python3 scripts/sparse_self_check_score.py DIR [--build BUILD_DIR]
#       [--seeds 1,2,3] [--hop 16384]
# DIR holds SigMF pairs (e.g. tests/data, or a folder of real captures).
import argparse
import glob
import json
import os
import sys
import time

import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("captures", help="a folder of .sigmf-meta/.sigmf-data pairs")
ap.add_argument("--build", help="a build directory whose test_modules to import from")
ap.add_argument("--seeds", default="1,2,3,4,5")
ap.add_argument("--hop", type=int, default=16384, help="hop between candidate frames")
ap.add_argument("--frames", type=int, default=50, help="busy holding frames scored")
ap.add_argument("--min-snr-db", type=float, default=55.0)
args = ap.parse_args()
if args.build:
    sys.path.insert(0, args.build + "/test_modules")
from gnuradio import gpufft  # noqa: E402

N, K = 65536, 4
DATATYPES = {"cf32_le": ("<f4", 1.0, 0.0), "ci16_le": ("<i2", 1 / 32768, 0.0),
             "ci8": ("i1", 1 / 128, 0.0), "cu8": ("u1", 1 / 128, 127.5)}
A = np.array([0.35875, 0.48829, 0.14128, 0.01168])
T = np.arange(N)
W = A[0] - A[1] * np.cos(2 * np.pi * T / N) + A[2] * np.cos(4 * np.pi * T / N) \
    - A[3] * np.cos(6 * np.pi * T / N)
WP = np.mean(W ** 2)
ETA = np.log(N / 0.01)


def load(meta):
    with open(meta) as f:
        dt = json.load(f)["global"]["core:datatype"]
    t, scale, offset = DATATYPES[dt]
    raw = (np.fromfile(meta[: -len("-meta")] + "-data", dtype=t).astype(np.float64)
           - offset) * scale
    return raw[0::2] + 1j * raw[1::2]


def reference(x):
    """(strongest peak over the median floor in dB, share of bins over the threshold)."""
    p = np.abs(np.fft.fft(x * W)) ** 2
    med = np.median(p)
    if med <= 0:
        return -np.inf, 0.0
    floor = med / np.log(2) / WP
    return 10 * np.log10(p.max() / A[0] ** 2 / floor), float(np.mean(p > ETA * med / np.log(2)))


captures = sorted(glob.glob(os.path.join(args.captures, "*.sigmf-meta")))
holding, every = [], []
for meta in captures:
    name = os.path.basename(meta)[: -len(".sigmf-meta")]
    x = load(meta)
    for s in range(0, len(x) - N + 1, args.hop):
        fr = x[s: s + N]
        snr, busy = reference(fr)
        rec = (name, s, snr, busy, fr.astype(np.complex64))
        if snr >= args.min_snr_db + 6:
            holding.append(rec)
        if s % N == 0:
            every.append(rec)
holding.sort(key=lambda r: -r[3])
chosen = holding[: args.frames]
print(f"{len(captures)} captures, {len(holding)} frames hold a tone >= "
      f"{args.min_snr_db + 6:.0f} dB (hop {args.hop}); scoring the {len(chosen)} busiest "
      f"(bins over the threshold: {min(r[3] for r in chosen):.2%} to "
      f"{max(r[3] for r in chosen):.2%}), from "
      + ", ".join(sorted({r[0] for r in chosen})))
print("| seed | empty of %d | redone densely | floor | residual |" % len(chosen))
print("|---|---|---|---|---|")
for seed in [int(s) for s in args.seeds.split(",")]:
    plan = gpufft.sparse_fft_plan(N, K, backend="cpu", min_snr_db=args.min_snr_db,
                                  seed=seed)
    assert not plan.dense_fallback, plan.describe()
    empty = sum(1 for r in chosen if len(plan.detect(r[4])[0]) == 0)
    st = plan.stats
    print(f"| {seed} | {empty} | {st['redone_dense']} | {st['floor_failed']} | "
          f"{st['residual_failed']} |")

print()
print("| capture | frames | redone densely | ms per frame |")
print("|---|---|---|---|")
plan = gpufft.sparse_fft_plan(N, K, backend="cpu", min_snr_db=args.min_snr_db, seed=1)
for name in sorted({r[0] for r in every}):
    frames = [r[4] for r in every if r[0] == name]
    before = plan.stats["redone_dense"]
    t0 = time.perf_counter()
    for fr in frames:
        plan.detect(fr)
    ms = (time.perf_counter() - t0) / len(frames) * 1e3
    print(f"| {name} | {len(frames)} | {plan.stats['redone_dense'] - before} | {ms:.2f} |")
