#!/usr/bin/env python3
#
# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""QA for `gpufft-demo`: a recording made here (SigMF ci16_le, and raw .cfile) with
carriers at random fractional frequencies in noise goes through the demo, whose
detections.csv must hold every carrier once, at its frequency, and little else, and whose
SigMF annotations must hold the same transmissions; the default frame follows the rate;
the synthetic capture's check passes; bad inputs end the demo with a message naming the
file and the field. Needs gpufft.sensing_plan (skips, exit 77, in a build without it)."""

import csv
import json
import os
import subprocess
import sys
import tarfile
import tempfile

import numpy as np
from gnuradio import gpufft, gr_unittest

DEMO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "apps",
                    "gpufft-demo")


def carriers(rng, rate, n):
    """Three carriers at random frequencies (not on the FFT grid), well apart."""
    while True:
        f = rng.uniform(-0.4 * rate, 0.4 * rate, 3)
        if np.min(np.abs(np.diff(np.sort(f)))) > 0.05 * rate:
            return f


def capture(rng, rate, samples, freqs, amps, sigma):
    t = np.arange(samples)
    x = sigma / np.sqrt(2) * (rng.standard_normal(samples) + 1j * rng.standard_normal(samples))
    for f, a in zip(freqs, amps):
        x += a * np.exp(2j * np.pi * (f / rate * t + rng.uniform()))
    return x


class qa_demo_recording(gr_unittest.TestCase):

    def setUp(self):
        # Fresh inputs every run; the seed is printed, and GPUFFT_QA_SEED=<seed> replays it.
        self.seed = int(os.environ.get("GPUFFT_QA_SEED", np.random.SeedSequence().entropy))
        print(f"{self.id()}: seed {self.seed}")
        self.rng = np.random.default_rng(self.seed)
        self.dir = tempfile.TemporaryDirectory()
        self.d = self.dir.name

    def tearDown(self):
        self.dir.cleanup()

    def demo(self, *args):
        r = subprocess.run([sys.executable, DEMO, "--backend", "cpu", *args],
                           capture_output=True, text=True, timeout=600)
        print(r.stdout[-3000:], r.stderr[-3000:])
        return r

    def check_detections(self, out, center, freqs, bin_hz, duration):
        path = os.path.join(out, "detections.csv")
        with open(path) as f:
            self.assertTrue(f.readline().startswith(
                "start_s,length_s,frequency_hz,power_dbfs,snr_db,bandwidth_hz,"))
        with open(path) as f:
            rows = list(csv.DictReader(f))
        found = [float(r["frequency_hz"]) for r in rows]
        for f in freqs:
            near = [r for r in rows if abs(float(r["frequency_hz"]) - center - f) < 2 * bin_hz]
            self.assertTrue(near, f"carrier at {center + f:.1f} Hz not found")
            # Always on: one transmission over the whole recording, a few bins wide.
            self.assertEqual(len(near), 1, near)
            self.assertLess(float(near[0]["start_s"]), 1e-9)
            self.assertAlmostEqual(float(near[0]["length_s"]), duration, delta=1e-6)
            self.assertLess(float(near[0]["bandwidth_hz"]), 8 * bin_hz)
            self.assertLessEqual(float(near[0]["lower_hz"]), center + f)
            self.assertGreaterEqual(float(near[0]["upper_hz"]), center + f)
        # Anything else is a false alarm: a few at most over the whole recording.
        other = [x for x in found if min(abs(x - center - f) for f in freqs) > 2 * bin_hz]
        self.assertLessEqual(len(other), 3, other)
        if self.has_matplotlib():
            self.assertGreater(os.path.getsize(os.path.join(out, "sensing.png")), 10000)
        return rows

    @staticmethod
    def has_matplotlib():
        try:
            import matplotlib  # noqa: F401
            return True
        except ImportError:
            return False

    def test_001_sigmf(self):
        rate = float(self.rng.uniform(1e6, 4e6))
        center = float(self.rng.uniform(50e6, 3e9))
        n = 1 << 16
        freqs = carriers(self.rng, rate, n)
        # 30 to 50 dB over one bin's noise; ci16 full scale 1.
        sigma = 0.01
        floor = sigma ** 2 / n
        amps = np.sqrt(floor * 10 ** (self.rng.uniform(3.0, 5.0, 3)))
        x = capture(self.rng, rate, 24 * n + 1000, freqs, amps, sigma)
        iq = np.empty(2 * len(x), "<i2")
        iq[0::2] = np.round(x.real * 32767)
        iq[1::2] = np.round(x.imag * 32767)
        stem = os.path.join(self.d, "rec")
        iq.tofile(stem + ".sigmf-data")
        with open(stem + ".sigmf-meta", "w") as f:
            json.dump({"global": {"core:datatype": "ci16_le", "core:sample_rate": rate,
                                  "core:version": "1.0.0"},
                       "captures": [{"core:sample_start": 0, "core:frequency": center,
                                     "core:datetime": "2026-11-24T10:00:00.5Z"}],
                       "annotations": []}, f)
        out = os.path.join(self.d, "out")
        r = self.demo("--input", stem + ".sigmf-meta", "--fft-size", str(n), "--output", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("24 frames of 65536 samples", r.stdout)
        self.assertIn("2026-11-24T10:00:00.500000Z", r.stdout)
        rows = self.check_detections(out, center, freqs, rate / n, 24 * n / rate)
        # One SigMF annotation per transmission, beside the table (and where asked).
        with open(os.path.join(out, "rec.detections.sigmf-meta")) as f:
            notes = json.load(f)["annotations"]
        self.assertEqual(len(notes), len(rows))
        for row in rows:
            same = [a for a in notes
                    if a["core:sample_start"] == round(float(row["start_s"]) * rate)
                    and a["core:sample_count"] == round(float(row["length_s"]) * rate)
                    and abs(a["core:freq_lower_edge"] - float(row["lower_hz"])) < 0.1
                    and abs(a["core:freq_upper_edge"] - float(row["upper_hz"])) < 0.1]
            self.assertEqual(len(same), 1, (row, notes))
        # A SigMF archive is sensed, but not annotated: its data file lies in the tar.
        if hasattr(gpufft.recording, "sigmf_archive"):
            arc = os.path.join(self.d, "rec.sigmf")
            with tarfile.open(arc, "w") as tar:
                for ext in (".sigmf-meta", ".sigmf-data"):
                    tar.add(stem + ext, arcname="rec/rec" + ext)
            r = self.demo("--input", arc, "--fft-size", str(n), "--output", out,
                          "--duration", str(8 * n / rate))
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("no annotations will be written: SigMF annotations need", r.stdout)
        for bad in (os.path.join(self.d, "no", "such.sigmf-meta"),
                    os.path.join(self.d, "notes.json")):
            r = self.demo("--input", stem + ".sigmf-meta", "--output", out,
                          "--annotations", bad)
            self.assertNotEqual(r.returncode, 0)
            self.assertIn(f"--annotations: {bad}: give a .sigmf-meta path", r.stderr)
        path = os.path.join(self.d, "elsewhere.sigmf-meta")
        r = self.demo("--input", stem + ".sigmf-meta", "--fft-size", str(n), "--output", out,
                      "--annotations", path, "--duration", str(8 * n / rate))
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(path) as f:
            self.assertTrue(json.load(f)["annotations"])

    def test_002_cfile(self):
        rate, center = 1e6, 433.92e6
        n = 1 << 16
        freqs = carriers(self.rng, rate, n)
        sigma = 0.05
        amps = np.sqrt(sigma ** 2 / n * 10 ** (self.rng.uniform(3.0, 5.0, 3)))
        x = capture(self.rng, rate, 16 * n, freqs, amps, sigma).astype(np.complex64)
        path = os.path.join(self.d, "capture.cfile")
        x.tofile(path)
        out = os.path.join(self.d, "out")
        # 256 frames: at the default false_alarm (0.01 a frame of noise) some 2.6 false
        # transmissions would come; 0.001 keeps the check of "little else" sharp.
        r = self.demo("--input", path, "--rate", str(rate), "--freq", str(center),
                      "--output", out, "--false-alarm", "0.001")
        self.assertEqual(r.returncode, 0, r.stderr)
        # The default frame: the power of two nearest 4 ms (4000 samples), and why.
        self.assertIn("256 frames of 4096 samples", r.stdout)
        self.assertIn("the power of two nearest 4 ms at 1 MS/s", r.stdout)
        self.check_detections(out, center, freqs, rate / 4096, 16 * n / rate)
        # No SigMF in, no annotations out (and none asked for).
        self.assertFalse([f for f in os.listdir(out) if f.endswith(".sigmf-meta")])

    def test_003_bad_inputs(self):
        missing = os.path.join(self.d, "none.sigmf-meta")
        r = self.demo("--input", missing)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn(f"{missing}: cannot read the SigMF metadata", r.stderr)

        path = os.path.join(self.d, "raw.cfile")
        np.zeros(1000, np.complex64).tofile(path)
        r = self.demo("--input", path)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn(f"{path}: a raw recording does not say its sample rate", r.stderr)

        stem = os.path.join(self.d, "odd")
        np.zeros(4000, "<i2").tofile(stem + ".sigmf-data")
        with open(stem + ".sigmf-meta", "w") as f:
            json.dump({"global": {"core:datatype": "ci12_le", "core:sample_rate": 1e6}}, f)
        r = self.demo("--input", stem + ".sigmf-data")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("odd.sigmf-meta: global.core:datatype: 'ci12_le'", r.stderr)

        # Shorter than one frame: 1000 samples (the default frame shrinks to 1024, the
        # least), or fewer than --fft-size.
        r = self.demo("--input", path, "--rate", "1e6")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("1000 samples, less than one frame of 1024: frames are at least 1024",
                      r.stderr)
        r = self.demo("--input", path, "--rate", "1e6", "--fft-size", "2048")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("less than one frame of 2048: give a smaller --fft-size", r.stderr)

        r = self.demo("--input", path, "--rate", "1e6", "--fft-size", "512")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--fft-size: a power of two in [1024,", r.stderr)

        # Annotations need SigMF in.
        np.zeros(8192, np.complex64).tofile(path)
        r = self.demo("--input", path, "--rate", "1e6", "--annotations",
                      os.path.join(self.d, "x.sigmf-meta"), "--output", self.d)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("SigMF annotations need a SigMF input", r.stderr)

        for opt in ("--rate", "--annotations"):
            r = self.demo(opt, "1e6")
            self.assertEqual(r.returncode, 2)
            self.assertIn(f"{opt} describes a recording", r.stderr)

    def test_004_synthetic(self):
        # The synthetic capture, shortened (1.3 ms: 20 frames of 2^16 at 100 MS/s) over a
        # lower noise floor so that its weakest carrier stands out at 2^16 bins; the
        # demo's own check must pass (every transmitter found, few false signals).
        out = os.path.join(self.d, "out")
        r = self.demo("--fft-size", "65536", "--duration", str(20 * 65536 / 100e6),
                      "--noise", "-75", "--seed", str(self.seed % 2**31), "--output", out)
        self.assertEqual(r.returncode, 0, r.stdout[-3000:])
        self.assertIn("20 frames of 65536 samples at 100 MS/s", r.stdout)
        self.assertRegex(r.stdout, r"Against what was transmitted: (\d+) of \1 transmitters found")
        with open(os.path.join(out, "detections.csv")) as f:
            self.assertGreater(len(list(csv.DictReader(f))), 8)


if __name__ == "__main__":
    if not os.path.exists(DEMO):
        print(f"no {DEMO}: run from the source tree")
        sys.exit(77)
    if not hasattr(gpufft, "sensing_plan"):
        print("skip: this build's gnuradio.gpufft has no sensing_plan (the demo needs it)")
        sys.exit(77)
    gr_unittest.run(qa_demo_recording)
