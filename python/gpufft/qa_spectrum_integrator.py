#!/usr/bin/env python3
#
# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""QA for gpufft.spectrum_integrator on the CPU backend against numpy (window, FFT in
double, fftshift, band, channel mean, frame mean / max), NaN frames, the refusals."""

import os

import numpy as np
from gnuradio import gr_unittest

try:
    from gnuradio import gpufft
except ImportError:
    import sys
    dirname, filename = os.path.split(os.path.abspath(__file__))
    sys.path.append(os.path.join(dirname, "bindings"))
    from gnuradio import gpufft

from testing_backends import backends

# Channel tolerance, relative to the channel and (a hundredth of it) to the peak. The
# GPU's fused path reduces the band power in float on the device, in another order than
# the CPU's; its C++ test (test_spectrum_integrator_cuda) allows the same 1e-4.
REL = {"cpu": 2e-5, "cuda": 1e-4}


def hann(n):
    # periodic (DFT-even), as the engine's windows
    return 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(n) / n)


def reference(frames, window, start, stop, bins, mode):
    n = frames.shape[1]
    powers = []
    for x in frames:
        if not np.all(np.isfinite(x)):
            continue
        X = np.fft.fftshift(np.fft.fft(x.astype(np.complex128) * window))
        p = np.abs(X[start:stop]) ** 2 / window.sum() ** 2
        powers.append(p.reshape(bins, -1).mean(axis=1))
    powers = np.array(powers)
    return powers.mean(axis=0) if mode == "mean" else powers.max(axis=0)


class qa_spectrum_integrator(gr_unittest.TestCase):

    def setUp(self):
        # Fresh inputs every run; the seed is printed, and GPUFFT_QA_SEED=<seed> replays it.
        self.seed = int(os.environ.get("GPUFFT_QA_SEED", np.random.SeedSequence().entropy))
        print(f"{self.id()}: seed {self.seed}")
        self.rng = np.random.default_rng(self.seed)

    def frames(self, count, n, tone_bin, amp):
        x = (self.rng.uniform(-1, 1, (count, n)) +
             1j * self.rng.uniform(-1, 1, (count, n)))
        x += amp * np.exp(2j * np.pi * tone_bin * np.arange(n) / n)
        return x.astype(np.complex64)

    def check(self, got, want, backend):
        self.assertEqual(got.dtype, np.float32)
        self.assertEqual(got.shape, want.shape)
        err = np.abs(got - want)
        rel = REL[backend]
        self.assertTrue(np.all(err <= rel * want + 1e-2 * rel * want.max()),
                        "worst channel error %g of peak" % (err.max() / want.max()))

    def test_mean_subband_decimated_matches_numpy(self):
        for backend in backends():
            with self.subTest(backend=backend):
                n, start, stop, bins = 8192, 1024, 7168, 768
                s = gpufft.spectrum_integrator(n, start, stop, bins, window="hann",
                                               mode="mean", backend=backend)
                self.assertEqual(s.backend, backend)
                # an 8192-point frame fits any GPU: the fused path
                self.assertEqual(s.on_device, backend == "cuda", s.describe())
                self.assertIsNone(s.read())
                x = self.frames(3, n, 1500.0, 2.0)
                kept = x.copy()
                for f in x:
                    self.assertTrue(s.accumulate(f))
                self.assertEqual(s.frames, 3)
                np.testing.assert_array_equal(x, kept)  # accumulate works on a copy
                self.check(s.read(), reference(x, hann(n), start, stop, bins, "mean"), backend)

    def test_max_hold_skips_nan_frame_in_place(self):
        for backend in backends():
            with self.subTest(backend=backend):
                n = 4096
                s = gpufft.spectrum_integrator(n, mode="max", backend=backend)
                self.assertEqual(s.output_bins, n)
                x = self.frames(4, n, -300.0, 1.0)
                x[2, 100] = np.nan
                want = reference(x, np.ones(n), 0, n, n, "max")
                for i, f in enumerate(x.copy()):
                    self.assertEqual(s.accumulate(f, in_place=True), i != 2)
                self.assertEqual(s.frames, 3)
                self.check(s.read(), want, backend)
                s.reset("mean")
                self.assertEqual(s.mode, "mean")
                self.assertEqual(s.frames, 0)

    def test_bad_parameters_raise_value_error(self):
        with self.assertRaisesRegex(ValueError, "output_bins"):
            gpufft.spectrum_integrator(1024, output_bins=300, backend="cpu")
        with self.assertRaisesRegex(ValueError, "window"):
            gpufft.spectrum_integrator(1024, window="kaiser", backend="cpu")
        with self.assertRaisesRegex(ValueError, "mode"):
            gpufft.spectrum_integrator(1024, mode="median", backend="cpu")
        for bad in (0.5, "1e9", -3):
            with self.assertRaisesRegex(ValueError, "memory_budget"):
                gpufft.spectrum_integrator(1024, backend="cpu", memory_budget=bad)
        self.assertEqual(
            gpufft.spectrum_integrator(1024, backend="cpu", memory_budget=1e9).memory_budget,
            10**9)
        s = gpufft.spectrum_integrator(1024, backend="cpu")
        with self.assertRaisesRegex(ValueError, "fft_size"):
            s.accumulate(np.ones(1000, np.complex64))


if __name__ == "__main__":
    gr_unittest.run(qa_spectrum_integrator)
