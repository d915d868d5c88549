#!/usr/bin/env python3
#
# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""QA for gpufft.large_fft_plan: every schedule (in card, two and three rounds of the
four-step split, 2-D with and without the Y decomposition, 3-D, in place) against numpy,
and the refusals."""

import os
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

# the planner gives each pass buffer 1/7 of the budget (3 slots x 2 buffers + FFT work)
UNITS = 7


def budget_for_pass(elements, itemsize):
    return elements * UNITS * itemsize


def random_complex(rng, shape, dtype):
    return (rng.uniform(-1, 1, shape) + 1j * rng.uniform(-1, 1, shape)).astype(dtype)


def rel_error(a, b):
    return np.linalg.norm(a - b) / np.linalg.norm(b)


class qa_large_fft_plan(gr_unittest.TestCase):

    def setUp(self):
        # Fresh inputs every run; the seed is printed, and GPUFFT_QA_SEED=<seed> replays it.
        self.seed = int(os.environ.get("GPUFFT_QA_SEED", np.random.SeedSequence().entropy))
        print(f"{self.id()}: seed {self.seed}")
        self.rng = np.random.default_rng(self.seed)

    def check(self, shape, budget_pass, rounds, precision="double", tol=1e-12):
        dtype = np.complex128 if precision == "double" else np.complex64
        budget = budget_for_pass(budget_pass, np.dtype(dtype).itemsize) if budget_pass else None
        for backend in backends():
            with self.subTest(backend=backend):
                for forward in (True, False):
                    plan = gpufft.large_fft_plan(shape, forward=forward, memory_budget=budget,
                                                 precision=precision, backend=backend)
                    self.assertEqual(plan.passes, rounds, plan.describe())
                    x = random_complex(self.rng, shape, dtype)
                    ref = np.fft.fftn(x.astype(np.complex128)) if forward else \
                        np.fft.ifftn(x.astype(np.complex128)) * x.size
                    y = plan.execute(x)
                    self.assertEqual(y.dtype, dtype)
                    self.assertEqual(list(y.shape), list(np.atleast_1d(shape)))
                    self.assertLess(rel_error(y, ref), tol, plan.describe())
                    z = x.copy()
                    r = plan.execute(z, in_place=True)
                    self.assertTrue(r is z or np.shares_memory(r, z))
                    self.assertLess(rel_error(z, ref), tol, plan.describe())

    def test_001_in_card(self):
        self.check(1000, None, 1)
        self.check((6, 5, 9), None, 1)

    def test_002_two_rounds(self):
        # in place: 4096 and 2^16 square (the row round writes transposed), 8192 and
        # 6000 keep positions and transpose after
        for n in (4096, 8192, 6000):
            self.check(n, 1024, 2)
        self.check(1 << 16, 1 << 14, 2)
        # 2^15 = 128 x 256 in place: the transposed row round over two squares
        self.check(1 << 15, 1 << 13, 2)

    def test_003_three_rounds(self):
        self.check(4096, 40, 3)

    def test_004_two_and_three_dimensions(self):
        self.check((48, 60), 300, 2)
        # many short rows, out of place: the Y decomposition (96 = 8 x 12, 512 = 16 x 32)
        self.check((96, 16), 300, 2)
        self.check((512, 64), 8192, 2)
        self.check((12, 10, 14), 300, 2)
        self.check((12, 10, 14), 100, 3)
        # long Z over small planes, out of place: the Z decomposition (96 = 8 x 12)
        self.check((96, 3, 5), 300, 2)

    def test_005_single_precision(self):
        self.check(1 << 14, 4096, 2, precision="single", tol=2e-6)

    def test_006_properties(self):
        plan = gpufft.large_fft_plan([64, 32], backend="cpu",
                                     memory_budget=budget_for_pass(100, 8))
        self.assertEqual(plan.shape, [64, 32])
        self.assertEqual(plan.size, 64 * 32)
        self.assertEqual(plan.backend, "cpu")
        self.assertEqual(plan.precision, "single")
        self.assertTrue(plan.forward)
        self.assertEqual(plan.memory_budget, budget_for_pass(100, 8))
        self.assertIn("round 2", plan.describe())
        self.assertEqual(plan.devices, [])

    def test_006b_devices(self):
        # devices: checks that need no GPU (a GPU machine runs the GPU paths in C++)
        with self.assertRaisesRegex(ValueError, "devices.*backend cpu"):
            gpufft.large_fft_plan(4096, backend="cpu", devices=[0])
        for bad, needle in (([0, 0], "more than once"), ([-1], "devices"),
                            ("01", "devices"), ([1.5], "devices")):
            with self.assertRaisesRegex(ValueError, needle):
                gpufft.large_fft_plan(4096, devices=bad)
            with self.assertRaisesRegex(ValueError, needle):
                gpufft.spectrum_integrator(4096, output_bins=16, devices=bad)

    def test_007_bad_input(self):
        with self.assertRaises(ValueError):
            gpufft.large_fft_plan(0, backend="cpu")
        with self.assertRaises(ValueError):
            gpufft.large_fft_plan([16, -2], backend="cpu")
        with self.assertRaises(ValueError):
            gpufft.large_fft_plan([2, 2, 2, 2], backend="cpu")
        with self.assertRaises(ValueError):
            gpufft.large_fft_plan(1 << 50, backend="cpu")  # more than host memory
        with self.assertRaisesRegex(ValueError, "memory_budget"):
            gpufft.large_fft_plan(4096, backend="cpu", memory_budget=100)
        with self.assertRaisesRegex(ValueError, "memory_budget"):
            gpufft.large_fft_plan(4096, backend="cpu", memory_budget=-5)
        with self.assertRaises(ValueError):
            gpufft.large_fft_plan(64, backend="nonsense")
        # Wrong Python types name the parameter; integral floats are whole numbers.
        for bad in (1.5, "1e7", float("nan"), [1 << 20]):
            with self.assertRaisesRegex(ValueError, "memory_budget"):
                gpufft.large_fft_plan(1 << 16, backend="cpu", memory_budget=bad)
        self.assertEqual(
            gpufft.large_fft_plan(1 << 16, backend="cpu", memory_budget=1e7).memory_budget,
            10**7)
        for bad in ("abc", [64, 2.5], [64, None], 64.5):
            with self.assertRaisesRegex(ValueError, "shape"):
                gpufft.large_fft_plan(bad, backend="cpu")
        self.assertEqual(gpufft.large_fft_plan(np.array([64, 32]), backend="cpu").shape,
                         [64, 32])
        # A 1-D plan does not take a 2-D array of the same size (nor a 2-D plan a
        # transposed one); a flat array of size() elements is a C-order N-D frame.
        flat = gpufft.large_fft_plan(1 << 16, backend="cpu")
        with self.assertRaisesRegex(ValueError, r"x: has shape \(256, 256\)"):
            flat.execute(np.ones((256, 256), np.complex64))
        two_d = gpufft.large_fft_plan([256, 128], backend="cpu")
        with self.assertRaisesRegex(ValueError, "x: has shape"):
            two_d.execute(np.ones((128, 256), np.complex64))
        y = random_complex(self.rng, 256 * 128, np.complex64)
        self.assertLess(rel_error(two_d.execute(y),
                                  np.fft.fft2(y.reshape(256, 128).astype(np.complex128))),
                        2e-6)
        plan = gpufft.large_fft_plan(4096, backend="cpu", memory_budget=budget_for_pass(1024, 8))
        x = random_complex(self.rng, 4096, np.complex64)
        with self.assertRaises(ValueError):
            plan.execute(x[:100])
        with self.assertRaises(ValueError):  # in place needs the plan's dtype, no copy
            plan.execute(x.astype(np.complex128), in_place=True)
        x[123] = np.nan
        with self.assertRaisesRegex(ValueError, "NaN"):
            plan.execute(x)
        x[123] = 1
        self.assertLess(rel_error(plan.execute(x), np.fft.fft(x.astype(np.complex128))), 2e-6)

    def test_008_trace(self):
        # the trace goes to stderr; the transform is the same
        for backend in backends():
            with self.subTest(backend=backend):
                plan = gpufft.large_fft_plan(4096, backend=backend, precision="double",
                                             memory_budget=budget_for_pass(1024, 16),
                                             trace=True)
                x = random_complex(self.rng, 4096, np.complex128)
                self.assertLess(rel_error(plan.execute(x), np.fft.fft(x)), 1e-12)


if __name__ == "__main__":
    gr_unittest.run(qa_large_fft_plan)
