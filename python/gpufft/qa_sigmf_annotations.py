#!/usr/bin/env python3
#
# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""QA for SigMF annotations out (gpufft.sigmf_annotations): the metadata written for
random transmissions is checked against the SigMF 1.0 rules by hand (required keys and
types, annotations sorted by core:sample_start, edges ordered, sample ranges inside the
data file, global and captures kept), on synthetic files and on the vendored real
captures (tests/data, found through $GPUFFT_TEST_DATA or beside the source tree); then,
when a sigmf-python source checkout is found ($SIGMF_PYTHON_SRC, or tests/sigmf-python
in the source tree; it is not vendored), with sigmf-python's own validator, checksum
included. Bad inputs give errors naming the parameter."""

import datetime
import json
import os
import random
import sys
import tempfile

from gnuradio import gr_unittest

try:
    from gnuradio.gpufft import sigmf_annotations as sa
except ImportError:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import sigmf_annotations as sa

HERE = os.path.dirname(os.path.abspath(__file__))


def find_up(*parts):
    """A path ending in parts in this file's directory or one above it (the source tree
    when run from it; the build tree when it lies inside the source tree)."""
    d = HERE
    for _ in range(8):
        p = os.path.join(d, *parts)
        if os.path.exists(p):
            return p
        d = os.path.dirname(d)
    return None


def test_data_dir():
    d = os.environ.get("GPUFFT_TEST_DATA")
    if d and os.path.isdir(d):
        return d
    return find_up("tests", "data")


def sigmf_python_src():
    d = os.environ.get("SIGMF_PYTHON_SRC")
    if d and os.path.isfile(os.path.join(d, "sigmf", "validate.py")):
        return d
    d = find_up("tests", "sigmf-python")
    if d and os.path.isfile(os.path.join(d, "sigmf", "validate.py")):
        return d
    return None


def check_by_hand(test, meta, num_samples, n_expected=None):
    """The SigMF 1.0 rules an annotation writer must keep, checked without any SigMF
    library."""
    test.assertEqual(set(meta), {"global", "captures", "annotations"})
    g = meta["global"]
    for k in ("core:datatype", "core:version"):
        test.assertIn(k, g)
    test.assertIsInstance(meta["captures"], list)
    test.assertGreaterEqual(len(meta["captures"]), 1)
    anns = meta["annotations"]
    if n_expected is not None:
        test.assertEqual(len(anns), n_expected)
    last = -1
    for i, a in enumerate(anns):
        s = a["core:sample_start"]
        test.assertIsInstance(s, int, f"annotation {i}")
        test.assertNotIsInstance(s, bool)
        test.assertGreaterEqual(s, last, f"annotation {i} out of order")
        last = s
        if "core:sample_count" in a:
            c = a["core:sample_count"]
            test.assertIsInstance(c, int)
            test.assertGreaterEqual(c, 1)
            test.assertLessEqual(s + c, num_samples, f"annotation {i} runs past the data")
        test.assertLess(s, num_samples)
        if "core:freq_lower_edge" in a or "core:freq_upper_edge" in a:
            lo, hi = a["core:freq_lower_edge"], a["core:freq_upper_edge"]  # both or none
            test.assertIsInstance(lo, float)
            test.assertIsInstance(hi, float)
            test.assertLessEqual(lo, hi)
        for k in ("core:label", "core:comment", "core:generator"):
            if k in a:
                test.assertIsInstance(a[k], str)
        for k in a:
            test.assertTrue(k.startswith("core:"), f"undeclared extension key {k}")


def random_transmissions(rng, n, num_samples, rate, fc):
    out = []
    for _ in range(n):
        start = rng.randrange(0, num_samples - 1)
        count = rng.randrange(1, num_samples - start + 1)
        c = fc + rng.uniform(-0.45, 0.45) * rate
        bw = rng.uniform(0, 0.05) * rate
        out.append({"start_sample": start, "sample_count": count, "center_hz": c,
                    "lower_hz": c - bw / 2, "upper_hz": c + bw / 2, "bandwidth_hz": bw,
                    "peak_power_dbfs": rng.uniform(-90, 0), "mean_snr_db": rng.uniform(12, 60),
                    "frames": rng.randrange(1, 50), "dc": rng.random() < 0.2,
                    "start_s": start / rate, "duration_s": count / rate})
    return out


class qa_sigmf_annotations(gr_unittest.TestCase):

    def setUp(self):
        self.seed = random.SystemRandom().randrange(1 << 30)
        print(f"seed {self.seed}")
        self.rng = random.Random(self.seed)
        self.tmp = tempfile.TemporaryDirectory()
        self.sigmf = None
        src = sigmf_python_src()
        if src:
            sys.path.insert(0, src)
            try:
                import sigmf.sigmffile
                import sigmf.validate
                self.sigmf = sigmf
            except ImportError as e:  # e.g. no jsonschema
                print(f"sigmf-python at {src} does not import ({e}): its checks skipped")

    def tearDown(self):
        self.tmp.cleanup()

    def synthetic(self, num_samples=10000, datatype="ci16_le", rate=2e6, fc=433.92e6,
                  annotations=()):
        stem = os.path.join(self.tmp.name, "rec")
        with open(stem + ".sigmf-data", "wb") as f:
            f.write(os.urandom(num_samples * sa.DATATYPE_BYTES[datatype]))
        meta = {"global": {"core:datatype": datatype, "core:sample_rate": rate,
                           "core:version": "1.0.0", "core:description": "qa"},
                "captures": [{"core:sample_start": 0, "core:frequency": fc,
                              "core:datetime": "2026-01-02T03:04:05.5Z"}],
                "annotations": list(annotations)}
        with open(stem + ".sigmf-meta", "w") as f:
            json.dump(meta, f)
        return stem + ".sigmf-meta", meta

    def sigmf_validate(self, path):
        """sigmf-python's validator on the written file (schema, ordering, and the pair
        as sigmf_validate loads it, checksum included); skipped without a checkout."""
        if self.sigmf is None:
            print("sigmf-python not found ($SIGMF_PYTHON_SRC or tests/sigmf-python): "
                  "its validator skipped, hand checks only")
            return
        with open(path) as f:
            self.sigmf.validate.validate(json.load(f))
        self.sigmf.sigmffile.fromfile(path).validate()

    def test_001_random_transmissions(self):
        n = 10000
        meta_in, meta = self.synthetic(n, annotations=[
            {"core:sample_start": 5000, "core:sample_count": 10, "core:label": "old"}])
        tx = random_transmissions(self.rng, self.rng.randrange(1, 40), n, 2e6, 433.92e6)
        out = sa.write_annotations(meta_in, tx)
        self.assertEqual(out, meta_in.replace(".sigmf-meta", ".annotated.sigmf-meta"))
        with open(out) as f:
            got = json.load(f)
        check_by_hand(self, got, n, len(tx) + 1)
        self.assertEqual(got["captures"], meta["captures"])
        self.assertEqual(got["global"]["core:dataset"], "rec.sigmf-data")
        for k, v in meta["global"].items():
            self.assertEqual(got["global"][k], v)
        mine = [a for a in got["annotations"] if a.get("core:label") != "old"]
        want = sorted(tx, key=lambda t: (t["start_sample"], t["lower_hz"]))
        for a, t in zip(mine, want):
            self.assertEqual(a["core:sample_start"], t["start_sample"])
            self.assertEqual(a["core:sample_count"], t["sample_count"])
            self.assertAlmostEqual(a["core:freq_lower_edge"], t["lower_hz"], delta=1e-3)
            self.assertAlmostEqual(a["core:freq_upper_edge"], t["upper_hz"], delta=1e-3)
            self.assertEqual(a["core:label"], "dc" if t["dc"] else "signal")
            self.assertIn(f"SNR {t['mean_snr_db']:.1f} dB", a["core:comment"])
            self.assertIn(f"peak {t['peak_power_dbfs']:.1f} dBFS", a["core:comment"])
            self.assertEqual(a["core:generator"], "gr-gpufft")
        self.sigmf_validate(out)

    def test_002_relative_freqs_offsets_and_clipping(self):
        n = 4000
        meta_in, _ = self.synthetic(n, datatype="cu8", fc=144.47e6)
        tx = [{"start_sample": 3000, "sample_count": 5000, "lower_hz": 28e3, "upper_hz": 32e3},
              {"start_sample": 0, "sample_count": 100, "lower_hz": -500.0, "upper_hz": 500.0,
               "dc": True}]
        out = sa.write_annotations(meta_in, tx, os.path.join(self.tmp.name, "o.sigmf-meta"),
                                   freqs_relative=True, sample_offset=10, keep_existing=False)
        with open(out) as f:
            got = json.load(f)
        check_by_hand(self, got, n, 2)
        a0, a1 = got["annotations"]
        self.assertEqual((a0["core:sample_start"], a0["core:sample_count"]), (10, 100))
        self.assertEqual(a0["core:label"], "dc")
        self.assertEqual((a1["core:sample_start"], a1["core:sample_count"]), (3010, 990))
        self.assertEqual(a1["core:freq_lower_edge"], 144.47e6 + 28e3)
        self.assertEqual(a1["core:freq_upper_edge"], 144.47e6 + 32e3)
        self.sigmf_validate(out)

    def test_003_live_flowgraph_meta(self):
        n = 2048
        stem = os.path.join(self.tmp.name, "live")
        with open(stem + ".sigmf-data", "wb") as f:
            f.write(os.urandom(8 * n))  # what a file sink of gr_complex writes
        tx = random_transmissions(self.rng, 5, n, 1e6, 0.0)
        out = sa.write_sigmf_meta(stem + ".sigmf-meta", tx, 1e6, center_freq=868.95e6,
                                  datetime=(1767323045, 0.25), freqs_relative=True,
                                  description="qa live", author="qa")
        with open(out) as f:
            got = json.load(f)
        check_by_hand(self, got, n, 5)
        g, c = got["global"], got["captures"][0]
        self.assertEqual((g["core:datatype"], g["core:sample_rate"], g["core:version"]),
                         ("cf32_le", 1e6, "1.0.0"))
        self.assertEqual(c, {"core:sample_start": 0, "core:frequency": 868.95e6,
                             "core:datetime": "2026-01-02T03:04:05.250000Z"})
        lows = sorted(t["lower_hz"] + 868.95e6 for t in tx)
        self.assertEqual(sorted(a["core:freq_lower_edge"] for a in got["annotations"]), lows)
        self.assertEqual(sa._iso8601(datetime.datetime(2026, 1, 2, 3, 4, 5)),
                         "2026-01-02T03:04:05.000000Z")
        self.sigmf_validate(out)

    def test_004_real_captures(self):
        d = test_data_dir()
        if not d or not os.path.isfile(os.path.join(d, "wmbus_t1_rtlsdr_868MHz_1M6.sigmf-meta")):
            print("tests/data not found (set GPUFFT_TEST_DATA): real-capture check skipped")
            return
        # the two wM-Bus bursts (by eye: 238.3-246.0 ms about +20 kHz, 454.9-470.0 ms
        # about -22 kHz) and the DC spur, as the tracker would report them
        rate, fc = 1.6e6, 868.95e6
        tx = [{"start_sample": int(0.4549 * rate), "sample_count": int(0.0151 * rate),
               "lower_hz": fc - 127e3, "upper_hz": fc + 83e3, "mean_snr_db": 18.0,
               "peak_power_dbfs": -30.0},
              {"start_sample": int(0.2383 * rate), "sample_count": int(0.0077 * rate),
               "lower_hz": fc - 155e3, "upper_hz": fc + 195e3, "mean_snr_db": 25.0,
               "peak_power_dbfs": -25.0},
              {"start_sample": 0, "sample_count": 1048576, "lower_hz": fc - 400.0,
               "upper_hz": fc + 400.0, "dc": True}]
        meta_in = os.path.join(d, "wmbus_t1_rtlsdr_868MHz_1M6.sigmf-meta")
        out = sa.write_annotations(meta_in, tx, os.path.join(self.tmp.name, "w.sigmf-meta"))
        with open(out) as f:
            got = json.load(f)
        check_by_hand(self, got, 1048576, 3)
        self.assertEqual([a["core:label"] for a in got["annotations"]], ["dc", "signal", "signal"])
        self.assertTrue(os.path.isfile(os.path.join(self.tmp.name, got["global"]["core:dataset"])))
        self.sigmf_validate(out)  # sha512 of the vendored data checked through core:dataset

    def test_005_bad_inputs(self):
        meta_in, _ = self.synthetic(1000)
        ok = [{"start_sample": 0, "sample_count": 10, "lower_hz": 1.0, "upper_hz": 2.0}]
        missing_dir = os.path.join(self.tmp.name, "no", "such", "o.sigmf-meta")
        with self.assertRaisesRegex(OSError, "out_path.*no/such"):
            sa.write_annotations(meta_in, ok, missing_dir)
        a_dir = os.path.join(self.tmp.name, "d.sigmf-meta")
        os.mkdir(a_dir)
        with self.assertRaisesRegex(OSError, "out_path.*d.sigmf-meta"):
            sa.write_annotations(meta_in, ok, a_dir)
        with self.assertRaisesRegex(OSError, "out_path"):
            sa.write_sigmf_meta(missing_dir, ok, 1e6)
        with self.assertRaisesRegex(ValueError, "out_path.*overwrite"):
            sa.write_annotations(meta_in, ok, meta_in)
        with self.assertRaisesRegex(ValueError, "out_path.*sigmf-meta"):
            sa.write_annotations(meta_in, ok, os.path.join(self.tmp.name, "x.json"))
        os.unlink(meta_in.replace("-meta", "-data"))
        with self.assertRaisesRegex(ValueError, "meta_path_in.*data file.*missing"):
            sa.write_annotations(meta_in, ok)
        meta_in, _ = self.synthetic(1000)
        for bad, what in (({"start_sample": 0, "sample_count": 1, "lower_hz": 1.0}, "upper_hz"),
                          ({"start_sample": -1, "sample_count": 1, "lower_hz": 1.0,
                            "upper_hz": 2.0}, "start_sample"),
                          ({"start_sample": 0, "sample_count": 0, "lower_hz": 1.0,
                            "upper_hz": 2.0}, "sample_count"),
                          ({"start_sample": 5000, "sample_count": 1, "lower_hz": 1.0,
                            "upper_hz": 2.0}, "start_sample.*past"),
                          ({"start_sample": 0, "sample_count": 1, "lower_hz": 3.0,
                            "upper_hz": 2.0}, "lower_hz"),
                          ({"start_sample": 0, "sample_count": 1, "lower_hz": float("nan"),
                            "upper_hz": 2.0}, "lower_hz.*finite")):
            with self.assertRaisesRegex(ValueError, r"transmissions\[1\].*" + what):
                sa.write_annotations(meta_in, ok + [bad])
        with self.assertRaisesRegex(ValueError, "sample_rate"):
            sa.write_sigmf_meta(os.path.join(self.tmp.name, "z.sigmf-meta"), ok, 0)
        with self.assertRaisesRegex(ValueError, "datatype"):
            sa.write_sigmf_meta(os.path.join(self.tmp.name, "z.sigmf-meta"), ok, 1e6, "cx9")
        # nothing half-written is left behind
        self.assertFalse([f for f in os.listdir(self.tmp.name) if f.endswith(".tmp")])


if __name__ == "__main__":
    gr_unittest.run(qa_sigmf_annotations)
