#!/usr/bin/env python3
#
# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""One name per concept (docs/design.md, "Names"): the new names work, the old ones
still do for one release with a DeprecationWarning, and a wrong type or value still
names the parameter."""

import os
import tempfile
import warnings

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest

try:
    from gnuradio import gpufft
except ImportError:
    import sys
    sys.exit(77)


def deprecations(fn):
    """fn()'s result and the DeprecationWarnings it raised."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn()
    return result, [w for w in caught if issubclass(w.category, DeprecationWarning)]


class qa_names(gr_unittest.TestCase):

    def setUp(self):
        self.seed = int(np.random.SeedSequence().entropy % 2**32)
        print(f"seed {self.seed}")
        self.rng = np.random.default_rng(self.seed)
        self.rate = float(self.rng.uniform(1e5, 1e7))

    def make(self, **kw):
        return gpufft.sparse_fft(fft_size=1024, k=4, display_bins=64, backend="cpu",
                                 mode="exact", **kw)

    def test_001_sparse_fft_samp_rate(self):
        b, warned = deprecations(lambda: self.make(samp_rate=self.rate))
        self.assertEqual(warned, [])
        self.assertEqual(b.samp_rate(), self.rate)
        b.set_samp_rate(self.rate / 2)
        self.assertEqual(b.samp_rate(), self.rate / 2)
        # positional, as the GRC template calls it
        b, warned = deprecations(
            lambda: gpufft.sparse_fft(1024, 4, self.rate, 64, 0, "cpu", 0, "exact"))
        self.assertEqual((warned, b.samp_rate()), ([], self.rate))

    def test_002_sparse_fft_old_names_warn(self):
        b, warned = deprecations(lambda: self.make(sample_rate=self.rate))
        self.assertEqual(len(warned), 1)
        self.assertIn("samp_rate", str(warned[0].message))
        self.assertEqual(warned[0].filename, __file__)  # points at the caller
        self.assertEqual(b.samp_rate(), self.rate)
        _, warned = deprecations(lambda: b.set_sample_rate(self.rate * 2))
        self.assertEqual(len(warned), 1)
        value, warned = deprecations(b.sample_rate)
        self.assertEqual((len(warned), value), (1, self.rate * 2))
        with self.assertRaises(TypeError):  # both names at once
            self.make(samp_rate=self.rate, sample_rate=self.rate)

    def test_003_sparse_fft_bad_rate_names_the_parameter(self):
        for name in ("samp_rate", "sample_rate"):
            for bad in ("fast", None, 1j, [1e6]):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", DeprecationWarning)
                    with self.assertRaises((TypeError, ValueError)) as cm:
                        self.make(**{name: bad})
                self.assertIn(name, str(cm.exception), f"{name}={bad!r}")
            for bad in (0.0, -1.0, float("nan"), float("inf")):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", DeprecationWarning)
                    with self.assertRaises(ValueError) as cm:
                        self.make(**{name: bad})
                self.assertTrue(str(cm.exception).startswith(name + ":"),
                                str(cm.exception))
        b = self.make(samp_rate=self.rate)
        with self.assertRaises(ValueError) as cm:
            b.set_samp_rate("fast")
        self.assertIn("samp_rate", str(cm.exception))
        with self.assertRaises(ValueError) as cm:
            b.set_samp_rate(-1.0)
        self.assertTrue(str(cm.exception).startswith("samp_rate:"))
        self.assertEqual(b.samp_rate(), self.rate)

    def test_004_coefficients_message_has_both_keys(self):
        n = 1024
        tb = gr.top_block()
        x = (self.rng.standard_normal(2 * n) + 1j * self.rng.standard_normal(2 * n))
        src = blocks.vector_source_c(x.astype(np.complex64).tolist())
        b = self.make(samp_rate=self.rate)
        store = blocks.message_debug()
        tb.connect(src, b)
        tb.msg_connect(b, "coefficients", store, "store")
        tb.run()
        self.assertEqual(store.num_messages(), 2)
        for i in range(2):
            m = pmt.to_python(store.get_message(i))
            self.assertEqual(m["samp_rate"], self.rate)
            self.assertEqual(m["sample_rate"], m["samp_rate"])  # deprecated key

    def test_005_recording_samp_rate(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "x.cfile")
            x = (self.rng.standard_normal(64) + 1j * self.rng.standard_normal(64))
            x.astype(np.complex64).tofile(path)
            rec, warned = deprecations(
                lambda: gpufft.open_recording(path, samp_rate=self.rate))
            self.assertEqual((warned, rec.samp_rate), ([], self.rate))
            rec, warned = deprecations(
                lambda: gpufft.open_recording(path, sample_rate=self.rate))
            self.assertEqual((len(warned), rec.samp_rate), (1, self.rate))
            value, warned = deprecations(lambda: rec.sample_rate)
            self.assertEqual((len(warned), value), (1, self.rate))
            src, warned = deprecations(
                lambda: gpufft.recording_source(path, samp_rate=self.rate))
            self.assertEqual((warned, src.rec.samp_rate), ([], self.rate))
            src, warned = deprecations(
                lambda: gpufft.recording_source(path, sample_rate=self.rate))
            self.assertEqual((len(warned), src.rec.samp_rate), (1, self.rate))
            with self.assertRaises(TypeError):
                gpufft.recording_source(path, samp_rate=self.rate, sample_rate=1.0)
            with self.assertRaises(TypeError):
                gpufft.open_recording(path, sampel_rate=1.0)
            with self.assertRaises(ValueError) as cm:
                gpufft.open_recording(path, samp_rate="fast")
            self.assertIn("sample rate", str(cm.exception))

    def test_006_direction_names(self):
        # forward= for the FFT plans, sign= for the type-3 NUFFT (docs/design.md).
        p = gpufft.dense_fft_plan(16, forward=False, backend="cpu")
        self.assertIsNotNone(p)
        with self.assertRaises(ValueError) as cm:
            gpufft.dense_fft_plan(16, forward="yes", backend="cpu")
        self.assertIn("forward", str(cm.exception))
        with self.assertRaises(ValueError) as cm:
            gpufft.nufft3_plan(1, 1e-6, sign=2, backend="cpu")
        self.assertIn("sign", str(cm.exception))

    def message(self, fn, *args, **kwargs):
        """The ValueError message of fn(*args, **kwargs)."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            with self.assertRaises(ValueError, msg=f"{fn} {args} {kwargs}") as cm:
                fn(*args, **kwargs)
        return str(cm.exception)

    def same(self, param, calls):
        """Each (fn, args, kwargs) in calls refuses with one message, naming param."""
        got = [(f"{getattr(fn, '__qualname__', fn)}{args}{kwargs}",
                self.message(fn, *args, **kwargs)) for fn, args, kwargs in calls]
        for where, m in got:
            self.assertTrue(m.startswith(param), f"{where}: '{m}' does not name {param}")
            self.assertEqual(m, got[0][1], f"{where} and {got[0][0]} differ")
        return got[0][1]

    def test_007_one_message_per_name(self):
        # One owner for each name and range (issue #34): a bad name or value reads the
        # same from the engine's plan, the block, a block's setter and the module
        # functions, as each entry point hands it to the same parser or check.
        cpu = dict(backend="cpu")
        sparse = gpufft.sparse_fft(1024, 8, self.rate, **cpu)
        acc = gpufft.large_fft_accumulator(1 << 12, 4, 64, **cpu)
        integ = gpufft.spectrum_integrator(1024, **cpu)
        n = 4096
        bad_mode = self.rng.choice(["fast", "Robust", "", "exact "])
        for bad in (bad_mode, 3, None):
            self.same("mode", [
                (gpufft.sparse_fft_plan, (n, 4), dict(mode=bad, **cpu)),
                (gpufft.sparse_fft, (1024, 8, self.rate), dict(mode=bad, **cpu)),
                (sparse.set_mode, (bad,), {}),
            ])
        k = int(self.rng.integers(257, 1000))  # robust mode: k <= fft_size / 4 = 256
        for bad in (0, -1, k, "4", 2.5):
            self.same("k", [
                (gpufft.sparse_fft_plan, (1024, bad), cpu),
                (gpufft.sparse_fft, (1024, bad, self.rate), cpu),
            ] + ([(sparse.set_k, (bad,), {})] if bad != k else []))
        for bad in (-1.0, 200.5, float("nan"), "20", None):
            self.same("min_snr_db", [
                (gpufft.sparse_fft_plan, (n, 4), dict(min_snr_db=bad, **cpu)),
                (gpufft.sparse_fft, (1024, 8, self.rate), dict(min_snr_db=bad, **cpu)),
                (sparse.set_min_snr_db, (bad,), {}),
            ])
        for bad in (0.0, 0.75, float(self.rng.uniform(0.51, 1.0)), "x"):
            self.same("false_alarm", [
                (gpufft.sparse_fft_plan, (n, 4), dict(false_alarm=bad, **cpu)),
                (gpufft.sparse_fft, (1024, 8, self.rate), dict(false_alarm=bad, **cpu)),
                (sparse.set_false_alarm, (bad,), {}),
            ])
        for bad in ("median", 1):
            self.same("mode", [
                (gpufft.spectrum_integrator, (1024,), dict(mode=bad, **cpu)),
                (gpufft.large_fft_accumulator, (1 << 12, 4, 64), dict(mode=bad, **cpu)),
                (acc.set_mode, (bad,), {}),
            ] + ([(integ.reset, (bad,), {})] if isinstance(bad, str) else []))
        for bad in ("kaiser", 3):
            self.same("window", [
                (gpufft.spectrum_integrator, (1024,), dict(window=bad, **cpu)),
                (gpufft.large_fft_accumulator, (1 << 12, 4, 64), dict(window=bad, **cpu)),
            ])
        for bad in ("s16", "FC32", 8):
            self.same("input_type", [
                (gpufft.sparse_fft, (1024, 8, self.rate), dict(input_type=bad, **cpu)),
                (gpufft.large_fft_accumulator, (1 << 12, 4, 64),
                 dict(input_type=bad, **cpu)),
                (gpufft.input_type_scale, (bad,), {}),
            ])
        m = self.same("input_type", [(gpufft.input_type_scale, ("s16",), {})])
        for name in gpufft.input_types():
            self.assertIn(name, m)
        self.same("bandwidth_rule", [
            (gpufft.sensing_plan, (1024,), dict(bandwidth_rule="99", **cpu)),
            (gpufft.sparse_fft, (1024, 8, self.rate), dict(bandwidth_rule="99", **cpu)),
        ])
        # The sensing options the block passes on (sensing_params.cc checks both).
        big = int(self.rng.integers(1025, 1 << 20))
        for param, bads in (("floor_frames", (0, -1, 1025, big, 2 ** 31, 2.5, "8")),
                            ("watch_frames", (-1, 9, big, 2 ** 31, 1.5, "2"))):
            for bad in bads:
                self.same(param, [
                    (gpufft.sensing_plan, (1024,), {param: bad, **cpu}),
                    (gpufft.sparse_fft, (1024, 8, self.rate), {param: bad, **cpu}),
                    (getattr(sparse, "set_" + param), (bad,), {}),
                ])
        for bad in ("tpu", 1):
            self.same("backend", [
                (gpufft.dense_fft_plan, (16,), dict(backend=bad)),
                (gpufft.sparse_fft_plan, (n, 4), dict(backend=bad)),
                (gpufft.nufft3_plan, (1, 1e-6), dict(backend=bad)),
                (gpufft.large_fft_plan, ([1024],), dict(backend=bad)),
                (gpufft.spectrum_integrator, (1024,), dict(backend=bad)),
                (gpufft.sensing_plan, (1024,), dict(backend=bad)),
                (gpufft.sparse_fft, (1024, 8, self.rate), dict(backend=bad)),
                (gpufft.nufft3_spectrum, (64, [0.0]), dict(backend=bad)),
                (gpufft.nufft_resampler, (400.0, 250.0), dict(backend=bad)),
                (gpufft.large_fft_accumulator, (1 << 12, 4, 64), dict(backend=bad)),
                (gpufft.resolve_backend, (bad,), {}),
            ])
        for bad in ("half", 2):
            self.same("precision", [
                (gpufft.dense_fft_plan, (16,), dict(precision=bad, **cpu)),
                (gpufft.nufft3_plan, (1, 1e-6), dict(precision=bad, **cpu)),
                (gpufft.large_fft_plan, ([1024],), dict(precision=bad, **cpu)),
            ])
        # The engine's names (sparse_names.cc): a wrong type lists the names a wrong
        # name is told about.
        for param, names in (("window", "'auto', 'none', 'hann' or 'blackman-harris'"),
                             ("transfer", "'auto', 'gather' or 'copy'"),
                             ("location", "'phase' or 'voting'")):
            wrong_name = self.message(gpufft.sparse_fft_plan, n, 4, **{param: "x"}, **cpu)
            wrong_type = self.message(gpufft.sparse_fft_plan, n, 4, **{param: 1}, **cpu)
            self.assertEqual(wrong_name, f"{param}: 'x' is invalid; must be {names}")
            self.assertEqual(wrong_type, f"{param}: must be {names}, got a int")
        # ... and each listed name is taken, the default first among them.
        for w in ("auto", "none", "hann", "blackman-harris", "blackman_harris"):
            gpufft.sparse_fft_plan(n, 4, window=w, **cpu)
        self.assertEqual(gpufft.sparse_fft_plan(n, 4, mode="exact", **cpu).mode, "exact")

    def test_008_grc_agrees_with_the_tables(self):
        # The GRC files cannot read the bindings' tables, so this checks them against
        # the tables: the make templates pass the arguments in the table's order, the
        # defaults are the table's (where GRC gives a literal and Python has a
        # default), and every option GRC offers is a name the block's owner takes.
        import ast
        import re
        try:
            import yaml
        except ImportError:
            print("skip: no PyYAML to read the GRC files")
            return
        grc = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "grc")
        if not os.path.isdir(grc):
            print(f"skip: no grc/ beside the QA files ({grc})")
            return
        minimal = {
            "sparse_fft": ((1024, 8, self.rate), {}),
            "large_fft_accumulator": ((1 << 12, 4, 64), {}),
            "nufft3_spectrum": ((64, [0.0, 10.0]), {}),
            "nufft_resampler": ((400.0, 250.0), {}),
        }
        # ${x}, ${x.arg}, ${no_quotes(x)} and ${str(x)[1:-1]} (a string without its quotes)
        arg = re.compile(r"\$\{(?:no_quotes\(|str\()?(\w+)\)?(?:\[1:-1\])?(?:\.arg)?\}")
        checked = 0
        for name, (args, kwargs) in minimal.items():
            with open(os.path.join(grc, f"gpufft_{name}.block.yml")) as f:
                block = yaml.safe_load(f)
            cls = getattr(gpufft, name)
            table = re.search(rf"^{name}\((.*)\)$", cls.__init__.__doc__, re.M).group(1)
            rows = re.findall(r"(?:^|, )([A-Za-z_]\w*)(?:=(.*?))?(?=, [A-Za-z_]\w*(?:=|, |$)|$)",
                              table)
            order = [r[0] for r in rows]
            defaults = {r[0]: ast.literal_eval(r[1]) for r in rows if r[1]}
            for template in (block["templates"]["make"],
                             block["cpp_templates"]["make"]):
                passed = [a for a in arg.findall(template) if a != "id"]
                self.assertEqual(passed, order, f"{name}: the make template's order")
            for p in block["parameters"]:
                given = p.get("default")
                attrs = p.get("option_attributes") or {}
                if "arg" in attrs:  # an enum whose value is its option's arg
                    given = attrs["arg"][p["options"].index(given)]
                    options = attrs["arg"]
                else:
                    options = p.get("options") or []
                if p["dtype"] in ("string", "file_save", "file_open"):
                    given = repr(given or "")
                try:
                    value = ast.literal_eval(str(given))
                except (ValueError, SyntaxError):
                    value = None  # a flowgraph variable such as samp_rate
                if p["id"] in defaults and value is not None:
                    self.assertEqual(value, defaults[p["id"]],
                                     f"{name}.{p['id']}: GRC's default is not Python's")
                    checked += 1
                for option in options:
                    choice = ast.literal_eval(option)
                    try:
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            cls(*args, **{"backend": "cpu", **kwargs, p["id"]: choice})
                    except (ValueError, RuntimeError) as e:
                        # refused for the machine (no GPU, no HDF5), not for the name
                        self.assertNotIn(f"'{choice}'", str(e), f"{name}.{p['id']}")
                        self.assertNotIn(f'"{choice}"', str(e), f"{name}.{p['id']}")
                    checked += 1
        print(f"{checked} GRC defaults and options agree with the bindings' tables")
        self.assertGreater(checked, 40)


if __name__ == '__main__':
    gr_unittest.run(qa_names)
