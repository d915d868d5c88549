#!/usr/bin/env python3
#
# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Independent reference spectrum detector (numpy only; no gnuradio, nothing from lib/).

It is the yardstick the sensing pipeline (gpufft.sensing_plan) is scored against on real
captures (scripts/score_sensing.py, docs/sensing_real_captures.md), so it is written
from the textbook, not from our code, and every rule is stated here.

    scripts/reference_detector.py capture.sigmf-meta --fft-size N [--welch] [--out f.json]

Reading: a SigMF pair; datatypes cf32_le (as is), ci16_le (/32768), ci8 (/128), cu8
((x - 127.5)/127.5), the scalings of the captures' README; the other complex SigMF
types likewise (floats as is, signed b-bit / 2^(b-1), unsigned less 2^(b-1) - 1/2 first). (gpufft.recording scales cu8
by 1/128, 0.034 dB apart: below every tolerance used here.)

Frames: consecutive, non-overlapping frames of N samples from --start-sample (default 0,
--hop changes the step); a trailing partial frame is dropped; frames holding NaN or Inf
are skipped and counted.

Per frame:

1. Periodogram. P[k] = |FFT(w x)|^2 / (sum w)^2 over signed bins k = -N/2 .. N/2-1
   (fftshift order), w the periodic 4-term Blackman-Harris window (default; side lobes
   -92 dB, so a 55 dB carrier's leakage stays under the noise; equivalent noise
   bandwidth ENBW = 2.00 bins) or Hann (--window hann; -31 dB side lobes, ENBW 1.5).
   A full-scale complex tone exp(2 pi i f t) on a bin reads 0 dBFS.

2. Noise floor, per bin. For Gaussian noise P[k] is exponential with mean F[k] (the
   floor). F is estimated so that it follows a front end's roll-off but not signals:
   - the band is cut into blocks of B bins (B = max(16, N/256)); each block's median
     over ln 2 estimates its mean (the median of an exponential is ln 2 times its mean),
     which ignores signals covering under half of a block;
   - a morphological opening (a running minimum, then a running maximum, each over W
     blocks, W = --floor-width (default 0.4) of the band) of the block levels in dB
     removes every hump narrower than W and keeps broader shapes: signals up to 40 % of
     the band are not floor, a filter passband wider than that is;
   - the opening of noisy block estimates is biased low; the bias is measured once per
     run on white noise with the same N, window and averaging (seeded, 16 frames) and
     divided out, so F is unbiased on white noise;
   - F is interpolated linearly (in dB) from block centres to bins.
   A band that occupies more than W of the band in every frame (an always-on LTE carrier
   filling the capture) is floor to this detector: no single frame can tell it from a
   passband. docs/sensing_real_captures.md says where that happens.

3. CFAR threshold, false-alarm probability --pfa per bin (default 1e-6: 11.4 dB above
   the floor for one frame; a 65536-bin frame expects 0.07 false bins). Two tests, a bin
   is above threshold if either passes:
   - the bin itself: P[k] > F[k] * q1, q1 the (1 - pfa) quantile of the noise statistic
     (exponential for one frame: q1 = -ln pfa; Gamma(M) for a Welch mean of M frames);
   - a running mean of P/F over S = --smooth bins (default 16) centred on k (for wide,
     weak signals, whose bins are each below q1): above the (1 - pfa) quantile of a
     Gamma law whose shape is the effective number of independent bins in S, computed
     from the window's spectral correlation (for Blackman-Harris, S = 16 gives 8.9 per
     frame). Gamma quantiles of shape > 1 use the Wilson-Hilferty approximation.
   Bins with F = 0 (a frame of exact zeros) are never above threshold.

4. Bands: runs of bins above threshold; two runs separated by at most G = --gap bins
   below threshold (default 2, the window's resolution: one noise dip does not split a
   modulated band) are one band. Its extent is [first, last] bin above threshold.

5. Per band: the extent is first trimmed to its outermost bins above the loose per-bin
   threshold (pfa 1e-3), if any (the wide test marks whole 16-bin windows). With
   Q[k] = P[k] - F[k] the noise-subtracted power over the extent (not clipped at 0, which
   would add 0.37 F of noise per bin and widen weak bands; clipped only when the sum is
   not positive):
   - centre: sum k Q / sum Q (power-weighted, fractional bins, kept inside the extent);
   - edges and bandwidth (bins, bin k spanning [k - 1/2, k + 1/2]): by default "obw99",
     the points where the cumulative Q (made monotonic) reaches 0.5 % and 99.5 % of
     sum Q (linear within a bin), the ITU 99 % occupied bandwidth; or with --rule xdb, the outermost points
     where P crosses (peak - X dB), X = --xdb (default 20), interpolated in dB between
     bins;
   - peak_power_dbfs = max P; total_power_dbfs = sum Q / ENBW (a tone's whole power);
   - snr_db = max P over F at that bin;
   - dc: the extent touches bins -1 .. +1 (the radio's DC spur or a signal on DC).
   Hz = centre frequency + bin * rate / N.

Option --capture-floor P (off by default, so every frame stands alone as a per-frame
sensor's does): each frame's floor is min(its own, the P-th percentile over frames of
the frames' floors, per bin). A carrier too wide for one frame's floor (LTE) but off at
times (TDD) then stands above its quiet frames' floor; but a floor that rises in some
frames (impulsive noise) is then flagged as band-wide signal.

Capture level (per-frame mode): "emitters" merges the frames' band extents that overlap
in frequency, or lie within N/256 bins, into intervals (with the number of frames each
holds); "transmissions"
chains bands of consecutive frames that overlap in frequency (1 bin tolerance), with a
hold of --hold frames (default 2) without the band before it ends. These are the
reference counts the tracker is scored against.

Welch mode (--welch): the periodograms of all frames (or --welch-frames at a time) are
averaged; the floor, the thresholds (Gamma(M) per bin) and the bands are computed on
the mean; the output's "welch" lists the per-capture emitter bands. Short bursts are
diluted by the averaging; the per-frame "emitters" keep them.

Output: JSON (default stdout, or --out f.json) with the parameters and per frame the
signals; --csv f.csv writes one row per signal.
"""

import argparse
import csv
import json
import math
import os
import sys
import time

import numpy as np

SCALES = {  # datatype: (numpy type of one number, offset, scale); sample = (v - off) * s
    "ci8": (np.dtype("i1"), 0.0, 1.0 / 128),
    "cu8": (np.dtype("u1"), 127.5, 1.0 / 127.5),
}
for _end, _order in (("_le", "<"), ("_be", ">")):  # the other complex SigMF types
    for _kind, _bits in (("f", 32), ("f", 64), ("i", 16), ("i", 32), ("u", 16), ("u", 32)):
        _half = 2.0 ** (_bits - 1)
        SCALES[f"c{_kind}{_bits}{_end}"] = (
            np.dtype(f"{_order}{_kind}{_bits // 8}"),
            (_half - 0.5) if _kind == "u" else 0.0,
            1.0 if _kind == "f" else 1.0 / _half)


# ---------------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------------
def data_path_for(meta_path):
    if not meta_path.endswith(".sigmf-meta"):
        raise ValueError(f"meta_path: {meta_path!r} does not end in .sigmf-meta")
    return meta_path[: -len(".sigmf-meta")] + ".sigmf-data"


def read_sigmf(meta_path):
    """(samples complex64, info dict) of a SigMF pair. info: datatype, sample_rate,
    center_freq (0 when the meta has none), num_samples, data_path, meta."""
    with open(meta_path) as f:
        meta = json.load(f)
    g = meta.get("global", {})
    dt = g.get("core:datatype")
    if dt not in SCALES:
        raise ValueError(f"{meta_path}: global.core:datatype {dt!r} is not one of "
                         f"{sorted(SCALES)}")
    rate = g.get("core:sample_rate")
    if not isinstance(rate, (int, float)) or rate <= 0:
        raise ValueError(f"{meta_path}: global.core:sample_rate {rate!r} must be > 0")
    data_path = data_path_for(meta_path)
    if not os.path.exists(data_path):
        raise ValueError(f"{meta_path}: data file {data_path} is missing")
    typ, off, scale = SCALES[dt]
    raw = np.fromfile(data_path, dtype=typ)
    raw = raw[: len(raw) // 2 * 2].astype(np.float64)
    v = (raw - off) * scale
    x = (v[0::2] + 1j * v[1::2]).astype(np.complex64)
    caps = meta.get("captures") or [{}]
    fc = caps[0].get("core:frequency", 0.0) or 0.0
    return x, {"datatype": dt, "sample_rate": float(rate), "center_freq": float(fc),
               "num_samples": len(x), "data_path": data_path, "meta": meta}


# ---------------------------------------------------------------------------------
# Statistics helpers
# ---------------------------------------------------------------------------------
def window(n, kind):
    t = 2 * np.pi * np.arange(n) / n  # periodic (DFT-even) form
    if kind == "blackman_harris":
        return (0.35875 - 0.48829 * np.cos(t) + 0.14128 * np.cos(2 * t)
                - 0.01168 * np.cos(3 * t))
    if kind == "hann":
        return 0.5 - 0.5 * np.cos(t)
    raise ValueError(f"window: {kind!r} is not blackman_harris or hann")


def weighted_exp_isf(lam, pfa):
    """t with P(sum_i lam_i E_i > t) = pfa, E_i independent unit exponentials: the exact
    law of a sum of correlated periodogram bins of Gaussian noise (lam: eigenvalues of
    their covariance). One weight: -lam ln pfa. Otherwise the Lugannani-Rice saddlepoint
    approximation (relative error well under 1 % in the far tail)."""
    lam = np.asarray(lam, np.float64)
    lam = lam[lam > 1e-12 * lam.max()]
    if len(lam) == 1:
        return -float(lam[0]) * math.log(pfa)
    mean = float(lam.sum())

    def tail(t):
        # saddle point: K'(u) = t, K(u) = -sum log(1 - lam u), u < 1/max(lam)
        lo, hi = 0.0, (1.0 - 1e-12) / lam.max()
        for _ in range(200):
            u = 0.5 * (lo + hi)
            if np.sum(lam / (1 - lam * u)) < t:
                lo = u
            else:
                hi = u
        u = 0.5 * (lo + hi)
        k = -np.sum(np.log1p(-lam * u))
        k2 = np.sum((lam / (1 - lam * u)) ** 2)
        w = math.sqrt(max(2 * (u * t - k), 1e-300))
        v = u * math.sqrt(k2)
        return (0.5 * math.erfc(w / math.sqrt(2))
                + math.exp(-0.5 * w * w) / math.sqrt(2 * math.pi) * (1 / v - 1 / w))

    lo, hi = mean * 1.0001, mean - 2 * float(lam.max()) * math.log(pfa)
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        if tail(mid) > pfa:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def sum_weights(w, s, m):
    """Weights (eigenvalues) of the mean over s adjacent bins and m independent frames of
    the periodogram of unit-mean white noise: the covariance of s adjacent windowed DFT
    coefficients is Toeplitz in rho_d = sum w^2 e^(-2 pi i d n/N) / sum w^2."""
    r = np.fft.fft(w * w)
    rho = r[:s] / r[0]
    d = np.arange(s)
    c = np.where(d[:, None] >= d[None, :], rho[np.abs(d[:, None] - d[None, :])],
                 np.conj(rho[np.abs(d[:, None] - d[None, :])]))
    ev = np.clip(np.linalg.eigvalsh(c), 0, None) / (s * m)
    return np.repeat(ev, m)


def effective_bins(w, s):
    """Effective number of independent bins (squared mean over variance) in a mean of s
    adjacent periodogram bins of white noise."""
    lam = sum_weights(w, s, 1)
    return float(lam.sum() ** 2 / np.sum(lam ** 2))


def running_min(a, w):
    if w <= 1:
        return a.copy()
    h = w // 2
    p = np.pad(a, (h, w - 1 - h), mode="edge")
    return np.lib.stride_tricks.sliding_window_view(p, w).min(axis=1)


def running_max(a, w):
    return -running_min(-a, w)


# ---------------------------------------------------------------------------------
# Detector
# ---------------------------------------------------------------------------------
class reference_detector:
    def __init__(self, n, sample_rate=1.0, center_freq=0.0, window_kind="blackman_harris",
                 pfa=1e-6, floor_width=0.4, smooth=16, gap=2, rule="obw99",
                 xdb=20.0, averaged=1, seed=20260729):
        if n < 64:
            raise ValueError(f"n: {n} must be >= 64")
        if not 0 < pfa < 0.5:
            raise ValueError(f"pfa: {pfa} must be in (0, 0.5)")
        if not 0 < floor_width <= 1:
            raise ValueError(f"floor_width: {floor_width} must be in (0, 1]")
        if rule not in ("obw99", "xdb"):
            raise ValueError(f"rule: {rule!r} is not obw99 or xdb")
        self.n, self.rate, self.fc = n, float(sample_rate), float(center_freq)
        self.window_kind, self.pfa, self.floor_width = window_kind, pfa, floor_width
        self.smooth, self.gap, self.rule, self.xdb = max(1, int(smooth)), int(gap), rule, xdb
        self.averaged = max(1, int(averaged))
        self.w = window(n, window_kind).astype(np.float64)
        self.norm = float(np.sum(self.w)) ** 2
        self.enbw = n * float(np.sum(self.w ** 2)) / self.norm  # bins
        self.block = max(16, n // 256)
        self.nblocks = n // self.block
        self.wblocks = max(1, int(round(floor_width * self.nblocks)))
        m = min(self.averaged, 64)  # past 64 frames the law is near enough Gaussian
        self.q1 = weighted_exp_isf(sum_weights(self.w, 1, m), pfa)
        self.keff = effective_bins(self.w, self.smooth) if self.smooth > 1 else 1.0
        self.qs = weighted_exp_isf(sum_weights(self.w, self.smooth, m), pfa)
        # looser tests (pfa 1e-3) that keep signal bins out of the refined floor
        self.q1_loose = weighted_exp_isf(sum_weights(self.w, 1, m), 1e-3)
        self.qs_loose = weighted_exp_isf(sum_weights(self.w, self.smooth, m), 1e-3)
        self.refine_blocks = max(2, self.nblocks // 32)
        self.bins = np.arange(n) - n // 2
        self.seed = seed
        self.bias = 1.0
        self.bias = self._calibrate()

    def params(self):
        return {"fft_size": self.n, "window": self.window_kind, "enbw_bins": self.enbw,
                "pfa_per_bin": self.pfa, "threshold_db": 10 * math.log10(self.q1),
                "smooth_bins": self.smooth, "smooth_effective_bins": self.keff,
                "smooth_threshold_db": 10 * math.log10(self.qs), "gap_bins": self.gap,
                "floor_block_bins": self.block, "floor_width": self.floor_width,
                "floor_bias_db": 10 * math.log10(self.bias), "rule": self.rule,
                "xdb": self.xdb, "averaged_frames": self.averaged,
                "sample_rate": self.rate, "center_freq": self.fc,
                "calibration_seed": self.seed}

    def periodogram(self, x):
        X = np.fft.fftshift(np.fft.fft(self.w * np.asarray(x, np.complex128)))
        return (X.real ** 2 + X.imag ** 2) / self.norm

    def _opening(self, p):
        b = p[: self.nblocks * self.block].reshape(self.nblocks, self.block)
        lev = np.median(b, axis=1) / math.log(2) if self.averaged == 1 else np.median(b, axis=1)
        # A Welch mean is close to Gamma(M): its median is near its mean for M >= 4; the
        # calibration removes what remains.
        with np.errstate(divide="ignore"):
            db = 10 * np.log10(np.maximum(lev, 1e-300))
        # a running mean over 5 blocks first: the opening's minimum picks the low tail of
        # the block estimates, so their spread sets the floor's frame-to-frame wobble
        db = np.convolve(np.pad(db, 2, mode="edge"), np.ones(5) / 5, "valid")
        op = running_max(running_min(db, self.wblocks), self.wblocks)
        centres = (np.arange(self.nblocks) + 0.5) * self.block - 0.5
        f = np.interp(np.arange(self.n), centres, op)
        return 10 ** (f / 10)

    def _calibrate(self):
        rng = np.random.default_rng(self.seed)
        ratios = []
        for _ in range(16):
            p = np.zeros(self.n)
            for _ in range(self.averaged if self.averaged <= 32 else 32):
                z = rng.standard_normal(self.n) + 1j * rng.standard_normal(self.n)
                p += self.periodogram(z / math.sqrt(2))
            p /= min(self.averaged, 32)
            ratios.append(np.mean(self._opening(p)) / (self.enbw / self.n))  # rough floor
        return float(np.mean(ratios))

    def floor(self, p):
        fl = self._opening(p) / self.bias
        for _ in range(2):  # the second pass masks with the refined floor
            fl = self._refine(p, fl)
        return fl

    def _refine(self, p, rough):
        # Refine: the mean of P over the bins that pass neither loose test (pfa 1e-3,
        # dilated by the smoothing length), per block, pooled over refine_blocks blocks
        # each side, has a far smaller variance than the opening. Truncating the noise
        # at the loose threshold (and its neighbours) biases it low by 0.1-0.2 dB on white
        # noise. Where too few bins are left
        # (a wide signal), the opening stays.
        busy = self.mask(p, rough, self.q1_loose, self.qs_loose)
        if self.smooth > 1:
            busy = running_max(busy.astype(np.int8), 2 * self.smooth + 1) > 0
        keep = ~busy
        nb = self.nblocks * self.block
        s = np.where(keep, p, 0.0)[:nb].reshape(self.nblocks, self.block).sum(axis=1)
        c = keep[:nb].reshape(self.nblocks, self.block).sum(axis=1).astype(np.float64)
        k = np.ones(2 * self.refine_blocks + 1)
        ss, cc = np.convolve(s, k, "same"), np.convolve(c, k, "same")
        ok = (c >= self.block / 2) & (cc >= len(k) * self.block / 4)
        centres = (np.arange(self.nblocks) + 0.5) * self.block - 0.5
        rough_c = np.interp(centres, np.arange(self.n), rough)
        lev = np.where(ok, ss / np.maximum(cc, 1), rough_c)
        with np.errstate(divide="ignore"):
            db = 10 * np.log10(np.maximum(lev, 1e-300))
        return 10 ** (np.interp(np.arange(self.n), centres, db) / 10)

    def mask(self, p, fl, q1=None, qs=None):
        q1 = self.q1 if q1 is None else q1
        qs = self.qs if qs is None else qs
        good = fl > 0
        r = np.zeros(self.n)
        r[good] = p[good] / fl[good]
        m = good & (r > q1)
        if self.smooth > 1:
            c = np.concatenate(([0.0], np.cumsum(r)))
            h = self.smooth // 2
            lo = np.clip(np.arange(self.n) - h, 0, self.n - self.smooth)
            mean = (c[lo + self.smooth] - c[lo]) / self.smooth
            hit = np.flatnonzero(good & (mean > qs))
            if len(hit):
                # the whole window that passed is signal, not only its centre bin: a
                # weak wide band then holds its own strongest bins
                d = np.zeros(self.n + 1, np.int64)
                np.add.at(d, lo[hit], 1)
                np.add.at(d, lo[hit] + self.smooth, -1)
                m |= good & (np.cumsum(d[:-1]) > 0)
        return m

    def bands_from_mask(self, m):
        idx = np.flatnonzero(m)
        if len(idx) == 0:
            return []
        breaks = np.flatnonzero(np.diff(idx) > self.gap + 1)
        starts = np.concatenate(([idx[0]], idx[breaks + 1]))
        ends = np.concatenate((idx[breaks], [idx[-1]]))
        return list(zip(starts.tolist(), ends.tolist()))

    def measure(self, p, fl, a, b):
        # The wide test marks its whole window: trim the extent to the outermost bins
        # that pass the loose per-bin test (a strong tone is then not 16 bins wide).
        r = p[a: b + 1] / fl[a: b + 1]
        strong = np.flatnonzero(r > self.q1_loose)
        if len(strong):
            a, b = a + int(strong[0]), a + int(strong[-1])
        k = self.bins[a: b + 1].astype(np.float64)
        pp = p[a: b + 1]
        # P - F, not clipped at 0: clipping would add 0.37 F of noise per bin and push
        # the 99 % edges of a weak band outwards
        q = pp - fl[a: b + 1]
        tot = float(q.sum())
        ipk = int(np.argmax(pp))
        if tot <= 0:
            q = np.maximum(q, 0.0) if np.any(q > 0) else pp.copy()
            tot = float(q.sum())
        centre = float(np.clip(np.sum(k * q) / tot, k[0], k[-1]))
        if self.rule == "obw99":
            lower, upper = self._obw(k, q, tot, 0.99)
        else:
            lower, upper = self._xdb(k, pp, ipk, self.xdb)
        peak = float(pp[ipk])
        fpk = float(fl[a + ipk])
        s = {
            "center_bin": centre, "lower_bin": lower, "upper_bin": upper,
            "bandwidth_bins": upper - lower,
            "extent_lower_bin": int(k[0]), "extent_upper_bin": int(k[-1]),
            "peak_bin": int(k[ipk]),
            "peak_power_dbfs": 10 * math.log10(peak) if peak > 0 else -math.inf,
            "total_power_dbfs": 10 * math.log10(max(tot, 1e-300) / self.enbw),
            "snr_db": 10 * math.log10(peak / fpk) if fpk > 0 else math.inf,
            "floor_dbfs": 10 * math.log10(fpk) if fpk > 0 else -math.inf,
            "dc": bool(k[0] <= 1 and k[-1] >= -1),
        }
        hz = self.rate / self.n
        s.update(center_hz=self.fc + centre * hz, lower_hz=self.fc + lower * hz,
                 upper_hz=self.fc + upper * hz, bandwidth_hz=(upper - lower) * hz)
        return s

    @staticmethod
    def _obw(k, q, tot, frac):
        c = np.concatenate(([0.0], np.cumsum(q))) / tot  # c[i]: power below bin i's lower edge
        c = np.clip(np.maximum.accumulate(c), 0.0, 1.0)  # noise makes it wiggle
        edges = np.concatenate((k - 0.5, [k[-1] + 0.5]))
        lo_t, hi_t = (1 - frac) / 2, 1 - (1 - frac) / 2
        return float(np.interp(lo_t, c, edges)), float(np.interp(hi_t, c, edges))

    @staticmethod
    def _xdb(k, p, ipk, x):
        with np.errstate(divide="ignore"):
            db = 10 * np.log10(np.maximum(p, 1e-300))
        lvl = db[ipk] - x
        above = np.flatnonzero(db >= lvl)
        i, j = above[0], above[-1]
        # interpolate the crossing between the outermost bin above and its neighbour
        lower = k[i] - 0.5 if i == 0 else k[i - 1] + (lvl - db[i - 1]) / (db[i] - db[i - 1])
        upper = k[j] + 0.5 if j == len(k) - 1 else k[j] + (db[j] - lvl) / (db[j] - db[j + 1])
        return float(lower), float(upper)

    def detect_periodogram(self, p, capture_floor=None):
        fl = self.floor(p)
        if capture_floor is not None:
            fl = np.minimum(fl, capture_floor)
        m = self.mask(p, fl)
        sig = [self.measure(p, fl, a, b) for a, b in self.bands_from_mask(m)]
        nf = float(np.median(fl))
        return {"signals": sig, "noise_floor_dbfs": 10 * math.log10(nf) if nf > 0 else -math.inf,
                "bins_above": int(m.sum())}

    def detect(self, x, capture_floor=None):
        return self.detect_periodogram(self.periodogram(x), capture_floor)


# ---------------------------------------------------------------------------------
# Capture-level grouping
# ---------------------------------------------------------------------------------
def merge_emitters(frames, tol=1):
    """Per-frame band extents that overlap in frequency (within tol bins), merged into
    intervals: [{lower_bin, upper_bin, frames, peak_snr_db, dc}]."""
    iv = []
    for fr in frames:
        for s in fr["signals"]:
            iv.append((s["extent_lower_bin"], s["extent_upper_bin"], fr["index"], s["snr_db"],
                       s["dc"]))
    iv.sort()
    out = []
    for lo, hi, fi, snr, dc in iv:
        if out and lo <= out[-1]["upper_bin"] + tol:
            e = out[-1]
            e["upper_bin"] = max(e["upper_bin"], hi)
            e["_frames"].add(fi)
            e["peak_snr_db"] = max(e["peak_snr_db"], snr)
            e["dc"] = e["dc"] or dc
        else:
            out.append({"lower_bin": lo, "upper_bin": hi, "_frames": {fi}, "peak_snr_db": snr,
                        "dc": dc})
    for e in out:
        e["frames"] = len(e.pop("_frames"))
    return out


def chain_transmissions(frames, hold=2, tol=1):
    """Bands of consecutive frames that overlap in frequency (within tol bins) chained
    into transmissions; one ends after `hold` frames without a band on it."""
    active, done = [], []
    for fr in frames:
        i = fr["index"]
        seen = set()
        for s in fr["signals"]:
            lo, hi = s["extent_lower_bin"], s["extent_upper_bin"]
            hit = [t for t in active if lo <= t["upper_bin"] + tol and hi >= t["lower_bin"] - tol]
            if hit:
                t = hit[0]
                for o in hit[1:]:  # a band bridging two running ones joins them
                    t["lower_bin"] = min(t["lower_bin"], o["lower_bin"])
                    t["upper_bin"] = max(t["upper_bin"], o["upper_bin"])
                    t["first_frame"] = min(t["first_frame"], o["first_frame"])
                    t["peak_power_dbfs"] = max(t["peak_power_dbfs"], o["peak_power_dbfs"])
                    t["snr_sum"] += o["snr_sum"]
                    t["n"] += o["n"]
                    t["dc"] = t["dc"] or o["dc"]
                    active.remove(o)
            else:
                t = {"first_frame": i, "lower_bin": lo, "upper_bin": hi, "peak_power_dbfs": -1e300,
                     "snr_sum": 0.0, "n": 0, "dc": False, "obw_lower": s["lower_bin"],
                     "obw_upper": s["upper_bin"]}
                active.append(t)
            t["lower_bin"], t["upper_bin"] = min(t["lower_bin"], lo), max(t["upper_bin"], hi)
            t["obw_lower"] = min(t.get("obw_lower", s["lower_bin"]), s["lower_bin"])
            t["obw_upper"] = max(t.get("obw_upper", s["upper_bin"]), s["upper_bin"])
            t["last_frame"] = i
            t["peak_power_dbfs"] = max(t["peak_power_dbfs"], s["peak_power_dbfs"])
            t["snr_sum"] += s["snr_db"]
            t["n"] += 1
            t["dc"] = t["dc"] or s["dc"]
            seen.add(id(t))
        for t in list(active):
            if id(t) not in seen and i - t["last_frame"] > hold:
                active.remove(t)
                done.append(t)
    done += active
    out = []
    for t in sorted(done, key=lambda t: (t["first_frame"], t["lower_bin"])):
        out.append({"first_frame": t["first_frame"], "last_frame": t["last_frame"],
                    "lower_bin": t["lower_bin"], "upper_bin": t["upper_bin"],
                    "obw_lower_bin": t["obw_lower"], "obw_upper_bin": t["obw_upper"],
                    "peak_power_dbfs": t["peak_power_dbfs"], "mean_snr_db": t["snr_sum"] / t["n"],
                    "frames": t["n"], "dc": t["dc"]})
    return out


def frame_starts(num_samples, n, start=0, hop=None, max_frames=None):
    hop = hop or n
    s = list(range(start, num_samples - n + 1, hop))
    return s[:max_frames] if max_frames else s


def run_capture(meta_path, n, welch=False, welch_frames=None, start=0, hop=None,
                max_frames=None, hold=2, capture_floor_pct=None, **kw):
    x, info = read_sigmf(meta_path)
    rate, fc = info["sample_rate"], info["center_freq"]
    starts = frame_starts(len(x), n, start, hop, max_frames)
    if not starts:
        raise ValueError(f"fft_size: {n} is longer than the capture ({len(x)} samples)")
    out = {"capture": os.path.basename(meta_path), "datatype": info["datatype"],
           "num_samples": len(x), "duration_s": len(x) / rate}
    good = [s for s in starts if np.all(np.isfinite(x[s: s + n]))]
    out["frames_skipped_nonfinite"] = len(starts) - len(good)
    if welch:
        m = welch_frames or len(good)
        det = reference_detector(n, rate, fc, averaged=m, **kw)
        out["params"] = det.params()
        out["welch"] = []
        for i in range(0, len(good) - m + 1, m):
            p = np.mean([det.periodogram(x[s: s + n]) for s in good[i: i + m]], axis=0)
            r = det.detect_periodogram(p)
            r.update(first_sample=good[i], last_sample=good[i + m - 1] + n, frames=m)
            out["welch"].append(r)
        return out
    det = reference_detector(n, rate, fc, **kw)
    out["params"] = dict(det.params(), capture_floor_percentile=capture_floor_pct)
    frames = []
    goodset = set(good)
    cfl = None
    if capture_floor_pct is not None and len(good) >= 5:
        # The capture floor: per bin, a low percentile over frames of the frames' own
        # floors. A carrier too wide for one frame's floor (LTE) but off at times (TDD,
        # bursts) then stands above the floor of its quiet frames.
        fls = np.array([det.floor(det.periodogram(x[s: s + n])) for s in good])
        cfl = np.percentile(fls, capture_floor_pct, axis=0)
        out["capture_floor_dbfs"] = float(10 * np.log10(max(np.median(cfl), 1e-300)))
    t0 = time.perf_counter()
    for i, s in enumerate(starts):
        if s not in goodset:
            continue
        r = det.detect(x[s: s + n], cfl)
        r.update(index=i, first_sample=s, start_s=s / rate)
        frames.append(r)
    out["seconds_per_frame"] = (time.perf_counter() - t0) / max(1, len(frames))
    out["frames"] = frames
    hz = rate / n
    ems = merge_emitters(frames, tol=max(1, n // 256))
    for e in ems:
        e.update(lower_hz=fc + (e["lower_bin"] - 0.5) * hz, upper_hz=fc + (e["upper_bin"] + 0.5) * hz)
    out["emitters"] = ems
    tx = chain_transmissions(frames, hold)
    for t in tx:
        t.update(start_sample=starts[t["first_frame"]],
                 sample_count=starts[t["last_frame"]] + n - starts[t["first_frame"]],
                 lower_hz=fc + t["obw_lower_bin"] * hz, upper_hz=fc + t["obw_upper_bin"] * hz)
        t["start_s"] = t["start_sample"] / rate
        t["duration_s"] = t["sample_count"] / rate
    out["transmissions"] = tx
    return out


CSV_COLUMNS = ["frame", "first_sample", "start_s", "center_hz", "lower_hz", "upper_hz",
               "bandwidth_hz", "center_bin", "lower_bin", "upper_bin", "bandwidth_bins",
               "extent_lower_bin", "extent_upper_bin", "peak_power_dbfs", "total_power_dbfs",
               "snr_db", "floor_dbfs", "dc"]


def write_csv(out, path):
    with open(path, "w", newline="") as f:
        wr = csv.writer(f)
        wr.writerow(CSV_COLUMNS)
        rows = out.get("frames") or [dict(r, index=i, start_s=r["first_sample"]
                                          / out["params"]["sample_rate"])
                                     for i, r in enumerate(out.get("welch", []))]
        for fr in rows:
            for s in fr["signals"]:
                wr.writerow([fr["index"], fr["first_sample"], f"{fr['start_s']:.9g}"]
                            + [f"{s[c]:.9g}" if isinstance(s[c], float) else s[c]
                               for c in CSV_COLUMNS[3:]])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("meta", help="a .sigmf-meta file (its .sigmf-data beside it)")
    ap.add_argument("--fft-size", type=int, required=True)
    ap.add_argument("--welch", action="store_true", help="average all frames (per-capture bands)")
    ap.add_argument("--welch-frames", type=int, help="frames per Welch average (default: all)")
    ap.add_argument("--window", default="blackman_harris", choices=["blackman_harris", "hann"])
    ap.add_argument("--pfa", type=float, default=1e-6, help="false-alarm probability per bin")
    ap.add_argument("--floor-width", type=float, default=0.4,
                    help="opening width, fraction of the band (humps narrower are signals)")
    ap.add_argument("--smooth", type=int, default=16, help="bins of the wide-signal test")
    ap.add_argument("--gap", type=int, default=2, help="bridge gaps of up to this many bins")
    ap.add_argument("--rule", default="obw99", choices=["obw99", "xdb"])
    ap.add_argument("--xdb", type=float, default=20.0, help="X of the -X dB rule")
    ap.add_argument("--start-sample", type=int, default=0)
    ap.add_argument("--hop", type=int, help="samples between frame starts (default: fft size)")
    ap.add_argument("--max-frames", type=int)
    ap.add_argument("--hold", type=int, default=2, help="frames a transmission survives unseen")
    ap.add_argument("--capture-floor", type=float, default=-1,
                    help="also floor each frame at this percentile over frames of the "
                    "frames' floors (e.g. 20; default off)")
    ap.add_argument("--out", help="JSON output (default: stdout)")
    ap.add_argument("--csv", help="CSV output, one row per signal")
    ap.add_argument("--summary", action="store_true", help="print a short summary to stderr")
    a = ap.parse_args(argv)
    out = run_capture(a.meta, a.fft_size, welch=a.welch, welch_frames=a.welch_frames,
                      start=a.start_sample, hop=a.hop, max_frames=a.max_frames, hold=a.hold,
                      capture_floor_pct=a.capture_floor if a.capture_floor >= 0 else None,
                      window_kind=a.window, pfa=a.pfa, floor_width=a.floor_width,
                      smooth=a.smooth, gap=a.gap, rule=a.rule, xdb=a.xdb)
    text = json.dumps(out, indent=1, default=float)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text + "\n")
    else:
        sys.stdout.write(text + "\n")
    if a.csv:
        write_csv(out, a.csv)
    if a.summary:
        print(summary(out), file=sys.stderr)
    return 0


def summary(out):
    p = out["params"]
    hz = p["sample_rate"] / p["fft_size"]
    lines = [f"{out['capture']}: N={p['fft_size']} ({hz:.1f} Hz/bin), floor bias "
             f"{p['floor_bias_db']:.2f} dB, threshold {p['threshold_db']:.1f} dB"]
    if "welch" in out:
        for w in out["welch"]:
            lines.append(f" welch frames {w['frames']}: floor {w['noise_floor_dbfs']:.1f} dBFS")
            for s in w["signals"]:
                lines.append(f"  {s['center_hz'] - p['center_freq']:+12.0f} Hz  bw "
                             f"{s['bandwidth_hz']:10.0f} Hz  peak {s['peak_power_dbfs']:6.1f} dBFS "
                             f" snr {s['snr_db']:5.1f} dB{'  DC' if s['dc'] else ''}")
        return "\n".join(lines)
    nf = len(out["frames"])
    lines.append(f" {nf} frames, {sum(len(f['signals']) for f in out['frames'])} signals, "
                 f"{out['seconds_per_frame'] * 1e3:.2f} ms/frame")
    for e in out["emitters"]:
        lines.append(f"  emitter {e['lower_hz'] - p['center_freq']:+12.0f} .. "
                     f"{e['upper_hz'] - p['center_freq']:+12.0f} Hz  frames {e['frames']:4d}  "
                     f"max snr {e['peak_snr_db']:5.1f} dB{'  DC' if e['dc'] else ''}")
    lines.append(f"  transmissions: {len(out['transmissions'])}")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
