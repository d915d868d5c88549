#!/usr/bin/env python3
#
# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""QA for the demo's modules: synthetic_capture (its samples and powers against direct
computation, and its check against a known answer) and sensing_run (the default frame,
and the sensor through a flowgraph: every carrier one transmission at its frequency, a
NaN frame skipped and bridged, the waterfall's level, the CSV's columns). The sensor's
tests need gpufft.sensing_plan and skip in a build without it."""

import math
import os
import unittest

import numpy as np
from gnuradio import gpufft, gr_unittest
from gnuradio.gpufft import sensing_run
from gnuradio.gpufft import synthetic_capture as synth

HAVE_SENSING = hasattr(gpufft, "sensing_plan")


class qa_sensing_run(gr_unittest.TestCase):

    def setUp(self):
        # Fresh inputs every run; the seed is printed, and GPUFFT_QA_SEED=<seed> replays it.
        self.seed = int(os.environ.get("GPUFFT_QA_SEED", np.random.SeedSequence().entropy))
        print(f"{self.id()}: seed {self.seed}")
        self.rng = np.random.default_rng(self.seed)

    # -- synthetic_capture ---------------------------------------------------------------
    def test_001_samples_do_not_depend_on_the_cut(self):
        # Without noise, any cut of the capture renders the same samples: carriers,
        # bursts and hop dwells are functions of the absolute sample index.
        n, seed = 1 << 14, int(self.rng.integers(2**31))
        whole = synth.capture(8, n, noise_dbfs=-400, seed=seed).samples(0, 8 * n)
        cap = synth.capture(8, n, noise_dbfs=-400, seed=seed)
        cuts = np.sort(self.rng.choice(np.arange(1, 8 * n), 5, replace=False))
        edges = [0, *cuts, 8 * n]
        parts = [cap.samples(a, b - a) for a, b in zip(edges[:-1], edges[1:])]
        self.assertEqual(parts[0].dtype, np.complex64)
        np.testing.assert_allclose(np.concatenate(parts), whole, atol=2e-6)

    def test_002_powers(self):
        # On-grid capture: a CW carrier on a bin gives its power exactly in that bin of
        # an unwindowed FFT of one frame (full-scale tone = 0 dBFS).
        n = 1 << 16
        cap = synth.capture(4, n, noise_dbfs=-300, on_grid=True, seed=int(self.rng.integers(99)))
        p = np.abs(np.fft.fft(cap.frame(0))) ** 2 / n ** 2
        for tx in cap.tx:
            if tx.name.startswith("CW beacon"):
                k = round(tx.freq / cap.df) % n
                self.assertAlmostEqual(10 * math.log10(p[k]), tx.dbfs, delta=0.01)
        # Realistic capture: an off-grid CW carrier's power within +-8 bins (a Hann
        # window keeps its leakage there) is its dBFS.
        cap = synth.capture(4, n, noise_dbfs=-300, seed=int(self.rng.integers(2**31)))
        w = np.hanning(n + 1)[:n]
        p = np.abs(np.fft.fft(cap.frame(1) * w)) ** 2 / np.sum(w ** 2) / n
        for tx in cap.tx[:5]:
            k = round(tx.freq / cap.df)
            total = sum(p[(k + j) % n] for j in range(-8, 9))
            self.assertAlmostEqual(10 * math.log10(total), tx.dbfs, delta=0.05, msg=tx.name)
        # The noise floor: its power per sample.
        cap = synth.capture(4, n, noise_dbfs=-50.0, seed=int(self.rng.integers(2**31)))
        x = cap.frame(0)
        self.assertEqual(len(cap.kinds()["hopper"]), sum(t.name == "hopper" for t in cap.tx))
        ref = synth.capture(4, n, noise_dbfs=-400, seed=cap.seed).frame(0)
        noise_dbfs = 10 * math.log10(np.mean(np.abs(x - ref) ** 2))
        self.assertAlmostEqual(noise_dbfs, -50.0, delta=0.1)

    def test_002b_bursts_of_one_transmitter_never_overlap(self):
        # Two pulses of one transmitter on at once add with random phases and can cancel
        # (seed 626690694, 20 frames of 2^16: the weak burst's three pulses spanned the
        # whole capture and summed 20 dB below one). Short and long captures, fresh seeds.
        for frames, n in ((20, 1 << 16), (3, 1 << 20), (40, 1 << 20)):
            for seed in [626690694, *self.rng.integers(2**31, size=8)]:
                cap = synth.capture(frames, n, seed=int(seed))
                for name in ("burst strong", "burst weak"):
                    spans = sorted(tx.on[0] for tx in cap.tx if tx.name == name)
                    self.assertGreater(len(spans), 0, (name, seed))
                    for (a, b), (c, _) in zip(spans, spans[1:]):
                        self.assertLessEqual(b, c, (name, seed, spans))
                    self.assertTrue(all(0 <= a < b <= frames * n for a, b in spans),
                                    (name, seed, spans))

    def truth_frames(self, cap):
        """Per frame, one signal per transmitter on for at least half of it."""
        frames = []
        for i in range(cap.frames):
            on = [tx for tx in cap.tx if cap.coverage(tx, i)[0] >= 0.5]
            c = np.array([synth.CENTER_FREQ + tx.freq for tx in on])
            hw = np.array([tx.halfwidth for tx in on])
            frames.append(dict(frame=i, center_hz=c, lower_hz=c - hw, upper_hz=c + hw,
                               peak_power_dbfs=np.array([tx.dbfs for tx in on]),
                               snr_db=np.array([tx.snr_db for tx in on])))
        return frames

    def test_003_check(self):
        n = 1 << 18
        cap = synth.capture(12, n, seed=int(self.rng.integers(2**31)))
        frames = self.truth_frames(cap)
        r = synth.check(frames, cap)
        self.assertEqual(r["misses"], 0)
        self.assertEqual(r["false"], 0)
        self.assertEqual(r["never"], [])
        self.assertEqual(r["hits"], sum(len(d["center_hz"]) for d in frames))
        # Drop one always-on carrier everywhere, and add a signal where nothing is.
        gone = next(j for j, tx in enumerate(cap.tx) if tx.name == "CW weak 1")
        f_gone = synth.CENTER_FREQ + cap.tx[gone].freq
        free = synth.CENTER_FREQ + 49.5e6
        self.assertFalse(any(abs(tx.freq - 49.5e6) < 1e6 for tx in cap.tx))
        for d in frames:
            keep = d["center_hz"] != f_gone
            for key in ("center_hz", "lower_hz", "upper_hz", "peak_power_dbfs", "snr_db"):
                d[key] = d[key][keep]
        frames[3]["center_hz"] = np.append(frames[3]["center_hz"], free)
        frames[3]["lower_hz"] = np.append(frames[3]["lower_hz"], free - 100)
        frames[3]["upper_hz"] = np.append(frames[3]["upper_hz"], free + 100)
        frames[3]["peak_power_dbfs"] = np.append(frames[3]["peak_power_dbfs"], -90.0)
        frames[3]["snr_db"] = np.append(frames[3]["snr_db"], 20.0)
        r = synth.check(frames, cap)
        self.assertEqual(r["misses"], cap.frames)
        self.assertEqual(r["never"], [gone])
        self.assertEqual(r["false"], 1)
        self.assertEqual(r["false_list"][0][:2], (3, 49.5e6))
        self.assertEqual(r["det_class"][3][-1], "false")

    # -- sensing_run ---------------------------------------------------------------------
    def test_004_default_fft_size(self):
        for rate, n in ((100e3, 1024), (250e3, 1024), (1e6, 4096), (2.4e6, 8192), (20e6, 65536),
                        (100e6, 1 << 19), (1e9, 1 << 20)):
            got, why = sensing_run.default_fft_size(rate)
            self.assertEqual(got, n, rate)
            self.assertIn("nearest 4 ms", why)
            self.assertEqual("clamped" in why, rate in (100e3, 1e9), why)
        self.assertEqual(sensing_run.default_fft_size(1e6, 1e-3)[0], 1024)
        # A short recording gets frames that it holds at least 4 times (not below 2^10).
        for rate, samples, n in ((50e6, 225280, 32768), (4e6, 16000, 2048),
                                 (4e6, 16384 * 4, 16384), (1e6, 3000, 1024)):
            got, why = sensing_run.default_fft_size(rate, samples=samples)
            self.assertEqual(got, n, (rate, samples))
            self.assertEqual("shortened" in why, n < sensing_run.default_fft_size(rate)[0])
        with self.assertRaises(ValueError):
            sensing_run.default_fft_size(0.0)

    def carriers(self, rate, n, frames, nan_frame=None):
        """A render function: 3 carriers at random fractional bins, 30-50 dB over one
        bin's noise, in complex noise; frame nan_frame is NaN."""
        sigma = 0.01
        bins = self.rng.choice(np.arange(-n // 2 + 40, n // 2 - 40, 60), 3, replace=False)
        f = (bins + self.rng.uniform(-0.5, 0.5, 3)) * rate / n
        amps = np.sqrt(sigma ** 2 / n * 10 ** (self.rng.uniform(3.0, 5.0, 3)))
        noise = np.random.default_rng(self.rng.integers(2**31))

        def render(first, count):
            t = first + np.arange(count)
            x = sigma / np.sqrt(2) * (noise.standard_normal(count) +
                                      1j * noise.standard_normal(count))
            for fi, a in zip(f, amps):
                x += a * np.exp(2j * np.pi * fi / rate * t)
            x = x.astype(np.complex64)
            if nan_frame is not None:
                a, b = nan_frame * n - first, (nan_frame + 1) * n - first
                x[max(a, 0):max(min(b, count), 0)] = np.nan
            return x
        return render, f, amps

    @unittest.skipUnless(HAVE_SENSING, "no gpufft.sensing_plan in this build")
    def test_005_sensor_flowgraph(self):
        rate, center, n, frames = 2e6, 433.92e6, 4096, 40
        render, f, amps = self.carriers(rate, n, frames, nan_frame=17)
        # false_alarm 1e-4 a frame: over 40 frames a false transmission is then rare, and
        # the test's "one at most" holds (at 0.01 two or more came about once in 20 runs).
        sens = sensing_run.sensor(n, rate, center, frames=frames, backend="cpu",
                                  waterfall_bins=512, waterfall_rows=16, false_alarm=1e-4)
        tx = sensing_run.run_samples(render, frames, sens)
        self.assertEqual(sens.skipped, 1)
        self.assertEqual(len(sens.per_frame), frames - 1)
        self.assertNotIn(17, [d["frame"] for d in sens.per_frame])
        for fi in f:  # one transmission a carrier, over the whole capture
            near = [t for t in tx if abs(t["center_hz"] - center - fi) < rate / n]
            self.assertEqual(len(near), 1, (fi, tx))
            self.assertEqual(near[0]["start_sample"], 0)
            self.assertEqual(near[0]["sample_count"], frames * n)
            self.assertLessEqual(near[0]["lower_hz"], center + fi)
            self.assertGreaterEqual(near[0]["upper_hz"], center + fi)
        self.assertLessEqual(len(tx), len(f) + 1, tx)  # a false alarm at most
        self.assertEqual(tx, sorted(tx, key=lambda t: (t["start_s"], t["center_hz"])))
        # Waterfall: 40 frames in rows of 3 (14 rows), 512 columns; each carrier's column
        # peaks at its power as a tone's, 0 dBFS for full scale (Blackman-Harris
        # scalloping: < 0.9 dB; noise 27 dB under it moves a bin by up to +0.4 dB, and
        # the row's maximum over 3 frames x 3 columns takes the largest of those: 1 dB).
        wf = sens.waterfall_db
        self.assertEqual(wf.shape, (14, 512))
        self.assertEqual(sens.per_row, 3)
        for fi, a in zip(f, amps):
            col = int((fi / rate + 0.5) * 512)
            peak = wf[:, max(col - 1, 0):col + 2].max(axis=1)
            err = peak - 20 * np.log10(a)
            self.assertTrue(np.all((err > -1.4) & (err < 1.0)),
                            (peak, 20 * np.log10(a)))
        rows = sensing_run.csv_rows(tx)
        self.assertEqual(rows[0].split(",")[:6], ["start_s", "length_s", "frequency_hz",
                                                  "power_dbfs", "snr_db", "bandwidth_hz"])
        self.assertEqual(len(rows), len(tx) + 1)
        self.assertEqual(len(sensing_run.table(tx, limit=1)), 2 + (len(tx) > 1))

    @unittest.skipUnless(HAVE_SENSING, "no gpufft.sensing_plan in this build")
    def test_006_flowgraph_equals_direct(self):
        rate, n, frames = 1e6, 1024, 24
        render, _, _ = self.carriers(rate, n, frames)
        x = render(0, frames * n)
        a = sensing_run.sensor(n, rate, 0.0, frames=frames, backend="cpu")
        sensing_run.run_samples(lambda first, count: x[first:first + count], frames, a)
        b = sensing_run.sensor(n, rate, 0.0, frames=frames, backend="cpu")
        for i in range(frames):
            b.frame(i * n, x[i * n:(i + 1) * n])
        b.finish()
        self.assertEqual(len(a.per_frame), len(b.per_frame))
        for da, db in zip(a.per_frame, b.per_frame):
            np.testing.assert_array_equal(da["center_hz"], db["center_hz"])
        self.assertEqual([t["center_hz"] for t in a.transmissions],
                         [t["center_hz"] for t in b.transmissions])
        np.testing.assert_array_equal(a.waterfall_db, b.waterfall_db)
        # Frames past those announced add rows to the waterfall.
        c = sensing_run.sensor(n, rate, 0.0, frames=2, backend="cpu", waterfall_rows=2)
        for i in range(5):
            c.frame(i * n, x[i * n:(i + 1) * n])
        np.testing.assert_array_equal(c.waterfall_db, b.waterfall_db[:5])

    @unittest.skipUnless(HAVE_SENSING, "no gpufft.sensing_plan in this build")
    def test_007_detections_pdu(self):
        # A frame's signals as a PDU (metadata dict with detect()'s keys, and a vector)
        # give the sensor what detect() itself gives it.
        import pmt
        rate, n = 1e6, 2048
        render, _, _ = self.carriers(rate, n, 2)
        plan = gpufft.sensing_plan(n, backend="cpu")
        r = plan.detect(render(0, n))
        meta = pmt.make_dict()
        meta = pmt.dict_add(meta, pmt.intern("first_sample"), pmt.from_uint64(5 * n))
        for key, value in r.items():
            if isinstance(value, np.ndarray) and value.dtype == bool:
                value = pmt.init_u8vector(len(value), value.astype(np.uint8).tolist())
            elif isinstance(value, np.ndarray) and np.iscomplexobj(value):
                value = pmt.init_c64vector(len(value), value.tolist())
            elif isinstance(value, np.ndarray):
                value = pmt.init_f64vector(len(value), value.astype(float).tolist())
            else:
                value = pmt.to_pmt(value)
            meta = pmt.dict_add(meta, pmt.intern(key), value)
        pdu = pmt.cons(meta, pmt.init_f32vector(len(r["center_bin"]),
                                                 list(r["peak_power_dbfs"])))
        first, got = sensing_run.detections_from_pdu(pdu)
        self.assertEqual(first, 5 * n)
        a = sensing_run.sensor(n, rate, 100e6, frames=8, backend="cpu")
        b = sensing_run.sensor(n, rate, 100e6, frames=8, backend="cpu")
        a.add(first, r)
        b.add(first, got)
        for key in ("center_hz", "lower_hz", "upper_hz", "snr_db", "dc"):
            np.testing.assert_array_equal(a.per_frame[0][key], b.per_frame[0][key])
        self.assertEqual(b.per_frame[0]["frame"], 5)
        self.assertEqual(len(a.finish()), len(b.finish()))
        with self.assertRaisesRegex(ValueError, "no first_sample"):
            sensing_run.detections_from_pdu(pmt.cons(pmt.make_dict(), pdu))
        with self.assertRaisesRegex(ValueError, "a pair of a metadata dict"):
            sensing_run.detections_from_pdu(meta)

    @unittest.skipUnless(HAVE_SENSING, "no gpufft.sensing_plan in this build")
    def test_008_bad_inputs(self):
        for n in (512, 3000, 1 << 25):
            with self.assertRaisesRegex(ValueError, "n must be a power of two"):
                sensing_run.sensor(n, 1e6, backend="cpu")


if __name__ == "__main__":
    gr_unittest.run(qa_sensing_run)
