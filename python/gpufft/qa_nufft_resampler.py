#!/usr/bin/env python3
#
# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""QA for gpufft.nufft_resampler: a band-limited signal sampled at jittered times, resampled
onto a uniform grid and compared with the true signal there (SNR >= 60 dB at eps = 1e-6)."""

import os
import numpy as np
from gnuradio import gr, gr_unittest, blocks

try:
    from gnuradio import gpufft
except ImportError:
    import os
    import sys
    dirname, filename = os.path.split(os.path.abspath(__file__))
    sys.path.append(os.path.join(dirname, "bindings"))
    from gnuradio import gpufft


from qa_backends import backends
from qa_tags import f64_source, tags_named, time_parts


class qa_nufft_resampler(gr_unittest.TestCase):

    def setUp(self):
        # Fresh inputs every run; the seed is printed, and GPUFFT_QA_SEED=<seed> replays it.
        self.seed = int(os.environ.get("GPUFFT_QA_SEED", np.random.SeedSequence().entropy))
        print(f"{self.id()}: seed {self.seed}")
        self.rng = np.random.default_rng(self.seed)
        self.epoch = 1_700_000_000
        fs, self.bw = 1000.0, 250.0
        n = 12000
        # Jittered ADC: nominal 1 kHz, +-30 % of a period, an hour into the stream.
        self.t = 3600.0 + (np.arange(n) + 0.3 * self.rng.uniform(-1, 1, n)) / fs
        self.f0 = self.rng.uniform(-0.45 * self.bw, 0.45 * self.bw, 30)
        self.a0 = self.rng.normal(size=30) + 1j * self.rng.normal(size=30)

    def signal(self, t):
        t = np.asarray(t)
        out = np.zeros(len(t), np.complex128)
        for f, a in zip(self.f0, self.a0):
            out += a * np.exp(2j * np.pi * f * (t - 3600.0))
        return out

    def run_block(self, block, x, t):
        tb = gr.top_block()
        src = blocks.vector_source_c(x.astype(np.complex64).tolist())
        tsrc = f64_source(t)  # a Python block must outlive the run
        sink = blocks.vector_sink_c()
        tb.connect(src, (block, 0))
        tb.connect(tsrc, (block, 1))
        tb.connect(block, sink)
        tb.run()
        times = tags_named(sink.tags(), "rx_time")
        return np.array(sink.data()), times

    def grid_times(self, y, times, rate):
        """Output sample times (offsets after the epoch) from the rx_time tags."""
        tau = np.empty(len(y))
        for i, tg in enumerate(times):
            end = times[i + 1].offset if i + 1 < len(times) else len(y)
            whole, frac = time_parts(tg.value)
            whole -= self.epoch
            tau[tg.offset:end] = whole + frac + np.arange(end - tg.offset) / rate
        return tau

    def test_001_jittered_tones_reach_60_db(self):
        rate = 400.0
        x = self.signal(self.t)
        for backend in backends():
            with self.subTest(backend=backend):
                block = gpufft.nufft_resampler(rate, self.bw, 1024, 128, 1e-6, self.epoch,
                                               backend=backend)
                y, times = self.run_block(block, x, self.t)
                self.assertEqual(len(times), 1)
                self.assertEqual(times[0].offset, 0)
                tau = self.grid_times(y, times, rate)
                # The grid starts at input sample `overlap` and covers the stream but its ends.
                self.assertAlmostEqual(tau[0], self.t[128], places=9)
                self.assertGreater(len(y), 0.9 * (self.t[-1] - self.t[0]) * rate)
                ref = self.signal(tau)
                snr = 10 * np.log10(np.sum(abs(ref) ** 2) / np.sum(abs(y - ref) ** 2))
                print(f"{backend}: {len(y)} samples, SNR {snr:.1f} dB")
                self.assertGreaterEqual(snr, 60.0)
                self.assertEqual(block.frames_skipped(), 0)

    def test_002_nan_frame_is_skipped_and_time_retagged(self):
        for backend in backends():
            with self.subTest(backend=backend):
                rate = 300.0
                x = self.signal(self.t)
                x[5000] = np.nan
                block = gpufft.nufft_resampler(rate, self.bw, 1024, 128, 1e-6, self.epoch,
                                               backend=backend)
                y, times = self.run_block(block, x, self.t)
                self.assertGreaterEqual(block.frames_skipped(), 1)
                self.assertEqual(len(times), 2)
                self.assertTrue(np.all(np.isfinite(y)))
                tau = self.grid_times(y, times, rate)
                ref = self.signal(tau)
                snr = 10 * np.log10(np.sum(abs(ref) ** 2) / np.sum(abs(y - ref) ** 2))
                self.assertGreaterEqual(snr, 60.0)

    def test_003_float32_deviations_from_a_nominal_grid(self):
        # The form GRC can feed: sample n at epoch + n / fs + deviation[n] (float32).
        for backend in backends():
            with self.subTest(backend=backend):
                fs, rate = 1000.0, 400.0
                n = len(self.t)
                dev = (0.3 * self.rng.uniform(-1, 1, n) / fs).astype(np.float32)
                t = np.arange(n) / fs + dev.astype(np.float64)  # seconds after the epoch
                x = self.signal(t + 3600.0)
                block = gpufft.nufft_resampler(rate, self.bw, 1024, 128, 1e-6,
                                               self.epoch + 3600, fs, backend=backend)
                tb = gr.top_block()
                src = blocks.vector_source_f(dev.tolist())
                sink = blocks.vector_sink_c()
                tb.connect(blocks.vector_source_c(x.astype(np.complex64).tolist()), (block, 0))
                tb.connect(src, (block, 1))
                tb.connect(block, sink)
                tb.run()
                y = np.array(sink.data())
                times = tags_named(sink.tags(), "rx_time")
                tau = self.grid_times(y, times, rate)  # seconds after self.epoch
                ref = self.signal(tau)
                snr = 10 * np.log10(np.sum(abs(ref) ** 2) / np.sum(abs(y - ref) ** 2))
                self.assertGreaterEqual(snr, 60.0)

    def test_005_long_frames_and_every_output_written(self):
        # A frame longer than GNU Radio's default buffers (8192 samples) must run, and the
        # outputs of the stream's last frame must be written after its input ended (at
        # twice the input rate, a frame's outputs take more than one call to write).
        L, overlap, rate = 8192, 512, 2000.0
        hop = L - 2 * overlap
        n = L + 2 * hop
        fs = 1000.0
        t = 3600.0 + (np.arange(n) + 0.3 * self.rng.uniform(-1, 1, n)) / fs
        x = self.signal(t)
        for backend in backends():
            with self.subTest(backend=backend):
                block = gpufft.nufft_resampler(rate, self.bw, L, overlap, 1e-6, self.epoch,
                                               backend=backend)
                y, times = self.run_block(block, x, t)
                self.assertEqual(block.frames_processed(), 3)
                # The grid covers [t[overlap], t[n - overlap]) in steps of 1 / rate.
                expect = (t[n - overlap] - t[overlap]) * rate
                print(f"{backend}: {len(y)} outputs, {expect:.1f} expected")
                self.assertLessEqual(abs(len(y) - expect), 1.0)
                tau = self.grid_times(y, times, rate)
                ref = self.signal(tau)
                snr = 10 * np.log10(np.sum(abs(ref) ** 2) / np.sum(abs(y - ref) ** 2))
                self.assertGreaterEqual(snr, 60.0)

    def test_004_parameters(self):
        with self.assertRaises(ValueError):
            gpufft.nufft_resampler(0.0, 1.0)
        with self.assertRaises(ValueError):
            gpufft.nufft_resampler(100.0, 200.0)
        with self.assertRaises(ValueError):
            gpufft.nufft_resampler(100.0, 50.0, 32)
        with self.assertRaises(ValueError):
            gpufft.nufft_resampler(100.0, 50.0, 1024, 512)


if __name__ == '__main__':
    gr_unittest.run(qa_nufft_resampler)
