#!/usr/bin/env python3
#
# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""QA of the sparse_fft block's signal outputs (issue #29 item 4, issue #32 items 2, 13):
the `detections` PDU per frame and the `transmissions` PDUs, taken by GNU Radio's stock
PDU blocks; truncated frames, zeros and NaN frames; the new parameters and setters; the
memory check under `ulimit -v` (in a subprocess, never without a limit); describe()
logged once. CPU backend throughout.

Frames are numpy frames of tones plus complex white noise of variance s2 per sample (a
tone of amplitude a has n |a|^2 / s2 per-bin SNR in an n-point FFT), and a QPSK carrier
from a band-limited pulse. The reference for every frame's signals is the library's own
sensing_plan on the same samples (what the block must report in robust mode's dense
path), and the truth of where the tones are.

Every test draws fresh random data and prints its seed; set GPUFFT_QA_SEED to replay one.
"""

import os
import resource
import subprocess
import sys
import textwrap

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest, pdu

try:
    from gnuradio import gpufft
except ImportError:
    dirname, filename = os.path.split(os.path.abspath(__file__))
    sys.path.append(os.path.join(dirname, "bindings"))
    from gnuradio import gpufft

from testing_backends import backends
from testing_tags import tag, time_value

# The per-signal keys of a detections PDU: sensing_plan.detect()'s, and the same in Hz.
SIGNAL_KEYS = ("center_bin", "lower_bin", "upper_bin", "bandwidth_bins", "peak_power_dbfs",
               "total_power_dbfs", "snr_db", "floor_dbfs", "first_bin", "last_bin", "dc",
               "narrow", "tone_refined", "held", "tone_bin", "tone_amplitude", "center_hz",
               "lower_hz", "upper_hz", "bandwidth_hz")
FRAME_KEYS = ("frame", "first_sample", "fft_size", "samp_rate", "center_freq",
              "truncated", "noise_floor_dbfs", "bins_above", "bands_found", "threshold_db",
              "held_threshold_db")
# A noise peak over the threshold per frame, for the tests that count signals exactly
# (the QPSK + CW reproduction runs at the default 0.01 and allows one): over the few
# hundred frames these tests run, a noise peak is then a ~1e-5 event (1e-4 at 1e-6).
FALSE_ALARM = 1e-7
TRANSMISSION_KEYS = ("id", "start_sample", "sample_count", "start_s", "duration_s",
                     "center_hz", "lower_hz", "upper_hz", "bandwidth_hz",
                     "peak_power_dbfs", "mean_snr_db", "frames", "dc")


def tones(n_total, rate, freqs, amps, rng):
    """sum_j a_j exp(2 pi i f_j t / rate + phase_j), complex128."""
    t = np.arange(n_total)
    x = np.zeros(n_total, np.complex128)
    for f, a in zip(freqs, amps):
        x += a * np.exp(2j * np.pi * (f / rate * t + rng.random()))
    return x


def noise(n_total, s2, rng):
    return (rng.normal(size=n_total) + 1j * rng.normal(size=n_total)) * np.sqrt(s2 / 2)


def qpsk(n_total, rate, f, snr_db, s2, rng, sps=16):
    """A QPSK carrier at f Hz, symbol rate rate / sps, shaped by a Blackman-windowed
    sinc (sidelobes under the noise), snr_db per bin on average over its band: power P
    spread over n / sps bins gives P sps / s2 per bin."""
    sym = (rng.choice([-1, 1], n_total // sps + 64)
           + 1j * rng.choice([-1, 1], n_total // sps + 64)) / np.sqrt(2)
    up = np.zeros(len(sym) * sps, np.complex128)
    up[::sps] = sym
    t = np.arange(-128, 129)
    h = np.sinc(t / sps) * np.blackman(len(t))
    h /= np.sqrt(np.sum(h ** 2))
    bb = np.convolve(up, h)[:n_total]
    amp = np.sqrt(10 ** (snr_db / 10) * s2)  # bb has power 1 / sps a sample
    return amp * bb * np.exp(2j * np.pi * f / rate * np.arange(n_total))


def messages(dbg):
    return [dbg.get_message(i) for i in range(dbg.num_messages())]


def meta_of(msg):
    """The metadata dict of a PDU as Python (an empty dict comes back as None)."""
    return pmt.to_python(pmt.car(msg)) or {}


class flowgraph:
    """numpy samples -> sparse_fft, its three message ports stored."""

    def __init__(self, x, block, tags=(), display=True):
        self.tb = gr.top_block()
        self.src = blocks.vector_source_c(np.asarray(x, np.complex64).tolist(), False, 1,
                                          list(tags))
        self.block = block
        self.det, self.tx, self.coef = (blocks.message_debug() for _ in range(3))
        self.tb.connect(self.src, block)
        self.tb.msg_connect(block, "detections", self.det, "store")
        self.tb.msg_connect(block, "transmissions", self.tx, "store")
        self.tb.msg_connect(block, "coefficients", self.coef, "store")
        if display:
            self.sink = blocks.vector_sink_f(block.display_bins())
            self.tb.connect(block, self.sink)

    def run(self):
        self.tb.run()
        return messages(self.det), messages(self.tx)

    def release(self):
        """Drops the block's message subscriptions, so it can run in another flowgraph
        once this one's message_debug blocks are gone."""
        for port, dbg in (("detections", self.det), ("transmissions", self.tx),
                          ("coefficients", self.coef)):
            self.tb.msg_disconnect(self.block, port, dbg, "store")


class qa_sparse_fft_detections(gr_unittest.TestCase):

    def setUp(self):
        self.seed = int(os.environ.get("GPUFFT_QA_SEED", np.random.SeedSequence().entropy))
        self.rng = np.random.default_rng(self.seed)
        print(f"{self.id()}: seed {self.seed}")

    def check_pdu(self, msg, center_freq):
        """A detections PDU's layout: (dict . f32vector of 4 a signal), every key there,
        the vector what the dict says."""
        self.assertTrue(pmt.is_pair(msg) and pmt.is_dict(pmt.car(msg)))
        self.assertTrue(pmt.is_f32vector(pmt.cdr(msg)))
        meta = meta_of(msg)
        for key in FRAME_KEYS + SIGNAL_KEYS:
            self.assertIn(key, meta)
        m = len(meta["center_bin"])
        for key in SIGNAL_KEYS:
            self.assertEqual(len(meta[key]), m, key)
        self.assertTrue(pmt.is_u8vector(pmt.dict_ref(pmt.car(msg), pmt.intern("dc"),
                                                      pmt.PMT_NIL)))
        self.assertTrue(pmt.is_c32vector(pmt.dict_ref(pmt.car(msg),
                                                      pmt.intern("tone_amplitude"),
                                                      pmt.PMT_NIL)))
        vec = np.array(pmt.f32vector_elements(pmt.cdr(msg))).reshape(-1, 4)
        self.assertEqual(len(vec), m)
        if m:
            want = np.column_stack([np.asarray(meta["center_hz"]) - center_freq,
                                    meta["bandwidth_hz"], meta["peak_power_dbfs"],
                                    meta["snr_db"]]).astype(np.float32)
            np.testing.assert_array_equal(vec, want)
            df = meta["samp_rate"] / meta["fft_size"]
            np.testing.assert_allclose(meta["center_hz"],
                                       center_freq + np.asarray(meta["center_bin"]) * df,
                                       rtol=0, atol=1e-6)
            np.testing.assert_allclose(meta["bandwidth_hz"],
                                       np.asarray(meta["bandwidth_bins"]) * df,
                                       rtol=1e-9, atol=1e-6)
        return meta

    def test_001_qpsk_and_cw_k32(self):
        # Issue #29's reproduction: a QPSK carrier at about 37 dB per bin and a CW tone at
        # 25 dB per bin, k = 32. The tone was found 0 times in 10 (k tones all on the
        # carrier); now in 10 of 10 frames, through stock PDU blocks.
        n, rate, frames, k, s2, fc = 4096, 1e6, 10, 32, 1e-4, 433e6
        total = n * frames
        f_cw = -200e3 + self.rng.uniform(-2e3, 2e3)
        x = (qpsk(total, rate, 100e3, 37, s2, self.rng)
             + tones(total, rate, [f_cw], [np.sqrt(10 ** 2.5 * s2 / n)], self.rng)
             + noise(total, s2, self.rng)).astype(np.complex64)
        block = gpufft.sparse_fft(n, k, rate, 256, backend="cpu")
        fg = flowgraph(x, block, [tag(0, "rx_freq", pmt.from_double(fc))], display=False)
        # Stock blocks on the same port: print_pdu, pdu_to_tagged_stream (float),
        # pdu_set and pdu_filter (on the key pdu_set added).
        printer = blocks.message_debug()
        fg.tb.msg_connect(block, "detections", printer, "print_pdu")
        to_stream = pdu.pdu_to_tagged_stream(gr.types.float_t, "packet_len")
        floats = blocks.vector_sink_f()
        fg.tb.msg_connect(block, "detections", to_stream, "pdus")
        fg.tb.connect(to_stream, floats)
        setter = pdu.pdu_set(pmt.intern("site"), pmt.intern("roof"))
        keep = pdu.pdu_filter(pmt.intern("truncated"), pmt.PMT_F)
        kept = blocks.message_debug()
        fg.tb.msg_connect(block, "detections", setter, "pdus")
        fg.tb.msg_connect(setter, "pdus", keep, "pdus")
        fg.tb.msg_connect(keep, "pdus", kept, "store")
        dets, txs = fg.run()
        self.assertEqual(len(dets), frames)
        reference = gpufft.sensing_plan(n, backend="cpu", max_signals=k)
        found, vectors = 0, []
        for i, msg in enumerate(dets):
            meta = self.check_pdu(msg, fc)
            self.assertEqual(meta["frame"], i)
            self.assertEqual(meta["first_sample"], i * n)
            self.assertEqual(meta["center_freq"], fc)
            # The block's signals are the library's, frame for frame.
            r = reference.detect(x[i * n:(i + 1) * n])
            for key in ("center_bin", "lower_bin", "upper_bin", "peak_power_dbfs",
                        "snr_db", "first_bin", "last_bin"):
                np.testing.assert_array_equal(np.asarray(meta[key], float),
                                              np.asarray(r[key], float), key)
            np.testing.assert_array_equal(np.asarray(meta["dc"], bool), r["dc"])
            self.assertEqual(meta["truncated"], r["truncated"])
            c = np.asarray(meta["center_hz"])
            found += bool(np.any(np.abs(c - (fc + f_cw)) < 2 * rate / n))
            vectors.append(np.array(pmt.f32vector_elements(pmt.cdr(msg)), np.float32))
        self.assertEqual(found, frames, f"CW found in {found} of {frames} frames, "
                                        f"seed {self.seed}")
        # pdu_to_tagged_stream streamed every vector, in order.
        np.testing.assert_array_equal(np.array(floats.data(), np.float32),
                                      np.concatenate(vectors))
        lens = [pmt.to_long(t.value) for t in floats.tags()
                if pmt.symbol_to_string(t.key) == "packet_len"]
        self.assertEqual(lens, [len(v) for v in vectors])
        # pdu_set added its key; pdu_filter kept the frames that are not truncated.
        want_kept = sum(not meta_of(m)["truncated"] for m in dets)
        self.assertEqual(kept.num_messages(), want_kept)
        for m in messages(kept):
            self.assertEqual(meta_of(m)["site"], "roof")
        # Two emitters on through the whole stream: each one transmission, from the first
        # sample to the last, sent at the end of the stream. (A noise peak over the
        # threshold, at false_alarm = 0.01 a frame, may add a short one.)
        ts = [meta_of(m) for m in txs]
        for f, name in ((fc + f_cw, "CW"), (fc + 100e3, "QPSK")):
            mine = [t for t in ts if t["lower_hz"] - rate / n <= f <= t["upper_hz"] + rate / n]
            self.assertEqual(len(mine), 1, f"{name}: {mine}, seed {self.seed}")
            self.assertEqual((mine[0]["start_sample"], mine[0]["sample_count"],
                              mine[0]["frames"]), (0, total, frames), name)
        self.assertEqual(block.frames_processed(), frames)

    def test_002_detections_pdu_feeds_sensing_run(self):
        # The demo's reader of the PDU (sensing_run.detections_from_pdu) takes the block's
        # PDUs and gives its sensor the same as sensing_plan.detect() on the frame.
        from gnuradio.gpufft import sensing_run
        n, rate, frames, s2, fc = 2048, 2e6, 3, 1e-4, 915e6
        total = n * frames
        x = (tones(total, rate, [-300e3, 250e3 + 333.0], [0.05, 0.02], self.rng)
             + noise(total, s2, self.rng)).astype(np.complex64)
        dets, _ = flowgraph(x, gpufft.sparse_fft(n, 16, rate, 64, backend="cpu"),
                            [tag(0, "rx_freq", pmt.from_double(fc))]).run()
        self.assertEqual(len(dets), frames)
        a = sensing_run.sensor(n, rate, fc, frames=frames, backend="cpu", max_signals=16)
        b = sensing_run.sensor(n, rate, fc, frames=frames, backend="cpu", max_signals=16)
        for i, msg in enumerate(dets):
            first, r = sensing_run.detections_from_pdu(msg)
            self.assertEqual(first, i * n)
            b.add(first, r)
            a.frame(i * n, x[i * n:(i + 1) * n])
        for da, db in zip(a.per_frame, b.per_frame):
            for key in ("center_hz", "lower_hz", "upper_hz", "snr_db", "dc"):
                np.testing.assert_array_equal(da[key], db[key])
        self.assertEqual(len(a.finish()), len(b.finish()))

    def test_003_burst_gives_two_transmissions(self):
        # A tone on in frames 0-3 and 8-11 of 12, noise throughout: two transmissions,
        # the first when it ends (hold_frames = 1), the second at the end of the stream,
        # with the sink and with the display output connected.
        n, rate, s2 = 1024, 1e6, 1e-4
        on = np.zeros(12 * n)
        on[:4 * n] = on[8 * n:] = 1
        f = self.rng.uniform(-300e3, 300e3)
        x = (on * tones(12 * n, rate, [f], [0.05], self.rng)
             + noise(12 * n, s2, self.rng)).astype(np.complex64)
        t0 = (1_700_000_000, 0.25)
        for display in (False, True):
            with self.subTest(display=display):
                block = gpufft.sparse_fft(n, 8, rate, 64, backend="cpu", hold_frames=1,
                                          false_alarm=FALSE_ALARM)
                dets, txs = flowgraph(x, block,
                                      [tag(0, "rx_time", time_value(*t0))],
                                      display=display).run()
                self.assertEqual(len(dets), 12)
                self.assertEqual(len(txs), 2, f"seed {self.seed}")
                for i, msg in enumerate(txs):
                    self.assertTrue(pmt.is_pair(msg) and pmt.is_f32vector(pmt.cdr(msg)))
                    t = meta_of(msg)
                    for key in TRANSMISSION_KEYS + ("rx_time",):
                        self.assertIn(key, t)
                    self.assertEqual(t["id"], i)
                    self.assertEqual(t["start_sample"], 8 * n * i)
                    self.assertEqual(t["sample_count"], 4 * n)
                    self.assertEqual(t["frames"], 4)
                    self.assertAlmostEqual(t["duration_s"], 4 * n / rate)
                    self.assertAlmostEqual(t["start_s"], 8 * n * i / rate)
                    self.assertLess(abs(t["center_hz"] - f), rate / n)
                    secs, frac = t["rx_time"]
                    self.assertEqual(secs, t0[0])
                    self.assertAlmostEqual(frac, t0[1] + 8 * n * i / rate, places=12)
                    vec = pmt.f32vector_elements(pmt.cdr(msg))
                    np.testing.assert_array_equal(
                        vec, np.array([t["duration_s"], t["bandwidth_hz"],
                                       t["peak_power_dbfs"], t["mean_snr_db"]], np.float32))

    def test_004_zeros_nan_and_counts(self):
        # Frames: a tone, NaN, zeros, a tone. The NaN frame is skipped and counted (no
        # detections PDU; the deprecated coefficients port says why); the zeros give an
        # empty PDU, no error.
        n, rate, s2 = 1024, 1e6, 1e-4
        x = (tones(4 * n, rate, [123e3], [0.05], self.rng)
             + noise(4 * n, s2, self.rng)).astype(np.complex64)
        x[n + int(self.rng.integers(n))] = np.nan
        x[2 * n:3 * n] = 0
        block = gpufft.sparse_fft(n, 8, rate, 64, backend="cpu", false_alarm=FALSE_ALARM)
        fg = flowgraph(x, block)
        dets, _ = fg.run()
        self.assertEqual([meta_of(m)["frame"] for m in dets], [0, 2, 3])
        self.assertEqual(block.frames_skipped(), 1)
        self.assertEqual(block.frames_processed(), 3)
        self.assertIn("error", pmt.to_python(fg.coef.get_message(1)))
        zeros = dets[1]
        meta = self.check_pdu(zeros, 0.0)
        self.assertEqual(pmt.length(pmt.cdr(zeros)), 0)
        self.assertEqual(len(meta["center_bin"]), 0)
        self.assertFalse(meta["truncated"])
        for m in (dets[0], dets[2]):
            self.assertEqual(len(self.check_pdu(m, 0.0)["center_hz"]), 1)

    def test_005_truncated(self):
        # Six carriers, k = 3: every frame says truncated, keeps the 3 strongest, counts
        # all 6 bands; frames_truncated() counts the frames.
        n, rate, s2, frames = 4096, 1e6, 1e-4, 4
        freqs = np.array([-400e3, -250e3, -100e3, 50e3, 200e3, 350e3])
        freqs += self.rng.uniform(-1e3, 1e3, len(freqs))
        amps = self.rng.permutation(np.geomspace(0.003, 0.1, len(freqs)))
        x = (tones(n * frames, rate, freqs, amps, self.rng)
             + noise(n * frames, s2, self.rng)).astype(np.complex64)
        block = gpufft.sparse_fft(n, 3, rate, 64, backend="cpu", false_alarm=FALSE_ALARM)
        dets, _ = flowgraph(x, block).run()
        self.assertEqual(len(dets), frames)
        strongest = np.sort(freqs[np.argsort(-amps)[:3]])
        for m in dets:
            meta = self.check_pdu(m, 0.0)
            self.assertTrue(meta["truncated"])
            self.assertEqual(meta["bands_found"], 6)
            np.testing.assert_allclose(np.sort(meta["center_hz"]), strongest, rtol=0,
                                       atol=rate / n)
        self.assertEqual(block.frames_truncated(), frames)
        # k above the number of carriers: none truncated.
        block = gpufft.sparse_fft(n, 8, rate, 64, backend="cpu", false_alarm=FALSE_ALARM)
        dets, _ = flowgraph(x, block).run()
        self.assertFalse(any(meta_of(m)["truncated"] for m in dets))
        self.assertEqual(block.frames_truncated(), 0)

    def test_006_dc_label_and_mask(self):
        # A tone on DC is labelled dc; dc_mask_bins = 3 leaves it out.
        n, rate, s2 = 2048, 1e6, 1e-4
        x = (tones(2 * n, rate, [0.0, 210e3], [0.05, 0.05], self.rng)
             + noise(2 * n, s2, self.rng)).astype(np.complex64)
        for mask, want in ((0, [True, False]), (3, [False])):
            block = gpufft.sparse_fft(n, 8, rate, 64, backend="cpu", dc_mask_bins=mask,
                                      false_alarm=FALSE_ALARM)
            self.assertEqual(block.dc_mask_bins(), mask)
            dets, _ = flowgraph(x, block).run()
            for m in dets:
                self.assertEqual(list(np.asarray(self.check_pdu(m, 0.0)["dc"], bool)), want)

    def test_007_exact_mode_signals(self):
        # Exact mode: each coefficient a signal one bin wide on its bin, snr_db NaN.
        n, k = 1024, 5
        bins = np.sort(self.rng.choice(np.arange(2, n - 2), k, replace=False))
        spec = np.zeros(n, np.complex128)
        spec[bins] = n * np.linspace(0.3, 1.0, k) * np.exp(2j * np.pi * self.rng.random(k))
        x = np.tile(np.fft.ifft(spec), 2).astype(np.complex64)
        dets, _ = flowgraph(x, gpufft.sparse_fft(n, k, 1e6, 64, backend="cpu",
                                                 mode="exact")).run()
        signed = np.sort(np.where(bins >= n // 2, bins - n, bins))
        for m in dets:
            meta = self.check_pdu(m, 0.0)
            np.testing.assert_array_equal(meta["center_bin"], signed)
            np.testing.assert_array_equal(meta["bandwidth_bins"], np.ones(k))
            self.assertTrue(np.all(np.isnan(meta["snr_db"])))
            self.assertFalse(meta["truncated"])

    def test_008_bad_new_parameters(self):
        n = 1024
        bad = [(dict(bandwidth_rule="obw98"), "bandwidth_rule"),
               (dict(bandwidth_rule=3), "bandwidth_rule"),
               (dict(dc_mask_bins=n // 4), r"dc_mask_bins: must be in \[0, fft_size / 4\)"),
               (dict(dc_mask_bins=-1), "dc_mask_bins"),
               (dict(hold_frames=1001), "hold_frames"),
               (dict(hold_frames=-1), "hold_frames")]
        for kwargs, pattern in bad:
            with self.subTest(**{k: repr(v) for k, v in kwargs.items()}):
                with self.assertRaisesRegex(ValueError, pattern):
                    gpufft.sparse_fft(n, 8, 1e6, backend="cpu", **kwargs)
        # Issue #32 item 13: fft_size past an int states the range.
        with self.assertRaisesRegex(ValueError, r"fft_size: .*\[16, 2\^31 - 1\]"):
            gpufft.sparse_fft(2 ** 31, 16, 1e6, backend="cpu")
        b = gpufft.sparse_fft(n, 8, 1e6, backend="cpu", bandwidth_rule="xdb", hold_frames=3)
        self.assertEqual((b.bandwidth_rule(), b.hold_frames()), ("xdb", 3))
        for call, pattern in ((lambda: b.set_mode("fuzzy"), "mode"),
                              (lambda: b.set_min_snr_db(500), "min_snr_db"),
                              (lambda: b.set_min_snr_db("x"), "min_snr_db"),
                              (lambda: b.set_false_alarm(0.9), "false_alarm")):
            with self.assertRaisesRegex(ValueError, pattern):
                call()
        # Exact mode allows k = 500 of 1024; robust at most 256, so the switch is refused.
        e = gpufft.sparse_fft(n, 500, 1e6, backend="cpu", mode="exact")
        with self.assertRaisesRegex(ValueError, r"k: must be in \[1, fft_size / 4\]"):
            e.set_mode("robust")
        self.assertEqual(e.mode(), "exact")

    def test_009_setters_take_effect_at_the_next_frame(self):
        # Issue #32 item 13: Min SNR, False Alarm and Mode change while the block exists
        # (GRC callbacks, the cmd port), each at the next frame.
        n, rate, s2 = 1024, 1e6, 1e-4
        x = (tones(2 * n, rate, [100e3], [0.05], self.rng)
             + noise(2 * n, s2, self.rng)).astype(np.complex64)
        block = gpufft.sparse_fft(n, 8, rate, 64, backend="cpu")
        self.assertIn("min_snr_db=20", block.describe())
        block.set_min_snr_db(30)
        block.set_false_alarm(0.001)
        self.assertEqual((block.min_snr_db(), block.false_alarm()), (30, 0.001))
        fg = flowgraph(x, block)
        fg.run()
        fg.release()
        self.assertIn("min_snr_db=30", block.describe())
        self.assertIn("false_alarm=0.001", block.describe())
        block.set_mode("exact")
        fg = flowgraph(x, block)
        fg.run()
        fg.release()
        self.assertEqual(pmt.to_python(fg.coef.get_message(0))["mode"], "exact")
        # Through the cmd port: back to robust, min_snr_db 25.
        cmd = pmt.make_dict()
        cmd = pmt.dict_add(cmd, pmt.intern("mode"), pmt.intern("robust"))
        cmd = pmt.dict_add(cmd, pmt.intern("min_snr_db"), pmt.from_double(25.0))
        fg = flowgraph(x, block)
        block._post(pmt.intern("cmd"), cmd)  # queued now, handled before work()
        fg.run()
        self.assertEqual(block.mode(), "robust")
        self.assertEqual(pmt.to_python(fg.coef.get_message(1))["mode"], "robust")
        self.assertIn("min_snr_db=25", block.describe())

    def test_013_cuda_gives_the_cpu_signals(self):
        # The block on CUDA (dense path: sensing_plan on the device) reports the signals
        # the CPU block does, frame by frame, within float rounding (docs/sensing.md).
        if "cuda" not in backends():
            print("skip: no usable CUDA device")
            return
        n, rate, frames, k, s2 = 1 << 16, 10e6, 4, 32, 1e-4
        total = n * frames
        x = (qpsk(total, rate, 1e6, 37, s2, self.rng)
             + tones(total, rate, [-2e6 + 77.7, 3e6], [np.sqrt(10 ** 2.5 * s2 / n), 0.01],
                     self.rng)
             + noise(total, s2, self.rng)).astype(np.complex64)
        got = {}
        for backend in ("cpu", "cuda"):
            block = gpufft.sparse_fft(n, k, rate, 256, backend=backend, false_alarm=FALSE_ALARM)
            self.assertEqual(block.backend(), backend)
            dets, _ = flowgraph(x, block).run()
            got[backend] = [meta_of(m) for m in dets]
        for a, b in zip(got["cpu"], got["cuda"]):
            self.assertEqual(len(a["center_bin"]), len(b["center_bin"]), f"seed {self.seed}")
            np.testing.assert_allclose(a["center_bin"], b["center_bin"], rtol=0, atol=0.01)
            np.testing.assert_allclose(a["peak_power_dbfs"], b["peak_power_dbfs"], rtol=0,
                                       atol=0.01)

    def test_014_cuda_staged_frames_as_the_cpu_cuts_them(self):
        # On CUDA the block copies its input out as it arrives, into a page-locked frame
        # (stream/block_frames.h), where the CPU engine reads frames in place.
        # Overlapping frames (hop 3n/4), with and without the display output: the same
        # frames at the same samples, the same signals, the same display vectors.
        if "cuda" not in backends():
            print("skip: no usable CUDA device")
            return
        n, rate, k, s2 = 1 << 14, 10e6, 32, 1e-4
        hop, total = 3 * n // 4, 9 * n + 123
        x = (tones(total, rate, [-2e6 + 77.7, 3e6], [0.02, 0.01], self.rng)
             + noise(total, s2, self.rng)).astype(np.complex64)
        for display in (True, False):
            got, shown = {}, {}
            for backend in ("cpu", "cuda"):
                block = gpufft.sparse_fft(n, k, rate, 256, hop, backend=backend,
                                          false_alarm=FALSE_ALARM)
                self.assertEqual(block.backend(), backend)
                fg = flowgraph(x, block, display=display)
                dets, _ = fg.run()
                got[backend] = [meta_of(m) for m in dets]
                if display:
                    shown[backend] = np.asarray(fg.sink.data(), np.float32)
            what = f"seed {self.seed}, display {display}"
            self.assertEqual(len(got["cpu"]), (total - n) // hop + 1, what)
            self.assertEqual([m["first_sample"] for m in got["cpu"]],
                             [m["first_sample"] for m in got["cuda"]], what)
            self.assertEqual([m["first_sample"] for m in got["cuda"]],
                             [i * hop for i in range(len(got["cuda"]))], what)
            for a, b in zip(got["cpu"], got["cuda"]):
                np.testing.assert_allclose(a["center_bin"], b["center_bin"], rtol=0,
                                           atol=0.01, err_msg=what)
            if display:
                self.assertEqual(shown["cpu"].shape, shown["cuda"].shape, what)
                np.testing.assert_allclose(shown["cpu"], shown["cuda"], rtol=0, atol=0.05,
                                           err_msg=what)

    def test_015_floor_and_watch_frames_refused_by_name(self):
        # floor_frames [1, 1024] and watch_frames [0, 8] (the sensing plan's ranges,
        # checked in one place): make() and the setters raise ValueError naming the
        # parameter and its range; a refused setter keeps the value.
        n = 4096
        floor_bad = [0, -1, 1025, int(self.rng.integers(1026, 1 << 20)), 2 ** 40, 2.5,
                     "8", None]
        watch_bad = [-1, 9, int(self.rng.integers(10, 1 << 20)), 1.5, "2", None]
        b = gpufft.sparse_fft(n, 8, 1e6, backend="cpu", floor_frames=3, watch_frames=0)
        self.assertEqual((b.floor_frames(), b.watch_frames()), (3, 0))
        for name, bad, valid, setter in (
                ("floor_frames", floor_bad, r"\[1, 1024\]", b.set_floor_frames),
                ("watch_frames", watch_bad, r"\[0, 8\]", b.set_watch_frames)):
            for value in bad:
                with self.subTest(name=name, value=value):
                    pattern = rf"^{name}\b.*{valid}"
                    with self.assertRaisesRegex(ValueError, pattern):
                        gpufft.sparse_fft(n, 8, 1e6, backend="cpu", **{name: value})
                    with self.assertRaisesRegex(ValueError, pattern):
                        setter(value)
        self.assertEqual((b.floor_frames(), b.watch_frames()), (3, 0))
        # Defaults (8, 2), by position at the end of make()'s list, and the range's ends.
        d = gpufft.sparse_fft(n, 8, 1e6, backend="cpu")
        self.assertEqual((d.floor_frames(), d.watch_frames()), (8, 2))
        e = gpufft.sparse_fft(n, 8, 1e6, 64, 0, "cpu", 0, "robust", 20.0, 0.01, 0, "obw99",
                              1, "fc32", 1024, 8)
        self.assertEqual((e.floor_frames(), e.watch_frames()), (1024, 8))
        e.set_floor_frames(1)
        e.set_watch_frames(0)
        self.assertEqual((e.floor_frames(), e.watch_frames()), (1, 0))

    def test_016_floor_frames_reaches_the_sensing_plan(self):
        # The frame's threshold_db moves as the floor is tracked (floor_frames): on noise
        # with a 6 dB level step halfway, the block's threshold_db is, frame for frame,
        # that of a sensing_plan with the same floor_frames on the same frames. Tracked
        # (8, 3) it falls below the first frame's; floor_frames 1 keeps it. Frames that
        # overlap by half (hop n / 2) use 1 whatever the value; set_floor_frames() takes
        # effect at the next frame.
        n, rate, frames, k = 4096, 1e6, 12, 16
        total = n * frames
        s2 = np.where(np.arange(total) < total // 2, 1e-4, 4e-4)
        x = (noise(total, 1.0, self.rng) * np.sqrt(s2)
             + tones(total, rate, [123.4e3], [0.03], self.rng)).astype(np.complex64)

        def block_thresholds(block):
            self.assertIn("spectrum sensing", block.describe())
            dets, _ = flowgraph(x, block, display=False).run()
            metas = [meta_of(m) for m in dets]
            return (np.array([m["threshold_db"] for m in metas]),
                    [m["first_sample"] for m in metas])

        def plan_thresholds(floor_frames, starts):
            plan = gpufft.sensing_plan(n, backend="cpu", max_signals=k,
                                       floor_frames=floor_frames)
            return np.array([plan.detect(x[s:s + n])["threshold_db"] for s in starts])

        got = {}
        for f in (1, 3, 8):
            kw = {} if f == 8 else dict(floor_frames=f)  # 8: the default
            t, starts = block_thresholds(gpufft.sparse_fft(n, k, rate, 64, backend="cpu",
                                                           **kw))
            self.assertEqual(starts, [i * n for i in range(frames)])
            np.testing.assert_array_equal(t, plan_thresholds(f, starts),
                                          f"floor_frames {f}, seed {self.seed}")
            got[f] = t
        self.assertTrue(np.all(got[1] == got[1][0]), got[1])
        for f in (3, 8):
            self.assertLess(got[f][frames // 2 - 1], got[f][0],
                            f"floor_frames {f}: {got[f]}, seed {self.seed}")
        self.assertFalse(np.array_equal(got[1], got[8]))
        # Half-overlapping frames: floor_frames 8 asked for, 1 in force.
        half = gpufft.sparse_fft(n, k, rate, 64, n // 2, backend="cpu")
        self.assertEqual(half.floor_frames(), 8)
        self.assertIn("floor_frames=1 ", half.describe())
        t, starts = block_thresholds(half)
        self.assertEqual(starts, [i * n // 2 for i in range(2 * frames - 1)])
        np.testing.assert_array_equal(t, plan_thresholds(1, starts))
        # A setter: floor_frames 1 on the next run of a default block.
        block = gpufft.sparse_fft(n, k, rate, 64, backend="cpu")
        block.set_floor_frames(1)
        self.assertEqual(block.floor_frames(), 1)
        t, _ = block_thresholds(block)
        np.testing.assert_array_equal(t, got[1])

    def test_017_watch_frames_zero_holds_nothing(self):
        # A weak on-grid tone near the threshold for 30 frames of fresh noise: the full
        # band's test finds it in some frames, and by default (watch_frames 2) the held
        # test then finds it in frames the full test misses (held = 1 in the PDU), as a
        # sensing_plan with the same options does; watch_frames = 0 (made so, or set
        # between runs) holds nothing: no entry says held, held_threshold_db stays 0.
        n, rate, frames, k, s2 = 4096, 1e6, 30, 16, 1e-4
        total = n * frames
        snr_db = 10.3  # the peak bin over the floor, Blackman-Harris (ENBW 2.004 bins)
        f = 517 * rate / n
        a = np.sqrt(10 ** (snr_db / 10) * 2.004 * s2 / n)
        x = (tones(total, rate, [f], [a], self.rng)
             + noise(total, s2, self.rng)).astype(np.complex64)

        def run(block):
            dets, _ = flowgraph(x, block, display=False).run()
            self.assertEqual(len(dets), frames)
            return [meta_of(m) for m in dets]

        def held_count(metas):
            return sum(int(np.sum(np.asarray(m["held"], int))) for m in metas)

        plan = gpufft.sensing_plan(n, backend="cpu", max_signals=k)
        want = [plan.detect(x[i * n:(i + 1) * n]) for i in range(frames)]
        metas = run(gpufft.sparse_fft(n, k, rate, 64, backend="cpu"))
        for m, r in zip(metas, want):
            np.testing.assert_array_equal(np.asarray(m["held"], bool),
                                          np.asarray(r["held"], bool))
        found = sum(len(m["center_bin"]) > 0 for m in metas)
        held = held_count(metas)
        print(f"watch_frames 2: tone in {found} of {frames} frames, {held} held")
        self.assertGreater(held, 0, f"no held signal by default, seed {self.seed}")
        none = gpufft.sparse_fft(n, k, rate, 64, backend="cpu", watch_frames=0)
        self.assertIn("watch_frames=0", none.describe())
        for metas in (run(none), run(self.set_watch_0(n, k, rate))):
            self.assertEqual(held_count(metas), 0, f"seed {self.seed}")
            self.assertTrue(all(m["held_threshold_db"] == 0 for m in metas))

    def set_watch_0(self, n, k, rate):
        block = gpufft.sparse_fft(n, k, rate, 64, backend="cpu")
        block.set_watch_frames(0)
        self.assertEqual(block.watch_frames(), 0)
        return block

    def run_python(self, code, limit_bytes=None):
        """code in a fresh interpreter (stderr with stdout), under an address-space limit
        if given; returns (exit code, output)."""
        def limit():
            if limit_bytes:
                resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))
        p = subprocess.run([sys.executable, "-c", textwrap.dedent(code)],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           preexec_fn=limit, timeout=120, env=dict(os.environ))
        return p.returncode, p.stdout

    def test_010_memory_refused_under_ulimit(self):
        # Issue #32 item 2: the block counts the engine and its frame buffer and refuses
        # what the process cannot map (here a 3 GiB ulimit -v), naming fft_size and the
        # bytes needed, instead of being killed. A size that fits still works under it.
        code = """
            from gnuradio import gpufft
            ok = gpufft.sparse_fft(2 ** 20, 16, 1e6, backend="cpu")
            print("made", ok.fft_size())
            try:
                gpufft.sparse_fft(2 ** 28, 16, 1e6, backend="cpu")
                print("no error")
            except ValueError as e:
                print("ValueError:", e)
        """
        rc, out = self.run_python(code, limit_bytes=3 << 30)
        self.assertEqual(rc, 0, out)
        self.assertIn("made 1048576", out)
        self.assertRegex(out, r"ValueError: fft_size: 2\^28 needs 7\.0 GiB of host memory")
        self.assertIn("frame buffer", out)
        self.assertIn("ulimit -v", out)

    def test_011_describe_logged_once(self):
        # Issue #32 item 13: the engine's description was logged twice per block (by the
        # plan and by the block); once now, on every path.
        code = """
            from gnuradio import gpufft
            gpufft.sparse_fft(1024, 8, 1e6, backend="cpu", mode="exact")
            gpufft.sparse_fft(2048, 8, 1e6, backend="cpu")
            gpufft.sparse_fft(32, 4, 1e6, 16, backend="cpu")
        """
        rc, out = self.run_python(code, limit_bytes=4 << 30)
        self.assertEqual(rc, 0, out)
        for head in ("sparse FFT n=1024 k=8", "sparse FFT n=2048 k=8", "sparse FFT n=32 k=4"):
            self.assertEqual(out.count(head), 1, out)

    def test_012_plan_detect_converts_documented(self):
        # Issue #32 item 13: sparse_fft_plan.detect converts lists and other dtypes to
        # complex64, as its docstring says; the answer is that of the complex64 array.
        n = 1024
        x = (tones(n, 1e6, [12345.6], [0.5], self.rng)
             + noise(n, 1e-4, self.rng)).astype(np.complex128)
        plan = gpufft.sparse_fft_plan(n, 4, backend="cpu")
        doc = gpufft.sparse_fft_plan.detect.__doc__
        self.assertIn("converted to complex64", doc)
        want = plan.detect(x.astype(np.complex64))
        for form in (x, list(x)):
            got = plan.detect(form)
            for g, w in zip(got, want):
                np.testing.assert_array_equal(g, w)
        # A real array: the answer of its complex64 copy.
        r = x.real
        for g, w in zip(plan.detect(r), plan.detect(r.astype(np.complex64))):
            np.testing.assert_array_equal(g, w)


if __name__ == "__main__":
    gr_unittest.run(qa_sparse_fft_detections)
