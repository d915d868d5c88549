#!/usr/bin/python3
#
# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Writes example_recording.sigmf-meta / .sigmf-data in the current folder (or at the
stem given as the first argument): 0.6 s of what an RTL-SDR at 2.4 MS/s around 433.92
MHz might record, as SigMF ci8: three carriers between the FFT bins and a burst, over
noise. recording_sensing_headless.grc reads it; give that flowgraph your own recording
with --recording FILE.sigmf-meta."""

import json
import sys

import numpy as np

RATE, FREQ, SECONDS = 2.4e6, 433.92e6, 0.6


def main():
    stem = sys.argv[1] if len(sys.argv) > 1 else "example_recording"
    rng = np.random.default_rng(433)
    n = int(RATE * SECONDS)
    t = np.arange(n)
    x = 0.03 / np.sqrt(2) * (rng.standard_normal(n) + 1j * rng.standard_normal(n))
    for offset, amplitude in ((-412345.6, 0.3), (98765.4, 0.05), (687654.3, 0.01)):
        x += amplitude * np.exp(2j * np.pi * offset / RATE * t)
    burst = slice(int(0.2 * RATE), int(0.35 * RATE))
    x[burst] += 0.1 * np.exp(2j * np.pi * -150000.0 / RATE * t[burst])
    iq = np.empty(2 * n, np.int8)  # ci8: interleaved I, Q; full scale 128
    iq[0::2] = np.clip(np.round(x.real * 128), -128, 127)
    iq[1::2] = np.clip(np.round(x.imag * 128), -128, 127)
    iq.tofile(stem + ".sigmf-data")
    meta = {
        "global": {"core:datatype": "ci8", "core:sample_rate": RATE, "core:version": "1.0.0",
                   "core:description": "gr-gpufft example recording (synthetic)"},
        "captures": [{"core:sample_start": 0, "core:frequency": FREQ,
                      "core:datetime": "2026-01-01T12:00:00.000Z"}],
        "annotations": [],
    }
    with open(stem + ".sigmf-meta", "w") as f:
        json.dump(meta, f, indent=2)
    print(f"wrote {stem}.sigmf-meta and {stem}.sigmf-data ({n} samples)")


if __name__ == "__main__":
    main()
