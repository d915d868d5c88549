#!/usr/bin/env python3
#
# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""A synthetic FM broadcast band as an RTL-SDR records it: five WFM stations 400 kHz
apart at 12-40 dB, a roll-off (ROLL dB at the band edges), IQ imbalance (IQG gain,
IQP degrees: the stations' images), an 8-bit ADC with a DC offset (Q8=1), 4096-bin
frames; prints each station's signals a frame, the other signals and the tracker's rows.

Usage: scripts/scenes/wfm_scene.py BUILD [SEED]   (BUILD: a build directory whose test_modules hold
gnuradio.gpufft; numpy only besides). Study scripts behind docs/sensing.md and
docs/sensing_real_captures.md; not tests."""
import os
import sys

sys.path.insert(0, os.path.join(sys.argv[1] if len(sys.argv) > 1 else "build", "test_modules"))
SEED = int(sys.argv[2]) if len(sys.argv) > 2 else 1
import math
import numpy as np
ROLL = float(os.environ.get("ROLL", "12"))
SUB = int(os.environ.get("SUB", "0"))
from gnuradio import gpufft
seed = SEED
rng = np.random.default_rng(seed)
fs = 2.4e6; dur = 0.5; N = int(fs*dur); t = np.arange(N)/fs
def lowpass_noise(bw):
    X = np.fft.fft(rng.standard_normal(N)); f = np.fft.fftfreq(N, 1/fs)
    X[np.abs(f) > bw] = 0; y = np.fft.ifft(X).real; return y/np.std(y)
def wfm(fc, snr_db):
    l = lowpass_noise(15e3); r = 0.6*l + 0.8*lowpass_noise(15e3)
    comp = 0.45*(l+r)/2/1.0 + 0.1*np.cos(2*np.pi*19e3*t) + 0.45*(l-r)/2*np.cos(2*np.pi*38e3*t) + 0.05*lowpass_noise(2.4e3)*np.cos(2*np.pi*57e3*t)
    comp = comp/np.max(np.abs(comp))
    ph = 2*np.pi*75e3*np.cumsum(comp)/fs
    return 10**(snr_db/20) * np.exp(1j*(ph + 2*np.pi*fc*t))
stations = [(-0.9e6, 40), (-0.5e6, 28), (-0.1e6, 20), (0.3e6, 12), (0.7e6, 33)]
x = (rng.standard_normal(N) + 1j*rng.standard_normal(N))/math.sqrt(2) * math.sqrt(200e3/fs)  # noise: 0 dB in 200 kHz
for fc, snr in stations:
    x = x + wfm(fc, snr)
# RTL-SDR roll-off: -12 dB at the band edges
X = np.fft.fft(x); f = np.fft.fftfreq(N, 1/fs)
X *= 10**(-ROLL*(np.abs(f)/(fs/2))**4/20)
x = np.fft.ifft(X)
# IQ imbalance (1 % gain, 1 degree) and the 8-bit ADC with a DC offset
g, phi = float(os.environ.get("IQG", "1.01")), math.radians(float(os.environ.get("IQP", "1.0")))
x = x.real + 1j*g*(x.imag*math.cos(phi) + x.real*math.sin(phi))
x = x/np.max(np.abs(x))*0.7
q = lambda v: np.clip(np.round(v*127.5 + 127.5 + 0.4), 0, 255)
u = q(x.real) + 1j*q(x.imag)
x = ((u - 127.5)/127.5).astype(np.complex64) if os.environ.get("Q8", "1") == "1" else x.astype(np.complex64)
n = 4096
plan = gpufft.sensing_plan(n, backend='cpu', floor_subbands=SUB)
tr = gpufft.transmission_tracker(fs, center_freq=0, fft_size=n, hold_frames=2)
rows = []
counts = {}
bw = {k: [] for k, _ in stations}
other = []
for i in range(N//n):
    o = plan.detect(x[i*n:(i+1)*n])
    rows += list(tr.update(i*n, o))
    for c, lo, hi, b, snr, dc in zip(o['center_bin'], o['lower_bin'], o['upper_bin'], o['bandwidth_bins'], o['snr_db'], o['dc']):
        hz = c*fs/n
        st = [k for k, _ in stations if abs(hz - k) < 150e3]
        if st:
            counts[st[0]] = counts.get(st[0], 0) + 1; bw[st[0]].append(b*fs/n)
        else:
            other.append((i, round(hz/1e3, 1), round(b*fs/n/1e3, 1), round(snr, 1), bool(dc)))
rows += list(tr.flush())
frames = N//n
print('frames', frames)
for k, s in stations:
    b = np.array(bw[k]) if bw[k] else np.array([0])
    print('station %+5.0f kHz %2d dB: signals %d (%.2f a frame), bw median %.0f kHz (%.0f..%.0f)' % (k/1e3, s, counts.get(k,0), counts.get(k,0)/frames, np.median(b)/1e3, b.min()/1e3, b.max()/1e3))
from collections import Counter
oc = Counter((round(h/10)*10, dc) for _, h, _, _, dc in other)
print('other signals', len(other), 'by 10 kHz:', oc.most_common(12))
print('rows', len(rows))
for r in rows:
    print('  %7.1f ms +%7.1f ms  %+8.1f..%+8.1f kHz  %4d frames  snr %.1f' % (r['start_s']*1e3, r['duration_s']*1e3, r['lower_hz']/1e3, r['upper_hz']/1e3, r['frames'], r['mean_snr_db']))
print('--- frames with one band over two stations')
plan = gpufft.sensing_plan(n, backend='cpu', floor_subbands=SUB)
joined = 0
for i in range(N//n):
    o = plan.detect(x[i*n:(i+1)*n])
    for c, fb, lb, lo, hi, snr in zip(o['center_bin'], o['first_bin'], o['last_bin'], o['lower_bin'], o['upper_bin'], o['snr_db']):
        inside = [k for k, _ in stations if fb*fs/n - 20e3 <= k <= lb*fs/n + 20e3]
        if len(inside) > 1:
            joined += 1
            if joined <= 6:
                print(i, 'extent %.0f..%.0f kHz, edges %.0f..%.0f kHz' % (fb*fs/n/1e3, lb*fs/n/1e3, lo*fs/n/1e3, hi*fs/n/1e3), inside)
print('joined', joined)
