#!/usr/bin/env python3
#
# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""QA of spectrum sensing from Python: gpufft.sensing_plan against numpy's periodogram
on frames as a radio gives them, the transmission tracker, and wrong calls.

Every test draws fresh random data and prints its seed; set GPUFFT_QA_SEED to replay one.
"""

import os

import numpy as np
from gnuradio import gr_unittest
from gnuradio import gpufft

from testing_backends import backends

KEYS = ("center_bin", "lower_bin", "upper_bin", "bandwidth_bins", "peak_power_dbfs",
        "total_power_dbfs", "snr_db", "floor_dbfs", "first_bin", "last_bin", "dc",
        "narrow", "tone_refined", "tone_bin", "tone_amplitude")


def fresh_rng():
    seed = int(os.environ.get("GPUFFT_QA_SEED", np.random.SeedSequence().entropy % 2**63))
    print(f"seed {seed}", flush=True)
    return np.random.default_rng(seed)


def noise(rng, n, sigma):
    return (sigma / np.sqrt(2) * (rng.standard_normal(n) + 1j * rng.standard_normal(n)))


def tone(n, f, a):
    t = np.arange(n)
    return a * np.exp(2j * np.pi * ((f * t) % n) / n)


class qa_sensing_plan(gr_unittest.TestCase):

    def test_001_tones_against_numpy(self):
        """Tones at random fractional bins: one signal each, at numpy's peak."""
        rng = fresh_rng()
        n = 65536
        for backend in backends():
            with self.subTest(backend=backend):
                plan = gpufft.sensing_plan(n, backend=backend, false_alarm=1e-4)
                x = noise(rng, n, 0.01)
                freqs = rng.choice(np.arange(-30000, 30000, 500), 6, replace=False) \
                    + rng.uniform(-0.5, 0.5, 6)
                for f in freqs:
                    x = x + tone(n, f, 0.01 * np.sqrt(10 ** 3.5 / n))  # 35 dB per bin
                r = plan.detect(x.astype(np.complex64))
                self.assertEqual(set(KEYS) <= set(r), True)
                self.assertEqual(len(r["center_bin"]), len(freqs))
                # numpy: the Blackman-Harris periodogram's peak near each tone
                w = np.blackman(n)  # any window: only the peak bin is compared
                P = np.abs(np.fft.fftshift(np.fft.fft(x * w))) ** 2
                for f in freqs:
                    i = np.argmin(np.abs(r["center_bin"] - f))
                    self.assertLess(abs(r["tone_bin"][i] - f), 0.2)
                    b = int(round(f)) + n // 2
                    peak = b - 3 + int(np.argmax(P[b - 3:b + 4])) - n // 2
                    self.assertLessEqual(abs(r["center_bin"][i] - peak), 1.0)
                self.assertTrue(np.all(r["snr_db"] > plan.threshold_db))

    def test_002_burst_beside_silence_and_zeros(self):
        """A burst beside exact zeros gives nothing under the threshold; zeros nothing."""
        rng = fresh_rng()
        n = 65536
        for backend in backends():
            with self.subTest(backend=backend):
                plan = gpufft.sensing_plan(n, backend=backend)
                x = np.zeros(n, np.complex64)
                m = n // 8
                x[:m] = noise(rng, m, 0.01) + tone(m, 1000.25, 0.5)
                r = plan.detect(x)
                self.assertGreaterEqual(len(r["snr_db"]), 1)
                self.assertTrue(np.all(r["snr_db"] > plan.threshold_db))
                r = plan.detect(np.zeros(n, np.complex64))
                self.assertEqual(len(r["center_bin"]), 0)
                self.assertFalse(r["truncated"])

    def test_003_cap_and_truncated(self):
        rng = fresh_rng()
        n = 16384
        for backend in backends():
            with self.subTest(backend=backend):
                plan = gpufft.sensing_plan(n, backend=backend, max_signals=3)
                x = noise(rng, n, 0.01)
                for i in range(8):
                    x = x + tone(n, -6000.3 + 1500 * i, 0.01 * np.sqrt(10 ** (3 + 0.3 * i) / n))
                r = plan.detect(x.astype(np.complex64))
                self.assertTrue(r["truncated"])
                self.assertEqual(len(r["center_bin"]), 3)
                self.assertTrue(np.all(np.diff(r["center_bin"]) > 0))

    def test_004_tracker_over_frames(self):
        """A burst on for 3 frames, off for 4, on for 2: two transmissions."""
        rng = fresh_rng()
        n, rate = 4096, 1e6
        for backend in backends():
            with self.subTest(backend=backend):
                plan = gpufft.sensing_plan(n, backend=backend, false_alarm=1e-4)
                tr = gpufft.transmission_tracker(rate, 100e6, n, hold_frames=1)
                rows = []
                for frame in range(9):
                    x = noise(rng, n, 0.01)
                    if frame < 3 or frame >= 7:
                        x = x + tone(n, 500.4, 0.01)
                    rows += tr.update(frame * n, plan.detect(x.astype(np.complex64)))
                rows += tr.flush()
                self.assertEqual(len(rows), 2)
                self.assertEqual(rows[0]["start_sample"], 0)
                self.assertEqual(rows[0]["sample_count"], 3 * n)
                self.assertEqual(rows[1]["start_sample"], 7 * n)
                self.assertAlmostEqual(rows[0]["center_hz"], 100e6 + 500.4 * rate / n,
                                       delta=rate / n)

    def test_005_conversions_and_wrong_calls(self):
        plan = gpufft.sensing_plan(1024, backend="cpu")
        r = plan.detect(np.zeros(1024, np.float64))  # converted, documented
        self.assertEqual(len(r["center_bin"]), 0)
        r = plan.detect([0j] * 1024)
        self.assertEqual(len(r["center_bin"]), 0)
        with self.assertRaisesRegex(
            ValueError, r"^x: has 100 samples; a frame is a 1-D array of n = 1024$"
        ):
            plan.detect(np.zeros(100, np.complex64))
        with self.assertRaisesRegex(
            ValueError,
            r"^x: has 1024 samples in 2 dimensions; a frame is a 1-D array of n = 1024$",
        ):
            plan.detect(np.zeros((2, 512), np.complex64))
        with self.assertRaisesRegex(ValueError, "x:"):
            plan.detect("samples")
        x = np.zeros(1024, np.complex64)
        x[3] = np.nan
        with self.assertRaisesRegex(ValueError, "not finite"):
            plan.detect(x)
        # max_signals 0, the default, is min(256, n / 4): a short frame needs no setting.
        self.assertEqual(gpufft.sensing_plan(64, backend="cpu").max_signals, 16)
        self.assertEqual(gpufft.sensing_plan(1 << 16, backend="cpu", max_signals=0).max_signals, 256)
        for kwargs, name in (({"max_signals": -1}, "max_signals"),
                             ({"max_signals": 1000}, "max_signals"),
                             ({"false_alarm": 0.9}, "false_alarm"),
                             ({"bandwidth_rule": "3db"}, "bandwidth_rule"),
                             ({"dc_mask_bins": 600}, "dc_mask_bins"),
                             ({"window": "kaiser"}, "window"),
                             ({"backend": "fpga"}, "backend")):
            with self.subTest(kwargs=kwargs):
                with self.assertRaisesRegex(ValueError, name):
                    gpufft.sensing_plan(1024, **kwargs)
        for n in (16, 0, -5):  # one message for every n out of range
            with self.subTest(n=n):
                with self.assertRaisesRegex(ValueError, r"n must be in \[64, 2\^40\], not"):
                    gpufft.sensing_plan(n)
        with self.assertRaisesRegex(ValueError, "n: must be a whole number, got 1.5"):
            gpufft.sensing_plan(1.5)
        with self.assertRaisesRegex(ValueError, "n: .* needs at least"):
            gpufft.sensing_plan(2**40, backend="cpu")  # was a MemoryError (bad_alloc)
        with self.assertRaises(TypeError):
            gpufft.sensing_plan(1024, bogus=1)
        tr = gpufft.transmission_tracker(1e6, fft_size=1024)
        with self.assertRaisesRegex(ValueError, "center_bin"):
            tr.update(0, {"snr_db": np.zeros(1)})
        frame = gpufft.sensing_plan(1024, backend="cpu").detect(np.zeros(1024, np.complex64))
        tr.update(4096, frame)
        with self.assertRaisesRegex(ValueError, "first_sample: frames must come in order"):
            tr.update(1024, frame)
        tr.flush()
        tr.update(0, frame)  # a new stream after flush()
        with self.assertRaisesRegex(ValueError, "samp_rate"):
            gpufft.transmission_tracker(0)
        with self.assertRaisesRegex(ValueError, "hold_frames"):
            gpufft.transmission_tracker(1e6, hold_frames=-1)
        for bad in (-1, 1001, 2.5):
            with self.subTest(line_memory=bad):
                with self.assertRaisesRegex(ValueError, "line_memory"):
                    gpufft.transmission_tracker(1e6, hold_frames=2, line_memory=bad)


if __name__ == "__main__":
    gr_unittest.run(qa_sensing_plan)
