#!/usr/bin/env python3
#
# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Synthetic LoRa (chirp spread spectrum, 125 kHz) at 1 MS/s as an RTL-SDR records it
(cu8, a DC offset): packets at SF 7, 9 and 12 (SFS) at SNR dB a sample (default 10),
8 up-chirps, 2 down-chirps and random symbols, at -300, +50 and +250 kHz; a CW spur at
SPUR Hz (+120e3), 25 dB; 2048-sample frames (2 ms). At SF 12 a frame sees 1/16 of a
sweep, so the signal moves across the channel from frame to frame. Prints the tracker's
rows per packet (the target: one each; SHOW of them, 4), their edges, the rows wider than
a channel and a half (one row over two channels), and the rows that match no packet.
BACKEND: the plan's backend (cpu).

Usage: scripts/scenes/lora_scene.py BUILD [SEED]   (BUILD: a build directory whose test_modules hold
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
fs = 1e6; bw = 125e3; N = int(fs * 1.6); n = 2048
SNR = float(os.environ.get("SNR", "10"))
SFS = [int(v) for v in os.environ.get("SFS", "7,9,12").split(",")]
x = (rng.standard_normal(N) + 1j * rng.standard_normal(N)) / math.sqrt(2)
x += 10 ** (25 / 20) * math.sqrt(1 / n) * np.exp(2j * np.pi * float(os.environ.get("SPUR", "120e3")) * np.arange(N) / fs)


def chirp(sf, shift, down=False):
    m = 2 ** sf; sps = int(fs / bw)
    k = (np.arange(m * sps) / sps + shift) % m  # the symbol's frequency ramp, in chips
    f = (k / m - 0.5) * bw * (-1 if down else 1)
    return np.exp(2j * np.pi * np.cumsum(f) / fs)


packets = []
for sf, fc in zip(SFS, [-300e3, 50e3, 250e3]):
    t = int(rng.integers(0, 100000))
    syms = max(6, int(0.5 * fs / (2 ** sf * fs / bw)))  # about 0.5 s of air or 6 symbols
    while t < N:
        s = np.concatenate([chirp(sf, 0)] * 8 + [chirp(sf, 0, True)] * 2 +
                           [chirp(sf, int(rng.integers(0, 2 ** sf))) for _ in range(syms)])
        s = s[: N - t] * np.exp(2j * np.pi * fc * np.arange(min(len(s), N - t)) / fs)
        x[t:t + len(s)] += 10 ** (SNR / 20) * s
        packets.append((sf, fc, t, len(s)))
        t += len(s) + int(rng.uniform(0.05, 0.3) * fs)
x = x / np.max(np.abs(x)) * 0.8
q = lambda v: np.clip(np.round(v * 127.5 + 127.5 + 0.6), 0, 255)
x = (((q(x.real) - 127.5) + 1j * (q(x.imag) - 127.5)) / 127.5).astype(np.complex64)
plan = gpufft.sensing_plan(n, backend=os.environ.get("BACKEND", "cpu"))
tr = gpufft.transmission_tracker(fs, center_freq=0, fft_size=n, hold_frames=2)
rows = []
for i in range(N // n):
    rows += list(tr.update(i * n, plan.detect(x[i * n:(i + 1) * n])))
rows += list(tr.flush())
print('packets %d, rows %d' % (len(packets), len(rows)))
used = set()
for sf, fc, t, L in packets:
    mine = [j for j, r in enumerate(rows)
            if r['lower_hz'] < fc + bw / 2 and r['upper_hz'] > fc - bw / 2 and
            r['start_s'] * fs < t + L and (r['start_s'] + r['duration_s']) * fs > t]
    used.update(mine)
    print('SF%-2d %+4.0f kHz %6.1f..%6.1f ms: %d rows' % (sf, fc / 1e3, t / fs * 1e3, (t + L) / fs * 1e3, len(mine)))
    for j in mine[:int(os.environ.get("SHOW", "4"))]:
        r = rows[j]
        print('    %7.1f +%6.1f ms  %+7.1f..%+7.1f kHz  snr %.1f' % (r['start_s'] * 1e3, r['duration_s'] * 1e3, r['lower_hz'] / 1e3, r['upper_hz'] / 1e3, r['mean_snr_db']))
wide = [r for r in rows if r['upper_hz'] - r['lower_hz'] > 1.5 * bw]
print('rows wider than 1.5 channels: %d' % len(wide))
for r in wide[:4]:
    print('    %7.1f +%6.1f ms  %+7.1f..%+7.1f kHz  snr %.1f' % (r['start_s'] * 1e3, r['duration_s'] * 1e3, r['lower_hz'] / 1e3, r['upper_hz'] / 1e3, r['mean_snr_db']))
other = [r for j, r in enumerate(rows) if j not in used]
print('rows matching no packet: %d' % len(other))
for r in other[:12]:
    print('    %7.1f +%6.1f ms  %+7.1f..%+7.1f kHz  snr %.1f' % (r['start_s'] * 1e3, r['duration_s'] * 1e3, r['lower_hz'] / 1e3, r['upper_hz'] / 1e3, r['mean_snr_db']))
