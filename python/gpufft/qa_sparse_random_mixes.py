#!/usr/bin/env python3
#
# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Robust mode's detect() on the random mixes of qa_sensing_random_mixes (tones, QPSK, FM,
OFDM, noise bursts, DC offsets, zeros) on both of its paths: the dense FFT + threshold
(min_snr_db 20) and the sparse path (min_snr_db 55 at n = 2^20). What must hold on any
input: at most k tones, each finite, in [0, n), none under 6 dB per bin, strongest first;
and in tones-only mixes every tone 6 dB or more over min_snr_db with no other tone
within 16 bins comes back within half a bin (the sublinear path never fails silently).
The seed is printed (GPUFFT_QA_SEED replays a run)."""

import math
import os

import numpy as np
from gnuradio import gr_unittest
from gnuradio import gpufft

from qa_sensing_random_mixes import KINDS, component
from testing_backends import backends

# (n, k, min_snr_db): the dense path, then the sparse one
PATHS = ((4096, 32, 20.0), (6000, 32, 20.0), (1 << 20, 64, 55.0))


class qa_sparse_random_mixes(gr_unittest.TestCase):

    def setUp(self):
        self.seed = int(os.environ.get("GPUFFT_QA_SEED", np.random.SeedSequence().entropy))
        print(f"{self.id()}: seed {self.seed}")

    def mix(self, rng, n, tones_only):
        sigma = 10 ** rng.uniform(-4, -1)
        kinds = (["tone"] * int(rng.integers(1, 9)) if tones_only else
                 list(rng.choice(KINDS, int(rng.integers(0, 5)))))
        x = sigma / math.sqrt(2) * (rng.standard_normal(n) + 1j * rng.standard_normal(n))
        comps = []
        for kind in kinds:
            y, f, extra = component(rng, n, n, kind, sigma)
            if kind == "tone":  # up to 80 dB per bin: the sparse path's range
                gain_db = rng.uniform(0, 20)
                y = y * 10 ** (gain_db / 20)
                extra += gain_db
            x = x + y
            comps.append((kind, f % 1.0, extra))
        if not tones_only and rng.uniform() < 0.4:
            x = x + sigma * 10 ** rng.uniform(0, 2)
        if not tones_only and rng.uniform() < 0.3:
            a = int(rng.integers(0, n))
            x[a:a + int(rng.integers(1, n))] = 0
        return x.astype(np.complex64), comps, f"n={n} sigma={sigma:.3g} {comps}"

    def check(self, plan, fr, am, sn, n, k, what):
        self.assertEqual(len(fr), len(am), what)
        self.assertEqual(len(fr), len(sn), what)
        self.assertLessEqual(len(fr), k, what)
        if not len(fr):
            return
        self.assertTrue(np.all(np.isfinite(fr)) and np.all(np.isfinite(am)) and
                        np.all(np.isfinite(sn)), what)
        self.assertTrue(np.all((fr >= 0) & (fr < n)), what)
        self.assertGreaterEqual(float(np.min(sn)), 6.0,
                                f"a tone at {np.min(sn):.1f} dB: {what}")
        mag = np.abs(am)
        self.assertTrue(np.all(mag[1:] <= mag[:-1] * (1 + 1e-5)),
                        f"not strongest first: {what}")

    def run_mixes(self, rng, tones_only, then):
        """Each backend and path, its mixes detected and checked; then(n, min_snr, x,
        comps, what, fr) adds a test's own checks, inside the mix's subTest."""
        for backend in backends():
            for n, k, min_snr in PATHS:
                plan = gpufft.sparse_fft_plan(n, k, mode="robust", min_snr_db=min_snr,
                                              backend=backend)
                for _ in range(6 if n > 8192 else 15):
                    x, comps, what = self.mix(rng, n, tones_only)
                    with self.subTest(backend=backend, plan=plan.describe(), mix=what):
                        fr, am, sn = plan.detect(x)
                        self.check(plan, fr, am, sn, n, k, what)
                        then(n, min_snr, x, comps, what, fr)

    def test_001_any_mix(self):
        def zeros_give_nothing(n, min_snr, x, comps, what, fr):
            if not np.any(x):
                self.assertEqual(len(fr), 0, what)

        self.run_mixes(np.random.default_rng(self.seed), False, zeros_give_nothing)

    def test_002_strong_tones_found(self):
        def strong_found(n, min_snr, x, comps, what, fr):
            bins = [f * n for _, f, _ in comps]
            for j, (_, _, snr) in enumerate(comps):
                far = all(min(abs(bins[j] - b), n - abs(bins[j] - b)) >= 16
                          for i, b in enumerate(bins) if i != j)
                if not far or snr < min_snr + 6:
                    continue
                d = np.abs(fr - bins[j]) if len(fr) else np.array([n])
                d = np.minimum(d, n - d)
                self.assertTrue(np.any(d <= 0.5),
                                f"tone at {bins[j]:.2f} ({snr:.1f} dB) missed: {what}")

        self.run_mixes(np.random.default_rng(self.seed + 1), True, strong_found)

if __name__ == "__main__":
    gr_unittest.run(qa_sparse_random_mixes)
