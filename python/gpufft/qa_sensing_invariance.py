#!/usr/bin/env python3
#
# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""What sensing must not depend on, checked on the real recordings of tests/data: the
radio's gain (the same capture scaled by a random gain, -60 to +20 dB, gives the same
signals, their powers moved by the gain, and the same transmissions) and the sign of
frequency (the conjugate capture gives every clear signal mirrored about DC, and as many
transmissions within 3 or 5 %). Nothing in the pipeline may hold an
absolute level or favour one side of the band; a floor constant in dBFS, or an edge
search that walks one way only, fails these."""

import os

import numpy as np
from gnuradio import gr_unittest
from gnuradio import gpufft

from qa_sensing_captures import frames
from testing_backends import backends

CAPTURES = (("gnss_l1_usrp1_1575MHz_4M", 1024), ("nfm_rtlsdr_144MHz_280k_keyup", 1024),
            ("nfm_rtlsdr_144MHz_280k_deviation", 1024), ("wmbus_t1_rtlsdr_868MHz_1M6", 4096))


def detect_all(fr, n, backend, f):
    plan = gpufft.sensing_plan(n, backend=backend)
    return [plan.detect(np.ascontiguousarray(f(x), dtype=np.complex64)) for _, x in fr]


def transmissions(fr, n, rate, backend, f):
    plan = gpufft.sensing_plan(n, backend=backend)
    tracker = gpufft.transmission_tracker(rate, 0.0, n)
    rows = []
    for first, x in fr:
        rows += tracker.update(first, plan.detect(np.ascontiguousarray(f(x), np.complex64)))
    return rows + tracker.flush()


def mirrored(r):
    """Frame result r's signals as (lower, upper) bins mirrored about DC."""
    return -r["upper_bin"], -r["lower_bin"]


def unmatched(a, b_edges, clear_only):
    """Signals of frame result a that overlap no signal of b_edges (lower, upper), within
    a bin; with clear_only, only those 3 dB or more over the frame's threshold and not
    held (signals near the threshold may fall either side of it)."""
    lb, ub = b_edges
    missing = []
    for lo, hi, snr, held in zip(a["lower_bin"], a["upper_bin"], a["snr_db"], a["held"]):
        if clear_only and (held or snr < a["threshold_db"] + 3):
            continue
        if not np.any((lb <= hi + 1) & (ub >= lo - 1)):
            missing.append((lo, hi, snr))
    return missing


class qa_sensing_invariance(gr_unittest.TestCase):

    def setUp(self):
        self.seed = int(os.environ.get("GPUFFT_QA_SEED", np.random.SeedSequence().entropy))
        print(f"{self.id()}: seed {self.seed}")
        self.rng = np.random.default_rng(self.seed)

    def test_001_gain(self):
        """Same signals, frame by frame, at any gain: the same count, edges within a bin
        (a log-domain rounding can move a bin at a band's edge), SNR within 0.1 dB,
        powers moved by the gain within 0.01 dB."""
        for backend in backends():
            for name, n in CAPTURES:
                fr, _, _ = frames(name, n)
                base = detect_all(fr, n, backend, lambda x: x)
                gain_db = float(self.rng.uniform(-60, 20))
                g = np.float32(10 ** (gain_db / 20))
                scaled = detect_all(fr, n, backend, lambda x: x * g)
                moved = 20 * np.log10(float(g))
                with self.subTest(backend=backend, capture=name, gain_db=gain_db):
                    for i, (a, b) in enumerate(zip(base, scaled)):
                        self.assertEqual(len(a["lower_bin"]), len(b["lower_bin"]),
                                         f"frame {i}")
                        if not len(a["lower_bin"]):
                            continue
                        self.assertLessEqual(
                            np.max(np.abs(a["lower_bin"] - b["lower_bin"])), 1, f"frame {i}")
                        self.assertLessEqual(
                            np.max(np.abs(a["upper_bin"] - b["upper_bin"])), 1, f"frame {i}")
                        self.assertLess(np.max(np.abs(a["snr_db"] - b["snr_db"])), 0.1)
                        self.assertLess(np.max(np.abs(
                            b["peak_power_dbfs"] - a["peak_power_dbfs"] - moved)), 0.01)
                        self.assertTrue(np.array_equal(a["dc"], b["dc"]), f"frame {i}")

    def test_002_mirror(self):
        """The conjugate capture: every clear signal comes back mirrored about DC, each
        way, and DC stays labelled. (The floor's sub-bands are not symmetric about DC,
        so a signal near the threshold may fall the other side of it.)"""
        for backend in backends():
            for name, n in CAPTURES:
                fr, _, _ = frames(name, n)
                base = detect_all(fr, n, backend, lambda x: x)
                conj = detect_all(fr, n, backend, np.conj)
                with self.subTest(backend=backend, capture=name):
                    for i, (a, b) in enumerate(zip(base, conj)):
                        a_edges = (a["lower_bin"], a["upper_bin"])
                        self.assertEqual(unmatched(a, mirrored(b), True), [], f"frame {i}")
                        self.assertEqual(unmatched(b, (-a_edges[1], -a_edges[0]), True), [],
                                         f"frame {i}")
                        self.assertEqual(bool(np.any(a["dc"])), bool(np.any(b["dc"])),
                                         f"frame {i}")

    def test_003_transmissions(self):
        """The tracker's rows: the same at any gain (start, length and edges), and as
        many mirrored within 3 or 5 % (a signal near the threshold on one side of DC
        may break or join a row: the NFM capture's keyed product 15 kHz off DC, 14.6 dB
        over the floor, is one row of 34 frames and, mirrored, breaks in three where
        the floor's sub-bands, not symmetric about DC, put it under the threshold in
        a frame more)."""
        for backend in backends():
            for name, n in CAPTURES:
                fr, rate, _ = frames(name, n)
                base = transmissions(fr, n, rate, backend, lambda x: x)
                gain_db = float(self.rng.uniform(-60, 20))
                g = np.float32(10 ** (gain_db / 20))
                scaled = transmissions(fr, n, rate, backend, lambda x: x * g)
                conj = transmissions(fr, n, rate, backend, np.conj)
                with self.subTest(backend=backend, capture=name, gain_db=gain_db):
                    print(f"  {name}: {len(base)} rows, {len(scaled)} scaled, {len(conj)} mirrored")
                    self.assertEqual(len(base), len(scaled))
                    key = lambda t: (t["start_s"], t["lower_hz"])
                    for a, b in zip(sorted(base, key=key), sorted(scaled, key=key)):
                        self.assertEqual(a["start_s"], b["start_s"])
                        self.assertEqual(a["duration_s"], b["duration_s"])
                        self.assertLessEqual(abs(a["lower_hz"] - b["lower_hz"]), rate / n)
                        self.assertLessEqual(abs(a["upper_hz"] - b["upper_hz"]), rate / n)
                    self.assertLessEqual(abs(len(conj) - len(base)),
                                         max(3, round(0.05 * len(base))))


if __name__ == "__main__":
    gr_unittest.run(qa_sensing_invariance)
