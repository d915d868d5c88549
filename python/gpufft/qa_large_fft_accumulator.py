#!/usr/bin/env python3
#
# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""QA for large_fft_accumulator: integrated spectra against numpy, sub-band and
decimation, max-hold, dB, tags -> message metadata and output tags, a SIGPROC
filterbank header parsed back, non-finite frames, bad parameters."""

import os
import struct
import tempfile
import threading
import time

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

from testing_backends import backends
from testing_tags import tag, time_value as rx_time

# Spectra against the double-precision reference, relative to the peak. The GPU path
# (cuFFT in single precision, band powers reduced on the device in another order) is
# held to the 1e-4 its C++ tests use (test_spectrum_integrator_cuda).
TOL = {"cpu": 1e-5, "cuda": 1e-4}


def periodic_window(name, n):
    """Textbook periodic (DFT-even) windows, independent of the block's recurrence."""
    x = 2 * np.pi * np.arange(n) / n
    coef = {
        "none": [1.0],
        "hann": [0.5, 0.5],
        "hamming": [0.54, 0.46],
        "blackman": [0.42, 0.5, 0.08],
        "blackman-harris": [0.35875, 0.48829, 0.14128, 0.01168],
    }[name]
    return sum((-1) ** k * a * np.cos(k * x) for k, a in enumerate(coef))


def reference(x, fft_size, n_integrations, output_bins, band_start=0, band_stop=0,
              overlap=0, window="none", mode="mean"):
    """Integrated spectra in double precision, one row per integration."""
    band_stop = band_stop or fft_size
    hop = fft_size - overlap
    w = periodic_window(window, fft_size)
    frames = (len(x) - overlap) // hop
    rows = []
    for i in range(frames // n_integrations):
        p = []
        for f in range(i * n_integrations, (i + 1) * n_integrations):
            seg = x[f * hop:f * hop + fft_size].astype(np.complex128) * w
            power = np.abs(np.fft.fftshift(np.fft.fft(seg))) ** 2 / w.sum() ** 2
            p.append(power[band_start:band_stop].reshape(output_bins, -1).mean(axis=1))
        rows.append(np.mean(p, axis=0) if mode == "mean" else np.max(p, axis=0))
    return np.array(rows)


def tone_and_noise(rng, count, fft_size, cycles_per_frame, amplitude, sigma=0.05):
    t = np.arange(count)
    tone = amplitude * np.exp(2j * np.pi * cycles_per_frame * t / fft_size)
    noise = rng.normal(0, sigma, count) + 1j * rng.normal(0, sigma, count)
    return (tone + noise).astype(np.complex64)


def read_sigproc(path):
    """A filterbank header reader written from the SIGPROC format, not from the block."""
    ints = {"telescope_id", "machine_id", "data_type", "nchans", "nbits", "nifs",
            "barycentric", "pulsarcentric", "nbeams", "ibeam"}
    doubles = {"fch1", "foff", "tstart", "tsamp", "az_start", "za_start", "src_raj",
               "src_dej"}
    strings = {"source_name", "rawdatafile"}
    with open(path, "rb") as f:
        blob = f.read()
    pos = 0

    def string():
        nonlocal pos
        (n,) = struct.unpack_from("<i", blob, pos)
        s = blob[pos + 4:pos + 4 + n].decode()
        pos += 4 + n
        return s

    assert string() == "HEADER_START"
    header = {}
    while True:
        key = string()
        if key == "HEADER_END":
            break
        if key in ints:
            (header[key],) = struct.unpack_from("<i", blob, pos)
            pos += 4
        elif key in doubles:
            (header[key],) = struct.unpack_from("<d", blob, pos)
            pos += 8
        elif key in strings:
            header[key] = string()
        else:
            raise ValueError("unknown SIGPROC keyword " + key)
    data = np.frombuffer(blob[pos:], dtype="<f4")
    return header, data


class piece_source(gr.sync_block):
    """Writes x in pieces of at most `piece` samples a call, as a radio's driver does,
    pausing a little after each so that the block downstream keeps up."""

    def __init__(self, x, piece):
        gr.sync_block.__init__(self, "piece_source", [], [np.complex64])
        self.x, self.piece, self.at = np.asarray(x, np.complex64), piece, 0

    def work(self, input_items, output_items):
        if self.at >= len(self.x):
            return -1
        m = min(self.piece, len(output_items[0]), len(self.x) - self.at)
        output_items[0][:m] = self.x[self.at:self.at + m]
        self.at += m
        time.sleep(0.0005)
        return m


class qa_large_fft_accumulator(gr_unittest.TestCase):

    def setUp(self):
        # Fresh inputs every run; the seed is printed, and GPUFFT_QA_SEED=<seed> replays it.
        self.seed = int(os.environ.get("GPUFFT_QA_SEED", np.random.SeedSequence().entropy))
        print(f"{self.id()}: seed {self.seed}")
        self.rng = np.random.default_rng(self.seed)
        self.tb = gr.top_block()

    def tearDown(self):
        self.tb = None

    def run_block(self, backend, x, tags=(), **kwargs):
        self.tb = gr.top_block()  # one a run: a test runs once per backend
        acc = gpufft.large_fft_accumulator(backend=backend, **kwargs)
        src = blocks.vector_source_c(x.tolist(), False, 1, list(tags))
        sink = blocks.vector_sink_f(acc.output_bins())
        spectra = blocks.message_debug()
        progress = blocks.message_debug()
        self.tb.connect(src, acc, sink)
        self.tb.msg_connect(acc, "spectrum", spectra, "store")
        self.tb.msg_connect(acc, "progress", progress, "store")
        self.tb.run()
        out = np.array(sink.data(), dtype=np.float64).reshape(-1, acc.output_bins())
        msgs = [spectra.get_message(i) for i in range(spectra.num_messages())]
        progress_msgs = [progress.get_message(i) for i in range(progress.num_messages())]
        return acc, out, msgs, sink.tags(), progress_msgs

    @staticmethod
    def meta(msg, key):
        return pmt.to_python(pmt.dict_ref(pmt.car(msg), pmt.intern(key), pmt.PMT_NIL))

    def test_001_tone_peak_and_integrated_power(self):
        for backend in backends():
            with self.subTest(backend=backend):
                n, n_int, amp = 4096, 4, 2.0
                x = tone_and_noise(self.rng, 3 * n_int * n + 100, n, 300, amp)
                acc, out, msgs, _, _ = self.run_block(
                    backend, x, fft_size=n, n_integrations=n_int, output_bins=n,
                    samp_rate=1e6)
                self.assertEqual(out.shape, (3, n))
                ref = reference(x, n, n_int, n)
                for row, r in zip(out, ref):
                    self.assertEqual(int(np.argmax(row)), n // 2 + 300)
                    # A tone of amplitude A reads A^2 in its bin, plus its bin's share
                    # of noise.
                    self.assertAlmostEqual(row[n // 2 + 300], amp ** 2, delta=0.02 * amp ** 2)
                    self.assertLess(np.max(np.abs(row - r)) / np.max(r), TOL[backend])
                self.assertEqual(len(msgs), 3)
                # Noise floor: E|X|^2 / N^2 = 2 sigma^2 / N per bin.
                floor = np.median(out[0])
                self.assertAlmostEqual(floor / (2 * 0.05 ** 2 / n), 1.0, delta=0.25)

    def test_002_subband_decimation_window_overlap(self):
        for backend in backends():
            with self.subTest(backend=backend):
                n, n_int = 2048, 3
                band_start, band_stop, bins, overlap = 512, 1536, 128, 512
                rate, freq = 2.048e6, 1.4204e9
                x = tone_and_noise(self.rng, 2 * n_int * (n - overlap) + overlap, n,
                                   -100.25, 1.0)
                acc, out, msgs, _, _ = self.run_block(
                    backend, x, fft_size=n, n_integrations=n_int, output_bins=bins,
                    band_start=band_start, band_stop=band_stop, overlap=overlap,
                    window="hann", samp_rate=rate, center_freq=freq)
                ref = reference(x, n, n_int, bins, band_start, band_stop, overlap, "hann")
                self.assertEqual(out.shape, ref.shape)
                self.assertEqual(out.shape[0], 2)
                self.assertLess(np.max(np.abs(out - ref)) / np.max(ref), TOL[backend])
                # The tone at -100.25 bins sits in channel (1024 - 100 - 512) // 8 = 51.
                self.assertEqual(int(np.argmax(out[0])), (n // 2 - 101 - band_start) // 8)
                bin_hz = rate / n
                self.assertAlmostEqual(self.meta(msgs[0], "foff"), 8 * bin_hz)
                self.assertAlmostEqual(self.meta(msgs[0], "fch1"),
                                       freq + (band_start + 3.5 - n // 2) * bin_hz, places=3)
                self.assertEqual(self.meta(msgs[0], "nchans"), bins)
                self.assertAlmostEqual(self.meta(msgs[0], "tsamp"),
                                       n_int * (n - overlap) / rate)
                self.assertEqual(acc.band_stop(), band_stop)
                self.assertEqual(acc.window(), "hann")

    def test_003_max_hold_and_db(self):
        for backend in backends():
            with self.subTest(backend=backend):
                n, n_int = 512, 5
                x = tone_and_noise(self.rng, n_int * n, n, 17, 0.5, sigma=0.3)
                _, out, msgs, _, _ = self.run_block(
                    backend, x, fft_size=n, n_integrations=n_int, output_bins=128, mode="max",
                    output_db=True)
                ref = reference(x, n, n_int, 128, mode="max")
                self.assertLess(np.max(np.abs(out - 10 * np.log10(ref))), 1e-3)
                # the PDU carries the same (dB) vector
                self.assertTrue(np.allclose(pmt.f32vector_elements(pmt.cdr(msgs[0])), out[0]))
                self.assertEqual(self.meta(msgs[0], "mode"), "max")
                self.assertTrue(self.meta(msgs[0], "db"))

    def test_004_tags_to_metadata_and_output_tags(self):
        for backend in backends():
            with self.subTest(backend=backend):
                n, n_int, rate = 1024, 2, 1e6
                secs, frac = 1700000000, 0.25
                retune = 3 * n + 10  # inside the second integration's frames
                x = tone_and_noise(self.rng, 3 * n_int * n, n, 5, 1.0)
                tags = [tag(0, "rx_time", rx_time(secs, frac)),
                        tag(0, "rx_rate", pmt.from_double(rate)),
                        tag(0, "rx_freq", pmt.from_double(100e6)),
                        tag(5, "rx_time", pmt.intern("yesterday")),  # malformed: ignored
                        tag(retune, "rx_freq", pmt.from_double(101e6))]
                _, out, msgs, out_tags, progress = self.run_block(
                    backend, x, tags, fft_size=n, n_integrations=n_int, output_bins=64,
                    samp_rate=1.0)
                self.assertEqual(len(msgs), 3)
                for i, m in enumerate(msgs):
                    t = self.meta(m, "rx_time")
                    since = frac + i * n_int * n / rate  # whole seconds apart: no rounding
                    self.assertEqual(t[0], secs + int(since))
                    self.assertAlmostEqual(t[1], since - int(since), places=12)
                    self.assertEqual(self.meta(m, "rx_rate"), rate)
                    self.assertEqual(self.meta(m, "integrations"), n_int)
                    self.assertEqual(self.meta(m, "integration_index"), i)
                    self.assertEqual(self.meta(m, "time_source"), "rx_time")
                # rx_freq of an integration is the one in force at its first sample
                self.assertEqual([self.meta(m, "rx_freq") for m in msgs],
                                 [100e6, 100e6, 101e6])
                by_key = {}
                for t in out_tags:
                    by_key.setdefault(pmt.symbol_to_string(t.key), []).append(t)
                self.assertEqual([t.offset for t in by_key["rx_time"]], [0, 1, 2])
                # rx_freq goes out on change only (docs/stream.md)
                self.assertEqual([(t.offset, pmt.to_double(t.value))
                                  for t in by_key["rx_freq"]],
                                 [(0, 100e6), (2, 101e6)])
                self.assertEqual(len(by_key["rx_rate"]), 1)
                self.assertAlmostEqual(pmt.to_double(by_key["rx_rate"][0].value),
                                       rate / (n_int * n))
                self.assertGreaterEqual(len(progress), 1)
                p = pmt.to_python(progress[0])
                for key in ("fraction_filled", "frames_done", "n_integrations",
                            "integrations_done", "skipped_frames"):
                    self.assertIn(key, p)

    def test_005_filterbank_header_and_data(self):
        for backend in backends():
            with self.subTest(backend=backend):
                n, n_int, bins, rate, freq = 1024, 2, 256, 2e6, 1420e6
                secs, frac = 1700000000, 0.5
                x = tone_and_noise(self.rng, 3 * n_int * n, n, 40, 1.0)
                with tempfile.TemporaryDirectory() as d:
                    path = os.path.join(d, "test.fil")
                    tags = [tag(0, "rx_time", rx_time(secs, frac))]
                    _, out, msgs, _, _ = self.run_block(
                    backend, x, tags, fft_size=n, n_integrations=n_int, output_bins=bins,
                        samp_rate=rate, center_freq=freq, filterbank_path=path,
                        source_name="J0000+0000", output_db=True)
                    header, data = read_sigproc(path)
                bin_hz = rate / n
                self.assertEqual(header["nchans"], bins)
                self.assertEqual(header["nbits"], 32)
                self.assertEqual(header["nifs"], 1)
                self.assertEqual(header["data_type"], 1)
                self.assertEqual(header["source_name"], "J0000+0000")
                self.assertAlmostEqual(header["foff"], 4 * bin_hz * 1e-6, places=12)
                self.assertAlmostEqual(header["fch1"], (freq + (1.5 - n // 2) * bin_hz) * 1e-6,
                                       places=9)
                self.assertAlmostEqual(header["tsamp"], n_int * n / rate, places=12)
                self.assertAlmostEqual(header["tstart"], 40587 + (secs + frac) / 86400,
                                       places=9)
                # three linear spectra, while the stream showed dB
                spectra = data.reshape(-1, bins)
                self.assertEqual(spectra.shape[0], 3)
                self.assertLess(np.max(np.abs(10 * np.log10(spectra) - out)), 1e-3)
                self.assertLess(np.max(np.abs(spectra - reference(x, n, n_int, bins)))
                                / np.max(spectra), TOL[backend])

    def test_006_non_finite_frame_skipped(self):
        for backend in backends():
            with self.subTest(backend=backend):
                n, n_int = 256, 4
                x = tone_and_noise(self.rng, 2 * n_int * n, n, 9, 1.0)
                x[n + 3] = np.nan          # frame 1: integration 0
                x[5 * n + 7] = np.inf      # frame 5: integration 1
                _, out, msgs, _, _ = self.run_block(
                    backend, x, fft_size=n, n_integrations=n_int, output_bins=n)
                self.assertEqual(out.shape[0], 2)
                self.assertTrue(np.all(np.isfinite(out)))
                self.assertEqual([self.meta(m, "skipped") for m in msgs], [1, 1])
                self.assertEqual([self.meta(m, "integrations") for m in msgs], [3, 3])
                good = [f for f in range(n_int) if f != 1]
                ref = np.mean([reference(x[f * n:(f + 1) * n], n, 1, n)[0] for f in good],
                              axis=0)
                self.assertLess(np.max(np.abs(out[0] - ref)) / np.max(ref), TOL[backend])

    def test_007_out_of_card_schedule(self):
        # A 64 KiB engine budget for 512 KiB frames: the engine runs its multi-round
        # decomposition (as a frame larger than GPU memory would), same spectra.
        for backend in backends():
            with self.subTest(backend=backend):
                n, n_int, bins = 2 ** 16, 2, 512
                x = tone_and_noise(self.rng, 2 * n_int * n, n, 1234.5, 1.0)
                acc, out, _, _, _ = self.run_block(
                    backend, x, fft_size=n, n_integrations=n_int, output_bins=bins,
                    band_start=n // 4, band_stop=3 * n // 4, window="blackman-harris",
                    memory_budget=2 ** 16)
                self.assertIn("round 2", acc.describe())
                ref = reference(x, n, n_int, bins, n // 4, 3 * n // 4, 0, "blackman-harris")
                self.assertEqual(out.shape, ref.shape)
                self.assertLess(np.max(np.abs(out - ref)) / np.max(ref), TOL[backend])

    def test_008_bad_parameters_name_the_parameter(self):
        good = dict(fft_size=1024, n_integrations=2, output_bins=256, backend="cpu")
        cases = [
            (dict(fft_size=1), "fft_size"),
            (dict(fft_size=2 ** 44, output_bins=1024), "host memory"),
            (dict(n_integrations=0), "n_integrations"),
            (dict(output_bins=300), "output_bins"),
            (dict(output_bins=2 ** 20, fft_size=2 ** 21), "output_bins"),
            (dict(band_start=1024), "band_start"),
            (dict(band_start=100, band_stop=50), "band_stop"),
            (dict(overlap=1024), "overlap"),
            (dict(window="kaiser"), "window"),
            (dict(mode="median"), "mode"),
            (dict(samp_rate=0.0), "samp_rate"),
            (dict(backend="opencl"), "backend"),
        ]
        for change, needle in cases:
            with self.assertRaises(ValueError) as cm:
                gpufft.large_fft_accumulator(**dict(good, **change))
            self.assertIn(needle, str(cm.exception), change)

    def test_008b_memory_budget_is_a_whole_number(self):
        # An integral float is a byte count; anything else names the parameter (it was
        # pybind's "incompatible constructor arguments").
        acc = gpufft.large_fft_accumulator(1024, 1, 64, backend="cpu", memory_budget=1e9)
        self.assertEqual(acc.fft_size(), 1024)
        for bad in (1.5, "1e9", -1):
            with self.assertRaisesRegex(ValueError, "memory_budget"):
                gpufft.large_fft_accumulator(1024, 1, 64, backend="cpu", memory_budget=bad)

    def test_008c_devices_are_checked(self):
        # devices: a list of CUDA ids for the engine ([] / None: device_id alone). The
        # checks that need no GPU, so they run on CPU-only machines too.
        for ok in ([], None):
            acc = gpufft.large_fft_accumulator(1024, 1, 64, backend="cpu", devices=ok)
            self.assertEqual(acc.backend(), "cpu")
        cases = [
            (dict(backend="cpu", devices=[0]), "backend cpu"),
            (dict(devices=[1, 1]), "more than once"),
            (dict(devices=[0, 2, 0]), "more than once"),
            (dict(devices=[-1]), "devices"),
            (dict(devices=[0.5]), "devices"),
            (dict(devices=[True]), "devices"),
            (dict(devices="0,1"), "devices"),
            (dict(devices=3), "devices"),
            (dict(devices=[2 ** 40]), "devices"),
        ]
        for change, needle in cases:
            with self.assertRaises(ValueError) as cm:
                gpufft.large_fft_accumulator(1024, 1, 64, **change)
            self.assertIn(needle, str(cm.exception), change)
        # numpy integers and tuples are lists of ids too
        acc = gpufft.large_fft_accumulator(1024, 1, 64, devices=(np.int64(0),))
        self.assertIn(acc.backend(), ("cpu", "cuda"))

    def test_009_unwritable_filterbank_stops_the_flowgraph(self):
        # A path that cannot be written is refused when the block is made.
        with self.assertRaisesRegex(ValueError, "filterbank_path: cannot write"):
            gpufft.large_fft_accumulator(
                1024, 1, 64, backend="cpu",
                filterbank_path="/nonexistent-directory/spectra.fil")
        # One that goes away before the run: the block ends the run by itself (an
        # endless source, so nothing else would stop this flowgraph).
        gone = tempfile.mkdtemp()
        src = blocks.vector_source_c([0.5 + 0.25j] * 4096, True)
        acc = gpufft.large_fft_accumulator(
            1024, 1, 64, backend="cpu", filterbank_path=os.path.join(gone, "spectra.fil"))
        os.rmdir(gone)
        sink = blocks.vector_sink_f(64)
        self.tb.connect(src, acc, sink)
        self.tb.start()
        done = threading.Event()
        waiter = threading.Thread(target=lambda: (self.tb.wait(), done.set()))
        waiter.start()
        stopped = done.wait(20)
        if not stopped:
            self.tb.stop()
            self.tb.wait()
        waiter.join()
        self.assertTrue(stopped, "the flowgraph did not stop by itself")
        self.assertEqual(len(sink.data()), 0)

    def test_010_setters(self):
        acc = gpufft.large_fft_accumulator(1024, 2, 256, backend="cpu")
        acc.set_n_integrations(5)
        self.assertEqual(acc.n_integrations(), 5)
        acc.set_mode("max")
        self.assertEqual(acc.mode(), "max")
        acc.set_output_db(True)
        self.assertTrue(acc.output_db())
        with self.assertRaises(ValueError):
            acc.set_n_integrations(0)
        with self.assertRaises(ValueError):
            acc.set_mode("median")
        self.assertEqual(acc.backend(), "cpu")
        self.assertEqual(acc.fft_size(), 1024)

    def test_011_short_last_piece_completes_the_integration(self):
        # The block asks for a quarter frame a call; a stream that ends with less
        # waiting (here 192 samples after pieces of 1000) must still complete its last
        # integration, on every backend.
        for backend in backends():
            with self.subTest(backend=backend):
                n, n_int = 4096, 2
                x = tone_and_noise(self.rng, 3 * n_int * n, n, 300, 1.0)
                self.tb = gr.top_block()
                acc = gpufft.large_fft_accumulator(n, n_int, n, backend=backend)
                sink = blocks.vector_sink_f(n)
                src = piece_source(x, 1000)  # kept: a Python block must outlive the run
                self.tb.connect(src, acc, sink)
                self.tb.run()
                out = np.array(sink.data()).reshape(-1, n)
                self.assertEqual(out.shape, (3, n))
                ref = reference(x, n, n_int, n)
                self.assertLess(np.max(np.abs(out - ref)) / np.max(ref), TOL[backend])


if __name__ == "__main__":
    gr_unittest.run(qa_large_fft_accumulator)
