#!/usr/bin/env python3
#
# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Synthetic ADS-B at 2 MS/s as an RTL-SDR records it (cu8): 112 us PPM messages from 3
aircraft at SNRS dB a sample (10,17,25), 50 messages a second each, a DC offset; 4 ms
frames. Prints the frames holding a message found with a wide signal, and the idle
frames with one.

Usage: scripts/scenes/adsb_scene.py BUILD [SEED]   (BUILD: a build directory whose test_modules hold
gnuradio.gpufft; numpy only besides). Study scripts behind docs/sensing.md and
docs/sensing_real_captures.md; not tests."""
import os
import sys

sys.path.insert(0, os.path.join(sys.argv[1] if len(sys.argv) > 1 else "build", "test_modules"))
SEED = int(sys.argv[2]) if len(sys.argv) > 2 else 1
import math
import numpy as np
from gnuradio import gpufft
rng = np.random.default_rng(SEED)
fs = 2e6; N = int(fs * 0.6); n = 8192
x = (rng.standard_normal(N) + 1j * rng.standard_normal(N)) / math.sqrt(2)
msgs = []
for a, snr in enumerate(float(v) for v in os.environ.get("SNRS", "10,17,25").split(",")):
    t = int(rng.integers(0, 40000))
    while t < N - 300:
        bits = rng.integers(0, 2, 112)
        chips = np.zeros(16 + 224); chips[[0, 2, 7, 9]] = 1  # preamble (0.5 us chips)
        chips[16::2][:112] = bits; chips[17::2][:112] = 1 - bits
        s = np.repeat(chips, 1)[: (N - t)]  # 2 MS/s: one sample a chip
        off = rng.uniform(-150e3, 150e3)
        ph = 2 * np.pi * off * np.arange(len(s)) / fs + rng.uniform(0, 2 * np.pi)
        x[t:t + len(s)] += 10 ** (snr / 20) * s * np.exp(1j * ph)
        msgs.append((t, len(s)))
        t += int(fs / 50 * rng.uniform(0.5, 1.5))
x = x / np.max(np.abs(x)) * 0.9
q = lambda v: np.clip(np.round(v * 127.5 + 127.5 + 0.6), 0, 255)
x = (((q(x.real) - 127.5) + 1j * (q(x.imag) - 127.5)) / 127.5).astype(np.complex64)
plan = gpufft.sensing_plan(n, backend='cpu')
busy = found = idle = false = 0
for i in range(N // n):
    a, b = i * n, (i + 1) * n
    has = any(s < b and s + L > a for s, L in msgs)
    o = plan.detect(x[a:b])
    wide = [(lo, hi) for lo, hi, dc in zip(o['lower_bin'], o['upper_bin'], o['dc']) if (hi - lo) * fs / n > 100e3]
    if has:
        busy += 1; found += bool(wide)
    else:
        idle += 1; false += bool(wide)
print('messages %d; frames with a message %d, found %d; idle frames %d with a wide signal %d' % (len(msgs), busy, found, idle, false))
