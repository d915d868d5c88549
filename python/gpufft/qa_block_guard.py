#!/usr/bin/env python3
#
# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""QA for the Python blocks' guard (block_guard.guarded_work, issue 32 item 1): an
exception in a Python block's work() ends the flowgraph with the error logged and kept
in the block's `error`, instead of hanging tb.run() forever; and every Python block of
the module is guarded. The flowgraphs run in a child process with a deadline, so a hang
fails the test."""

import importlib
import inspect
import os
import pkgutil

import numpy as np
from gnuradio import gr_unittest

try:
    from gnuradio import gpufft
except ImportError:
    import sys
    dirname, filename = os.path.split(os.path.abspath(__file__))
    sys.path.append(os.path.join(dirname, "bindings"))
    from gnuradio import gpufft

from gnuradio.gr.gateway import gateway_block
from gnuradio.gpufft.block_guard import GUARD_MARK
from testing_deadline import run_python


class qa_block_guard(gr_unittest.TestCase):

    def setUp(self):
        self.seed = int(os.environ.get("GPUFFT_QA_SEED", np.random.SeedSequence().entropy))
        print(f"{self.id()}: seed {self.seed}")
        self.rng = np.random.default_rng(self.seed)

    def test_001_exception_in_work_ends_the_flowgraph(self):
        # A fault on the second call to work(), after samples went downstream through
        # another block: tb.run() returns, the error is logged with where it was
        # raised, and the block keeps it in `error`.
        n = int(self.rng.integers(600000, 900000))  # several calls of <= 2^18 samples
        code = f"""
import os, tempfile, numpy as np
from gnuradio import blocks, gr, gpufft
d = tempfile.mkdtemp()
path = os.path.join(d, "x.cfile")
np.zeros({n}, np.complex64).tofile(path)
tb = gr.top_block()
src = gpufft.recording_source(path, samp_rate=1e6)
calls = []
def fault(begin, end, written):
    calls.append(begin)
    if len(calls) == 2:
        raise OSError("disk gone")
src._tags = fault
gain = blocks.multiply_const_cc(2.0)
sink = blocks.vector_sink_c()
tb.connect(src, gain, sink)
tb.run()
print(repr(src.error), len(sink.data()), calls[1])
"""
        r = run_python(self, code)
        self.assertEqual(r.returncode, 0, r.stderr[-3000:])
        error, got, second = r.stdout.strip().splitlines()[-1].rsplit(" ", 2)
        self.assertEqual(error, "OSError('disk gone')")
        # What was written before the fault went through; nothing after it.
        self.assertEqual(int(got), int(second))
        self.assertGreater(int(got), 0)
        self.assertRegex(r.stdout + r.stderr,
                         r"recording_source.*OSError: disk gone \(at <string>:\d+ in "
                         r"fault\); ending the flowgraph")

    def test_002_every_python_block_is_guarded(self):
        # Each Python block class of gnuradio.gpufft (not the QA files nor their testing_*
        # helpers, which are not installed) has a guarded work() / general_work(): a new
        # block without the guard fails here.
        found = []
        for info in pkgutil.iter_modules(gpufft.__path__):
            if info.name.startswith(("qa_", "testing_")) or info.ispkg:
                continue
            try:
                module = importlib.import_module(f"gnuradio.gpufft.{info.name}")
            except ImportError:
                continue  # the compiled bindings' own name
            for name, cls in inspect.getmembers(module, inspect.isclass):
                if not issubclass(cls, gateway_block) or cls.__module__ != module.__name__:
                    continue
                for method in ("work", "general_work"):
                    f = getattr(cls, method, None)
                    owner = next((k for k in cls.__mro__ if method in vars(k)), None)
                    if owner is None or owner.__module__.startswith("gnuradio.gr"):
                        continue  # not implemented by the block (gateway's default)
                    found.append(f"{name}.{method}")
                    self.assertTrue(getattr(f, GUARD_MARK, False),
                                    f"{module.__name__}.{name}.{method} is not decorated "
                                    f"with block_guard.guarded_work: an exception in it "
                                    f"would hang the flowgraph")
        print("guarded Python blocks:", ", ".join(found))
        self.assertIn("recording_source.work", found)


if __name__ == "__main__":
    gr_unittest.run(qa_block_guard)
