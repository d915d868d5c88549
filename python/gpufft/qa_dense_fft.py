#!/usr/bin/env python3
#
# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""QA for the engine layer's common Python API: backends, devices, dense_fft_plan."""

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


def random_complex(rng, shape, dtype):
    return (rng.uniform(-1, 1, shape) + 1j * rng.uniform(-1, 1, shape)).astype(dtype)


def rel_error(a, b):
    return np.linalg.norm(a - b) / np.linalg.norm(b)


class qa_dense_fft(gr_unittest.TestCase):

    def setUp(self):
        # Fresh inputs every run; the seed is printed, and GPUFFT_QA_SEED=<seed> replays it.
        self.seed = int(os.environ.get("GPUFFT_QA_SEED", np.random.SeedSequence().entropy))
        print(f"{self.id()}: seed {self.seed}")
        self.rng = np.random.default_rng(self.seed)

    def test_001_forward_matches_numpy(self):
        for backend in backends():
            with self.subTest(backend=backend):
                for n in (1, 7, 64, 1000, 4096, 3 * 1024):
                    x = random_complex(self.rng, n, np.complex64)
                    plan = gpufft.dense_fft_plan(n, backend=backend)
                    self.assertEqual(plan.backend, backend)
                    y = plan.execute(x)
                    self.assertEqual(y.dtype, np.complex64)
                    self.assertTrue(np.all(np.isfinite(y)))
                    self.assertLess(rel_error(y, np.fft.fft(x.astype(np.complex128))), 1e-6)

    def test_002_batched_double_backward(self):
        for backend in backends():
            with self.subTest(backend=backend):
                x = random_complex(self.rng, (5, 360), np.complex128)
                plan = gpufft.dense_fft_plan(360, batch=5, forward=False,
                                             precision="double", backend=backend)
                y = plan.execute(x)
                self.assertEqual(y.shape, (5, 360))
                ref = np.fft.ifft(x, axis=1) * 360  # unnormalized backward transform
                self.assertLess(rel_error(y, ref), 1e-13)

    def test_003_auto_backend(self):
        plan = gpufft.dense_fft_plan(256)
        expected = "cuda" if gpufft.cuda_available(0) else "cpu"
        self.assertEqual(plan.backend, expected)
        self.assertEqual(gpufft.resolve_backend("auto"), expected)
        self.assertTrue(gpufft.describe_backend().startswith(expected))

    def test_004_bad_input(self):
        with self.assertRaisesRegex(ValueError, "n: 0"):
            gpufft.dense_fft_plan(0)
        with self.assertRaisesRegex(ValueError, "n: -8"):
            gpufft.dense_fft_plan(-8)
        with self.assertRaisesRegex(ValueError, "batch"):
            gpufft.dense_fft_plan(16, batch=0)
        with self.assertRaisesRegex(ValueError, "backend"):
            gpufft.dense_fft_plan(16, backend="opencl")
        with self.assertRaisesRegex(ValueError, "precision"):
            gpufft.dense_fft_plan(16, precision="half")
        with self.assertRaisesRegex(ValueError, "x: has 8 elements"):
            gpufft.dense_fft_plan(16, backend="cpu").execute(np.ones(8, np.complex64))
        with self.assertRaisesRegex(ValueError, "device_id"):
            gpufft.device_info(gpufft.cuda_device_count() + 1)
        if not gpufft.cuda_available(0):
            with self.assertRaisesRegex(RuntimeError, "backend=cuda"):
                gpufft.dense_fft_plan(16, backend="cuda")
        else:
            with self.assertRaisesRegex(ValueError, "device_id"):
                gpufft.dense_fft_plan(16, backend="cuda",
                                      device_id=gpufft.cuda_device_count())


if __name__ == '__main__':
    gr_unittest.run(qa_dense_fft)
