#!/usr/bin/env python3
#
# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Spectrum sensing on real recordings (tests/data, vendored with their licences): the
emitters their sources name (tests/data/README.md) are found, transmissions start and
stop where the recordings say, DC is labelled and nothing is reported under the
threshold; on each backend the machine has."""

import os

import numpy as np
from gnuradio import gr_unittest
from gnuradio import gpufft
from gnuradio.gpufft import recording

from testing_backends import backends

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "data")


def frames(name, n):
    """The recording's samples as (first_sample, frame) pairs, its rate and frequency."""
    rec = recording.open_recording(os.path.join(DATA, name + ".sigmf-meta"))
    scale = {"ci8": ("i1", 128.0, 0.0), "cu8": ("u1", 128.0, 127.5),
             "ci16_le": ("<i2", 32768.0, 0.0), "cf32_le": ("<f4", 1.0, 0.0)}
    dt, div, off = scale[rec.datatype]
    raw = np.fromfile(rec.data_path, dtype=dt).astype(np.float32)
    x = ((raw[0::2] - off) + 1j * (raw[1::2] - off)) / div
    out = [(i * n, x[i * n:(i + 1) * n].astype(np.complex64)) for i in range(len(x) // n)]
    return out, rec.samp_rate, rec.center_freq


def sense(name, n, backend, **kwargs):
    fr, rate, fc = frames(name, n)
    plan = gpufft.sensing_plan(n, backend=backend, **kwargs)
    tracker = gpufft.transmission_tracker(rate, fc, n)
    results, rows = [], []
    for first, x in fr:
        r = plan.detect(x)
        results.append(r)
        rows += tracker.update(first, r)
    rows += tracker.flush()
    return plan, results, rows, rate / n, fc


def over_threshold(r):
    """Every signal of frame result r over the frame's threshold (a held one over the
    held test's)."""
    thr = np.where(r["held"], r["held_threshold_db"], r["threshold_db"])
    return bool(np.all(r["snr_db"] > thr))


def near(r, hz, bin_hz, tol_hz):
    """Whether a signal of frame result r holds hz (within tol_hz of its edges)."""
    lo = r["lower_bin"] * bin_hz - tol_hz
    hi = r["upper_bin"] * bin_hz + tol_hz
    return bool(np.any((lo <= hz) & (hz <= hi)))


class qa_sensing_captures(gr_unittest.TestCase):

    def test_001_gnss_spur(self):
        """USRP1 GNSS L1 capture: noise-like, one CW spur at +580 kHz, in every frame."""
        for backend in backends():
            with self.subTest(backend=backend):
                plan, res, rows, bin_hz, _ = sense("gnss_l1_usrp1_1575MHz_4M", 1024, backend)
                for r in res:
                    self.assertTrue(over_threshold(r))
                    self.assertTrue(near(r, 580e3, bin_hz, bin_hz))
                spur = [t for t in rows if abs(t["center_hz"] - 1575.42e6 - 580e3) < 10e3]
                self.assertEqual(len(spur), 1)

    def test_002_nfm_key_up_and_down(self):
        """RTL-SDR NFM: the carrier at +30 kHz keys up 0.32 s into one slice and down
        0.32 s into the other; the DC spike is labelled in every frame."""
        n = 1024  # 3.7 ms at 280 kS/s
        for backend in backends():
            with self.subTest(backend=backend):
                for name, keyed in (("nfm_rtlsdr_144MHz_280k_keyup", (0.36, None)),
                                    ("nfm_rtlsdr_144MHz_280k_keydown", (0.0, 0.28))):
                    plan, res, rows, bin_hz, fc = sense(name, n, backend)
                    on_from, on_to = keyed
                    for i, r in enumerate(res):
                        self.assertTrue(over_threshold(r))
                        self.assertTrue(np.any(r["dc"]), f"{name} frame {i}: no dc signal")
                        t = i / bin_hz  # frame start, s (bin_hz = rate / n)
                        if t >= on_from and (on_to is None or t <= on_to):
                            self.assertTrue(near(r, 30e3, bin_hz, 2e3),
                                            f"{name} frame {i}: carrier missing")
                    carrier = [t for t in rows if abs(t["center_hz"] - fc - 30e3) < 3e3
                               and t["duration_s"] > 0.1]
                    self.assertGreaterEqual(len(carrier), 1)
                    start = min(t["start_s"] for t in carrier)
                    end = max(t["start_s"] + t["duration_s"] for t in carrier)
                    if name.endswith("keyup"):
                        self.assertAlmostEqual(start, 0.32, delta=0.03)
                    else:
                        self.assertAlmostEqual(end, 0.32, delta=0.03)

    def test_003_wmbus_bursts(self):
        """RTL-SDR wM-Bus: two T1 bursts, 238.3-246.0 ms near +20 kHz and 454.9-470.0 ms
        near -22 kHz, each a transmission that starts and ends there."""
        n = 4096  # 2.6 ms at 1.6 MS/s
        for backend in backends():
            with self.subTest(backend=backend):
                plan, res, rows, bin_hz, fc = sense("wmbus_t1_rtlsdr_868MHz_1M6", n, backend)
                for r in res:
                    self.assertTrue(over_threshold(r))
                for t0, t1, f in ((0.2383, 0.2460, 20e3), (0.4549, 0.4700, -22e3)):
                    hits = [t for t in rows
                            if t["lower_hz"] - fc <= f <= t["upper_hz"] - fc
                            and t["start_s"] < t1 and t["start_s"] + t["duration_s"] > t0
                            and t["bandwidth_hz"] > 50e3]
                    self.assertGreaterEqual(len(hits), 1, f"burst at {t0} s missing")
                    h = max(hits, key=lambda t: t["peak_power_dbfs"])
                    frame_s = n / 1.6e6
                    self.assertLess(abs(h["start_s"] - t0), 2 * frame_s)
                    self.assertLess(abs(h["start_s"] + h["duration_s"] - t1), 2 * frame_s)

    def test_004_flickering_lines_are_few_rows(self):
        """Lines near the threshold, found every few frames, are a few transmissions,
        not one every few frames: the NFM products at -15 and +75 kHz while keyed
        (0.32 s of the key-down slice: 25 and 22 rows before the tracker's flicker hold,
        3 and 2 with it) and the wM-Bus capture's weak spur at -678 kHz (39 rows, 5)."""
        for backend in backends():
            with self.subTest(backend=backend):
                for name, n, lines, most in (
                        ("nfm_rtlsdr_144MHz_280k_keydown", 1024, (-15e3, 75.2e3), 6),
                        ("wmbus_t1_rtlsdr_868MHz_1M6", 4096, (-678e3,), 10)):
                    plan, res, rows, bin_hz, fc = sense(name, n, backend)
                    for f in lines:
                        on = [t for t in rows
                              if t["lower_hz"] - fc - 2e3 <= f <= t["upper_hz"] - fc + 2e3]
                        self.assertGreaterEqual(len(on), 1, f"{name}: no line at {f} Hz")
                        self.assertLessEqual(len(on), most,
                                             f"{name}: {len(on)} rows for the line at {f} Hz")


if __name__ == "__main__":
    gr_unittest.run(qa_sensing_captures)
