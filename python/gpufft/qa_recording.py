#!/usr/bin/env python3
#
# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""QA for the recording reader (gpufft.open_recording, gpufft.recording_source): SigMF
files of every datatype and raw .cfile read through a flowgraph, samples against an
independent conversion, the rx_rate / rx_freq / rx_time tags against the metadata,
captures (retunes), start and length; bad inputs give errors naming the file and the
field; a first capture after sample 0 (issue 32 item 1), run with a deadline."""

import json
import os
import tempfile

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest

try:
    from gnuradio import gpufft
except ImportError:
    import sys
    dirname, filename = os.path.split(os.path.abspath(__file__))
    sys.path.append(os.path.join(dirname, "bindings"))
    from gnuradio import gpufft

from gnuradio.gpufft.recording import parse_datetime
from testing_deadline import run_python


def stored(rng, datatype, n):
    """Random stored numbers of a datatype (2n of them) and the complex samples they
    mean, computed here in float64 from the SigMF definitions: floats as stored,
    signed b-bit integers over 2^(b-1), unsigned ones less (2^b - 1) / 2 first."""
    order = ">" if datatype.endswith("_be") else "<"
    kind, bits = datatype[1], int(datatype[2:].split("_")[0])
    if kind == "f":
        raw = rng.standard_normal(2 * n).astype(f"{order}f{bits // 8}")
        ref = raw.astype(np.float64)
    elif kind == "i":
        raw = rng.integers(-2 ** (bits - 1), 2 ** (bits - 1), 2 * n,
                           dtype=np.int64).astype(f"{order}i{bits // 8}")
        ref = raw.astype(np.float64) / 2.0 ** (bits - 1)
    else:
        raw = rng.integers(0, 2 ** bits, 2 * n, dtype=np.int64).astype(
            f"{order}u{bits // 8}")
        ref = (raw.astype(np.float64) - (2.0 ** bits - 1) / 2) / 2.0 ** (bits - 1)
    return raw, ref[0::2] + 1j * ref[1::2]


# Every complex datatype of SigMF 1.x, written out here, not taken from the module.
COMPLEX_DATATYPES = ["ci8", "cu8"] + [f"c{t}{e}" for e in ("_le", "_be")
                                      for t in ("f32", "f64", "i16", "i32", "u16", "u32")]


def write_sigmf(stem, raw, meta_global, captures):
    with open(stem + ".sigmf-data", "wb") as f:
        f.write(raw.tobytes())
    meta = {"global": dict({"core:version": "1.0.0"}, **meta_global),
            "captures": captures, "annotations": []}
    with open(stem + ".sigmf-meta", "w") as f:
        json.dump(meta, f)
    return stem + ".sigmf-meta"


class qa_recording(gr_unittest.TestCase):

    def setUp(self):
        # Fresh inputs every run; the seed is printed, and GPUFFT_QA_SEED=<seed> replays it.
        self.seed = int(os.environ.get("GPUFFT_QA_SEED", np.random.SeedSequence().entropy))
        print(f"{self.id()}: seed {self.seed}")
        self.rng = np.random.default_rng(self.seed)
        self.dir = tempfile.TemporaryDirectory()
        self.d = self.dir.name

    def tearDown(self):
        self.dir.cleanup()

    def read(self, path, **kwargs):
        """Samples and tags {(offset, key): value} through a flowgraph."""
        tb = gr.top_block()
        src = gpufft.recording_source(path, **kwargs)
        sink = blocks.vector_sink_c()
        tb.connect(src, sink)
        tb.run()
        tags = {(t.offset, pmt.symbol_to_string(t.key)): pmt.to_python(t.value)
                for t in sink.tags()}
        return np.array(sink.data(), np.complex64), tags

    def test_001_every_datatype(self):
        from gnuradio.gpufft.recording import DATATYPES
        from gnuradio.gpufft.sigmf_annotations import DATATYPE_BYTES
        self.assertEqual(sorted(DATATYPES), sorted(COMPLEX_DATATYPES))
        for datatype, (dtype, per_sample, _, _) in DATATYPES.items():
            # the annotations writer sizes the same samples as the reader
            self.assertEqual(dtype.itemsize * per_sample, DATATYPE_BYTES[datatype], datatype)
        for datatype in COMPLEX_DATATYPES:
            n = int(self.rng.integers(5000, 20000))
            rate = float(self.rng.uniform(1e5, 1e8))
            freq = float(self.rng.uniform(1e6, 6e9))
            raw, ref = stored(self.rng, datatype, n)
            stem = os.path.join(self.d, datatype)
            meta = write_sigmf(stem, raw, {"core:datatype": datatype, "core:sample_rate": rate},
                               [{"core:sample_start": 0, "core:frequency": freq,
                                 "core:datetime": "2026-03-04T05:06:07.123456789Z"}])
            rec = gpufft.open_recording(meta)
            self.assertEqual((rec.num_samples, rec.datatype, rec.sample_rate,
                              rec.center_freq), (n, datatype, rate, freq))
            for path in (meta, stem + ".sigmf-data", stem):
                x, tags = self.read(path)
                self.assertEqual(len(x), n, datatype)
                if datatype.startswith("cu32"):
                    # float32 holds a u32 to 2^-24: the offset is taken off after the
                    # rounding (6e-8 of full scale at most)
                    self.assertLess(np.max(np.abs(x - ref)), 1e-7, datatype)
                else:
                    self.assertTrue(np.array_equal(x, ref.astype(np.complex64)),
                                    datatype)
                self.assertEqual(tags[(0, "rx_rate")], rate)
                self.assertEqual(tags[(0, "rx_freq")], freq)
                secs, frac = tags[(0, "rx_time")]
                self.assertEqual(secs, 1772600767)  # 2026-03-04T05:06:07Z
                self.assertAlmostEqual(frac, 0.123456789, places=12)
                self.assertEqual(len(tags), 3)

    def test_002_captures_start_and_length(self):
        n, rate = 40000, 2.4e6
        raw, ref = stored(self.rng, "ci16_le", n)
        retune = int(self.rng.integers(1000, n - 1000))
        meta = write_sigmf(os.path.join(self.d, "retune"), raw,
                           {"core:datatype": "ci16_le", "core:sample_rate": rate},
                           [{"core:sample_start": 0, "core:frequency": 100e6,
                             "core:datetime": "2026-01-01T00:00:00Z"},
                            {"core:sample_start": retune, "core:frequency": 101e6,
                             "core:datetime": "2026-01-01T00:00:10.25Z"},
                            {"core:sample_start": retune + 500, "core:frequency": 102e6}])
        x, tags = self.read(meta)
        self.assertTrue(np.array_equal(x, ref.astype(np.complex64)))
        self.assertEqual(tags[(retune, "rx_freq")], 101e6)
        self.assertEqual(tags[(retune, "rx_time")], (1767225610, 0.25))
        self.assertEqual(tags[(retune + 500, "rx_freq")], 102e6)
        self.assertNotIn((retune + 500, "rx_time"), tags)  # the capture gives no time
        # From sample `start`, `max_samples` long: the capture in force tags the first
        # sample, its time moved on by start / rate.
        start, count = retune + 100, 2000
        x, tags = self.read(meta, start=start, max_samples=count)
        self.assertTrue(np.array_equal(x, ref[start:start + count].astype(np.complex64)))
        self.assertEqual(tags[(0, "rx_freq")], 101e6)
        secs, frac = tags[(0, "rx_time")]
        self.assertEqual(secs, 1767225610)
        self.assertAlmostEqual(frac, 0.25 + 100 / rate, places=12)
        self.assertEqual(tags[(400, "rx_freq")], 102e6)
        # The user's centre frequency moves every capture by the same step.
        rec = gpufft.open_recording(meta, center_freq=200e6)
        self.assertEqual([c.center_freq for c in rec.captures], [200e6, 201e6, 202e6])

    def test_003_raw_cfile(self):
        n = 12345
        raw, ref = stored(self.rng, "cf32_le", n)
        path = os.path.join(self.d, "capture.cfile")
        raw.tofile(path)
        with self.assertRaisesRegex(gpufft.recording_error,
                                    "capture.cfile: a raw recording does not say its sample rate"):
            gpufft.open_recording(path)
        x, tags = self.read(path, sample_rate=1e6, center_freq=433.92e6)
        self.assertTrue(np.array_equal(x, ref.astype(np.complex64)))
        self.assertEqual(tags[(0, "rx_rate")], 1e6)
        self.assertEqual(tags[(0, "rx_freq")], 433.92e6)
        self.assertNotIn((0, "rx_time"), tags)
        # Another datatype for a raw file whose name does not say it (rtl_sdr's
        # unsigned bytes in a .bin).
        raw8, ref8 = stored(self.rng, "cu8", n)
        path = os.path.join(self.d, "capture.bin")
        raw8.tofile(path)
        x, _ = self.read(path, sample_rate=2.048e6, datatype="cu8")
        self.assertTrue(np.array_equal(x, ref8.astype(np.complex64)))

    def test_004_bad_inputs_name_file_and_field(self):
        raw, _ = stored(self.rng, "ci16_le", 1000)
        good = {"core:datatype": "ci16_le", "core:sample_rate": 1e6}
        cap = [{"core:sample_start": 0, "core:frequency": 1e9}]
        stem = os.path.join(self.d, "bad")

        def meta_error(meta_global, captures, pattern, data=raw):
            path = write_sigmf(stem, data, meta_global, captures)
            with self.assertRaisesRegex(gpufft.recording_error, pattern):
                gpufft.open_recording(path)

        meta_error(dict(good, **{"core:datatype": "ci12_le"}), cap,
                   r"bad\.sigmf-meta: global\.core:datatype: 'ci12_le' is not read; "
                   r"supported: cf32_le, ci16_le, ci8, cu8, .*cf64_le")
        meta_error(dict(good, **{"core:datatype": "rf32_le"}), cap,
                   r"global\.core:datatype: 'rf32_le' is real")
        meta_error({"core:sample_rate": 1e6}, cap, r"global\.core:datatype: missing")
        meta_error({"core:datatype": "ci16_le"}, cap,
                   r"bad\.sigmf-meta: global\.core:sample_rate: missing")
        meta_error(dict(good, **{"core:sample_rate": -5}), cap,
                   r"global\.core:sample_rate: must be a number > 0")
        meta_error(dict(good, **{"core:num_channels": 2}), cap,
                   r"global\.core:num_channels: 2")
        meta_error(good, [{"core:sample_start": 0, "core:datetime": "yesterday"}],
                   r"captures\[0\]\.core:datetime: 'yesterday' is not an ISO 8601")
        meta_error(good, [{"core:sample_start": 0, "core:frequency": "1 GHz"}],
                   r"captures\[0\]\.core:frequency: must be a number")
        meta_error(good, cap + [{"core:sample_start": 1000}],
                   r"bad\.sigmf-meta: captures\[1\]\.core:sample_start: 1000 is past the "
                   r"end of .*bad\.sigmf-data \(1000 samples of ci16_le\): metadata and "
                   r"data do not match")
        meta_error(good, cap + [{"core:sample_start": 0}],
                   r"captures\[1\]\.core:sample_start: 0 does not come after")
        # Data that is not a whole number of samples: the data file and the datatype's
        # origin are named.
        meta_error(good, cap, r"bad\.sigmf-data: 3999 bytes is not a whole number of "
                   r"ci16_le samples \(4 bytes each, datatype from .*bad\.sigmf-meta "
                   r"global\.core:datatype\)", data=raw.view("u1")[:-1])
        meta_error(good, cap, r"bad\.sigmf-data: no samples", data=raw[:0])

        # Not JSON; not SigMF.
        with open(stem + ".sigmf-meta", "w") as f:
            f.write('{"global": {"core:datatype": "ci8",}}')
        with self.assertRaisesRegex(gpufft.recording_error,
                                    r"bad\.sigmf-meta: not valid JSON: line 1"):
            gpufft.open_recording(stem + ".sigmf-meta")
        with open(stem + ".sigmf-meta", "w") as f:
            f.write('[1, 2]')
        with self.assertRaisesRegex(gpufft.recording_error, r"bad\.sigmf-meta: global: "):
            gpufft.open_recording(stem + ".sigmf-meta")

        # Missing files: the missing one is named.
        write_sigmf(stem, raw, good, cap)
        os.remove(stem + ".sigmf-data")
        with self.assertRaisesRegex(gpufft.recording_error,
                                    r"bad\.sigmf-data: cannot read the SigMF data .*No "
                                    r"such file"):
            gpufft.open_recording(stem + ".sigmf-meta")
        with self.assertRaisesRegex(gpufft.recording_error,
                                    r"nothere\.sigmf-meta: cannot read the SigMF "
                                    r"metadata: No such file"):
            gpufft.open_recording(os.path.join(self.d, "nothere.sigmf-data"))
        with self.assertRaisesRegex(gpufft.recording_error,
                                    r"missing\.cfile: cannot read the recording: No such"):
            gpufft.open_recording(os.path.join(self.d, "missing.cfile"), sample_rate=1e6)
        # Unreadable (a directory where the data should be).
        write_sigmf(stem, raw, good, cap)
        os.remove(stem + ".sigmf-data")
        os.mkdir(stem + ".sigmf-data")
        with self.assertRaisesRegex(gpufft.recording_error,
                                    r"bad\.sigmf-data: cannot read the SigMF data .*Is a "
                                    r"directory"):
            gpufft.open_recording(stem + ".sigmf-meta")
        # Raw files: wrong datatype name, wrong size, bad rate; the SigMF archive.
        path = os.path.join(self.d, "x.cfile")
        raw.view("u1")[:-2].tofile(path)
        with self.assertRaisesRegex(gpufft.recording_error,
                                    r"x\.cfile: 3998 bytes is not a whole number of cf32_le"):
            gpufft.open_recording(path, sample_rate=1e6)
        with self.assertRaisesRegex(gpufft.recording_error, r"x\.cfile: datatype: 'cs16' is "
                                    r"not read; supported: .* \(cs16 is ci16_le\)"):
            gpufft.open_recording(path, sample_rate=1e6, datatype="cs16")
        with self.assertRaisesRegex(gpufft.recording_error, r"sample rate must be a number"):
            gpufft.open_recording(path, sample_rate=float("nan"))
        with self.assertRaisesRegex(gpufft.recording_error,
                                    r"x\.sigmf: cannot read the SigMF archive: No such"):
            gpufft.open_recording(os.path.join(self.d, "x.sigmf"))
        # recording_error is a ValueError, and start / length are checked.
        write_sigmf(stem + "2", raw, good, cap)
        with self.assertRaises(ValueError):
            gpufft.recording_source(stem + "2.sigmf-meta", start=1000)
        with self.assertRaises(ValueError):
            gpufft.recording_source(stem + "2.sigmf-meta", max_samples=-1)

    def test_006_first_capture_after_sample_0(self):
        # Issue 32 item 1: "captures": [{"core:sample_start": 50, ...}] was accepted,
        # then work() raised IndexError and tb.run() never returned. The samples before
        # the first capture are read (sigmf-python reads them too), described by the
        # first capture: its frequency, its time moved back by the samples between.
        n, rate = int(self.rng.integers(3000, 9000)), float(self.rng.uniform(1e5, 1e7))
        first = int(self.rng.integers(1, 1000))
        second = int(self.rng.integers(first + 1, n))
        raw, ref = stored(self.rng, "ci16_le", n)
        meta = write_sigmf(os.path.join(self.d, "late"), raw,
                           {"core:datatype": "ci16_le", "core:sample_rate": rate},
                           [{"core:sample_start": first, "core:frequency": 433.92e6,
                             "core:datetime": "2026-01-01T00:00:10Z"},
                            {"core:sample_start": second, "core:frequency": 434e6}])
        out = os.path.join(self.d, "out.npy")
        code = f"""
import json, numpy as np, pmt
from gnuradio import blocks, gr, gpufft
tb = gr.top_block()
src = gpufft.recording_source({meta!r})
sink = blocks.vector_sink_c()
tb.connect(src, sink)
tb.run()
np.save({out!r}, np.array(sink.data(), np.complex64))
print(json.dumps([[t.offset, pmt.symbol_to_string(t.key), pmt.to_python(t.value)]
                  for t in sink.tags()]))
"""
        r = run_python(self, code)
        self.assertEqual(r.returncode, 0, r.stderr[-3000:])
        tags = {(o, k): v for o, k, v in json.loads(r.stdout.strip().splitlines()[-1])}
        rec = gpufft.open_recording(meta)
        self.assertEqual(rec.center_freq, 433.92e6)
        secs, frac = rec.start_time  # 10 s - first / rate, normalised
        self.assertAlmostEqual((secs - 1767225600) + frac, 10 - first / rate, places=9)
        self.assertTrue(0 <= frac < 1)
        self.assertTrue(np.array_equal(np.load(out), ref.astype(np.complex64)))
        self.assertEqual(tags[(0, "rx_rate")], rate)
        self.assertEqual(tags[(0, "rx_freq")], 433.92e6)
        self.assertEqual(list(tags[(0, "rx_time")]), [secs, frac])
        self.assertEqual(tags[(second, "rx_freq")], 434e6)
        # The first capture is tagged once, at the first sample: no second rx_freq at
        # its own start (downstream would take it for a retune).
        self.assertEqual(sorted(tags), [(0, "rx_freq"), (0, "rx_rate"), (0, "rx_time"),
                                        (second, "rx_freq")])
        # From a sample before the first capture, and after it.
        x, tags = self.read(meta, start=first - 1, max_samples=2)
        self.assertTrue(np.array_equal(x, ref[first - 1:first + 1].astype(np.complex64)))
        self.assertEqual((tags[(0, "rx_freq")], len(tags)), (433.92e6, 3))
        x, tags = self.read(meta, start=first)
        self.assertEqual(tags[(0, "rx_time")], (1767225610, 0.0))

    def test_005_datetime(self):
        self.assertEqual(parse_datetime("1970-01-01T00:00:00Z"), (0, 0.0))
        self.assertEqual(parse_datetime("2000-02-29T12:00:00.5Z"), (951825600, 0.5))
        secs, frac = parse_datetime("2026-03-04T05:06:07.000000001Z")
        self.assertEqual(secs, 1772600767)
        self.assertAlmostEqual(frac, 1e-9, places=15)
        # Offsets other than Z are taken into account; no zone means UTC.
        self.assertEqual(parse_datetime("2026-03-04T07:06:07+02:00"), (1772600767, 0.0))
        self.assertEqual(parse_datetime("2026-03-04T05:06:07"), (1772600767, 0.0))
        for bad in ("2026-13-01T00:00:00Z", "2026-03-04", "noon", "", None, 5):
            self.assertIsNone(parse_datetime(bad), bad)


if __name__ == "__main__":
    gr_unittest.run(qa_recording)
