#!/usr/bin/env python3
#
# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""QA of docs/stream.md through the blocks in flowgraphs (CPU backend): the `cmd`
message ports, the tag rule (a tag inside a frame applies to that frame, frames
straddling work() calls), rx_time in the NUFFT blocks, rx_freq / rx_rate out on change
only, and the accumulator's partial integration at the end of the stream."""

import os

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

from qa_large_fft_accumulator import reference
from testing_tags import f64_source, seconds, tag, tags_of, time_value


def cmd(**kv):
    d = pmt.make_dict()
    for k, v in kv.items():
        d = pmt.dict_add(d, pmt.intern(k), pmt.to_pmt(v))
    return d


class qa_stream_rules(gr_unittest.TestCase):

    def setUp(self):
        # Fresh inputs every run; the seed is printed, and GPUFFT_QA_SEED=<seed> replays it.
        self.seed = int(os.environ.get("GPUFFT_QA_SEED", np.random.SeedSequence().entropy))
        print(f"{self.id()}: seed {self.seed}")
        self.rng = np.random.default_rng(self.seed)

    def noise(self, n):
        return (self.rng.standard_normal(n) + 1j * self.rng.standard_normal(n)).astype(np.complex64)

    # ---- sparse_fft -------------------------------------------------------------

    def run_sparse(self, block, x, tags=(), msgs=(), small_pieces=False):
        tb = gr.top_block()
        src = blocks.vector_source_c(x.tolist(), False, 1, list(tags))
        store = blocks.message_debug()
        sink = blocks.vector_sink_f(block.display_bins())
        if small_pieces:
            # Pieces shorter than a frame: every frame straddles work() calls. A copy
            # block cuts them: GNU Radio 3.10.5's vector_source with tags never runs
            # with set_max_noutput_items below its length.
            pieces = blocks.copy(gr.sizeof_gr_complex)
            pieces.set_max_noutput_items(300)
            tb.connect(src, pieces, block, sink)
        else:
            tb.connect(src, block, sink)
        tb.msg_connect(block, "coefficients", store, "store")
        for m in msgs:  # queued now, handled before the first work() call
            block._post(pmt.intern("cmd"), m)
        tb.run()
        out = [pmt.to_python(store.get_message(i)) for i in range(store.num_messages())]
        return out, sink

    def test_001_sparse_cmd_retunes_and_bad_input_only_warns(self):
        n, frames = 1024, 3
        k_new = int(self.rng.integers(2, 12))
        rate_new = float(self.rng.uniform(1e5, 1e7))
        b = gpufft.sparse_fft(n, 16, 1e6, 64, 0, backend="cpu", mode="exact")
        msgs = [cmd(k=k_new, samp_rate=rate_new),
                cmd(k=-3), cmd(k="many"), cmd(sample_rate=-1.0), cmd(nonsense=1),
                pmt.intern("not a dict")]
        out, _ = self.run_sparse(b, self.noise(n * frames), msgs=msgs)
        self.assertEqual(b.k(), k_new)
        self.assertEqual(b.sample_rate(), rate_new)
        self.assertEqual(len(out), frames)
        for m in out:
            self.assertEqual(len(m["bins"]), k_new)
            self.assertEqual(m["sample_rate"], rate_new)
        # sample_rate, the other name of the same setter
        b = gpufft.sparse_fft(n, 16, 1e6, 64, 0, backend="cpu", mode="exact")
        self.run_sparse(b, self.noise(n), msgs=[cmd(sample_rate=rate_new / 2)])
        self.assertEqual(b.sample_rate(), rate_new / 2)

    def test_002_sparse_tag_inside_frame_applies_to_that_frame(self):
        n, frames, rate = 1000, 5, 2e6
        secs, frac = 1_700_000_000, float(self.rng.uniform(0, 0.5))
        f_in = int(self.rng.integers(1, frames))           # frame with the retune
        at = f_in * n + int(self.rng.integers(1, n))       # inside it, not at its start
        t_in = int(self.rng.integers(0, frames))           # frame with a new rx_time
        t_at = t_in * n + int(self.rng.integers(1, n))
        t_new = 1_800_000_000 + float(self.rng.uniform(0, 0.5))
        tags = [tag(0, "rx_time", time_value(secs, frac)),
                tag(0, "rx_freq", pmt.from_double(100e6)),
                tag(0, "rx_rate", pmt.from_double(rate)),
                tag(at, "rx_freq", pmt.from_double(101e6)),
                tag(at, "rx_rate", pmt.from_double(rate)),  # repeated: no new tag out
                tag(t_at, "rx_time", time_value(int(t_new), t_new - int(t_new)))]
        for pieces in (False, True):
            b = gpufft.sparse_fft(n, 4, rate, 64, 0, backend="cpu", mode="exact")
            out, sink = self.run_sparse(b, self.noise(n * frames), tags, small_pieces=pieces)
            self.assertEqual(len(out), frames)
            for f, m in enumerate(out):
                self.assertEqual(m["center_freq"], 101e6 if f >= f_in else 100e6, f)
                want = (secs + frac + f * n / rate if f < t_in else
                        t_new - (t_at - t_in * n) / rate + (f - t_in) * n / rate)
                self.assertAlmostEqual(seconds(pmt.to_pmt(m["rx_time"])), want, places=6)
            freqs = tags_of(sink, "rx_freq")
            self.assertEqual([(o, pmt.to_double(v)) for o, v in freqs],
                             [(0, 100e6), (f_in, 101e6)])  # on change only
            self.assertEqual(len(tags_of(sink, "rx_rate")), 1)

    # ---- large_fft_accumulator ---------------------------------------------------

    def run_acc(self, x, msgs=(), **kw):
        tb = gr.top_block()
        acc = gpufft.large_fft_accumulator(backend="cpu", **kw)
        src = blocks.vector_source_c(x.tolist())
        sink = blocks.vector_sink_f(acc.output_bins())
        store = blocks.message_debug()
        tb.connect(src, acc, sink)
        tb.msg_connect(acc, "spectrum", store, "store")
        for m in msgs:
            acc._post(pmt.intern("cmd"), m)
        tb.run()
        spectra = [store.get_message(i) for i in range(store.num_messages())]
        out = np.array(sink.data()).reshape(-1, acc.output_bins())
        return acc, out, spectra

    @staticmethod
    def meta(msg, key):
        return pmt.to_python(pmt.dict_ref(pmt.car(msg), pmt.intern(key), pmt.PMT_NIL))

    def test_003_accumulator_cmd(self):
        n = 256
        n_int = int(self.rng.integers(2, 5))
        full = int(self.rng.integers(2, 4))
        x = self.noise(n * n_int * full)
        msgs = [cmd(n_integrations=n_int, mode="max", output_db=True),
                cmd(n_integrations=0), cmd(mode="sideways"), cmd(output_db="loud"),
                cmd(fft_size=4)]
        acc, out, spectra = self.run_acc(x, msgs, fft_size=n, n_integrations=7,
                                         output_bins=n, window="none")
        self.assertEqual(acc.n_integrations(), n_int)
        self.assertEqual(acc.mode(), "max")
        self.assertTrue(acc.output_db())
        self.assertEqual(out.shape[0], full)
        ref = reference(x, n, n_int, n, mode="max")
        self.assertLess(np.max(np.abs(out - 10 * np.log10(ref))), 1e-3)
        for i in range(full):
            self.assertEqual(self.meta(spectra[i], "mode"), "max")
            self.assertTrue(self.meta(spectra[i], "db"))

    def test_004_accumulator_partial_integration_reaches_downstream(self):
        n = 256
        n_int = int(self.rng.integers(3, 6))
        left = int(self.rng.integers(1, n_int))   # frames of the unfinished integration
        x = self.noise(n * (n_int + left) + int(self.rng.integers(0, n)))
        acc, out, spectra = self.run_acc(x, fft_size=n, n_integrations=n_int, output_bins=n,
                                         window="none")
        self.assertEqual(out.shape[0], 1)
        self.assertEqual(len(spectra), 2)
        self.assertFalse(self.meta(spectra[0], "partial"))
        self.assertTrue(self.meta(spectra[1], "partial"))
        self.assertEqual(self.meta(spectra[1], "integrations"), left)
        ref = reference(x[n * n_int:n * (n_int + left)], n, left, n)[0]
        got = np.array(pmt.f32vector_elements(pmt.cdr(spectra[1])))
        np.testing.assert_allclose(got, ref, rtol=1e-3)

    # ---- nufft3_spectrum ---------------------------------------------------------

    def run_nufft(self, block, x, t, tags=(), msgs=(), vlen=None):
        tb = gr.top_block()
        src = blocks.vector_source_c(x.tolist(), False, 1, list(tags))
        tsrc = f64_source(t)
        sink = blocks.vector_sink_c(vlen or len(block.frequencies()))
        tb.connect(src, (block, 0))
        tb.connect(tsrc, (block, 1))
        tb.connect(block, sink)
        for m in msgs:
            block._post(pmt.intern("cmd"), m)
        tb.run()
        return np.array(sink.data()), sink

    def jittered(self, count, fs, start):
        return start + (np.arange(count) + 0.3 * self.rng.uniform(-1, 1, count)) / fs

    def test_005_nufft3_cmd_frequencies(self):
        L, frames, fs = 128, 3, 1e3
        x = self.noise(L * frames)
        t = self.jittered(L * frames, fs, 0.0)
        new = sorted(self.rng.uniform(-fs / 2, fs / 2, 3))
        b = gpufft.nufft3_spectrum(L, [0.0, 1.0, 2.0], 1e-9, 0, backend="cpu")
        msgs = [cmd(frequencies=[float(f) for f in new]), cmd(frequencies=[]),
                cmd(frequencies=[float("nan"), 1.0]), cmd(frequencies="x"), cmd(freq=3)]
        out, _ = self.run_nufft(b, x, t, msgs=msgs, vlen=3)
        np.testing.assert_allclose(b.frequencies(), new)
        out = out.reshape(frames, 3)
        for f in range(frames):
            sl = slice(f * L, (f + 1) * L)
            ref = np.exp(-2j * np.pi * np.outer(new, t[sl] - t[sl][0])) @ x[sl].astype(complex)
            self.assertLess(np.linalg.norm(out[f] - ref) / np.linalg.norm(ref), 1e-5)

    def test_006_nufft3_rx_time_and_tags_on_change(self):
        L, frames, fs, epoch = 100, 6, 1e3, 1_000_000
        x = self.noise(L * frames)
        t = self.jittered(L * frames, fs, 50.0)
        s = int(self.rng.integers(L, 2 * L))            # an rx_time inside frame 1
        T = 1_700_000_000 + float(self.rng.uniform(0, 0.9))
        f_in = int(self.rng.integers(2, frames))
        at = f_in * L + int(self.rng.integers(1, L))
        tags = [tag(0, "rx_freq", pmt.from_double(5e6)), tag(0, "rx_rate", pmt.from_double(fs)),
                tag(s, "rx_time", time_value(int(T), T - int(T))),
                tag(at, "rx_freq", pmt.from_double(6e6))]
        b = gpufft.nufft3_spectrum(L, [0.0, 10.0], 1e-9, epoch, backend="cpu")
        _, sink = self.run_nufft(b, x, t, tags)
        times = tags_of(sink, "rx_time")
        self.assertEqual([o for o, _ in times], list(range(frames)))
        self.assertAlmostEqual(seconds(times[0][1]), epoch + t[0], places=5)  # before it
        for f in range(1, frames):     # from frame 1 on: T at sample s
            self.assertAlmostEqual(seconds(times[f][1]), T + t[f * L] - t[s], places=5)
        self.assertEqual([(o, pmt.to_double(v)) for o, v in tags_of(sink, "rx_freq")],
                         [(0, 5e6), (f_in, 6e6)])
        self.assertEqual([o for o, _ in tags_of(sink, "rx_rate")], [0])

    # ---- nufft_resampler ---------------------------------------------------------

    def test_007_resampler_rx_time_and_tags_on_change(self):
        fs, rate, epoch = 1000.0, 400.0, 1_000_000
        count = 6000
        x = self.noise(count)
        t = self.jittered(count, fs, 10.0)
        s = int(self.rng.integers(0, 500))
        T = 1_700_000_000 + float(self.rng.uniform(0, 0.9))
        freqs = [tag(i, "rx_freq", pmt.from_double(5e6)) for i in range(0, count, 500)]

        def run(tags):
            b = gpufft.nufft_resampler(rate, 300.0, 1024, 128, 1e-6, epoch, 0.0, "cpu")
            tb = gr.top_block()
            src = blocks.vector_source_c(x.tolist(), False, 1, tags)
            tsrc = f64_source(t)
            sink = blocks.vector_sink_c()
            tb.connect(src, (b, 0))
            tb.connect(tsrc, (b, 1))
            tb.connect(b, sink)
            tb.run()
            return np.array(sink.data()), sink

        y0, sink0 = run(freqs)
        y1, sink1 = run(freqs + [tag(s, "rx_time", time_value(int(T), T - int(T)))])
        np.testing.assert_array_equal(y0, y1)
        t0, t1 = tags_of(sink0, "rx_time"), tags_of(sink1, "rx_time")
        self.assertGreaterEqual(len(t0), 1)
        self.assertEqual([o for o, _ in t0], [o for o, _ in t1])
        for (_, a), (_, b) in zip(t0, t1):
            # without rx_time: epoch + time input; with it, sample s is at T
            self.assertAlmostEqual(seconds(b) - seconds(a), T - (epoch + t[s]), places=5)
        # a repeated rx_freq goes out once; rx_rate (the output rate) once
        self.assertEqual(len(tags_of(sink1, "rx_freq")), 1)
        self.assertEqual(len(tags_of(sink1, "rx_rate")), 1)


if __name__ == "__main__":
    gr_unittest.run(qa_stream_rules)
