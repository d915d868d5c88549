#!/usr/bin/env python3
#
# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Synthetic 802.11 OFDM traffic at 20 MS/s as a HackRF records it (ci8): packets of 52
QPSK subcarriers (16.6 MHz), idle between (DUTY of the time busy), a DC offset, IQ
imbalance, a roll-off; SNR dB a subcarrier; frames of N (2^16). Prints the busy frames
found with a signal over 1 MHz, their bandwidth, and the rows.

Usage: scripts/scenes/wifi_scene.py BUILD [SEED]   (BUILD: a build directory whose test_modules hold
gnuradio.gpufft; numpy only besides). Study scripts behind docs/sensing.md and
docs/sensing_real_captures.md; not tests."""
import os
import sys

sys.path.insert(0, os.path.join(sys.argv[1] if len(sys.argv) > 1 else "build", "test_modules"))
SEED = int(sys.argv[2]) if len(sys.argv) > 2 else 1
import math
import numpy as np
from gnuradio import gpufft
seed = SEED
rng = np.random.default_rng(seed)
fs = 20e6; dur = float(os.environ.get('DUR', '0.4')); N = int(fs * dur)
snr = float(os.environ.get('SNR', '25')); duty = float(os.environ.get('DUTY', '0.3'))
def ofdm(nsym):
    X = np.zeros((nsym, 64), complex)
    used = [k for k in range(-26, 27) if k != 0]
    X[:, [k % 64 for k in used]] = (rng.choice([-1, 1], (nsym, 52)) + 1j * rng.choice([-1, 1], (nsym, 52))) / math.sqrt(2)
    x = np.fft.ifft(X, axis=1) * 8  # unit power a used subcarrier ~ 52/64
    x = np.concatenate([x[:, -16:], x], axis=1).reshape(-1)
    return x
x = np.zeros(N, complex); t = 0; packets = []
while t < N:
    nsym = int(rng.integers(10, 400)); p = ofdm(nsym); L = len(p)
    if t + L > N: break
    x[t:t + L] = p; packets.append((t, L))
    t += L + int(L * (1 - duty) / duty * rng.uniform(0.2, 1.8))
noise = (rng.standard_normal(N) + 1j * rng.standard_normal(N)) / math.sqrt(2) * 10 ** (-snr / 20)
x = x + noise
X = np.fft.fft(x); f = np.fft.fftfreq(N, 1 / fs)
X *= 10 ** (-6 * (np.abs(f) / (fs / 2)) ** 6 / 20)  # 6 dB down at the band edges
x = np.fft.ifft(X)
g, phi = 1.02, math.radians(1.5)
x = x.real + 1j * g * (x.imag * math.cos(phi) + x.real * math.sin(phi))
x = x / np.percentile(np.abs(x), 99.9) * 0.7
q = lambda v: np.clip(np.round(v * 127 + 1.3), -128, 127)
x = ((q(x.real) + 1j * q(x.imag)) / 128).astype(np.complex64)
n = int(os.environ.get('N', '65536'))
plan = gpufft.sensing_plan(n, backend='cpu')
tr = gpufft.transmission_tracker(fs, center_freq=0, fft_size=n, hold_frames=2)
rows = []
frames = N // n
busy_frames = found = wide = 0
bws = []; floors = []
for i in range(frames):
    a, b = i * n, (i + 1) * n
    busy = sum(max(0, min(b, s + L) - max(a, s)) for s, L in packets) / n
    o = plan.detect(x[a:b])
    rows += list(tr.update(a, o))
    sig = [(lo * fs / n, hi * fs / n) for lo, hi, dc in zip(o['lower_bin'], o['upper_bin'], o['dc']) if (hi - lo) * fs / n > 1e6]
    floors.append(o['noise_floor_dbfs'])
    if busy > 0.05:
        busy_frames += 1
        if sig:
            found += 1
            bws.append(max(h for _, h in sig) - min(l for l, _ in sig))
    elif sig:
        wide += 1
    if i < int(os.environ.get('SHOW', '0')):
        print(i, 'busy %.2f' % busy, 'floor %.1f' % o['noise_floor_dbfs'], ['%.2f..%.2f' % (l / 1e6, h / 1e6) for l, h in sig], len(o['lower_bin']))
rows += list(tr.flush())
print('packets', len(packets), 'frames', frames, 'busy frames', busy_frames, 'found wide in', found, 'wide in idle frames', wide)
if bws: print('bandwidth of busy frames: median %.2f MHz (%.2f..%.2f)' % (np.median(bws) / 1e6, min(bws) / 1e6, max(bws) / 1e6))
wr = [r for r in rows if r['upper_hz'] - r['lower_hz'] > 1e6]
print('rows', len(rows), 'wide rows', len(wr))
for r in wr[:12]:
    print('  %7.2f ms +%7.2f ms %+7.2f..%+7.2f MHz %3d frames snr %.1f' % (r['start_s'] * 1e3, r['duration_s'] * 1e3, r['lower_hz'] / 1e6, r['upper_hz'] / 1e6, r['frames'], r['mean_snr_db']))
