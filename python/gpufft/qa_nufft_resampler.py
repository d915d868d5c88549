#!/usr/bin/env python3
#
# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""QA for gpufft.nufft_resampler: a band-limited signal sampled at jittered times, resampled
onto a uniform grid and compared with the true signal there (SNR >= 60 dB at eps = 1e-6)."""

import os
import subprocess
import sys
import time

import numpy as np
import pmt
import yaml
from gnuradio import gr, gr_unittest, blocks

try:
    from gnuradio import gpufft
except ImportError:
    import os
    import sys
    dirname, filename = os.path.split(os.path.abspath(__file__))
    sys.path.append(os.path.join(dirname, "bindings"))
    from gnuradio import gpufft


from testing_backends import backends
from testing_tags import f64_source, tags_named, time_parts

HERE = os.path.dirname(os.path.abspath(__file__))
GRC = os.path.join(HERE, "..", "..", "grc")


def run_logged(code):
    """Runs Python code in a fresh interpreter (GNU Radio's logger writes to the
    process's stdout or stderr) and returns its return code and everything it logged."""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=300, env=os.environ.copy(), cwd=HERE)
    return r.returncode, r.stdout + r.stderr


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
        # Issue 32 item 13: the range, not "must be a whole number of samples".
        for bad in (2**31, 2**24 + 1, 32):
            with self.assertRaisesRegex(ValueError, r"frame_len.*\[64, 16777216\]"):
                gpufft.nufft_resampler(100.0, 50.0, bad)
        block = gpufft.nufft_resampler(100.0, 50.0, backend="cpu")
        for bad in (0.0, -1.0, float("nan"), 10.0):  # 10 < bandwidth 50
            with self.assertRaisesRegex(ValueError, "output_rate|bandwidth"):
                block.set_output_rate(bad)
        for bad in (0.0, 200.0):
            with self.assertRaisesRegex(ValueError, "bandwidth"):
                block.set_bandwidth(bad)

    def gap_stream(self, gaps_at, gap):
        """The jittered stream with `gap` seconds added before each sample in gaps_at."""
        t = self.t.copy()
        for j in gaps_at:
            t[j:] += gap
        return t

    def test_006_gaps_are_tagged_and_warned(self):
        # Issue 32 item 11: a gap of 6 / bandwidth (past the 2 / bandwidth the fit bridges)
        # used to pass without a word, the outputs around it at ~10 dB.
        rate = 400.0
        gap = 6.0 / self.bw
        t = self.gap_stream([5000], gap)
        x = self.signal(t)
        for backend in backends():
            with self.subTest(backend=backend):
                block = gpufft.nufft_resampler(rate, self.bw, 1024, 128, 1e-6, self.epoch,
                                               backend=backend)
                tb = gr.top_block()
                sink = blocks.vector_sink_c()
                tsrc = f64_source(t)
                tb.connect(blocks.vector_source_c(x.astype(np.complex64).tolist()),
                           (block, 0))
                tb.connect(tsrc, (block, 1))
                tb.connect(block, sink)
                tb.run()
                y = np.array(sink.data())
                times = tags_named(sink.tags(), "rx_time")
                tau = self.grid_times(y, times, rate)
                gaps = tags_named(sink.tags(), "gap")
                self.assertEqual(block.gaps_found(), 1)
                self.assertEqual(len(gaps), 1)
                g = gaps[0]
                duration = pmt.to_double(pmt.dict_ref(g.value, pmt.mp("duration"), pmt.PMT_NIL))
                count = pmt.to_uint64(pmt.dict_ref(g.value, pmt.mp("samples"), pmt.PMT_NIL))
                self.assertAlmostEqual(duration, t[5000] - t[4999], places=9)
                # The tagged outputs are those within 1 / bandwidth of the gap ...
                near = (tau > t[4999] - 1 / self.bw) & (tau < t[5000] + 1 / self.bw)
                self.assertEqual(g.offset, int(np.argmax(near)))
                self.assertEqual(count, int(near.sum()))
                # ... which are the broken ones; the rest keep 60 dB.
                ref = self.signal(tau)
                err = abs(y - ref) ** 2
                snr_near = 10 * np.log10(np.sum(abs(ref[near]) ** 2) / np.sum(err[near]))
                snr_far = 10 * np.log10(np.sum(abs(ref[~near]) ** 2) / np.sum(err[~near]))
                print(f"{backend}: SNR {snr_near:.1f} dB near the gap, {snr_far:.1f} dB elsewhere")
                self.assertLess(snr_near, 40.0)
                self.assertGreaterEqual(snr_far, 60.0)
                # A gap within the limit is no gap.
                t2 = self.gap_stream([5000], 1.0 / self.bw)
                block2 = gpufft.nufft_resampler(rate, self.bw, 1024, 128, 1e-6, self.epoch,
                                                backend=backend)
                y2, _ = self.run_block(block2, self.signal(t2), t2)
                self.assertEqual(block2.gaps_found(), 0)

    def test_007_warnings_are_rate_limited(self):
        # Many gaps, and times given in ms (every frame refused: too few samples for the
        # band), each warn once, not once per gap or frame.
        code = (
            "import numpy as np\n"
            "from gnuradio import gr, blocks, gpufft\n"
            "from testing_tags import f64_source\n"
            "n = 40000\n"
            "t = np.arange(n) / 1000.0\n"
            "for j in range(2000, n, 500):\n"
            "    t[j:] += 0.05\n"
            "for times in (t, t * 1000.0):\n"
            "    tb = gr.top_block()\n"
            "    r = gpufft.nufft_resampler(400.0, 250.0, 1024, 128, 1e-6, backend='cpu')\n"
            "    ts = f64_source(times)\n"
            "    tb.connect(blocks.vector_source_c([1.0 + 0j] * n), (r, 0))\n"
            "    tb.connect(ts, (r, 1))\n"
            "    tb.connect(r, blocks.null_sink(gr.sizeof_gr_complex))\n"
            "    tb.run()\n"
            "    print('gaps', r.gaps_found(), 'skipped', r.frames_skipped())\n")
        rc, log = run_logged(code)
        self.assertEqual(rc, 0, log)
        print(log)
        gap_lines = [l for l in log.splitlines() if "longer than 2 / bandwidth" in l]
        skip_lines = [l for l in log.splitlines() if "skipped (" in l and "frame at" in l]
        counts = [l.split() for l in log.splitlines() if l.startswith("gaps ")]
        self.assertEqual(len(counts), 2, log)
        self.assertGreaterEqual(int(counts[0][1]), 70)  # gaps found, each tagged
        self.assertGreaterEqual(int(counts[1][3]), 30)  # frames skipped
        self.assertEqual(len(gap_lines), 1, log)
        self.assertEqual(len(skip_lines), 1, log)

    def test_008_cmd_port_sets_rate_and_bandwidth(self):
        # Issue 32 item 11: output rate and bandwidth change at run time, through the
        # setters and the cmd port; the next frame takes them, starting a new grid.
        block = gpufft.nufft_resampler(400.0, self.bw, 1024, 128, 1e-6, self.epoch,
                                       backend="cpu")
        block.set_output_rate(500.0)
        block.set_bandwidth(200.0)
        self.assertEqual(block.output_rate(), 500.0)
        self.assertEqual(block.bandwidth(), 200.0)
        # Through the port, mid-stream: a flowgraph whose input is throttled so the
        # message lands between frames.
        x = self.signal(self.t)
        block = gpufft.nufft_resampler(400.0, self.bw, 1024, 128, 1e-6, self.epoch,
                                       backend="cpu")
        tb = gr.top_block()
        sink = blocks.vector_sink_c()
        tsrc = f64_source(self.t)
        thr = blocks.throttle(gr.sizeof_gr_complex, 4000)
        tb.connect(blocks.vector_source_c(x.astype(np.complex64).tolist()), thr, (block, 0))
        tb.connect(tsrc, (block, 1))
        tb.connect(block, sink)
        tb.start()
        time.sleep(1.2)
        port = pmt.intern("cmd")
        block.to_basic_block()._post(port, pmt.to_pmt({"output_rate": 250.0}))
        block.to_basic_block()._post(port, pmt.to_pmt({"bandwidth": "wide"}))  # refused
        block.to_basic_block()._post(port, pmt.to_pmt({"speed": 2.0}))  # unknown
        tb.wait()
        self.assertEqual(block.output_rate(), 250.0)
        self.assertEqual(block.bandwidth(), self.bw)
        rates = [pmt.to_double(tg.value) for tg in tags_named(sink.tags(), "rx_rate")]
        self.assertEqual(rates, [400.0, 250.0])
        times = tags_named(sink.tags(), "rx_time")
        self.assertEqual(len(times), 2)
        change = tags_named(sink.tags(), "rx_rate")[1].offset
        self.assertEqual(times[1].offset, change)
        y = np.array(sink.data())
        tau = np.concatenate([self.grid_times(y[:change], times[:1], 400.0),
                              self.grid_times(y, times, 250.0)[change:]])
        ref = self.signal(tau)
        snr = 10 * np.log10(np.sum(abs(ref) ** 2) / np.sum(abs(y - ref) ** 2))
        print(f"rate change at output {change}: SNR {snr:.1f} dB")
        self.assertGreaterEqual(snr, 60.0)
        # The second segment is on a 250 Hz grid.
        self.assertGreater(len(y) - change, 100)

    def test_009_grc_default_takes_stock_float_times(self):
        # Issue 32 item 12: GRC's default was Nominal Rate 0, a float64 time port that no
        # stock block produces. The default is samp_rate now: a float32 port.
        for name in ("gpufft_nufft_resampler", "gpufft_nufft3_spectrum"):
            with open(os.path.join(GRC, name + ".block.yml")) as f:
                spec = yaml.safe_load(f)
            params = {p["id"]: p for p in spec["parameters"]}
            default = str(params["nominal_rate"]["default"])
            value = eval(default, {"samp_rate": 32000.0})
            self.assertGreater(value, 0, name)
            time_port = [p for p in spec["inputs"] if p.get("label") == "time"][0]
            dtype = time_port["dtype"].strip()[2:-1].strip()  # ${ ... }
            self.assertEqual(eval(dtype, {"nominal_rate": value}), "float", name)
            doc = spec["documentation"]
            self.assertIn("float32 deviations", doc, name)
            self.assertIn("float64", doc, name)
        # And stock blocks run it: a float Null Source for samples on the grid.
        fs = 1000.0
        n = 6000
        t = np.arange(n) / fs
        x = self.signal(t + 3600.0)
        block = gpufft.nufft_resampler(400.0, self.bw, 1024, 128, 1e-6, self.epoch + 3600,
                                       fs, backend="cpu")
        tb = gr.top_block()
        sink = blocks.vector_sink_c()
        tb.connect(blocks.vector_source_c(x.astype(np.complex64).tolist()), (block, 0))
        tb.connect(blocks.null_source(gr.sizeof_float), blocks.head(gr.sizeof_float, n),
                   (block, 1))
        tb.connect(block, sink)
        tb.run()
        y = np.array(sink.data())
        tau = self.grid_times(y, tags_named(sink.tags(), "rx_time"), 400.0)
        ref = self.signal(tau)
        snr = 10 * np.log10(np.sum(abs(ref) ** 2) / np.sum(abs(y - ref) ** 2))
        self.assertGreaterEqual(snr, 60.0)

    def test_010_help_shows_the_class_documentation(self):
        # Issue 32 item 13: help() showed no class documentation.
        for cls in (gpufft.nufft_resampler, gpufft.nufft3_spectrum):
            doc = cls.__doc__ or ""
            self.assertGreater(len(doc), 200, cls)
            self.assertIn("nominal_rate", doc)
        self.assertIn("gap", gpufft.nufft_resampler.__doc__)
        self.assertIn("frame_len", gpufft.nufft_resampler.__init__.__doc__)


if __name__ == '__main__':
    gr_unittest.run(qa_nufft_resampler)
