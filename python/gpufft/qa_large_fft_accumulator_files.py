#!/usr/bin/env python3
#
# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""QA for large_fft_accumulator's files and flowgraph shapes (issue #32 items 5, 6, 13):
the pointing keys and an exact fch1 in the SIGPROC header, a file-only flowgraph (no
stream output), no 0-byte file from a run without spectra, file_format from the
extension and a warning on a mismatch, GRC's output_bins check, the class docstring."""

import os
import subprocess
import sys
import tempfile

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest

try:
    from gnuradio import gpufft
except ImportError:
    dirname, filename = os.path.split(os.path.abspath(__file__))
    sys.path.append(os.path.join(dirname, "bindings"))
    from gnuradio import gpufft

from qa_large_fft_accumulator import read_sigproc, reference, tone_and_noise

HERE = os.path.dirname(os.path.abspath(__file__))
GRC = os.path.join(HERE, "..", "..", "grc", "gpufft_large_fft_accumulator.block.yml")


def hdf5_in_build():
    try:
        gpufft.large_fft_accumulator(64, 1, 64, backend="cpu", file_format="h5")
        return True
    except ValueError as e:
        if "needs HDF5" not in str(e):
            raise
        return False


class qa_large_fft_accumulator_files(gr_unittest.TestCase):

    def setUp(self):
        # Fresh inputs every run; the seed is printed, and GPUFFT_QA_SEED=<seed> replays it.
        self.seed = int(os.environ.get("GPUFFT_QA_SEED", np.random.SeedSequence().entropy))
        print(f"{self.id()}: seed {self.seed}")
        self.rng = np.random.default_rng(self.seed)

    def test_001_pointing_and_exact_fch1_in_the_fil_header(self):
        # fch1 of channel 0 is 1420e6 - 512 * rate / 1024 = 1418976234.375 Hz exactly;
        # Hz * 1e-6 gave 1418.9762343749999, Hz / 1e6 gives 1418.976234375.
        n, rate, freq = 1024, 2047531.25, 1420e6
        x = tone_and_noise(self.rng, 2 * n, n, 100, 1.0)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "p.fil")
            tb = gr.top_block()
            acc = gpufft.large_fft_accumulator(
                n, 1, n, samp_rate=rate, center_freq=freq, filterbank_path=path,
                backend="cpu", src_raj=123456.5, src_dej=-301530.25, az_start=90.5,
                za_start=30.25)
            tb.connect(blocks.vector_source_c(x.tolist()), acc,
                       blocks.null_sink(4 * n))
            tb.run()
            header, data = read_sigproc(path)
            tb = gr.top_block()  # the defaults: all four keys present, 0
            path0 = os.path.join(d, "p0.fil")
            acc = gpufft.large_fft_accumulator(n, 1, n, samp_rate=rate, center_freq=freq,
                                               filterbank_path=path0, backend="cpu")
            tb.connect(blocks.vector_source_c(x.tolist()), acc,
                       blocks.null_sink(4 * n))
            tb.run()
            header0, _ = read_sigproc(path0)
        self.assertEqual(header["fch1"], 1418.976234375)
        self.assertEqual(header["fch1"], (freq - n // 2 * rate / n) / 1e6)
        self.assertEqual(header["foff"], rate / n / 1e6)
        self.assertEqual(header["src_raj"], 123456.5)
        self.assertEqual(header["src_dej"], -301530.25)
        self.assertEqual(header["az_start"], 90.5)
        self.assertEqual(header["za_start"], 30.25)
        self.assertEqual(data.size, 2 * n)
        for key in ("src_raj", "src_dej", "az_start", "za_start"):
            self.assertIn(key, header0)  # turboSETI: KeyError: 'src_dej' without
            self.assertEqual(header0[key], 0.0)

    def test_002_pointing_out_of_range_names_the_parameter(self):
        for key, value in (("src_raj", 240000.0), ("src_dej", float("nan")),
                           ("az_start", -0.5), ("za_start", 181.0)):
            with self.subTest(key=key):
                with self.assertRaisesRegex(ValueError, key):
                    gpufft.large_fft_accumulator(64, 1, 64, backend="cpu",
                                                 **{key: value})

    def test_003_file_only_flowgraph(self):
        # No stream output: the block is a sink. Every complete integration, the last
        # one included (it finishes after the input has ended), reaches the file and
        # the 'spectrum' port.
        for n, n_int, count in ((256, 2, 5), (4096, 3, 4)):
            with self.subTest(n=n):
                x = tone_and_noise(self.rng, count * n_int * n + n // 2, n, 17, 1.0)
                with tempfile.TemporaryDirectory() as d:
                    path = os.path.join(d, "only.fil")
                    tb = gr.top_block()
                    acc = gpufft.large_fft_accumulator(n, n_int, n // 4, backend="cpu",
                                                       filterbank_path=path,
                                                       window="hann")
                    spectra = blocks.message_debug()
                    tb.connect(blocks.vector_source_c(x.tolist()), acc)
                    tb.msg_connect(acc, "spectrum", spectra, "store")
                    tb.run()
                    header, data = read_sigproc(path)
                got = data.reshape(-1, n // 4)
                want = reference(x, n, n_int, n // 4, window="hann")
                self.assertEqual(got.shape[0], count)
                self.assertEqual(acc.integrations_done(), count)
                self.assertLess(np.max(np.abs(got - want)) / np.max(want), 1e-5)
                full = [m for m in (spectra.get_message(i)
                                    for i in range(spectra.num_messages()))
                        if not pmt.to_python(pmt.dict_ref(
                            pmt.car(m), pmt.intern("partial"), pmt.PMT_F))]
                self.assertEqual(len(full), count)
                last = np.array(pmt.f32vector_elements(pmt.cdr(full[-1])))
                self.assertLess(np.max(np.abs(last - want[-1])) / np.max(want), 1e-5)

    def test_004_no_samples_no_file(self):
        # A run that integrates nothing left a 0-byte .fil that readers refuse.
        for connected in (True, False):
            for fmt, name in (("fil", "e.fil"), ("auto", "e.h5")):
                if name.endswith(".h5") and not hdf5_in_build():
                    continue
                with self.subTest(connected=connected, name=name):
                    with tempfile.TemporaryDirectory() as d:
                        path = os.path.join(d, name)
                        tb = gr.top_block()
                        acc = gpufft.large_fft_accumulator(
                            1024, 2, 64, backend="cpu", filterbank_path=path,
                            file_format=fmt)
                        # fewer samples than a frame: no spectrum at all
                        src = blocks.vector_source_c([0j] * 100)
                        if connected:
                            tb.connect(src, acc, blocks.null_sink(4 * 64))
                        else:
                            tb.connect(src, acc)
                        tb.run()
                        self.assertFalse(os.path.exists(path))

    def test_005_file_format_from_the_extension(self):
        with tempfile.TemporaryDirectory() as d:
            fil = os.path.join(d, "a.fil")
            acc = gpufft.large_fft_accumulator(64, 1, 64, backend="cpu",
                                               filterbank_path=fil)
            self.assertEqual(acc.file_format(), "fil")
            if hdf5_in_build():
                for name in ("a.h5", "a.hdf5", "A.FBH5"):
                    acc = gpufft.large_fft_accumulator(
                        64, 1, 64, backend="cpu", filterbank_path=os.path.join(d, name))
                    self.assertEqual(acc.file_format(), "h5", name)
            else:
                with self.assertRaisesRegex(ValueError, "needs HDF5"):
                    gpufft.large_fft_accumulator(64, 1, 64, backend="cpu",
                                                 filterbank_path=os.path.join(d, "a.h5"))
            with self.assertRaisesRegex(ValueError, "file_format"):
                gpufft.large_fft_accumulator(64, 1, 64, backend="cpu", file_format="csv")

    def test_006_mismatched_format_is_a_warning(self):
        # The logger writes to stderr: make the block in a child process and read it.
        fmt = "h5" if hdf5_in_build() else "fil"
        name = "spectra.fil" if fmt == "h5" else "spectra.h5"
        with tempfile.TemporaryDirectory() as d:
            code = ("from gnuradio import gpufft\n"
                    "a = gpufft.large_fft_accumulator(64, 1, 64, backend='cpu', "
                    f"filterbank_path={os.path.join(d, name)!r}, file_format={fmt!r})\n"
                    "print(a.file_format())\n")
            r = subprocess.run([sys.executable, "-c", code], capture_output=True,
                               text=True, timeout=120, env=os.environ.copy())
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.strip().splitlines()[-1], fmt)
        log = r.stdout + r.stderr  # GNU Radio's logger writes to either
        warning = [line for line in log.splitlines() if "warning" in line]
        self.assertEqual(len(warning), 1, log)
        self.assertIn(name, warning[0])
        self.assertIn("extension", warning[0])

    def test_007_grc_checks_output_bins(self):
        # GRC's asserts, evaluated as GRC does (Python expressions over the parameters):
        # output_bins = 2^19 divides a 2^20 band, but each output is one GNU Radio
        # vector item and the block refuses more than 2^18 channels.
        import yaml
        with open(GRC) as f:
            block = yaml.safe_load(f)
        asserts = [a.strip()[2:-1].strip() for a in block["asserts"]]
        params = {p["id"]: p.get("default") for p in block["parameters"]}
        env = {"fft_size": 2 ** 20, "n_integrations": 16, "output_bins": 1024,
               "band_start": 0, "band_stop": 0, "overlap": 0, "samp_rate": 1e6,
               "src_raj": 0.0, "src_dej": 0.0, "az_start": 0.0, "za_start": 0.0}
        for key in ("src_raj", "src_dej", "az_start", "za_start"):
            self.assertIn(key, params)
        self.assertTrue(all(eval(a, {}, dict(env)) for a in asserts))
        bad = dict(env, output_bins=2 ** 19)
        self.assertFalse(all(eval(a, {}, dict(bad)) for a in asserts))
        with self.assertRaisesRegex(ValueError, "output_bins"):
            gpufft.large_fft_accumulator(2 ** 20, 1, 2 ** 19, backend="cpu")
        for key, bad_value in (("src_raj", 240000.0), ("za_start", 200.0)):
            self.assertFalse(all(eval(a, {}, dict(env, **{key: bad_value}))
                                 for a in asserts), key)
        # the stream output is optional in GRC as in the block
        self.assertTrue([o for o in block["outputs"] if o["domain"] == "stream"][0]
                        .get("optional"))

    def test_008_help_shows_the_class_documentation(self):
        doc = gpufft.large_fft_accumulator.__doc__ or ""
        self.assertIn("Integrating spectrometer", doc)
        self.assertIn("filterbank", doc)
        init = gpufft.large_fft_accumulator.__init__.__doc__ or ""
        for word in ("fft_size", "src_raj", "file_format"):
            self.assertIn(word, init)

    def test_009_cpu_frames_in_one_fftw_pass_and_large_copies(self):
        # Issue #30: on the CPU a frame that fits takes one FFTW execute and one fused
        # VOLK pass (not the large-FFT engine's estimated plan and per-bin reduction),
        # and with the stream output connected the block declares one item per hop, so
        # GNU Radio gives its input buffer room for two frames (as for
        # stream_to_vector) instead of 4096-sample pieces.
        cases = ((2 ** 18, 2, 2 ** 16, "blackman-harris", "mean", 0, 0),
                 (3 * 2 ** 12, 3, 1000, "hann", "max", 1000, 11000),
                 (4096, 2, 4096, "none", "mean", 0, 0))
        for n, n_int, bins, window, mode, b0, b1 in cases:
            with self.subTest(n=n, window=window, mode=mode):
                x = tone_and_noise(self.rng, 2 * n_int * n, n, n / 7.3, 2.0)
                tb = gr.top_block()
                acc = gpufft.large_fft_accumulator(n, n_int, bins, band_start=b0,
                                                   band_stop=b1, window=window,
                                                   mode=mode, backend="cpu")
                sink = blocks.vector_sink_f(bins)
                tb.connect(blocks.vector_source_c(x.tolist()), acc, sink)
                tb.run()
                self.assertIn("one in-place FFTW execute per frame", acc.describe())
                self.assertAlmostEqual(acc.relative_rate(), 1.0 / n, delta=1e-12)
                got = np.array(sink.data()).reshape(-1, bins)
                want = reference(x, n, n_int, bins, b0, b1, 0, window, mode)
                self.assertEqual(got.shape, want.shape)
                self.assertLess(np.max(np.abs(got - want)) / np.max(want), 1e-5)
        # The declared hop stops at 2^20: GNU Radio sizes the upstream buffer at twice
        # it, which would be 16 GiB for a 2^30-point frame.
        tb = gr.top_block()
        acc = gpufft.large_fft_accumulator(2 ** 21, 1, 64, backend="cpu")
        tb.connect(blocks.vector_source_c([0j] * 16), acc, blocks.null_sink(4 * 64))
        tb.run()
        self.assertAlmostEqual(acc.relative_rate(), 2.0 ** -20, delta=1e-15)
        # A sink keeps rate 1 (GNU Radio hands a sink available * rate items).
        tb = gr.top_block()
        acc = gpufft.large_fft_accumulator(1024, 1, 64, backend="cpu")
        tb.connect(blocks.vector_source_c([0j] * 4096), acc)
        tb.run()
        self.assertEqual(acc.relative_rate(), 1.0)
        # A budget below the fused path's arrays keeps the large FFT's schedule.
        small = gpufft.large_fft_accumulator(2 ** 16, 1, 512, backend="cpu",
                                             memory_budget=2 ** 16)
        self.assertIn("round 2", small.describe())


if __name__ == "__main__":
    gr_unittest.run(qa_large_fft_accumulator_files)
