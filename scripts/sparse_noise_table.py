#!/usr/bin/env python3
# The "tones found in noise" table of docs/sparse_fft_block.md: n = 2^20, k = 32, 10 tones
# from -26 to 0 dBFS at random bins (on them, or 0.3 bin off), complex Gaussian noise of
# the given power per sample, 4 frames per row; robust mode with the block's defaults and
# exact mode, through sparse_fft_plan on the CPU (what the block runs per frame). A tone
# counts as found when a detection lies within 0.5 bin of it; the rest are false.
#
#   /usr/bin/python3 scripts/sparse_noise_table.py [--seed S] [--build BUILD_DIR]
import argparse
import sys

import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("--seed", type=int, default=20261125)
ap.add_argument("--build", help="a build directory whose test_modules to import from")
args = ap.parse_args()
if args.build:
    sys.path.insert(0, args.build + "/test_modules")
from gnuradio import gpufft  # noqa: E402

n, k, tones, frames = 1 << 20, 32, 10, 4
rng = np.random.default_rng(args.seed)
print(f"seed {args.seed}, gpufft {gpufft.__file__}")
t = np.arange(n)


def frame(offset, noise_dbfs):
    f = rng.choice(n, tones, replace=False) + offset
    amp = 10 ** (np.linspace(-26, 0, tones) / 20)
    x = np.zeros(n, complex)
    for fi, ai in zip(f, amp):
        x += ai * np.exp(2j * np.pi * (((fi * t) % n) / n + rng.uniform()))
    s = 10 ** (noise_dbfs / 20) / np.sqrt(2)
    x += s * (rng.standard_normal(n) + 1j * rng.standard_normal(n))
    return f, x.astype(np.complex64)


def score(f, found):
    found = np.asarray(found, float)
    d = np.abs(((found[:, None] - f[None, :]) + n / 2) % n - n / 2) if len(found) else np.zeros((0, len(f)))
    hit = (d <= 0.5).any(axis=0).sum() if len(found) else 0
    false = int((~(d <= 0.5).any(axis=1)).sum()) if len(found) else 0
    return int(hit), false


robust = gpufft.sparse_fft_plan(n, k, backend="cpu", seed=1)
exact = gpufft.sparse_fft_plan(n, k, backend="cpu", seed=1, mode="exact")
print("| noise per sample | robust, tones on bins | robust, tones 0.3 bin off | exact, tones on bins |")
print("|---|---|---|---|")
for noise in (-100, -60, -40, -20, 0, 10):
    cells = []
    for offset, plan in ((0.0, robust), (0.3, robust), (0.0, exact)):
        got = false = 0
        for _ in range(frames):
            f, x = frame(offset, noise)
            if plan is exact:
                bins, values = plan.execute(x)
                found = [b for b, v in zip(bins, values) if abs(v) > 0]
            else:
                found = plan.detect(x)[0]
            h, fa = score(f, found)
            got += h
            false += fa
        cells.append(f"{got} of {tones * frames}" + (f", {false} false" if false else ""))
    print(f"| {noise:+d} dBFS | " + " | ".join(cells) + " |")
