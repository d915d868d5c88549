#!/usr/bin/env python3
#
# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""QA of the sparse_fft block against numpy.fft on random sparse signals."""

import threading
import time

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest

try:
    from gnuradio import gpufft
except ImportError:
    import os
    import sys
    dirname, filename = os.path.split(os.path.abspath(__file__))
    sys.path.append(os.path.join(dirname, "bindings"))
    from gnuradio import gpufft

# The engine promises values within 1e-5 of the exact DFT, relative to the largest |X|.
VALUE_TOL = 1e-5


def sparse_signal(rng, n, bins, frames=1):
    """`frames` frames of n samples, each with random complex amplitudes on `bins`
    (magnitudes 0.2 .. 1, distinct enough that the top-k set is unambiguous)."""
    out = []
    for _ in range(frames):
        spec = np.zeros(n, np.complex128)
        mags = rng.permutation(np.linspace(0.2, 1.0, len(bins)))
        spec[bins] = mags * n * np.exp(2j * np.pi * rng.random(len(bins)))
        out.append(np.fft.ifft(spec).astype(np.complex64))
    return np.concatenate(out)


def top_k(x, k):
    """numpy reference: the k largest coefficients of the DFT of complex64 x."""
    spec = np.fft.fft(x.astype(np.complex128))
    bins = np.sort(np.argsort(-np.abs(spec), kind="stable")[:k])
    return bins, spec[bins], spec


def display_reference(n, bins, values, display_bins):
    disp = np.full(display_bins, gpufft.sparse_fft.floor_db, np.float64)
    for b, v in zip(bins, values):
        d = ((int(b) + n // 2) % n) * display_bins // n
        disp[d] = max(disp[d], 20 * np.log10(max(abs(v) / n, 1e-30)))
    return disp


def random_bins(rng, n, k):
    """k distinct bins including DC, the last bin and an adjacent pair."""
    mid = int(rng.integers(2, n - 3))
    fixed = {0, n - 1, mid, mid + 1}
    rest = rng.choice(np.setdiff1d(np.arange(n), list(fixed)), k - len(fixed), replace=False)
    return np.array(sorted(fixed | set(int(b) for b in rest)))


class flowgraph:
    """source -> sparse_fft -> (vector sink), messages stored by a message_debug."""

    def __init__(self, x, block, tags=(), display=True):
        self.tb = gr.top_block()
        self.src = blocks.vector_source_c(x.tolist(), False, 1, list(tags))
        self.block = block
        self.msgs = blocks.message_debug()
        self.tb.connect(self.src, block)
        self.tb.msg_connect(block, "coefficients", self.msgs, "store")
        self.sink = None
        if display:
            self.sink = blocks.vector_sink_f(block.display_bins())
            self.tb.connect(block, self.sink)

    def run(self):
        self.tb.run()
        return [pmt.to_python(self.msgs.get_message(i)) for i in range(self.msgs.num_messages())]

    def display(self):
        return np.array(self.sink.data()).reshape(-1, self.block.display_bins())


def make_tag(offset, key, value):
    t = gr.tag_t()
    t.offset = offset
    t.key = pmt.intern(key)
    t.value = value
    return t


class qa_sparse_fft(gr_unittest.TestCase):

    def setUp(self):
        # Fresh inputs every run; the seed is in the failure messages to replay one.
        self.seed = np.random.SeedSequence().entropy
        self.rng = np.random.default_rng(self.seed)

    def check_frame(self, msg, x, k, rate, center=0.0):
        n = len(x)
        bins, values, spec = top_k(x, k)
        np.testing.assert_array_equal(np.asarray(msg["bins"], np.int64), bins,
                                      f"seed {self.seed}")
        got = np.asarray(msg["values"])
        scale = np.abs(spec).max()
        err = np.abs(got - values).max() / scale
        self.assertLessEqual(err, VALUE_TOL,
                             f"value error {err:.2e} relative to max |X|, seed {self.seed}")
        np.testing.assert_allclose(msg["freqs"], center + np.fft.fftfreq(n, 1.0 / rate)[bins],
                                   rtol=0, atol=1e-6 * rate)
        np.testing.assert_allclose(msg["power_db"], 20 * np.log10(np.abs(values) / n),
                                   rtol=0, atol=1e-3)
        self.assertEqual(msg["fft_size"], n)
        return bins, values

    def random_frames(self, n, k, frames, display_bins, rate):
        xs = [sparse_signal(self.rng, n, random_bins(self.rng, n, k)) for _ in range(frames)]
        fg = flowgraph(np.concatenate(xs), gpufft.sparse_fft(n, k, rate, display_bins))
        msgs = fg.run()
        self.assertEqual(len(msgs), frames)
        disp = fg.display()
        self.assertEqual(disp.shape, (frames, display_bins))
        for i, (msg, x) in enumerate(zip(msgs, xs)):
            self.assertEqual(msg["frame"], i)
            self.assertEqual(msg["offset"], i * n)
            self.assertNotIn("rx_time", msg)
            bins, values = self.check_frame(msg, x, k, rate)
            np.testing.assert_allclose(disp[i], display_reference(n, bins, values, display_bins),
                                       rtol=0, atol=1e-3)
        self.assertEqual(fg.block.frames_processed(), frames)
        self.assertEqual(fg.block.frames_skipped(), 0)
        return fg.block

    def test_001_random_sparse_vs_numpy(self):
        # Large enough for the engine's sublinear path (not its dense fallback).
        block = self.random_frames(2**18, 12, 3, 1000, 2.5e6)
        self.assertNotIn("dense", block.describe())

    def test_001b_random_sparse_vs_numpy_small(self):
        # Small frames: the engine's dense FFT + top-k; the block must not care.
        self.random_frames(4096, 12, 4, 256, 2.5e6)

    def test_002_non_power_of_two_and_fewer_tones_than_k(self):
        # 3 * 2^12 samples; k above the number of tones: the tones must be among the bins.
        n, k, tones = 3 * 4096, 20, 7
        bins = random_bins(self.rng, n, tones)
        x = sparse_signal(self.rng, n, bins)
        msgs = flowgraph(x, gpufft.sparse_fft(n, k, 1e6, 100), display=False).run()
        self.assertEqual(len(msgs), 1)
        got = np.asarray(msgs[0]["bins"])
        self.assertLessEqual(len(got), k)
        self.assertTrue(set(bins) <= set(got.tolist()), f"missed {set(bins) - set(got.tolist())}")
        spec = np.fft.fft(x.astype(np.complex128))
        err = np.abs(np.asarray(msgs[0]["values"]) - spec[got]).max() / np.abs(spec).max()
        self.assertLessEqual(err, VALUE_TOL)

    def test_003_tags_time_freq_rate(self):
        n, k, frames, rate = 2048, 6, 5, 1e6
        # the frames cross a whole second: rx_time carries into the seconds
        tag_rate, center, t_secs, t_frac = 4e6, 2.4e9, 1700000000, 0.9995
        retune_frame, new_center = 3, 915e6
        xs = [sparse_signal(self.rng, n, random_bins(self.rng, n, k)) for _ in range(frames)]
        tags = [
            make_tag(0, "rx_time", pmt.make_tuple(pmt.from_uint64(t_secs), pmt.from_double(t_frac))),
            make_tag(0, "rx_rate", pmt.from_double(tag_rate)),
            make_tag(0, "rx_freq", pmt.from_double(center)),
            # a retune tag in the middle of frame 2 applies from frame 3 on
            make_tag(2 * n + n // 2, "rx_freq", pmt.from_double(new_center)),
            make_tag(n + 1, "ignored", pmt.PMT_T),
        ]
        fg = flowgraph(np.concatenate(xs), gpufft.sparse_fft(n, k, rate, 64), tags)
        msgs = fg.run()
        self.assertEqual(len(msgs), frames)
        for i, (msg, x) in enumerate(zip(msgs, xs)):
            c = new_center if i >= retune_frame else center
            self.assertEqual(msg["sample_rate"], tag_rate)
            self.assertEqual(msg["center_freq"], c)
            self.check_frame(msg, x, k, tag_rate, c)
            secs, frac = msg["rx_time"]
            expect = t_frac + i * n / tag_rate
            self.assertEqual(secs, t_secs + int(expect))
            self.assertAlmostEqual(frac, expect - int(expect), places=12)

        out_tags = {}
        for t in fg.sink.tags():
            out_tags.setdefault(pmt.symbol_to_string(t.key), []).append(
                (t.offset, pmt.to_python(t.value)))
        self.assertNotIn("ignored", out_tags)
        self.assertEqual([o for o, _ in out_tags["rx_time"]], list(range(frames)))
        for offset, (secs, frac) in out_tags["rx_time"]:
            self.assertAlmostEqual((secs - t_secs) + frac, t_frac + offset * n / tag_rate,
                                   places=12)
        self.assertEqual(out_tags["rx_freq"], [(0, center), (retune_frame, new_center)])
        self.assertEqual(out_tags["rx_rate"], [(0, tag_rate)])

    def test_004_nan_frame_reported_and_skipped(self):
        n, k, frames, bad = 1024, 5, 4, 1
        xs = [sparse_signal(self.rng, n, random_bins(self.rng, n, k)) for _ in range(frames)]
        xs[bad][int(self.rng.integers(n))] = np.nan
        xs[bad + 1][int(self.rng.integers(n))] = np.inf + 0j
        fg = flowgraph(np.concatenate(xs), gpufft.sparse_fft(n, k, 1e6, 32))
        msgs = fg.run()
        self.assertEqual(len(msgs), frames)
        for i, msg in enumerate(msgs):
            self.assertEqual(msg["frame"], i)
            self.assertEqual(msg["offset"], i * n)
            if i in (bad, bad + 1):
                self.assertIn("non-finite", msg["error"])
                self.assertEqual(len(msg["bins"]), 0)
            else:
                self.assertNotIn("error", msg)
                self.check_frame(msg, xs[i], k, 1e6)
        self.assertEqual(fg.display().shape[0], frames - 2)
        self.assertEqual(fg.block.frames_skipped(), 2)
        self.assertEqual(fg.block.frames_processed(), frames - 2)

    def check_hop(self, n, hop, total):
        k = 8
        # Tones on exact bins are n-periodic, so every window of n samples is k-sparse.
        x = np.tile(sparse_signal(self.rng, n, random_bins(self.rng, n, k)), total // n + 2)
        x = x[:total]
        x = (x * np.exp(1j * self.rng.random())).astype(np.complex64)
        starts = list(range(0, total - n + 1, hop))
        # With the display output the block reads whole frames in place from GNU Radio's
        # buffer where it can; without it (a sink) it assembles them in its own buffer.
        for display in (True, False):
            fg = flowgraph(x, gpufft.sparse_fft(n, k, 1e6, 16, hop), display=display)
            msgs = fg.run()
            self.assertEqual([m["offset"] for m in msgs], starts)
            for m in msgs:
                self.check_frame(m, x[m["offset"]:m["offset"] + n], k, 1e6)
            if display:
                self.assertEqual(fg.display().shape[0], len(starts))

    def test_005_overlapping_frames(self):
        self.check_hop(1024, 384, 10 * 1024)

    def test_006_decimated_frames(self):
        self.check_hop(1024, 2500, 12 * 1024)

    def test_007_messages_only(self):
        n, k, frames = 1024, 4, 6
        xs = [sparse_signal(self.rng, n, random_bins(self.rng, n, k)) for _ in range(frames)]
        msgs = flowgraph(np.concatenate(xs), gpufft.sparse_fft(n, k, 1e6), display=False).run()
        self.assertEqual(len(msgs), frames)
        for msg, x in zip(msgs, xs):
            self.check_frame(msg, x, k, 1e6)

    def test_008_bad_parameters(self):
        good = dict(fft_size=1024, k=10, sample_rate=1e6, display_bins=64, hop=0,
                    backend="auto", device_id=0)
        for name, value in [("fft_size", 8), ("k", 0), ("k", 1024), ("k", -3),
                            ("sample_rate", 0.0), ("sample_rate", float("nan")),
                            ("display_bins", 0), ("display_bins", 2048), ("hop", -1),
                            ("backend", "opencl"), ("device_id", -1)]:
            with self.assertRaises(ValueError, msg=f"{name}={value}") as cm:
                gpufft.sparse_fft(**dict(good, **{name: value}))
            self.assertIn(name, str(cm.exception))
        b = gpufft.sparse_fft(**good)
        for k in (0, 1024):
            with self.assertRaises(ValueError) as cm:
                b.set_k(k)
            self.assertIn("k", str(cm.exception))
        with self.assertRaises(ValueError):
            b.set_sample_rate(-1.0)
        self.assertEqual(b.k(), 10)

    def test_009_set_k(self):
        n, k = 2048, 12
        xs = [sparse_signal(self.rng, n, random_bins(self.rng, n, k)) for _ in range(3)]
        block = gpufft.sparse_fft(n, 4, 1e6, 16)
        block.set_k(k)
        self.assertEqual(block.k(), k)
        msgs = flowgraph(np.concatenate(xs), block).run()
        for msg, x in zip(msgs, xs):
            self.check_frame(msg, x, k, 1e6)

    def test_010_set_k_while_running(self):
        # A GUI thread changing k under a running flowgraph: every frame uses one of the
        # two values, none is lost, nothing crashes.
        n, frames, ks = 512, 400, (3, 9)
        x = np.tile(sparse_signal(self.rng, n, random_bins(self.rng, n, max(ks))), frames)
        block = gpufft.sparse_fft(n, ks[0], 1e6, 16)
        fg = flowgraph(x, block, display=False)
        stop = threading.Event()

        def toggle():
            i = 0
            while not stop.is_set():
                block.set_k(ks[i % 2])
                i += 1
                time.sleep(0.005)

        t = threading.Thread(target=toggle)
        t.start()
        try:
            msgs = fg.run()
        finally:
            stop.set()
            t.join()
        self.assertEqual(len(msgs), frames)
        self.assertTrue(all(len(m["bins"]) in ks for m in msgs))

    def test_011_cuda_backend(self):
        n, k = 4096, 10
        if not gpufft.cuda_available(0):
            with self.assertRaises(RuntimeError):
                gpufft.sparse_fft(n, k, 1e6, backend="cuda")
            return
        x = sparse_signal(self.rng, n, random_bins(self.rng, n, k))
        block = gpufft.sparse_fft(n, k, 1e6, backend="cuda")
        self.assertEqual(block.backend(), "cuda")
        msgs = flowgraph(x, block).run()
        self.check_frame(msgs[0], x, k, 1e6)


if __name__ == "__main__":
    gr_unittest.run(qa_sparse_fft)
