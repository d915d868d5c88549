#!/usr/bin/env python3
#
# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""QA: wrong inputs to every binding (plans, blocks, module functions) on every backend
this machine has. Each must raise ValueError or TypeError (RuntimeError where the
environment is at fault) whose message names the parameter, never pybind's own
"incompatible function arguments" or "Unable to cast" text, and never a bare
MemoryError."""

import re

import numpy as np
from gnuradio import gr_unittest

try:
    from gnuradio import gpufft
except ImportError:
    import os
    import sys
    dirname, filename = os.path.split(os.path.abspath(__file__))
    sys.path.append(os.path.join(dirname, "bindings"))
    from gnuradio import gpufft

from testing_backends import backends

PYBIND_TEXT = ("incompatible function arguments", "incompatible constructor arguments",
               "Unable to cast", "std::bad_alloc")
BAD = (ValueError, TypeError)


def cx(n, dtype=np.complex64, seed=1):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dtype)


class qa_bad_inputs(gr_unittest.TestCase):

    def setUp(self):
        self.count = 0

    def bad(self, name, fn, *args, exc=BAD, **kwargs):
        """fn(*args, **kwargs) must raise `exc` with a message naming `name`."""
        self.count += 1
        with self.assertRaises(exc, msg=f"{fn!r} {args} {kwargs}: no {exc}") as cm:
            fn(*args, **kwargs)
        msg = str(cm.exception)
        self.assertIn(name, msg, f"{args} {kwargs}: '{msg}' does not name '{name}'")
        for t in PYBIND_TEXT:
            self.assertNotIn(t, msg, f"{args} {kwargs}: pybind's own message '{msg}'")

    def report(self, what):
        print(f"{what}: {self.count} bad inputs refused with the parameter named")

    def test_module_functions(self):
        self.bad("device_id", gpufft.cuda_available, "0")
        self.bad("device_id", gpufft.cuda_available, -1)
        self.bad("device_id", gpufft.describe_backend, None)
        self.bad("device_id", gpufft.device_info, "x")
        self.bad("device_id", gpufft.device_info, 1.5)
        self.bad("backend", gpufft.resolve_backend, "tpu")
        self.bad("backend", gpufft.resolve_backend, 1)
        self.bad("device_id", gpufft.resolve_backend, "cpu", None)
        self.report("module functions")

    def test_dense_fft_plan(self):
        P = gpufft.dense_fft_plan
        for b in backends():
            with self.subTest(backend=b):
                self.bad("n", P, "16", backend=b)
                self.bad("n", P, None, backend=b)
                self.bad("n", P, -1, backend=b)
                self.bad("n", P, 0, backend=b)
                self.bad("n", P, 1.5, backend=b)
                self.bad("n", P, float("nan"), backend=b)
                self.bad("batch", P, 16, 0, backend=b)
                self.bad("batch", P, 16, "2", backend=b)
                self.bad("forward", P, 16, forward="yes", backend=b)
                self.bad("precision", P, 16, precision=1, backend=b)
                self.bad("precision", P, 16, precision="half", backend=b)
                self.bad("threads", P, 16, threads=-1, backend=b)
                self.bad("device_id", P, 16, device_id="0", backend=b)
                p = P(16, 2, backend=b)
                self.bad("x", p.execute, None)
                self.bad("x", p.execute, "abc")
                self.bad("x", p.execute, np.zeros(31, np.complex64))
                self.bad("x", p.execute, np.zeros((3, 16), np.complex64))
                # numpy's own float sizes that are whole are accepted
                self.assertEqual(P(16.0, backend=b).n, 16)
        self.bad("backend", P, 16, backend=None)
        self.bad("backend", P, 16, backend="tpu")
        self.report("dense_fft_plan")

    def test_sparse_fft_plan(self):
        P = gpufft.sparse_fft_plan
        n = 1 << 12
        for b in backends():
            with self.subTest(backend=b):
                self.bad("n", P, "4096", 4, backend=b)
                self.bad("n", P, None, 4, backend=b)
                self.bad("n", P, -5, 4, backend=b)
                self.bad("n", P, 2.5, 4, backend=b)
                self.bad("k", P, n, 0, backend=b)
                self.bad("k", P, n, "3", backend=b)
                self.bad("k", P, n, None, backend=b)
                self.bad("mode", P, n, 4, mode="fast", backend=b)
                self.bad("mode", P, n, 4, mode=3, backend=b)
                self.bad("seed", P, n, 4, seed="x", backend=b)
                self.bad("seed", P, n, 4, seed=-1, backend=b)
                self.bad("seed", P, n, 4, seed=1.5, backend=b)
                self.bad("min_snr_db", P, n, 4, min_snr_db=float("nan"), backend=b)
                self.bad("min_snr_db", P, n, 4, min_snr_db="20", backend=b)
                self.bad("min_snr_db", P, n, 4, min_snr_db=float("inf"), backend=b)
                self.bad("false_alarm", P, n, 4, false_alarm=None, backend=b)
                self.bad("window", P, n, 4, window="kaiser", backend=b)
                self.bad("window", P, n, 4, window=None, backend=b)
                self.bad("resolve_close_tones", P, n, 4, resolve_close_tones="no",
                         backend=b)
                self.bad("buckets", P, n, 4, buckets=-1, backend=b)
                self.bad("loops", P, n, 4, loops=-1, backend=b)
                self.bad("filter_width", P, n, 4, filter_width="x", backend=b)
                self.bad("force_dense", P, n, 4, force_dense="no", backend=b)
                self.bad("transfer", P, n, 4, transfer="dma", backend=b)
                self.bad("location", P, n, 4, location=1, backend=b)
                self.bad("value_iterations", P, n, 4, value_iterations=-1, backend=b)
                for mode in ("exact", "robust"):
                    p = P(n, 4, mode=mode, backend=b)
                    for call in (p.execute, p.detect):
                        self.bad("x", call, None)
                        self.bad("x", call, np.zeros(n - 1, np.complex64))
                        self.bad("x", call, np.zeros((2, n // 2), np.complex64))
                        self.bad("x", call, ["a"] * n)
                        y = cx(n)
                        y[::7] = np.nan  # reaches whichever samples the plan reads
                        self.bad("x", call, y)
        self.report("sparse_fft_plan")

    def test_nufft3_plan(self):
        P = gpufft.nufft3_plan
        for b in backends():
            with self.subTest(backend=b):
                self.bad("dim", P, 0, 1e-6, backend=b)
                self.bad("dim", P, 4, 1e-6, backend=b)
                self.bad("dim", P, "1", 1e-6, backend=b)
                self.bad("dim", P, None, 1e-6, backend=b)
                self.bad("eps", P, 1, float("nan"), backend=b)
                self.bad("eps", P, 1, "1e-6", backend=b)
                self.bad("eps", P, 1, -1.0, backend=b)
                self.bad("precision", P, 1, 1e-6, precision="quad", backend=b)
                self.bad("sign", P, 1, 1e-6, sign=0, backend=b)
                self.bad("sign", P, 1, 1e-6, sign="-1", backend=b)
                self.bad("kernel", P, 1, 1e-6, kernel="kb", backend=b)
                self.bad("kernel", P, 1, 1e-6, kernel=None, backend=b)
                self.bad("upsampling", P, 1, 1e-6, upsampling=float("nan"), backend=b)
                self.bad("upsampling", P, 1, 1e-6, upsampling=5.0, backend=b)
                self.bad("memory_budget", P, 1, 1e-6, memory_budget=-1, backend=b)
                self.bad("memory_budget", P, 1, 1e-6, memory_budget="1e9", backend=b)
                self.bad("memory_budget", P, 1, 1e-6, memory_budget=1.5, backend=b)
                self.bad("trace", P, 1, 1e-6, trace="yes", backend=b)
                self.bad("spread", P, 2, 1e-6, spread="atomic", backend=b)
                self.bad("spread", P, 2, 1e-6, spread=2, backend=b)
                P(1, 1e-6, memory_budget=1e9, backend=b)  # a whole float budget is fine
                rng = np.random.default_rng(2)
                x, s = rng.uniform(-3, 3, 50), rng.uniform(-10, 10, 40)
                p = P(1, 1e-6, backend=b)
                self.bad("set_points", p.execute, cx(50, np.complex128), exc=RuntimeError)
                self.bad("set_points", p.set_points, x, s, s)
                self.bad("w", p.set_points, x, w=s)
                self.bad("s", p.set_points, x)
                self.bad("x", p.set_points, None, s)
                self.bad("x", p.set_points, np.zeros((5, 10)), s)
                self.bad("x", p.set_points, "abc", s)
                xn = x.copy()
                xn[3] = np.nan
                self.bad("x", p.set_points, xn, s)
                sn = s.copy()
                sn[0] = np.inf
                self.bad("s", p.set_points, x, sn)
                p.set_points(x, s)
                self.bad("c", p.execute, None)
                self.bad("c", p.execute, cx(49, np.complex128))
                self.bad("c", p.execute, cx(50 * 2, np.complex128).reshape(2, 1, 50))
                for bad_value in (np.nan, np.inf, complex(0, np.nan)):
                    c = cx(50, np.complex128)
                    c[7] = bad_value
                    self.bad("c", p.execute, c)
                p2 = P(2, 1e-6, backend=b)
                self.bad("y", p2.set_points, x, x[:10], s, s)
                self.bad("set_points", p2.set_points, x, s)
        self.report("nufft3_plan")

    def test_large_fft_plan(self):
        P = gpufft.large_fft_plan
        for b in backends():
            with self.subTest(backend=b):
                self.bad("shape", P, "1024", backend=b)
                self.bad("shape", P, [], backend=b)
                self.bad("shape", P, [0], backend=b)
                self.bad("shape", P, [-4], backend=b)
                self.bad("shape", P, [1.5], backend=b)
                self.bad("shape", P, None, backend=b)
                self.bad("shape", P, [2, 2, 2, 2], backend=b)
                self.bad("memory_budget", P, [1024], memory_budget="1e7", backend=b)
                self.bad("memory_budget", P, [1024], memory_budget=-1, backend=b)
                self.bad("memory_budget", P, [1024], memory_budget=float("nan"), backend=b)
                self.bad("memory_budget", P, [1024], memory_budget=1.5, backend=b)
                self.bad("precision", P, [1024], precision="half", backend=b)
                self.bad("forward", P, [1024], forward="yes", backend=b)
                self.bad("trace", P, [1024], trace=1, backend=b)
                self.bad("threads", P, [1024], threads=-1, backend=b)
                self.bad("devices", P, [1024], devices="0", backend=b)
                self.bad("devices", P, [1024], devices=[-1], backend=b)
                # issue 15: a float budget that is a whole number of bytes is accepted
                P([1 << 20], memory_budget=1e7, backend=b)
                p = P([65536], backend=b)
                self.bad("x", p.execute, np.zeros((256, 256), np.complex64))
                self.bad("x", p.execute, np.zeros(1000, np.complex64))
                self.bad("x", p.execute, None)
                self.bad("x", p.execute, np.zeros(65536, np.complex128), in_place=True)
                self.bad("x", p.execute, np.zeros(2 * 65536, np.complex64)[::2], in_place=True)
                self.bad("in_place", p.execute, np.zeros(65536, np.complex64), in_place="yes")
                y = cx(65536)
                y[100] = np.nan
                self.bad("execute", p.execute, y)
        self.report("large_fft_plan")

    def test_spectrum_integrator(self):
        S = gpufft.spectrum_integrator
        for b in backends():
            with self.subTest(backend=b):
                self.bad("fft_size", S, 0, backend=b)
                self.bad("fft_size", S, "1024", backend=b)
                self.bad("fft_size", S, None, backend=b)
                self.bad("band_start", S, 1024, -1, backend=b)
                self.bad("band_stop", S, 1024, 0, 2048, backend=b)
                self.bad("output_bins", S, 1024, output_bins=-1, backend=b)
                self.bad("window", S, 1024, window="kaiser", backend=b)
                self.bad("window", S, 1024, window=None, backend=b)
                self.bad("mode", S, 1024, mode="median", backend=b)
                self.bad("mode", S, 1024, mode=1, backend=b)
                self.bad("memory_budget", S, 1024, memory_budget=-1, backend=b)
                self.bad("devices", S, 1024, devices="x", backend=b)
                self.bad("threads", S, 1024, threads="4", backend=b)
                self.bad("fftw_planner", S, 1024, fftw_planner="patient", backend=b)
                self.bad("fftw_wisdom", S, 1024, fftw_wisdom=3, backend=b)
                s = S(1024, backend=b)
                self.bad("x", s.accumulate, None)
                self.bad("x", s.accumulate, np.zeros(1000, np.complex64))
                self.bad("x", s.accumulate, np.zeros(2048, np.complex64)[::2], in_place=True)
                self.bad("in_place", s.accumulate, np.zeros(1024, np.complex64), in_place="y")
                self.bad("mode", s.reset, 3)
                self.bad("mode", s.reset, "median")
                # documented: a frame holding NaN/inf is left out, and says so
                y = cx(1024)
                y[5] = np.inf
                self.assertFalse(s.accumulate(y))
                self.assertEqual(s.frames, 0)
        self.report("spectrum_integrator")

    def test_blocks(self):
        # The four GNU Radio blocks' constructors and setters: made, not run.
        for b in backends():
            with self.subTest(backend=b):
                F = gpufft.sparse_fft
                self.bad("fft_size", F, "1024", 8, 1e6, backend=b)
                self.bad("fft_size", F, 1024.5, 8, 1e6, backend=b)
                self.bad("k", F, 1024, None, 1e6, backend=b)
                self.bad("k", F, 1024, 8.5, 1e6, backend=b)
                self.bad("k", F, 1024, 0, 1e6, backend=b)
                self.bad("samp_rate", F, 1024, 8, "1e6", backend=b)
                self.bad("samp_rate", F, 1024, 8, -1.0, backend=b)
                self.bad("display_bins", F, 1024, 8, 1e6, display_bins="64", backend=b)
                self.bad("hop", F, 1024, 8, 1e6, hop=[1], backend=b)
                self.bad("backend", F, 1024, 8, 1e6, backend=3)
                self.bad("device_id", F, 1024, 8, 1e6, device_id="0", backend=b)
                self.bad("mode", F, 1024, 8, 1e6, mode=None, backend=b)
                self.bad("mode", F, 1024, 8, 1e6, mode="fast", backend=b)
                self.bad("min_snr_db", F, 1024, 8, 1e6, min_snr_db="20", backend=b)
                self.bad("false_alarm", F, 1024, 8, 1e6, false_alarm=2.0, backend=b)
                f = F(1024, 8.0, 1e6, backend=b)  # whole floats are whole numbers
                self.assertEqual(f.k(), 8)
                self.bad("k", f.set_k, "9")
                self.bad("samp_rate", f.set_samp_rate, None)

                N = gpufft.nufft3_spectrum
                self.bad("frame_len", N, "64", [0.0, 1.0], backend=b)
                self.bad("frame_len", N, 0, [0.0, 1.0], backend=b)
                self.bad("frequencies", N, 64, "abc", backend=b)
                self.bad("frequencies", N, 64, 5.0, backend=b)
                self.bad("frequencies", N, 64, np.zeros((2, 2)), backend=b)
                self.bad("frequencies", N, 64, [0.0, "x"], backend=b)
                self.bad("frequencies", N, 64, [], backend=b)
                self.bad("frequencies", N, 64, [0.0, np.nan], backend=b)
                self.bad("eps", N, 64, [0.0], eps="1e-6", backend=b)
                self.bad("epoch", N, 64, [0.0], epoch=1.5, backend=b)
                self.bad("nominal_rate", N, 64, [0.0], nominal_rate=None, backend=b)
                n = N(64, np.array([0.0, 10.0]), backend=b)  # a numpy array is a list
                self.assertEqual(list(n.frequencies()), [0.0, 10.0])
                self.bad("frequencies", n.set_frequencies, "ab")
                self.bad("frequencies", n.set_frequencies, [1.0, 2.0, 3.0])

                R = gpufft.nufft_resampler
                self.bad("output_rate", R, "400", 250.0, backend=b)
                self.bad("bandwidth", R, 400.0, None, backend=b)
                self.bad("frame_len", R, 400.0, 250.0, frame_len=1024.5, backend=b)
                self.bad("overlap", R, 400.0, 250.0, overlap="128", backend=b)
                self.bad("overlap", R, 400.0, 250.0, 1024, 1000, backend=b)
                self.bad("eps", R, 400.0, 250.0, eps=[1e-6], backend=b)
                r = R(400.0, 250.0, backend=b)
                self.bad("output_rate", r.set_output_rate, "400")
                self.bad("bandwidth", r.set_bandwidth, None)

                A = gpufft.large_fft_accumulator
                self.bad("fft_size", A, 1e6 + 0.5, 4, 1024, backend=b)
                self.bad("fft_size", A, "65536", 4, 1024, backend=b)
                self.bad("n_integrations", A, 1 << 16, None, 1024, backend=b)
                self.bad("n_integrations", A, 1 << 16, 0, 1024, backend=b)
                self.bad("output_bins", A, 1 << 16, 4, "1024", backend=b)
                self.bad("window", A, 1 << 16, 4, 1024, window=3, backend=b)
                self.bad("mode", A, 1 << 16, 4, 1024, mode=None, backend=b)
                self.bad("output_db", A, 1 << 16, 4, 1024, output_db="yes", backend=b)
                self.bad("samp_rate", A, 1 << 16, 4, 1024, samp_rate="1e6", backend=b)
                self.bad("filterbank_path", A, 1 << 16, 4, 1024, filterbank_path=5, backend=b)
                self.bad("memory_budget", A, 1 << 16, 4, 1024, memory_budget=-1, backend=b)
                self.bad("file_format", A, 1 << 16, 4, 1024, file_format=None, backend=b)
                a = A(float(1 << 16), 4, 1024, memory_budget=1e9, backend=b)
                self.assertEqual(a.fft_size(), 1 << 16)
                self.bad("n_integrations", a.set_n_integrations, "5")
                self.bad("mode", a.set_mode, 1)
                self.bad("output_db", a.set_output_db, "True")
        self.report("blocks")

    def test_wrong_calls(self):
        # Unknown keywords, missing, repeated or extra arguments to every constructor:
        # a TypeError naming the argument, not pybind's list of signatures.
        calls = [
            ("foo", gpufft.dense_fft_plan, (1024,), dict(foo=1)),
            ("sign", gpufft.dense_fft_plan, (1024,), dict(sign=-1)),
            ("n", gpufft.dense_fft_plan, (), {}),
            ("bucket", gpufft.sparse_fft_plan, (1024, 8), dict(bucket=4)),
            ("k", gpufft.sparse_fft_plan, (1024,), {}),
            ("eps", gpufft.nufft3_plan, (1,), {}),
            ("at most 12", gpufft.nufft3_plan, (1, 1e-6) + (0,) * 11, {}),
            ("budget", gpufft.large_fft_plan, ([1024],), dict(budget=1)),
            ("shape", gpufft.large_fft_plan, ([1024],), dict(shape=[1024])),
            ("bins", gpufft.spectrum_integrator, (1024,), dict(bins=8)),
            ("foo", gpufft.sparse_fft, (1024, 8, 1e6), dict(foo=1)),
            ("samp_rate", gpufft.sparse_fft, (1024, 8), {}),
            ("samp_rate given twice", gpufft.sparse_fft, (1024, 8, 1e6),
             dict(sample_rate=1e6)),
            ("k", gpufft.sparse_fft, (1024, 8, 1e6), dict(k=8)),
            ("freqs", gpufft.nufft3_spectrum, (64,), dict(freqs=[0.0])),
            ("rate", gpufft.nufft_resampler, (400.0, 250.0), dict(rate=1.0)),
            ("n_integration", gpufft.large_fft_accumulator, (1024,),
             dict(n_integration=4, output_bins=64)),
            ("n_integrations", gpufft.large_fft_accumulator, (1024,), {}),
        ]
        for name, fn, args, kwargs in calls:
            self.bad(name, fn, *args, exc=TypeError, **kwargs)

        # The same for every method that takes arguments: an unknown keyword, a missing
        # argument, too many by position (and a few given twice).
        x = cx(1024)
        methods = [
            (gpufft.dense_fft_plan(1024, backend="cpu"), "execute", (x,), {}),
            (gpufft.sparse_fft_plan(1024, 8, backend="cpu"), "execute", (x,), {}),
            (gpufft.sparse_fft_plan(1024, 8, backend="cpu"), "detect", (x,), {}),
            (gpufft.nufft3_plan(1, 1e-6, backend="cpu"), "execute", (x,), {}),
            (gpufft.large_fft_plan([1024], backend="cpu"), "execute", (x,),
             dict(in_place=False)),
            (gpufft.spectrum_integrator(1024, output_bins=64, backend="cpu"),
             "accumulate", (x,), dict(in_place=False)),
            (gpufft.spectrum_integrator(1024, output_bins=64, backend="cpu"), "reset",
             (), dict(mode="max")),
            (gpufft.sparse_fft(1024, 8, 1e6, backend="cpu"), "set_k", (8,), {}),
            (gpufft.sparse_fft(1024, 8, 1e6, backend="cpu"), "set_samp_rate", (1e6,),
             {}),
            (gpufft.sparse_fft(1024, 8, 1e6, backend="cpu"), "set_sample_rate", (1e6,),
             {}),
            (gpufft.nufft3_spectrum(64, [0.0], backend="cpu"), "set_frequencies",
             ([0.0],), {}),
            (gpufft.nufft_resampler(400.0, 250.0, backend="cpu"), "set_output_rate",
             (400.0,), {}),
            (gpufft.nufft_resampler(400.0, 250.0, backend="cpu"), "set_bandwidth",
             (250.0,), {}),
            (gpufft.large_fft_accumulator(1024, 4, 64, backend="cpu"),
             "set_n_integrations", (4,), {}),
            (gpufft.large_fft_accumulator(1024, 4, 64, backend="cpu"), "set_mode",
             ("max",), {}),
            (gpufft.large_fft_accumulator(1024, 4, 64, backend="cpu"), "set_output_db",
             (True,), {}),
        ]
        for obj, method, args, kwargs in methods:
            fn = getattr(obj, method)
            every = args + tuple(kwargs.values())
            # The message names "class.method" and the argument at fault.
            where = f"{type(obj).__name__}.{method}"
            self.bad(f"{where}: unknown keyword argument 'foo'", fn, *args, exc=TypeError,
                     foo=1, **kwargs)
            self.bad(f"{where}: takes at most {len(every)} argument", fn, *every, 0,
                     exc=TypeError)
            if args:
                # args are the required arguments: leave the first one out.
                self.bad(f"{where}: missing argument", fn, *args[1:], exc=TypeError,
                         **kwargs)
        d = gpufft.dense_fft_plan(1024, backend="cpu")
        self.bad("'x' given by position and by keyword", d.execute, x, exc=TypeError, x=x)
        s = gpufft.spectrum_integrator(1024, output_bins=64, backend="cpu")
        self.bad("'in_place' given by position and by keyword", s.accumulate, x, False,
                 exc=TypeError, in_place=False)
        self.report("wrong calls")

    def test_catch_all_names_match_signatures(self):
        """Every catch-all overload of a method (refuse_other_method_calls) lists
        the parameter names of its function a second time, for its message. Those lists
        must be the names of the real overloads, or the message would misname them: read
        both from the binding (the overloads' signatures in __doc__, the list from the
        TypeError of an unknown keyword) and compare. A constructor bound from one table
        (keyword_table.h) has the table's signature as its docstring's first line
        instead: its message must list the same names in the same order."""
        catch_all = "Any other call: a TypeError naming the argument at fault."
        sig = re.compile(r"^\d+\. \w+\(self: [^,)]+(?:, )?(.*)\) -> ", re.M)
        x = cx(1024)
        instances = {
            "dense_fft_plan": lambda: gpufft.dense_fft_plan(1024, backend="cpu"),
            "sparse_fft_plan": lambda: gpufft.sparse_fft_plan(1024, 8, backend="cpu"),
            "nufft3_plan": lambda: gpufft.nufft3_plan(1, 1e-6, backend="cpu"),
            "large_fft_plan": lambda: gpufft.large_fft_plan([1024], backend="cpu"),
            "spectrum_integrator": lambda: gpufft.spectrum_integrator(
                1024, output_bins=64, backend="cpu"),
            "sensing_plan": lambda: gpufft.sensing_plan(1024, backend="cpu"),
            "transmission_tracker": lambda: gpufft.transmission_tracker(1e6),
            "sparse_fft": lambda: gpufft.sparse_fft(1024, 8, 1e6, backend="cpu"),
            "nufft3_spectrum": lambda: gpufft.nufft3_spectrum(64, [0.0], backend="cpu"),
            "nufft_resampler": lambda: gpufft.nufft_resampler(400.0, 250.0,
                                                              backend="cpu"),
            "large_fft_accumulator": lambda: gpufft.large_fft_accumulator(
                1024, 4, 64, backend="cpu"),
        }
        checked = tables = 0
        for cls_name, make in instances.items():
            cls = getattr(gpufft, cls_name)
            obj = make()
            for attr in ["__init__"] + sorted(set(dir(cls)) - {"__init__"}):
                fn = getattr(cls, attr, None)
                doc = getattr(fn, "__doc__", None) or ""
                table = None
                if attr == "__init__":
                    table = re.search(rf"^{cls_name}\((.*)\)$", doc, re.M)
                if table is None and (catch_all not in doc or
                                      (attr != "__init__" and attr.startswith("_"))):
                    continue
                if table is not None:
                    # name, name=default, ...: the table's order is the positional one.
                    signed = re.findall(r"(?:^|, )([A-Za-z_]\w*)(?==|, |$)",
                                        table.group(1))
                else:
                    signed = []
                    for params in sig.findall(doc):
                        if params.startswith("*args"):
                            continue
                        for p in params.split(", "):
                            name = p.split(":")[0].strip()
                            if name and name != "*" and name not in signed:
                                signed.append(name)
                call = cls if attr == "__init__" else getattr(obj, attr)
                with self.assertRaises(TypeError, msg=f"{cls_name}.{attr}") as cm:
                    call(zzz_unknown=1)
                listed = str(cm.exception).rsplit("it takes (", 1)[-1].rstrip(")")
                listed = [n for n in listed.split(", ") if n]
                if table is not None:
                    self.assertEqual(listed, signed,
                                     f"{cls_name}: the message lists {listed}, the "
                                     f"signature {signed}")
                    tables += 1
                else:
                    self.assertEqual(set(listed), set(signed),
                                     f"{cls_name}.{attr}: the catch-all lists {listed}, "
                                     f"the overloads take {signed}")
                checked += 1
        print(f"{checked} catch-all overloads and tables list their function's "
              f"parameters ({tables} constructors from one table)")
        # Every constructor above is bound from one table.
        self.assertEqual(tables, len(instances))
        self.assertGreaterEqual(checked, 20)

    def test_wrong_types_to_methods(self):
        # The methods' catch-alls take only calls no real overload took: a wrong type
        # still reaches the method's own conversion, a ValueError naming the parameter.
        x = cx(1024)
        cases = [
            ("x", gpufft.dense_fft_plan(1024, backend="cpu").execute, ("abc",), {}),
            ("x", gpufft.sparse_fft_plan(1024, 8, backend="cpu").detect, ("abc",), {}),
            ("in_place", gpufft.large_fft_plan([1024], backend="cpu").execute, (x,),
             dict(in_place="yes")),
            ("mode", gpufft.spectrum_integrator(1024, output_bins=64,
                                                backend="cpu").reset, (3,), {}),
            ("k", gpufft.sparse_fft(1024, 8, 1e6, backend="cpu").set_k, (), dict(k="9")),
            ("sample_rate", gpufft.sparse_fft(1024, 8, 1e6, backend="cpu").set_sample_rate,
             (None,), {}),
            ("frequencies", gpufft.nufft3_spectrum(64, [0.0], backend="cpu").set_frequencies,
             ("ab",), {}),
            ("output_db", gpufft.large_fft_accumulator(1024, 4, 64,
                                                       backend="cpu").set_output_db,
             ("True",), {}),
        ]
        for name, fn, args, kwargs in cases:
            self.bad(name, fn, *args, exc=ValueError, **kwargs)
        self.report("wrong types to methods")


if __name__ == "__main__":
    gr_unittest.run(qa_bad_inputs)
