#!/usr/bin/env python3
#
# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Synthetic POCSAG-like pagers at 1 MS/s as an RTL-SDR records it (cu8): 2-FSK bursts
(+-4.5 kHz at 1200 baud, 0.3-1.2 s each, 0.2-0.8 s apart) at -200 kHz (15 dB a sample),
+30 kHz (20 dB, 30 kHz from DC) and +310 kHz (8 dB), a DC spike 30 dB a bin; 2048-sample
frames (2 ms: 2.4 bits, so a frame shows one tone or both). Prints the tracker's rows per
burst (the target: one each) and the rows that match no burst.

Usage: scripts/scenes/pocsag_scene.py BUILD [SEED]   (BUILD: a build directory whose test_modules hold
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
print("seed", SEED)
fs = 1e6; N = int(fs * 3); n = 2048
x = (rng.standard_normal(N) + 1j*rng.standard_normal(N)) / math.sqrt(2)
bursts = []
# pagers: 2-FSK +-4.5 kHz at 1200 bd, bursts 0.3-1.2 s, at -200 kHz, +30 kHz (near DC), +310 kHz
for fc, snr in [(-200e3, 15), (30e3, 20), (310e3, 8)]:
    t = int(rng.integers(0, 300000))
    while t < N - 1000:
        L = int(rng.uniform(0.3, 1.2) * fs)
        L = min(L, N - t)
        bits = rng.integers(0, 2, int(L / fs * 1200) + 2)
        f = np.repeat(bits * 2 - 1, int(fs / 1200) + 1)[:L] * 4.5e3 + fc
        ph = 2 * np.pi * np.cumsum(f) / fs
        x[t:t + L] += 10 ** (snr / 20) * np.exp(1j * ph)
        bursts.append((fc, t, L))
        t += L + int(rng.uniform(0.2, 0.8) * fs)
x += 10 ** (30 / 20) * math.sqrt(1 / n) * 1.0  # DC spike, 30 dB a bin
x = x / np.max(np.abs(x)) * 0.8
q = lambda v: np.clip(np.round(v * 127.5 + 127.5), 0, 255)
x = (((q(x.real) - 127.5) + 1j * (q(x.imag) - 127.5)) / 127.5).astype(np.complex64)
plan = gpufft.sensing_plan(n, backend="cpu")
tr = gpufft.transmission_tracker(fs, center_freq=0, fft_size=n, hold_frames=2)
rows = []
for i in range(N // n):
    rows += list(tr.update(i * n, plan.detect(x[i * n:(i + 1) * n])))
rows += list(tr.flush())
print("bursts %d rows %d" % (len(bursts), len(rows)))
used = set()
for fc, t, L in bursts:
    mine = [j for j, r in enumerate(rows) if r['lower_hz'] < fc + 6e3 and r['upper_hz'] > fc - 6e3 and r['start_s'] * fs < t + L and (r['start_s'] + r['duration_s']) * fs > t]
    used.update(mine)
    print('%+5.0f kHz %6.0f..%6.0f ms: %d rows: %s' % (fc/1e3, t/fs*1e3, (t+L)/fs*1e3, len(mine), '; '.join('%.0f+%.0f ms %+.1f..%+.1f kHz' % (rows[j]['start_s']*1e3, rows[j]['duration_s']*1e3, rows[j]['lower_hz']/1e3, rows[j]['upper_hz']/1e3) for j in mine[:3])))
other = [r for j, r in enumerate(rows) if j not in used]
print("other rows %d" % len(other))
for r in other[:8]: print('   %.0f+%.0f ms %+.1f..%+.1f kHz snr %.1f' % (r['start_s']*1e3, r['duration_s']*1e3, r['lower_hz']/1e3, r['upper_hz']/1e3, r['mean_snr_db']))
