#!/usr/bin/env python3
#
# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""QA of the input_type parameter of sparse_fft and large_fft_accumulator (issue #33
item 3): the same signal given as fc32 and as interleaved integer I/Q (sc16, sc8, cu8:
a vector of 2 shorts or 2 bytes an item, as GNU Radio's interleaved short/char to
complex blocks take) gives the same detections and spectra. The fc32 reference is the
quantised signal itself, (stored - offset) * scale as numpy computes it with the scale
recording_source uses (gpufft.input_type_scale): the blocks' conversion is exact, so the
outputs must agree to the last bit on one backend (to float rounding for the
accumulator, whose two blocks plan their FFTs apart). The accumulator is also checked
against numpy's FFT of the dequantised frames. Every backend testing_backends names
(CUDA where a GPU is usable: there the integer frames are converted on the GPU).

An unknown input_type is a ValueError naming input_type.

Every test draws fresh random data and prints its seed; set GPUFFT_QA_SEED to replay one.
"""

import os
import sys

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest

try:
    from gnuradio import gpufft
except ImportError:
    dirname, filename = os.path.split(os.path.abspath(__file__))
    sys.path.append(os.path.join(dirname, "bindings"))
    from gnuradio import gpufft

from testing_backends import backends

INTEGER_TYPES = ("sc16", "sc8", "cu8")
RANGE = {"sc16": (-32768, 32767, np.int16), "sc8": (-128, 127, np.int8),
         "cu8": (0, 255, np.uint8)}


def quantise(x, input_type, full_scale):
    """x as input_type's stored numbers (I, Q interleaved; x at `full_scale` of the
    type's range), and the complex64 values they stand for, (stored - offset) *
    scale."""
    scale, offset = gpufft.input_type_scale(input_type)
    lo, hi, dtype = RANGE[input_type]
    v = np.empty(2 * len(x))
    v[0::2], v[1::2] = x.real, x.imag
    stored = np.clip(np.round(v * full_scale / scale + offset), lo, hi).astype(dtype)
    values = (stored.astype(np.float64) - offset) * scale
    return stored, (values[0::2] + 1j * values[1::2]).astype(np.complex64)


def source(stored, input_type):
    """A vector source of the stored numbers as input_type's items (2 numbers each)."""
    if input_type == "sc16":
        return blocks.vector_source_s(stored.tolist(), False, 2)
    return blocks.vector_source_b(stored.view(np.uint8).tolist(), False, 2)


def signal(n_total, rng):
    """Complex noise (variance 1e-2) and 4 tones between bins, 15-30 dB over one bin's
    noise of a 4096-point FFT, peak well under 1."""
    t = np.arange(n_total)
    x = (rng.normal(size=n_total) + 1j * rng.normal(size=n_total)) * np.sqrt(0.5e-2)
    for _ in range(4):
        f = rng.uniform(-0.45, 0.45)
        a = np.sqrt(10 ** (rng.uniform(15, 30) / 10) * 1e-2 / 4096)
        x += a * np.exp(2j * np.pi * (f * t + rng.random()))
    return x


def run_sparse(src, backend, input_type, n, k):
    """detections PDUs' metadata and the display vectors of sparse_fft on `src`."""
    tb = gr.top_block()
    block = gpufft.sparse_fft(n, k, 1e6, display_bins=256, backend=backend,
                              min_snr_db=5, false_alarm=1e-3, input_type=input_type)
    det = blocks.message_debug()
    sink = blocks.vector_sink_f(256)
    tb.connect(src, block, sink)
    tb.msg_connect(block, "detections", det, "store")
    tb.run()
    metas = [pmt.to_python(pmt.car(det.get_message(i))) or {}
             for i in range(det.num_messages())]
    return block, metas, np.array(sink.data(), np.float32)


def run_accumulator(src, backend, input_type, n, integrations):
    tb = gr.top_block()
    block = gpufft.large_fft_accumulator(n, integrations, n, samp_rate=1e6,
                                         backend=backend, input_type=input_type)
    sink = blocks.vector_sink_f(n)
    tb.connect(src, block, sink)
    tb.run()
    return block, np.array(sink.data(), np.float64).reshape(-1, n)


class qa_input_types(gr_unittest.TestCase):

    def setUp(self):
        self.seed = int(os.environ.get("GPUFFT_QA_SEED", np.random.SeedSequence().entropy))
        self.rng = np.random.default_rng(self.seed)
        print(f"{self.id()}: seed {self.seed}")

    def test_001_scales_are_recording_sources(self):
        """One owner of the scale: the blocks' table, which recording_source reads."""
        from gnuradio.gpufft import recording
        self.assertEqual(gpufft.input_types(), ["fc32", "sc16", "sc8", "cu8"])
        self.assertEqual(gpufft.input_type_scale("fc32"), (1.0, 0.0))
        self.assertEqual(gpufft.input_type_scale("sc16"), (1 / 32768, 0.0))
        self.assertEqual(gpufft.input_type_scale("sc8"), (1 / 128, 0.0))
        self.assertEqual(gpufft.input_type_scale("cu8"), (1 / 128, 127.5))
        for datatype, input_type in (("cf32_le", "fc32"), ("ci16_le", "sc16"),
                                     ("ci8", "sc8"), ("cu8", "cu8")):
            self.assertEqual(recording.DATATYPES[datatype][2:],
                             gpufft.input_type_scale(input_type))

    def test_002_unknown_input_type_names_it(self):
        for bad in ("cs16", "SC16", "", "ci16_le", "fc64"):
            with self.assertRaisesRegex(ValueError, "input_type"):
                gpufft.sparse_fft(1024, 8, 1e6, input_type=bad)
            with self.assertRaisesRegex(ValueError, "input_type"):
                gpufft.large_fft_accumulator(1024, 1, 1024, input_type=bad)
            with self.assertRaisesRegex(ValueError, "input_type"):
                gpufft.input_type_scale(bad)
        with self.assertRaisesRegex(ValueError, "input_type"):
            gpufft.sparse_fft(1024, 8, 1e6, input_type=16)

    def test_003_input_signature(self):
        for input_type, size in (("fc32", 8), ("sc16", 4), ("sc8", 2), ("cu8", 2)):
            b = gpufft.sparse_fft(1024, 8, 1e6, backend="cpu", input_type=input_type)
            self.assertEqual(b.input_signature().sizeof_stream_item(0), size)
            self.assertEqual(b.input_type(), input_type)
            a = gpufft.large_fft_accumulator(1024, 1, 1024, backend="cpu",
                                             input_type=input_type)
            self.assertEqual(a.input_signature().sizeof_stream_item(0), size)
            self.assertEqual(a.input_type(), input_type)

    def test_004_sparse_fft_same_detections(self):
        n, frames = 4096, 6
        x = signal(n * frames + 1000, self.rng)  # and a partial frame at the end
        for backend in backends():
            for input_type in INTEGER_TYPES:
                with self.subTest(backend=backend, input_type=input_type):
                    stored, values = quantise(x, input_type, 0.25)
                    _, ref, ref_display = run_sparse(
                        blocks.vector_source_c(values.tolist(), False), backend, "fc32",
                        n, 16)
                    block, got, display = run_sparse(source(stored, input_type), backend,
                                                     input_type, n, 16)
                    self.assertEqual(len(ref), frames)
                    self.assertEqual(block.frames_processed(), frames)
                    # The tones are found (the signal is not noise alone).
                    self.assertGreaterEqual(min(len(m["center_bin"]) for m in ref), 2,
                                            block.describe())
                    self.assertEqual(len(got), len(ref))
                    for a, b in zip(got, ref):
                        self.assertEqual(sorted(a), sorted(b))
                        for key in a:
                            np.testing.assert_array_equal(
                                np.asarray(a[key]), np.asarray(b[key]), err_msg=key)
                    np.testing.assert_array_equal(display, ref_display)

    def test_005_sparse_fft_overlapping_frames(self):
        """hop < fft_size: frames cut from the byte stream overlap as complex ones do."""
        n, hop = 2048, 768
        x = signal(n * 5, self.rng)
        stored, values = quantise(x, "sc16", 0.25)
        tb = gr.top_block()
        blocks_ = {t: gpufft.sparse_fft(n, 8, 1e6, display_bins=128, hop=hop,
                                        backend="cpu", min_snr_db=5, input_type=t)
                   for t in ("fc32", "sc16")}
        sinks = {t: blocks.vector_sink_f(128) for t in blocks_}
        tb.connect(blocks.vector_source_c(values.tolist(), False), blocks_["fc32"],
                   sinks["fc32"])
        tb.connect(source(stored, "sc16"), blocks_["sc16"], sinks["sc16"])
        tb.run()
        want = (len(x) - n) // hop + 1
        self.assertEqual(blocks_["sc16"].frames_processed(), want)
        np.testing.assert_array_equal(np.array(sinks["sc16"].data()),
                                      np.array(sinks["fc32"].data()))

    def test_006_accumulator_same_spectra(self):
        n, integrations, outputs = 4096, 2, 3
        x = signal(n * integrations * outputs, self.rng)
        for backend in backends():
            for input_type in INTEGER_TYPES:
                with self.subTest(backend=backend, input_type=input_type):
                    stored, values = quantise(x, input_type, 0.25)
                    _, ref = run_accumulator(
                        blocks.vector_source_c(values.tolist(), False), backend, "fc32",
                        n, integrations)
                    block, got = run_accumulator(source(stored, input_type), backend,
                                                 input_type, n, integrations)
                    self.assertEqual(got.shape, (outputs, n))
                    self.assertEqual(block.frames_skipped(), 0)
                    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-12)
                    # numpy: mean |X|^2 / n^2 of the dequantised frames, DC centred
                    # (window none: a tone of amplitude A reads A^2 in its bin).
                    frames = values.astype(np.complex128).reshape(-1, integrations, n)
                    power = np.abs(np.fft.fft(frames, axis=2)) ** 2 / n ** 2
                    want = np.fft.fftshift(power.mean(axis=1), axes=1)
                    np.testing.assert_allclose(got, want, rtol=2e-4,
                                               atol=1e-6 * want.max())


if __name__ == '__main__':
    gr_unittest.run(qa_input_types)
