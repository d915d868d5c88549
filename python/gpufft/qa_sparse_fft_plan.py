#!/usr/bin/env python3
#
# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""QA of the sparse FFT engine's Python binding against numpy.fft.fft."""

import numpy as np
from gnuradio import gr_unittest

try:
    from gnuradio.gpufft import sparse_fft_plan
except ImportError:
    import os
    import sys
    dirname, filename = os.path.split(os.path.abspath(__file__))
    sys.path.append(os.path.join(dirname, "bindings"))
    from gpufft_python import sparse_fft_plan


def sparse_signal(n, k, rng):
    """x with exactly k non-zero DFT coefficients: random ones, a run of three adjacent
    bins, DC and the last bin; random complex amplitudes."""
    bins = {0, n - 1}
    a = int(rng.integers(1, n - 4))
    bins |= {a, a + 1, a + 2}
    while len(bins) < k:
        bins.add(int(rng.integers(0, n)))
    bins = np.array(sorted(bins)[:k], dtype=np.int64)
    X = np.zeros(n, dtype=np.complex128)
    X[bins] = n * rng.uniform(0.1, 1.0, k) * np.exp(2j * np.pi * rng.uniform(0, 1, k))
    return np.fft.ifft(X).astype(np.complex64), bins


class qa_sparse_fft_plan(gr_unittest.TestCase):

    def check(self, n, k, tones=None, **kw):
        rng = np.random.default_rng()
        x, truth = sparse_signal(n, tones or k, rng)
        plan = sparse_fft_plan(n, k, **kw)
        bins, values = plan.execute(x)
        self.assertEqual(bins.dtype, np.int64)
        self.assertEqual(values.dtype, np.complex64)
        self.assertEqual(len(bins), len(values))
        self.assertLessEqual(len(bins), k)
        self.assertTrue(np.all(np.diff(bins) > 0), "bins must be ascending")
        ref = np.fft.fft(x.astype(np.complex128))
        peak = np.abs(ref).max()
        self.assertTrue(set(truth.tolist()) <= set(bins.tolist()),
                        "missed: %s" % (set(truth.tolist()) - set(bins.tolist())))
        err = np.abs(values - ref[bins]).max() / peak
        self.assertLess(err, 1e-5, plan.describe())
        return plan

    def test_power_of_two(self):
        plan = self.check(1 << 20, 50, backend="cpu")
        self.assertFalse(plan.dense_fallback)
        self.assertEqual(plan.backend, "cpu")
        self.assertEqual(plan.n, 1 << 20)
        self.assertEqual(plan.k, 50)

    def test_non_power_of_two_sizes(self):
        self.check(3 << 18, 40, backend="cpu")
        self.check(1000000, 40, backend="cpu")

    def test_auto_backend(self):
        # CUDA where a GPU is usable, the CPU otherwise: the same answer either way.
        self.check(1 << 21, 100)

    def test_fewer_tones_than_k(self):
        self.check(1 << 20, 60, tones=9, backend="cpu")

    def test_prime_size_falls_back_to_dense(self):
        plan = self.check(65537, 12, backend="cpu")
        self.assertTrue(plan.dense_fallback)
        self.assertIn("dense", plan.describe())

    def test_same_seed_same_answer(self):
        rng = np.random.default_rng()
        x, _ = sparse_signal(1 << 20, 30, rng)
        a = sparse_fft_plan(1 << 20, 30, backend="cpu", seed=77)
        b = sparse_fft_plan(1 << 20, 30, backend="cpu", seed=77)
        ba, va = a.execute(x)
        bb, vb = b.execute(x)
        np.testing.assert_array_equal(ba, bb)
        np.testing.assert_array_equal(va, vb)

    def test_voting_location(self):
        # The papers' location on the same permutations: same bins and values as the
        # phase path (and numpy, inside check).
        plan = self.check(1 << 20, 50, backend="cpu", seed=1234, location="voting")
        self.assertIn("location=voting", plan.describe())
        self.assertIn("location=phase",
                      sparse_fft_plan(1 << 20, 50, backend="cpu").describe())

    def test_accuracy_knobs(self):
        # More loops and CG iterations (the documented accuracy knobs) keep the answer.
        plan = self.check(1 << 18, 40, backend="cpu", loops=5, value_iterations=12)
        self.assertIn("loops=5", plan.describe())
        self.assertIn("cg=12", plan.describe())

    def test_bad_input(self):
        with self.assertRaisesRegex(ValueError, "value_iterations"):
            sparse_fft_plan(1 << 20, 10, value_iterations=-1)
        with self.assertRaisesRegex(ValueError, "value_iterations"):
            sparse_fft_plan(1 << 20, 10, value_iterations=65)
        with self.assertRaisesRegex(ValueError, "location"):
            sparse_fft_plan(1 << 20, 10, location="psychic")
        with self.assertRaisesRegex(ValueError, "location"):
            sparse_fft_plan(1 << 20, 10, location="")
        with self.assertRaisesRegex(ValueError, "k"):
            sparse_fft_plan(1 << 20, 0)
        with self.assertRaisesRegex(ValueError, "k"):
            sparse_fft_plan(1 << 20, 1 << 20)
        with self.assertRaisesRegex(ValueError, "n"):
            sparse_fft_plan(8, 2)
        with self.assertRaisesRegex(ValueError, "mode"):
            sparse_fft_plan(1 << 20, 10, mode="robust")
        with self.assertRaisesRegex(ValueError, "mode"):
            sparse_fft_plan(1 << 20, 10, mode="fuzzy")
        with self.assertRaisesRegex(ValueError, "backend"):
            sparse_fft_plan(1 << 20, 10, backend="tpu")
        plan = sparse_fft_plan(1 << 16, 10, backend="cpu")
        with self.assertRaisesRegex(ValueError, "x"):
            plan.execute(np.zeros(1000, dtype=np.complex64))
        with self.assertRaisesRegex(ValueError, "x"):
            plan.execute(np.zeros((2, 1 << 15), dtype=np.complex64))
        x = np.full(1 << 16, np.nan, dtype=np.complex64)
        with self.assertRaisesRegex(ValueError, "x"):
            plan.execute(x)


if __name__ == '__main__':
    gr_unittest.run(qa_sparse_fft_plan)
