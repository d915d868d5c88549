#!/usr/bin/env python3
#
# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""QA for what a recording's name says (issue 32 items 3 and 4): SigMF archives read in
place (.sigmf tar, .sigmf.gz, .sigmf.xz, .sigmf.bz2, .sigmf.zip, laid out as
sigmf-python 1.13 writes them), SigMF collections, a raw file's datatype from its
extension (.cu8, .cs8, .cs16, .sc16, .cf32, .fc32, .cfile), and files whose name or
first bytes say they are not bare samples, refused instead of read as raw I/Q."""

import io
import json
import lzma
import os
import tarfile
import tempfile
import zipfile

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

from qa_recording import stored, write_sigmf
from gnuradio.gpufft.recording import open_collection

# What the extensions mean (rtl_sdr .cu8; hackrf_transfer .cs8; UHD sc16 / sc8 / fc32;
# GNU Radio's .cfile), written out here, not taken from the module.
EXTENSIONS = {".cu8": "cu8", ".cs8": "ci8", ".sc8": "ci8", ".cs16": "ci16_le",
              ".sc16": "ci16_le", ".cf32": "cf32_le", ".fc32": "cf32_le",
              ".cfile": "cf32_le"}


def sigmf_meta(datatype, rate, captures):
    return json.dumps({"global": {"core:datatype": datatype, "core:sample_rate": rate,
                                  "core:version": "1.0.0"},
                       "captures": captures, "annotations": []}).encode()


def write_archive(path, files):
    """An archive of {member name: bytes} in the order given, as sigmf-python writes
    one: a PAX tar (compressed by the suffix) with the folder first, or a deflated zip."""
    if path.endswith(".zip"):
        with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as z:
            for name, data in files.items():
                z.writestr(name, data)
        return
    comp = path.rsplit(".", 1)[1] if path.endswith((".gz", ".xz", ".bz2")) else ""
    with tarfile.open(path, "w:" + comp, format=tarfile.PAX_FORMAT) as tar:
        for folder in sorted({n.split("/")[0] for n in files if "/" in n}):
            info = tarfile.TarInfo(folder)
            info.type, info.mode = tarfile.DIRTYPE, 0o755
            tar.addfile(info)
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(data), 0o644
            tar.addfile(info, io.BytesIO(data))


class qa_recording_formats(gr_unittest.TestCase):

    def setUp(self):
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
        self.assertIsNone(src.error)
        tags = {(t.offset, pmt.symbol_to_string(t.key)): pmt.to_python(t.value)
                for t in sink.tags()}
        return np.array(sink.data(), np.complex64), tags

    def test_001_archives(self):
        # Issue 32 item 3: a .sigmf.xz was streamed as "cf32 samples" of garbage.
        kinds = {".sigmf": "tar", ".sigmf.gz": "tar.gz", ".sigmf.xz": "tar.xz",
                 ".sigmf.bz2": "tar.bz2", ".sigmf.zip": "zip"}
        for suffix, kind in kinds.items():
            datatype = str(self.rng.choice(["cf32_le", "ci16_le", "ci8", "cu8"]))
            n = int(self.rng.integers(3000, 12000))
            rate, retune = float(self.rng.uniform(1e5, 1e7)), int(self.rng.integers(1, n))
            raw, ref = stored(self.rng, datatype, n)
            meta = sigmf_meta(datatype, rate, [
                {"core:sample_start": 0, "core:frequency": 100e6,
                 "core:datetime": "2026-01-01T00:00:00Z"},
                {"core:sample_start": retune, "core:frequency": 101e6}])
            # sigmf-python's order: the folder, the data, then the metadata.
            path = os.path.join(self.d, "rec" + suffix)
            write_archive(path, {"rec/rec.sigmf-data": raw.tobytes(),
                                 "rec/rec.sigmf-meta": meta})
            with self.subTest(suffix=suffix, datatype=datatype):
                rec = gpufft.open_recording(path)
                self.assertEqual((rec.num_samples, rec.datatype, rec.samp_rate),
                                 (n, datatype, rate))
                self.assertIn(f"SigMF {kind} archive", rec.describe())
                x, tags = self.read(path)
                self.assertTrue(np.array_equal(x, ref.astype(np.complex64)))
                self.assertEqual((tags[(0, "rx_rate")], tags[(0, "rx_freq")],
                                  tags[(retune, "rx_freq")]), (rate, 100e6, 101e6))
                self.assertEqual(tags[(0, "rx_time")], (1767225600, 0.0))
                # From a sample inside (a compressed member is read forwards to it).
                start = int(self.rng.integers(0, n - 10))
                x, _ = self.read(path, start=start, max_samples=10)
                self.assertTrue(np.array_equal(x, ref[start:start + 10]
                                               .astype(np.complex64)))
                # The archive says its datatype; the rate may be replaced.
                self.assertEqual(gpufft.open_recording(path, samp_rate=1e6).samp_rate, 1e6)
                with self.assertRaisesRegex(gpufft.recording_error, "no datatype may be"):
                    gpufft.open_recording(path, datatype="ci8")

    def test_002_archive_layouts_and_errors(self):
        raw, ref = stored(self.rng, "ci16_le", 1000)
        meta = sigmf_meta("ci16_le", 1e6, [{"core:sample_start": 0}])

        def refused(name, files, pattern):
            path = os.path.join(self.d, name)
            write_archive(path, files)
            with self.assertRaisesRegex(gpufft.recording_error, pattern):
                gpufft.open_recording(path)

        # Metadata first, no folder, core:dataset naming the samples: all read.
        path = os.path.join(self.d, "flat.sigmf.gz")
        write_archive(path, {"flat.sigmf-meta": json.dumps(dict(
            json.loads(meta), **{"global": dict(json.loads(meta)["global"],
                                                **{"core:dataset": "iq.bin"})})).encode(),
            "iq.bin": raw.tobytes()})
        x, _ = self.read(path)
        self.assertTrue(np.array_equal(x, ref.astype(np.complex64)))

        refused("two.sigmf", {"a/a.sigmf-meta": meta, "a/a.sigmf-data": raw.tobytes(),
                              "b/b.sigmf-meta": meta, "b/b.sigmf-data": raw.tobytes()},
                r"two\.sigmf: a SigMF archive \(tar\) of 2 recordings \(a/a\.sigmf-meta, "
                r"b/b\.sigmf-meta\); one recording is read at a time")
        refused("nometa.sigmf.xz", {"x/x.sigmf-data": raw.tobytes()},
                r"nometa\.sigmf\.xz: a SigMF archive \(tar\.xz\) without a \.sigmf-meta "
                r"file \(it holds: x/x\.sigmf-data\)")
        refused("nodata.sigmf.zip", {"x/x.sigmf-meta": meta},
                r"nodata\.sigmf\.zip:x/x\.sigmf-meta: the archive holds no "
                r"x/x\.sigmf-data, the samples of x/x\.sigmf-meta")
        refused("short.sigmf",
                {"x/x.sigmf-data": raw.tobytes()[:-2], "x/x.sigmf-meta": meta},
                r"short\.sigmf:x/x\.sigmf-data: 3998 bytes is not a whole number of "
                r"ci16_le samples")
        refused("badjson.sigmf.bz2", {"x/x.sigmf-meta": b"{", "x/x.sigmf-data": b""},
                r"badjson\.sigmf\.bz2:x/x\.sigmf-meta: not valid JSON")
        # Not an archive at all (the issue's 4392 bytes of xz read as 549 samples), and
        # a compressed archive cut short: refused, even with a sample rate given.
        for name, data in (("noise.sigmf.xz", self.rng.bytes(4392)),
                           ("noise.sigmf", self.rng.bytes(4096))):
            path = os.path.join(self.d, name)
            with open(path, "wb") as f:
                f.write(data)
            with self.assertRaisesRegex(gpufft.recording_error,
                                        rf"{name}: not a readable SigMF archive"):
                gpufft.open_recording(path, samp_rate=1e6)
        path = os.path.join(self.d, "cut.sigmf.xz")
        big, _ = stored(self.rng, "cf32_le", 50000)
        write_archive(path, {"x/x.sigmf-data": big.tobytes(), "x/x.sigmf-meta": meta})
        with open(path, "rb") as f:
            blob = f.read()
        with open(path, "wb") as f:
            f.write(blob[:len(blob) // 2])
        with self.assertRaisesRegex(gpufft.recording_error,
                                    r"cut\.sigmf\.xz: not a readable SigMF archive"):
            gpufft.open_recording(path)

    def test_003_collections(self):
        n = {"ch0": 1500, "ch1": 2500}
        for name, count in n.items():
            raw, _ = stored(self.rng, "ci8", count)
            write_sigmf(os.path.join(self.d, name), raw,
                        {"core:datatype": "ci8", "core:sample_rate": 2e6},
                        [{"core:sample_start": 0, "core:frequency": 1e9}])
        path = os.path.join(self.d, "both.sigmf-collection")
        with open(path, "w") as f:
            json.dump({"collection": {"core:version": "1.2.0", "core:streams": [
                {"name": "ch0", "hash": "0"}, {"name": "ch1", "hash": "0"}]}}, f)
        with self.assertRaisesRegex(gpufft.recording_error,
                                    r"both\.sigmf-collection: a SigMF collection of 2 "
                                    r"recordings \(ch0\.sigmf-meta, ch1\.sigmf-meta\); .*"
                                    r"open_collection"):
            gpufft.recording_source(path)
        recs = open_collection(path)
        self.assertEqual([r.num_samples for r in recs], [1500, 2500])
        # One stream (the older form: its base name alone) is read as that recording.
        one = os.path.join(self.d, "one.sigmf-collection")
        with open(one, "w") as f:
            json.dump({"collection": {"core:streams": ["ch1"]}}, f)
        x, tags = self.read(one)
        self.assertEqual((len(x), tags[(0, "rx_rate")]), (2500, 2e6))
        for doc, pattern in (({"collection": {"core:streams": []}},
                              r"collection\.core:streams: must be a list of one or more"),
                             ({"streams": ["ch0"]}, r"collection: missing"),
                             ({"collection": {"core:streams": [{"hash": "0"}]}},
                              r"collection\.core:streams\[0\]\.name: must be")):
            with open(one, "w") as f:
                json.dump(doc, f)
            with self.assertRaisesRegex(gpufft.recording_error, "one.sigmf-collection: "
                                        + pattern):
                gpufft.open_recording(one)

    def test_004_raw_datatype_from_extension(self):
        # Issue 32 item 4: a .cu8 without a datatype was read as cf32.
        for ext, datatype in EXTENSIONS.items():
            for name in ("capture" + ext, "CAPTURE" + ext.upper()):
                n = int(self.rng.integers(1000, 5000))
                raw, ref = stored(self.rng, datatype, n)
                path = os.path.join(self.d, name)
                raw.tofile(path)
                with self.subTest(name=name):
                    rec = gpufft.open_recording(path, samp_rate=2.4e6)
                    self.assertEqual((rec.datatype, rec.num_samples), (datatype, n))
                    self.assertEqual(rec.datatype_from, f"the {ext} extension")
                    self.assertIn(f"(raw {datatype} from the {ext} extension)",
                                  rec.describe())
                    x, _ = self.read(path, samp_rate=2.4e6)
                    self.assertTrue(np.array_equal(x, ref.astype(np.complex64)))
                    # The same datatype given is fine; another is refused.
                    self.assertEqual(gpufft.open_recording(
                        path, samp_rate=1e6, datatype=datatype).datatype_from,
                        "the datatype given")
                    other = "cf32_le" if datatype != "cf32_le" else "cu8"
                    with self.assertRaisesRegex(
                            gpufft.recording_error,
                            rf"{name}: datatype: '{other}' given, but the {ext} extension "
                            rf"says {datatype}"):
                        gpufft.open_recording(path, samp_rate=1e6, datatype=other)
                os.remove(path)
        # Other names need the datatype.
        raw, ref = stored(self.rng, "cu8", 2000)
        for name in ("capture.bin", "capture.raw", "capture.iq", "capture"):
            path = os.path.join(self.d, name)
            raw.tofile(path)
            with self.assertRaisesRegex(gpufft.recording_error,
                                        rf"{name}: a raw recording whose name does not say "
                                        r"its sample type: give the datatype .*\.cu8: cu8"):
                gpufft.open_recording(path, samp_rate=1e6)
            x, _ = self.read(path, samp_rate=1e6, datatype="cu8")
            self.assertTrue(np.array_equal(x, ref.astype(np.complex64)))

    def test_005_names_and_bytes_that_are_not_samples(self):
        raw, _ = stored(self.rng, "cf32_le", 1000)
        # Names: refused whatever datatype is given.
        packed = "a compressed or archived file: decompress it first"
        for name, says in (("cap.cu8.gz", packed), ("cap.zip", packed), ("cap.tar", packed),
                           ("cap.zst", packed), ("cap.wav", "a WAV file: a header"),
                           ("obs.h5", "a filterbank of spectra"),
                           ("obs.fil", "a filterbank of spectra"),
                           ("cap.json", "JSON metadata")):
            path = os.path.join(self.d, name)
            raw.tofile(path)
            for datatype in (None, "cf32_le"):
                with self.assertRaisesRegex(gpufft.recording_error,
                                            rf"{name}: not read as raw I/Q samples: its "
                                            rf"name says {says}"):
                    gpufft.open_recording(path, samp_rate=1e6, datatype=datatype)
        # First bytes: a raw name holding a compressed or archived file.
        tar = io.BytesIO()
        with tarfile.open(fileobj=tar, mode="w") as t:
            info = tarfile.TarInfo("x.cfile")
            info.size = 8000
            t.addfile(info, io.BytesIO(raw.tobytes()))
        wav = b"RIFF\x24\x00\x00\x00WAVEfmt " + bytes(24)
        for name, data, says in (("a.cfile", lzma.compress(raw.tobytes()), "xz-compressed"),
                                 ("b.cs16", tar.getvalue(), "a tar archive"),
                                 ("c.cu8", wav, "a WAV file"),
                                 ("d.cf32", b"\x0c\x00\x00\x00HEADER_START" + bytes(8),
                                  "a SIGPROC filterbank")):
            path = os.path.join(self.d, name)
            with open(path, "wb") as f:
                f.write(data)
            with self.assertRaisesRegex(gpufft.recording_error,
                                        rf"{name}: not read as raw I/Q samples: its first "
                                        rf"bytes say it is {says}"):
                gpufft.open_recording(path, samp_rate=1e6)


if __name__ == "__main__":
    gr_unittest.run(qa_recording_formats)
