#
# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Spectrum sensing over a stream: the library's sensing_plan on every frame, its
transmission_tracker across frames, and a power waterfall for display.

    s = sensor(n, samp_rate, center_freq, frames=total_frames, backend="cpu")
    s.frame(first_sample, x)               # or run a flowgraph into sensing_sink(s)
    transmissions = s.finish()             # the tracker's dicts, by start then frequency
    s.per_frame                            # per frame: the signals, in Hz
    s.waterfall_db                         # rows x columns, dBFS per bin (max-pooled)

run_recording() and run_samples() build the flowgraph: a source (recording_source, or
frame_source over a function that renders samples) -> stream_to_vector -> sensing_sink.
The grouping into transmissions is the library's tracker, nothing here.
"""

import math

import numpy as np
import pmt
from gnuradio import blocks, gr

from .block_guard import guarded_work, raise_block_errors

CSV_COLUMNS = ("start_s,length_s,frequency_hz,power_dbfs,snr_db,bandwidth_hz,"
               "lower_hz,upper_hz,frames,dc")
MIN_FFT, MAX_FFT = 1 << 10, 1 << 20


def default_fft_size(samp_rate, resolution_s=4e-3, samples=None, min_frames=4):
    """(n, why): the power of two nearest resolution_s of samples, within [2^10, 2^20]:
    frames of a few ms resolve bursts and hops in time, and bins of a few hundred Hz
    still separate narrow emitters. With samples (a recording's length), n is shortened
    where needed so that it holds min_frames frames (not below 2^10)."""
    if not samp_rate > 0:
        raise ValueError(f"samp_rate must be > 0 Hz, got {samp_rate!r}")
    want = math.log2(samp_rate * resolution_s)
    n = 1 << min(20, max(10, round(want)))
    clamp = "" if 10 <= round(want) <= 20 else \
        f", clamped to [{MIN_FFT}, {MAX_FFT}] (nearest: 2^{round(want)})"
    why = (f"the power of two nearest {resolution_s * 1e3:g} ms at {samp_rate / 1e6:g} "
           f"MS/s{clamp}")
    if samples is not None and n * min_frames > samples and n > MIN_FFT:
        n = max(MIN_FFT, 1 << max(0, int(samples // min_frames).bit_length() - 1))
        why = (f"{why}, shortened so that the recording's {samples} samples hold "
               f"{min_frames} frames or more")
    return n, (f"{n} samples = {n / samp_rate * 1e3:.3g} ms a frame, {samp_rate / n:.4g} Hz "
               f"bins: {why} (--fft-size to change it)")


def blackman_harris(n):
    a = (0.35875, 0.48829, 0.14128, 0.01168)
    x = 2 * np.pi * np.arange(n) / n
    return a[0] - a[1] * np.cos(x) + a[2] * np.cos(2 * x) - a[3] * np.cos(3 * x)


class sensor:
    """sensing_plan per frame and transmission_tracker across frames, on frames of n
    samples from sample 0 of a stream at samp_rate around center_freq. frames: how many
    will come (sizes the waterfall: at most waterfall_rows rows, each the max over the
    frames it covers; more frames add rows). plan_options go to sensing_plan (false_alarm, bandwidth_rule,
    dc_mask_bins, ...)."""

    def __init__(self, n, samp_rate, center_freq=0.0, frames=1, backend="auto",
                 device_id=0, max_signals=0, hold_frames=2, waterfall_bins=1024,
                 waterfall_rows=600, **plan_options):
        if not MIN_FFT <= n <= (1 << 24) or n & (n - 1):
            raise ValueError(f"n must be a power of two in [{MIN_FFT}, 2^24], got {n!r}")
        self.n, self.samp_rate, self.center_freq = n, float(samp_rate), float(center_freq)
        self.df = self.samp_rate / n
        from gnuradio import gpufft  # the package, once its bindings are loaded
        self.plan = gpufft.sensing_plan(n, backend=backend, device_id=device_id,
                                      max_signals=max_signals, **plan_options)
        self.tracker = gpufft.transmission_tracker(self.samp_rate, self.center_freq,
                                                 fft_size=n, hold_frames=hold_frames)
        self.per_frame, self.transmissions = [], []
        self.skipped = self.truncated = 0
        self.window = blackman_harris(n).astype(np.float32)
        self.gain = float(np.sum(self.window)) ** 2  # full-scale tone: 0 dBFS peak
        self.cols = min(waterfall_bins, n)
        self.per_row = max(1, math.ceil(frames / waterfall_rows))
        self.rows = np.full((math.ceil(frames / self.per_row), self.cols), -np.inf)

    def frame(self, first_sample, x):
        self.frames(first_sample, np.asarray(x, np.complex64).reshape(1, self.n))

    def frames(self, first_sample, xs):
        """Consecutive frames (rows of xs), the first at sample first_sample."""
        index0 = first_sample // self.n
        self._waterfall(index0, xs)
        for j, x in enumerate(xs):
            first = first_sample + j * self.n
            if not np.isfinite(x.view(np.float32)).all():
                self.skipped += 1  # NaN or Inf: the tracker's hold bridges the gap
                continue
            self.add(first, self.plan.detect(x))

    def add(self, first_sample, r):
        """One frame's signals, as sensing_plan.detect() gives them (or a detections PDU's
        metadata, which carries the same keys): into the tracker and per_frame."""
        self.transmissions += self.tracker.update(int(first_sample), r)
        self.truncated += bool(r["truncated"])
        hz = lambda key: self.center_freq + np.asarray(r[key], float) * self.df
        self.per_frame.append(dict(
            frame=int(first_sample) // self.n, first_sample=int(first_sample),
            t0=first_sample / self.samp_rate, center_hz=hz("center_bin"),
            lower_hz=hz("lower_bin"), upper_hz=hz("upper_bin"),
            peak_power_dbfs=np.asarray(r["peak_power_dbfs"], float),
            snr_db=np.asarray(r["snr_db"], float), dc=np.asarray(r["dc"], bool),
            truncated=bool(r["truncated"]), noise_floor_dbfs=float(r["noise_floor_dbfs"])))

    def _waterfall(self, index0, xs):
        with np.errstate(invalid="ignore"):
            p = np.abs(np.fft.fftshift(np.fft.fft(xs * self.window, axis=1), axes=1)) ** 2
        p = p.reshape(len(xs), self.cols, -1).max(axis=2) / self.gain
        with np.errstate(divide="ignore"):
            db = 10 * np.log10(np.nan_to_num(p, nan=0.0, posinf=0.0))
        last = (index0 + len(db) - 1) // self.per_row
        if last >= len(self.rows):  # more frames than announced: more rows
            grow = np.full((last + 1 - len(self.rows), self.cols), -np.inf)
            self.rows = np.concatenate([self.rows, grow])
        for j, row in enumerate(db):
            r = (index0 + j) // self.per_row
            np.maximum(self.rows[r], row, out=self.rows[r])

    def finish(self):
        """Ends the open transmissions; all of them, by start then frequency."""
        self.transmissions += self.tracker.flush()
        self.transmissions.sort(key=lambda t: (t["start_s"], t["center_hz"]))
        return self.transmissions

    @property
    def waterfall_db(self):
        """dBFS per bin, rows in time (per_row frames each), columns fftshifted across the
        band (max over n / columns bins each); -inf where nothing came."""
        return self.rows

    def noise_floor_dbfs(self):
        floors = [d["noise_floor_dbfs"] for d in self.per_frame]
        return float(np.median(floors)) if floors else None


class sensing_sink(gr.sync_block):
    """Feeds vectors of n samples (stream_to_vector) to a sensor, frame by frame."""

    def __init__(self, sens):
        gr.sync_block.__init__(self, "sensing_sink", [(np.complex64, sens.n)], None)
        self.sens = sens
        self.error = None  # what ended work(), if anything did (block_guard)

    @guarded_work  # an exception ends the flowgraph (logged) instead of hanging it
    def work(self, input_items, output_items):
        xs = input_items[0]
        self.sens.frames(self.nitems_read(0) * self.sens.n, xs)
        return len(xs)


class frame_source(gr.sync_block):
    """count samples from render(first, count) (numpy complex64, rendered in order in
    chunks), tagged rx_rate, rx_freq and rx_time at the first sample as a receiver tags
    its stream."""

    def __init__(self, render, count, samp_rate, center_freq, start_time=None,
                 chunk=1 << 20):
        gr.sync_block.__init__(self, "frame_source", None, [np.complex64])
        self.render, self.count, self.chunk = render, count, chunk
        self.tags = [("rx_rate", pmt.from_double(samp_rate)),
                     ("rx_freq", pmt.from_double(center_freq))]
        if start_time is not None:
            self.tags.append(("rx_time", pmt.make_tuple(
                pmt.from_uint64(int(start_time)), pmt.from_double(0.0))))
        self.buf, self.pos = np.zeros(0, np.complex64), 0
        self.error = None  # what ended work(), if anything did (block_guard)

    @guarded_work  # an exception ends the flowgraph (logged) instead of hanging it
    def work(self, input_items, output_items):
        out, done = output_items[0], self.nitems_written(0)
        if done == 0:
            for key, value in self.tags:
                self.add_item_tag(0, 0, pmt.intern(key), value)
        if done >= self.count:
            return -1
        if self.pos == len(self.buf):
            self.buf = self.render(done, min(self.chunk, self.count - done))
            self.pos = 0
        take = min(len(out), len(self.buf) - self.pos)
        out[:take] = self.buf[self.pos:self.pos + take]
        self.pos += take
        return take


def run_flowgraph(source, sens):
    """source -> stream_to_vector(n) -> sensing_sink(sens), run to the end; returns
    sens.finish()."""
    tb = gr.top_block("gpufft-sensing")
    s2v = blocks.stream_to_vector(gr.sizeof_gr_complex, sens.n)
    # Hold the Python blocks until the run ends: GNU Radio 3.10's gateway does not keep
    # them alive, and one collected before start() crashes the scheduler (gnuradio#8137).
    sink = sensing_sink(sens)
    tb.connect(source, s2v, sink)
    tb.run()
    raise_block_errors(source, sink)  # a block's work() failed: the run is not whole
    del sink
    return sens.finish()


def run_samples(render, frames, sens, start_time=None):
    """frames frames of sens.n samples from render(first, count) through the flowgraph."""
    src = frame_source(render, frames * sens.n, sens.samp_rate, sens.center_freq,
                       start_time, chunk=max(sens.n, 1 << 20))
    return run_flowgraph(src, sens)


def run_recording(rec, frames, sens):
    """The first frames frames of a recording (what recording.open_recording returned)
    through the flowgraph, read by recording_source."""
    from .recording_source import recording_source
    return run_flowgraph(recording_source(rec, max_samples=frames * sens.n), sens)


# What sensor.add() reads from a frame's signals (sensing_plan.detect()'s dict).
FRAME_KEYS = ("center_bin", "lower_bin", "upper_bin", "peak_power_dbfs", "snr_db", "dc",
              "truncated", "noise_floor_dbfs")


def detections_from_pdu(pdu):
    """(first_sample, r) from a `detections` PDU, a pair of a metadata dict and a vector
    whose dict carries the frame's first sample ("first_sample") and sensing_plan.detect()'s
    keys (vectors for the per-signal ones): what sensor.add() takes."""
    if not (pmt.is_pair(pdu) and pmt.is_dict(pmt.car(pdu))):
        raise ValueError("a detections PDU is a pair of a metadata dict and a vector")
    meta = pmt.to_python(pmt.car(pdu)) or {}  # an empty dict comes back as None
    missing = [k for k in ("first_sample",) + FRAME_KEYS if k not in meta]
    if missing:
        raise ValueError(f"detections PDU: its metadata has no {', '.join(missing)}")
    r = {k: np.asarray(v) if isinstance(v, (list, tuple, np.ndarray)) else v
         for k, v in meta.items()}
    r["dc"] = np.asarray(r["dc"], bool)
    return int(meta["first_sample"]), r


def csv_rows(transmissions):
    """The detections.csv lines (header first) for the tracker's transmissions."""
    rows = [CSV_COLUMNS]
    for t in transmissions:
        rows.append(f"{t['start_s']:.9f},{t['duration_s']:.9f},{t['center_hz']:.1f},"
                    f"{t['peak_power_dbfs']:.2f},{t['mean_snr_db']:.2f},"
                    f"{t['bandwidth_hz']:.1f},{t['lower_hz']:.1f},{t['upper_hz']:.1f},"
                    f"{t['frames']},{int(bool(t['dc']))}")
    return rows


def table(transmissions, limit=None):
    """The transmissions as printed lines (header first); the first `limit` only."""
    lines = [f"{'start (ms)':>10} {'length (ms)':>11} {'frequency (MHz)':>16} "
             f"{'power (dBFS)':>12} {'SNR (dB)':>8} {'bandwidth (kHz)':>15} {'frames':>6}"]
    for t in transmissions[:limit]:
        lines.append(f"{t['start_s'] * 1e3:10.1f} {t['duration_s'] * 1e3:11.1f} "
                     f"{t['center_hz'] / 1e6:16.6f} {t['peak_power_dbfs']:12.1f} "
                     f"{t['mean_snr_db']:8.1f} {t['bandwidth_hz'] / 1e3:15.3f} "
                     f"{t['frames']:6d}" + ("  DC" if t["dc"] else ""))
    if limit is not None and len(transmissions) > limit:
        lines.append(f"... and {len(transmissions) - limit} more (detections.csv has all)")
    return lines
