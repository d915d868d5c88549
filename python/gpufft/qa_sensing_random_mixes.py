#!/usr/bin/env python3
#
# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Spectrum sensing on random mixes that nobody chose for it: tones at fractional bins,
QPSK, FM and OFDM carriers, noise bursts, DC offsets and stretches of exact zeros, at
random levels, over white noise of a random level; n from 1000 to 65536 (powers of two
and not) and 1 to 9 frames a plan, so the floor track and held signals take part. What
must hold on any input: every field finite, every signal inside its own bins, none under
its threshold, the cap kept, frequencies ascending, nothing from an all-zero frame, every
strong tone of a tones-only mix found within a bin, and the tracker's rows well formed.
The seed is printed (GPUFFT_QA_SEED replays a run)."""

import math
import os

import numpy as np
from gnuradio import gr_unittest
from gnuradio import gpufft

from testing_backends import backends

SIZES = (1000, 1024, 2048, 3000, 4096, 6144, 8192, 12345, 32768, 65536)
KINDS = ("tone", "qpsk", "fm", "ofdm", "burst")


def component(rng, count, n, kind, sigma):
    """One emitter over `count` samples, frames of n: (samples, frequency, per-bin SNR
    (tones) or bandwidth as a fraction of the band)."""
    t = np.arange(count)
    f = rng.uniform(-0.5, 0.5)
    if kind == "tone":
        snr_bin = rng.uniform(15, 60)  # dB over the noise of one bin (rectangular)
        a = sigma * math.sqrt(10 ** (snr_bin / 10) / n)
        return a * np.exp(2j * np.pi * f * t + 1j * rng.uniform(0, 2 * np.pi)), f, snr_bin
    bw = rng.uniform(0.003, 0.15)
    if kind == "qpsk":
        sps = max(2, int(1 / bw))
        nsym = count // sps + 8
        sym = rng.choice([-1, 1], nsym) + 1j * rng.choice([-1, 1], nsym)
        up = np.zeros(nsym * sps, complex)
        up[::sps] = sym
        y = np.convolve(up, np.hanning(4 * sps + 1), mode="same")[:count]
    elif kind == "fm":
        fm = rng.uniform(0.0005, 0.01)  # a tone modulating it, cycles a sample
        y = np.exp(1j * (bw / 2) / fm * np.sin(2 * np.pi * fm * t + rng.uniform(0, 6)))
    elif kind == "ofdm":  # 256 subcarriers without a cyclic prefix, the low ones used
        y = np.zeros(count, complex)
        used = max(4, int(bw * 256))
        for s in range(0, count, 256):
            X = np.zeros(256, complex)
            X[1:used] = rng.choice([-1, 1], used - 1) + 1j * rng.choice([-1, 1], used - 1)
            y[s:s + 256] = np.fft.ifft(X)[:min(256, count - s)]
    else:  # a wideband burst: noise on for a random stretch
        y = rng.standard_normal(count) + 1j * rng.standard_normal(count)
        a0 = rng.integers(0, count)
        a1 = rng.integers(a0, count + 1)
        y[:a0] = 0
        y[a1:] = 0
    y = y / math.sqrt(np.mean(np.abs(y) ** 2) + 1e-30)
    level = sigma * math.sqrt(10 ** (rng.uniform(0, 40) / 10))  # 0-40 dB over the noise
    return level * y * np.exp(2j * np.pi * f * t), f, bw


class qa_sensing_random_mixes(gr_unittest.TestCase):

    def setUp(self):
        self.seed = int(os.environ.get("GPUFFT_QA_SEED", np.random.SeedSequence().entropy))
        print(f"{self.id()}: seed {self.seed}")

    def mix(self, rng, tones_only):
        n = int(rng.choice(SIZES))
        frames = int(rng.integers(1, 10))
        count = n * frames
        sigma = 10 ** rng.uniform(-4, -1)
        kinds = (["tone"] * int(rng.integers(1, 6)) if tones_only else
                 list(rng.choice(KINDS, int(rng.integers(0, 6)))))
        x = sigma / math.sqrt(2) * (rng.standard_normal(count) +
                                    1j * rng.standard_normal(count))
        comps = []
        for kind in kinds:
            y, f, extra = component(rng, count, n, kind, sigma)
            x = x + y
            comps.append((kind, f, extra))
        if not tones_only and rng.uniform() < 0.4:
            x = x + sigma * 10 ** rng.uniform(0, 2)  # the radio's DC offset
        if not tones_only and rng.uniform() < 0.3:
            a = int(rng.integers(0, count))
            x[a:a + int(rng.integers(1, 2 * n))] = 0
        what = f"n={n} frames={frames} sigma={sigma:.3g} {comps}"
        return n, frames, x.astype(np.complex64), comps, what

    def check_frame(self, r, n, plan, what):
        m = len(r["center_bin"])
        self.assertLessEqual(m, plan.max_signals, what)
        for key, v in r.items():
            if isinstance(v, np.ndarray) and v.dtype.kind in "fc":
                self.assertTrue(np.all(np.isfinite(v)), f"{key} not finite: {what}")
        if not m:
            return
        lo, hi = r["lower_bin"], r["upper_bin"]
        first, last = r["first_bin"], r["last_bin"]
        self.assertTrue(np.all(lo <= hi), what)
        self.assertTrue(np.all(first - 0.5 <= lo + 1e-9), what)
        self.assertTrue(np.all(hi <= last + 0.5 + 1e-9), what)
        self.assertTrue(np.all(r["bandwidth_bins"] > 0), what)
        self.assertTrue(np.all((first >= -(n // 2) - 1) & (last <= n)), what)
        self.assertTrue(np.all(np.diff(r["center_bin"]) > 0) or m == 1,
                        f"not ascending: {what}")
        thr = np.where(r["held"], r["held_threshold_db"], r["threshold_db"])
        under = r["snr_db"] < thr - 1e-9
        self.assertFalse(np.any(under), f"snr {r['snr_db'][under]} under {thr[under]}: {what}")

    def test_001_any_mix(self):
        """Invariants of every frame and every tracker row, over random mixes."""
        rng = np.random.default_rng(self.seed)
        mixes = [self.mix(rng, False) for _ in range(60)]
        for backend in backends():
            for n, frames, x, _, what in mixes:
                with self.subTest(backend=backend, mix=what):
                    plan = gpufft.sensing_plan(n, backend=backend)
                    tracker = gpufft.transmission_tracker(1e6, 1e8, n)
                    rows = []
                    for f in range(frames):
                        xf = np.ascontiguousarray(x[f * n:(f + 1) * n])
                        r = plan.detect(xf)
                        self.check_frame(r, n, plan, what)
                        if not np.any(xf):
                            self.assertEqual(len(r["center_bin"]), 0, what)
                        rows += tracker.update(f * n, r)
                    rows += tracker.flush()
                    for row in rows:
                        self.assertLessEqual(row["lower_hz"], row["upper_hz"], what)
                        self.assertGreaterEqual(row["start_sample"], 0)
                        self.assertLessEqual(row["start_sample"] + row["sample_count"],
                                             frames * n, what)
                        self.assertGreaterEqual(row["frames"], 1)

    def test_002_strong_tones_found(self):
        """Tones-only mixes: every tone 10 dB or more over the threshold (per bin, in the
        window's terms: about 3 dB under its rectangular per-bin SNR) is found in every
        frame, unless another tone lies within 8 bins: a signal's centre within a bin of
        it, or its bins among a signal's (a weaker tone about 10 bins from a stronger
        one, its run within gap_bins, is part of that one's band: docs/sensing.md)."""
        rng = np.random.default_rng(self.seed + 1)
        mixes = [self.mix(rng, True) for _ in range(40)]
        for backend in backends():
            for n, frames, x, comps, what in mixes:
                with self.subTest(backend=backend, mix=what):
                    plan = gpufft.sensing_plan(n, backend=backend)
                    bins = [((f * n + n / 2) % n) - n / 2 for _, f, _ in comps]
                    for f in range(frames):
                        r = plan.detect(np.ascontiguousarray(x[f * n:(f + 1) * n]))
                        self.check_frame(r, n, plan, what)
                        for j, (_, _, snr_bin) in enumerate(comps):
                            b = bins[j]
                            crowded = any(abs(((b - c + n / 2) % n) - n / 2) < 8
                                          for k, c in enumerate(bins) if k != j)
                            if crowded or snr_bin - 3 < r["threshold_db"] + 10:
                                continue
                            d = np.abs(((r["center_bin"] - b + n / 2) % n) - n / 2)
                            inside = ((r["first_bin"] - 1 <= b) &
                                      (b <= r["last_bin"] + 1))
                            near = (d <= 1) | inside
                            self.assertTrue(np.any(near),
                                            f"tone at bin {b:.2f} ({snr_bin:.1f} dB) "
                                            f"missed in frame {f}: {what}")

    def test_003_close_tones_apart(self):
        """Two tones 14 bins apart (60 and 36 dB per bin, random fractional bins) are
        one band in at most 6 of 200 frames: the gap between two lone tones must be
        clear of noise by six deviations to join (the fill level alone joined them in
        7 % of frames, 14 of 200). They join in 1.8e-3 of frames (72 of 40000, the
        same frames made in C++), so 7 or more of 200 has the chance 1e-7 a backend (5
        or more, the old bound, 4e-5)."""
        rng = np.random.default_rng(self.seed + 2)
        n, sigma = 4096, 0.01
        t = np.arange(n)
        for backend in backends():
            plan = gpufft.sensing_plan(n, backend=backend)
            merged = 0
            for _ in range(200):
                f1 = rng.uniform(-0.3, 0.3)
                f2 = f1 + (14 + rng.uniform(-0.5, 0.5)) / n * rng.choice([-1, 1])
                x = sigma / math.sqrt(2) * (rng.standard_normal(n) +
                                            1j * rng.standard_normal(n))
                for f, snr in ((f1, 60), (f2, 36)):
                    a = sigma * math.sqrt(10 ** (snr / 10) / n)
                    x = x + a * np.exp(2j * np.pi * (f * t + rng.uniform()))
                r = plan.detect(x.astype(np.complex64))
                b1, b2 = f1 * n, f2 * n
                merged += any(lo <= min(b1, b2) and max(b1, b2) <= hi
                              for lo, hi in zip(r["first_bin"], r["last_bin"]))
            with self.subTest(backend=backend):
                self.assertLessEqual(merged, 6, f"{merged} of 200 frames joined them")


if __name__ == "__main__":
    gr_unittest.run(qa_sensing_random_mixes)
