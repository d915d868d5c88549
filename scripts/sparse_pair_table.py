#!/usr/bin/env python3
# The close-pair table of docs/sparse_fft_robust.md (step 9): pairs of equal tones at
# random phases and a random position, `sep` bins apart, in complex Gaussian noise at a
# given SNR per bin (one tone's power over the noise of one bin of an n-point FFT);
# robust mode's dense path (force_dense) on the CPU. A pair counts when exactly two tones
# come back, each within sep / 2 + 0.1 bin of its own. Then single tones at the same
# SNRs: any second tone within 5 bins of one is a split (none allowed).
#
#   /usr/bin/python3 scripts/sparse_pair_table.py [--seed S] [--trials T] [--build DIR]
import argparse
import sys

import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("--seed", type=int, default=7)
ap.add_argument("--trials", type=int, default=40, help="pairs per table cell")
ap.add_argument("--singles", type=int, default=200, help="single tones per SNR")
ap.add_argument("--build", help="a build directory whose test_modules to import from")
args = ap.parse_args()
if args.build:
    sys.path.insert(0, args.build + "/test_modules")
from gnuradio import gpufft  # noqa: E402

n = 1 << 16
snrs = (31, 41, 56, 76)
seps = (1.0, 0.45, 0.31, 0.2)
rng = np.random.default_rng(args.seed)
print(f"seed {args.seed}, n = {n}, gpufft {gpufft.__file__}")
t = np.arange(n)
plan = gpufft.sparse_fft_plan(n, 10, mode="robust", min_snr_db=20, force_dense=True,
                              backend="cpu")


def frame(freqs, snr_db):
    x = sum(np.exp(2j * np.pi * (f * t / n + rng.uniform())) for f in freqs)
    s2 = n / 10 ** (snr_db / 10)  # per-bin SNR = n^2 / (n s2) for unit tones
    x = x + np.sqrt(s2 / 2) * (rng.standard_normal(n) + 1j * rng.standard_normal(n))
    return x.astype(np.complex64)


rows = {}
for snr in snrs:
    for sep in seps:
        both = 0
        for _ in range(args.trials):
            f1 = rng.uniform(1000, n - 1000)
            f, _, _ = plan.detect(frame([f1, f1 + sep], snr))
            f = np.sort(f)
            tol = sep / 2 + 0.1
            both += len(f) == 2 and abs(f[0] - f1) < tol and abs(f[1] - f1 - sep) < tol
        rows[(sep, snr)] = both
splits = {}
for snr in snrs:
    splits[snr] = 0
    for _ in range(args.singles):
        f1 = rng.uniform(1000, n - 1000)
        f, _, _ = plan.detect(frame([f1], snr))
        splits[snr] += int(np.sum(np.abs(f - f1) < 5) > 1)

print("| separation | " + " | ".join(f"{s} dB per bin" for s in snrs) + " |")
print("|---|" + "---|" * len(snrs))
for sep in seps:
    cells = " | ".join(f"{rows[(sep, s)]}/{args.trials}" for s in snrs)
    print(f"| {sep:g} bin | {cells} |")
print("single tones split: " + ", ".join(f"{splits[s]}/{args.singles} at {s} dB"
                                         for s in snrs))
