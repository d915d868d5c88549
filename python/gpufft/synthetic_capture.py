#
# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""A synthetic wideband capture as a receiver would deliver it, and its truth.

100 MS/s around 2.45 GHz: a noise floor; CW carriers at random frequencies between the
FFT bins, from ~60 dB down to 15 dB above the noise of one bin; an AM carrier with
voice-like audio, a narrowband FM carrier and a QPSK signal, each a few kHz wide; bursts
that start and stop at random times; and a frequency hopper (`capture(..., on_grid=True)`:
the older capture, every carrier on the frame's grid, switching at frame boundaries).

    cap = capture(frames, n, noise_dbfs=NOISE_DBFS)
    x = cap.samples(first, count)          # any span; the same samples however cut
    result = check(per_frame, cap)         # found / missed / false per frame

Numpy only: usable without GNU Radio (apps/gpufft-demo, studies).
"""

import math

import numpy as np

SAMPLE_RATE = 100e6        # complex samples per second
CENTER_FREQ = 2.45e9       # tuned frequency of the synthetic receiver (rx_freq tag)
START_TIME = 1795392000    # rx_time of the first sample: 2026-11-22 00:00:00 UTC
NOISE_DBFS = -60.0         # default noise power per sample, dB relative to full scale
NOISE_DBFS_ON_GRID = -80.0  # the same for on_grid (the older capture)
MESSAGE_RATE = 200e3       # sample rate of the modulating signals before interpolation


def dbfs_to_amplitude(db):
    return 10.0 ** (db / 20.0)


def blackman_harris(n):
    """The 4-term Blackman-Harris window robust mode applies (to weigh partial frames)."""
    a = (0.35875, 0.48829, 0.14128, 0.01168)
    x = 2 * np.pi * np.arange(n) / n
    return a[0] - a[1] * np.cos(x) + a[2] * np.cos(2 * x) - a[3] * np.cos(3 * x)


def tone(freq, t0, n, phase0=0.0):
    """exp(2 pi i (f t / fs + phase0)) for the n samples from absolute sample t0, as an
    outer product of two short tables (fast, float rounding only)."""
    m = 1 << (int(math.log2(n)) // 2)
    while n % m:  # n need not be a power of two: any m dividing it will do
        m >>= 1
    c = freq / SAMPLE_RATE
    start = (c * t0 + phase0) % 1.0
    inner = np.exp(2j * np.pi * ((c * np.arange(m)) % 1.0))
    outer = np.exp(2j * np.pi * ((start + c * m * np.arange(n // m)) % 1.0))
    return np.outer(outer.astype(np.complex64), inner.astype(np.complex64)).reshape(-1)


def upsample(msg, t0, n):
    """msg (sampled at MESSAGE_RATE) linearly interpolated at the n samples from
    absolute sample t0 (SAMPLE_RATE is a whole multiple of MESSAGE_RATE)."""
    r = int(SAMPLE_RATE // MESSAGE_RATE)
    j0 = t0 // r
    j1 = (t0 + n + r - 1) // r + 1
    seg = msg[j0:j1 + 1].astype(np.complex64 if np.iscomplexobj(msg) else np.float32)
    frac = (np.arange(r, dtype=np.float32) / r)
    up = (seg[:-1, None] + (seg[1:] - seg[:-1])[:, None] * frac[None, :]).reshape(-1)
    return up[t0 - j0 * r:t0 - j0 * r + n]


def band_limited_noise(rng, samples, lo, hi):
    """Real Gaussian noise with its spectrum between lo and hi Hz, at MESSAGE_RATE,
    scaled to a peak of 1 (a voice-like modulating signal)."""
    spec = np.fft.rfft(rng.standard_normal(samples))
    f = np.fft.rfftfreq(samples, 1.0 / MESSAGE_RATE)
    spec[(f < lo) | (f > hi)] = 0
    m = np.fft.irfft(spec, samples)
    return m / np.max(np.abs(m))


def rrc_taps(beta, sps, span):
    """Root-raised-cosine pulse, `span` symbols long, `sps` samples a symbol, unit energy."""
    t = (np.arange(span * sps + 1) - span * sps / 2) / sps
    h = np.empty_like(t)
    for i, x in enumerate(t):
        if abs(x) < 1e-9:
            h[i] = 1 - beta + 4 * beta / np.pi
        elif abs(abs(x) - 1 / (4 * beta)) < 1e-9:
            h[i] = beta / np.sqrt(2) * ((1 + 2 / np.pi) * np.sin(np.pi / (4 * beta)) +
                                        (1 - 2 / np.pi) * np.cos(np.pi / (4 * beta)))
        else:
            h[i] = (np.sin(np.pi * x * (1 - beta)) + 4 * beta * x * np.cos(np.pi * x * (1 + beta))) \
                / (np.pi * x * (1 - (4 * beta * x) ** 2))
    return h / np.sqrt(np.sum(h ** 2))


class transmission:
    """One transmitter: what it sends (render) and what the check needs (the truth).

    freq: centre, Hz from the tuned frequency; halfwidth: Hz each side of it that the
    signal occupies (0 for a CW carrier); dbfs: total power; snr_db: its strongest
    part's power over the noise of one bin of an n-point FFT (rectangular window), the
    scale of the engine's min_snr_db; on: list of (first, end) absolute sample indices
    it is on (None: always)."""

    def __init__(self, name, freq, dbfs, snr_db, render, halfwidth=0.0, on=None):
        self.name, self.freq, self.dbfs, self.snr_db = name, freq, dbfs, snr_db
        self.render, self.halfwidth, self.on = render, halfwidth, on


class capture:
    """The synthetic capture and what it contains (the truth): `frames` frames of n
    samples (the check's unit; any span can be rendered), noise of noise_dbfs per sample
    (default NOISE_DBFS, or NOISE_DBFS_ON_GRID for the older on-grid capture)."""

    def __init__(self, frames, n, noise_dbfs=None, on_grid=False, seed=2026):
        if noise_dbfs is None:
            noise_dbfs = NOISE_DBFS_ON_GRID if on_grid else NOISE_DBFS
        self.on_grid = on_grid
        self.n, self.frames, self.noise_dbfs = n, frames, noise_dbfs
        self.df = SAMPLE_RATE / n
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        # Noise of one bin of an n-point FFT, in the block's power_db scale (dBFS).
        self.bin_floor_dbfs = noise_dbfs - 10 * math.log10(n)
        self.tx = []
        if on_grid:
            self._on_grid()
        else:
            self._realistic()
        w = blackman_harris(n)
        self.window_cum = np.concatenate(([0.0], np.cumsum(w)))

    def snr(self, dbfs):
        return dbfs - self.bin_floor_dbfs

    def cw(self, freq, amplitude, phase0=None):
        phase0 = self.rng.uniform() if phase0 is None else phase0
        return lambda t0, n: amplitude * tone(freq, t0, n, phase0)

    # -- the realistic capture ------------------------------------------------------
    def _realistic(self):
        n, rng, frames = self.n, self.rng, self.frames
        total = frames * n
        duration = total / SAMPLE_RATE
        msg_len = int(duration * MESSAGE_RATE) + 64

        # Frequencies from their own generator: the same for every duration and size.
        freq_rng = np.random.default_rng([self.seed, 1])

        def off(mhz):  # a nominal frequency plus a random offset: off the bin grid
            return mhz * 1e6 + freq_rng.uniform(-200e3, 200e3)

        # CW carriers, always on: strong, medium and weak (15-25 dB over one bin's noise).
        for name, mhz, dbfs in (("CW strong", -12.5, -60.0), ("CW medium", 22.0, -85.0),
                                ("CW weak 1", 31.25, -95.0), ("CW weak 2", -33.0, -100.0),
                                ("CW weak 3", 8.75, -105.0)):
            f = off(mhz)
            self.tx.append(transmission(name, f, dbfs, self.snr(dbfs),
                                        self.cw(f, dbfs_to_amplitude(dbfs))))

        # AM carrier, 80 % modulated by voice-like audio (0.1-4.5 kHz).
        f_am, dbfs = off(5.0), -65.0
        audio = band_limited_noise(rng, msg_len, 100.0, 4500.0)
        a = dbfs_to_amplitude(dbfs)

        def am(t0, n, f=f_am, a=a, audio=audio, phase0=rng.uniform()):
            env = np.float32(a) * (np.float32(1.0) + np.float32(0.8) * upsample(audio, t0, n))
            return env * tone(f, t0, n, phase0)
        self.tx.append(transmission("AM (audio 4.5 kHz)", f_am, dbfs, self.snr(dbfs), am,
                                    halfwidth=4500.0))

        # Narrowband FM: 5 kHz peak deviation, audio 0.1-3 kHz (Carson: 16 kHz wide).
        f_fm, dbfs = off(-27.0), -70.0
        voice = band_limited_noise(rng, msg_len, 100.0, 3000.0)
        phase_msg = 5e3 * np.cumsum(voice) / MESSAGE_RATE  # turns
        # Its strongest bin: the instantaneous frequency is ~Gaussian, rms 5 kHz * rms(voice).
        rms_hz = 5e3 * float(np.sqrt(np.mean(voice ** 2)))
        peak_fm = dbfs + 10 * math.log10(self.df / (math.sqrt(2 * math.pi) * rms_hz))
        a = dbfs_to_amplitude(dbfs)

        def fm(t0, n, f=f_fm, a=a, phase0=rng.uniform()):
            # The deviation's phase (interpolated: smooth at MESSAGE_RATE) times the carrier.
            rad = np.float32(2 * np.pi) * upsample(phase_msg, t0, n)
            dev = np.empty(n, np.complex64)
            dev.real = np.cos(rad)
            dev.imag = np.sin(rad)
            return (np.float32(a) * dev) * tone(f, t0, n, phase0)
        self.tx.append(transmission("FM (5 kHz dev.)", f_fm, dbfs, self.snr(peak_fm), fm,
                                    halfwidth=8000.0))

        # QPSK at 4 kbaud, root-raised-cosine 0.35: 5.4 kHz wide.
        f_q, dbfs, baud = off(14.0), -75.0, 4000.0
        sps = int(MESSAGE_RATE / baud)
        symbols = (rng.integers(0, 2, msg_len // sps + 16) * 2 - 1 +
                   1j * (rng.integers(0, 2, msg_len // sps + 16) * 2 - 1)) / np.sqrt(2)
        up = np.zeros(len(symbols) * sps, complex)
        up[::sps] = symbols
        bb = np.convolve(up, rrc_taps(0.35, sps, 8), "same")[:msg_len]
        bb /= np.sqrt(np.mean(np.abs(bb) ** 2))
        peak_q = dbfs + 10 * math.log10(self.df / baud)  # flat top of the RRC spectrum
        a = dbfs_to_amplitude(dbfs)

        def qpsk(t0, n, f=f_q, a=a, bb=bb, phase0=rng.uniform()):
            return (np.float32(a) * upsample(bb, t0, n)) * tone(f, t0, n, phase0)
        self.tx.append(transmission("QPSK 4 kbaud", f_q, dbfs, self.snr(peak_q), qpsk,
                                    halfwidth=0.5 * 1.35 * baud))

        # Bursts: CW pulses of 15-80 ms that start and stop at random times. The pulses
        # of one transmitter never overlap: two at once on one frequency would add with
        # random phases, and could cancel (a capture shorter than a pulse overlapped
        # all three; seed 626690694 left the weak one's sum 20 dB down).
        for name, mhz, dbfs, count in (("burst strong", -41.0, -58.0, 3),
                                       ("burst weak", 18.0, -92.0, 3)):
            f = off(mhz)
            spans = []
            for _ in range(count):
                for _attempt in range(20):
                    length = min(int(rng.uniform(15e-3, 80e-3) * SAMPLE_RATE), total)
                    first = int(rng.uniform(0, max(total - length, 1)))
                    if all(first + length <= a or b <= first for a, b in spans):
                        break
                else:
                    continue  # no room left for another pulse of this transmitter
                spans.append((first, first + length))
                self.tx.append(transmission(name, f, dbfs, self.snr(dbfs),
                                            self.cw(f, dbfs_to_amplitude(dbfs)),
                                            on=[(first, first + length)]))

        # Frequency hopper: 16 channels 250 kHz apart, 20 ms dwells not aligned to frames.
        base, dbfs, dwell = off(40.0), -80.0, int(20e-3 * SAMPLE_RATE)
        hop_rng = np.random.default_rng([self.seed, 2])
        first = -int(hop_rng.uniform(0, dwell))
        while first < total:
            f = base + 250e3 * int(hop_rng.integers(16))
            self.tx.append(transmission("hopper", f, dbfs, self.snr(dbfs),
                                        self.cw(f, dbfs_to_amplitude(dbfs)),
                                        on=[(max(first, 0), min(first + dwell, total))]))
            first += dwell

    # -- the older on-grid capture (every line on the frame grid) ---------------------
    def _on_grid(self):
        n, frames, df = self.n, self.frames, self.df

        def grid(freq):
            return round(freq / df) * df

        def frames_on(first, last):
            first, last = max(first, 0), min(last, frames - 1)
            return [(first * n, (last + 1) * n)] if first <= last else None

        for name, mhz, dbfs in (("CW beacon", -12.5, -20.0), ("CW beacon (weak)", 31.25, -45.0)):
            f = grid(mhz * 1e6)
            self.tx.append(transmission(name, f, dbfs, self.snr(dbfs),
                                        self.cw(f, dbfs_to_amplitude(dbfs), 0.0)))
        # AM: 60 % modulation by a 10 kHz tone (carrier and two sidebands).
        c, m, a = grid(5e6), grid(10e3), dbfs_to_amplitude(-10.0)

        def am(t0, n, c=c, m=m, a=a):
            return a * (tone(c, t0, n) + 0.3 * tone(c + m, t0, n) + 0.3 * tone(c - m, t0, n))
        self.tx.append(transmission("AM carrier", c, -10.0, self.snr(-10.0), am, halfwidth=m))
        # FM: a 20 kHz tone at index 1.5; its Bessel lines reach as far as they stand
        # above one bin's noise.
        c, m, a, beta = grid(-27e6), grid(20e3), dbfs_to_amplitude(-15.0), 1.5
        lines = np.abs(np.fft.fft(np.exp(1j * beta * np.sin(2 * np.pi * np.arange(256) / 256)))) / 256
        above = [j for j in range(-127, 128)
                 if 20 * math.log10(max(lines[j % 256], 1e-300)) - 15.0 > self.bin_floor_dbfs]
        reach = max(abs(j) for j in above) * m

        def fm(t0, n, c=c, m=m, a=a, beta=beta):
            rad = np.float32(beta) * tone(m, t0, n).imag  # beta sin(2 pi m t)
            dev = np.empty(n, np.complex64)
            dev.real = np.cos(rad)
            dev.imag = np.sin(rad)
            return (np.float32(a) * dev) * tone(c, t0, n)
        self.tx.append(transmission("FM carrier", c, -15.0, self.snr(-15.0), fm, halfwidth=reach))
        for first, last in ((frames // 5, frames // 2), (2 * frames // 3, frames - 3)):
            f = grid(18e6)
            self.tx.append(transmission("burst", f, -30.0, self.snr(-30.0),
                                        self.cw(f, dbfs_to_amplitude(-30.0), 0.0),
                                        on=frames_on(first, last)))
        f = grid(-41e6)
        self.tx.append(transmission("burst (strong)", f, -5.0, self.snr(-5.0),
                                    self.cw(f, dbfs_to_amplitude(-5.0), 0.0),
                                    on=frames_on(frames // 3, 2 * frames // 3)))
        for first in range(0, frames, 2):  # 16 channels 250 kHz apart, two frames a hop
            f = grid(40e6 + 250e3 * int(self.rng.integers(16)))
            self.tx.append(transmission("hopper", f, -25.0, self.snr(-25.0),
                                        self.cw(f, dbfs_to_amplitude(-25.0), 0.0),
                                        on=frames_on(first, first + 1)))

    # -- frames and the truth per frame ---------------------------------------------
    def coverage(self, tx, i):
        """(window-weighted share of frame i that tx is on, whether it switches inside
        the frame)."""
        if tx.on is None:
            return 1.0, False
        a, b = i * self.n, (i + 1) * self.n
        weighted, switches = 0.0, False
        for first, end in tx.on:
            s, e = max(first, a), min(end, b)
            if s < e:
                weighted += self.window_cum[e - a] - self.window_cum[s - a]
                switches |= s > a or e < b
        return weighted / self.window_cum[-1], switches

    def samples(self, t0, count):
        """The count samples from absolute sample t0 (complex64): the noise comes from
        the capture's generator in call order, so render the capture once, in order."""
        sigma = dbfs_to_amplitude(self.noise_dbfs) / np.sqrt(2)
        x = (self.rng.standard_normal(2 * count, dtype=np.float32) * sigma).view(np.complex64)
        for tx in self.tx:
            if tx.on is None:
                x += tx.render(t0, count)
                continue
            for first, end in tx.on:
                s, e = max(first, t0), min(end, t0 + count)
                if s < e:  # render only the span it is on (a burst, a hop dwell)
                    x[s - t0:e - t0] += tx.render(s, e - s)
        return x

    def frame(self, i):
        return self.samples(i * self.n, self.n)

    def kinds(self):
        """Transmitters by name (bursts and hop dwells of one name together), in order."""
        kinds = {}
        for j, tx in enumerate(self.tx):
            kinds.setdefault(tx.name, []).append(j)
        return kinds


def splatter_reach(snr_db, df):
    """Hz around a carrier that switches on or off inside a frame where its spectral
    splatter (a step under the window: sidelobes ~1 / (2 pi 0.36 offset) of its peak)
    stays 10 dB above one bin's noise."""
    bins = 10 ** ((snr_db - 10.0) / 20.0) / (2 * math.pi * 0.36)
    return max(3.0, min(bins, 2000.0)) * df


def check(per_frame, cap, center_freq=CENTER_FREQ):
    """Frame by frame against the truth. per_frame: one dict per frame with "frame" (its
    index) and the signals' "center_hz", "lower_hz", "upper_hz" (absolute, around
    center_freq), "peak_power_dbfs" and "snr_db" (sequences).

    A signal is a hit for every transmitter on in that frame whose band (+- 3 bins) holds
    its centre, or whose frequency lies within the signal's edges (+- 3 bins): a
    modulated carrier is one signal, one hit. A signal within the splatter reach of a
    transmitter that switches on or off inside that frame is splatter (its energy, not a
    false alarm); any other is false. A transmitter on for at least half of a frame
    (window-weighted) must be found in it, else a miss; shorter presences count only when
    found. Returns hits, misses, false, splatter, per_tx (required / found /
    optional_found per transmitter), false_list and det_class (per frame, per signal)."""
    tol = 3 * cap.df
    hits = misses = false = splatter = 0
    per_tx = [dict(required=0, found=0, optional_found=0) for _ in cap.tx]
    false_list, det_class = [], []
    for d in per_frame:
        index = d["frame"]
        cover = [cap.coverage(tx, index) for tx in cap.tx]
        on = [j for j, (c, _) in enumerate(cover) if c > 0]
        found, classes = set(), []
        for f, lo, hi, p, snr in zip(d["center_hz"], d["lower_hz"], d["upper_hz"],
                                     d["peak_power_dbfs"], d["snr_db"]):
            f, lo, hi = f - center_freq, lo - center_freq, hi - center_freq
            inside = [j for j in on if abs(f - cap.tx[j].freq) <= cap.tx[j].halfwidth + tol
                      or lo - tol <= cap.tx[j].freq <= hi + tol]
            if inside:
                found.update(inside)
                classes.append("hit")
                continue
            near = [j for j in on if cover[j][1] and abs(f - cap.tx[j].freq) <=
                    cap.tx[j].halfwidth + splatter_reach(cap.tx[j].snr_db, cap.df)]
            if near:
                splatter += 1
                classes.append("splatter")
            else:
                false += 1
                classes.append("false")
                false_list.append((index, f, p, snr))
        det_class.append(classes)
        for j in on:
            if cover[j][0] >= 0.5:
                per_tx[j]["required"] += 1
                if j in found:
                    per_tx[j]["found"] += 1
                    hits += 1
                else:
                    misses += 1
            elif j in found:
                per_tx[j]["optional_found"] += 1
    never = [j for j, s in enumerate(per_tx)
             if s["required"] and not s["found"] and not s["optional_found"]]
    return dict(hits=hits, misses=misses, false=false, splatter=splatter, per_tx=per_tx,
                false_list=false_list, det_class=det_class, never=never,
                required_tx=sum(1 for s in per_tx if s["required"]))
