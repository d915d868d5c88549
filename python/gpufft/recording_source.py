#
# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""A recording (recording.py) as a GNU Radio source of complex samples tagged the way a
receiver tags its stream (rx_rate, rx_freq, rx_time), so the blocks sense a recording as
they would a live capture.

    src = recording_source("capture.sigmf-meta")           # a GNU Radio block
"""

import numpy as np
import pmt
from gnuradio import gr

from .block_guard import guarded_work
from .recording import (DATATYPES, open_recording, recording, recording_error,
                        _renamed_keyword)
from . import sigmf_archive


class recording_source(gr.sync_block):
    """A recording as a stream of complex samples (full scale 1.0), tagged rx_rate at
    the first sample, and rx_freq and rx_time (when the recording says them) at the
    start of every capture. Stops at the end of the recording, or after max_samples
    (0: all) from sample `start`.

    path: a path (see open_recording) or what open_recording returned;
    samp_rate / center_freq / datatype: as open_recording (0 / None / "": from the
    file). sample_rate=: the deprecated old name of samp_rate (goes in the next
    release)."""

    def __init__(self, path, samp_rate=0.0, center_freq=None, datatype="", start=0,
                 max_samples=0, **deprecated):
        sample_rate = _renamed_keyword("recording_source", deprecated, "sample_rate",
                                       "samp_rate", samp_rate, 0.0)
        gr.sync_block.__init__(self, "recording_source", None, [np.complex64])
        rec = path if isinstance(path, recording) else open_recording(
            path, sample_rate or None, center_freq, datatype or None)
        self.rec = rec
        if not (isinstance(start, (int, np.integer)) and 0 <= start < rec.num_samples):
            raise recording_error(f"{rec.data_path}: start must be a sample in "
                                  f"[0, {rec.num_samples}), got {start!r}")
        if not (isinstance(max_samples, (int, np.integer)) and max_samples >= 0):
            raise recording_error(f"{rec.data_path}: max_samples must be a whole "
                                  f"number >= 0 (0: all), got {max_samples!r}")
        dtype, per, self.scale, self.offset = DATATYPES[rec.datatype]
        self.per = per
        self.error = None  # the exception that ended work(), if one did (block_guard)
        self.samples = _stream(rec, dtype, per, int(start)) if _compressed(rec) else \
            _mapped(rec, dtype, per)
        self.pos = int(start)
        self.end = rec.num_samples if not max_samples else \
            min(rec.num_samples, int(start) + int(max_samples))
        self.first = True
        # Each call to work() costs Python's overhead whatever its size: room for
        # 2^18 samples downstream keeps the calls few (callers may ask for more).
        self.set_min_output_buffer(1 << 18)

    def _tags(self, begin, end, written):
        rec = self.rec
        if self.first:
            self.first = False
            self.add_item_tag(0, written, pmt.intern("rx_rate"),
                              pmt.from_double(rec.samp_rate))
            # The capture holding the first sample describes it (the first capture
            # also describes the samples before it: recording.capture_at).
            self._tag_capture(rec.capture_at(begin), written, begin)
        for c in rec.captures[1:]:  # the first is tagged above, from wherever it holds
            if begin < c.sample_start < end:
                self._tag_capture(c, written + c.sample_start - begin, c.sample_start)

    def _tag_capture(self, c, offset, sample):
        if c.center_freq is not None:
            self.add_item_tag(0, offset, pmt.intern("rx_freq"),
                              pmt.from_double(c.center_freq))
        when = self.rec.time_at(sample)
        if when is not None:
            self.add_item_tag(0, offset, pmt.intern("rx_time"),
                              pmt.make_tuple(pmt.from_uint64(when[0]),
                                             pmt.from_double(when[1])))

    @guarded_work  # an exception ends the flowgraph, logged, instead of hanging it
    def work(self, input_items, output_items):
        out = output_items[0]
        n = min(len(out), self.end - self.pos)
        if n <= 0:
            return -1  # the end of the recording: done
        self._tags(self.pos, self.pos + n, self.nitems_written(0))
        raw = self.samples.read(self.pos, n)
        flat = out[:n].view(np.float32)
        if self.offset:
            np.subtract(raw, np.float32(self.offset), out=flat, dtype=np.float32)
            flat *= np.float32(self.scale)
        elif self.scale != 1.0:
            np.multiply(raw, np.float32(self.scale), out=flat, dtype=np.float32)
        else:
            flat[:] = raw
        self.pos += n
        return n


def _compressed(rec):
    return rec.archive is not None and rec.data_member.offset is None


class _mapped:
    """Samples memory-mapped where they lie: a data file, or the member of an
    uncompressed tar archive."""

    def __init__(self, rec, dtype, per):
        offset = rec.header_bytes
        if rec.archive is not None:
            offset += rec.data_member.offset
        self.per = per
        self.raw = np.memmap(rec.data_path, dtype=dtype, mode="r", offset=offset,
                             shape=(rec.num_samples * per,))

    def read(self, first, count):
        """The stored numbers of samples [first, first + count)."""
        return self.raw[first * self.per:(first + count) * self.per]


class _stream:
    """Samples decompressed as they are read, forwards from sample `first`, from the
    member of a compressed archive (nothing is extracted to disk)."""

    def __init__(self, rec, dtype, per, first):
        self.dtype, self.per = dtype, per
        self.sample_bytes = dtype.itemsize * per
        self.next = first
        self.stream = sigmf_archive.member_stream(
            rec.archive, rec.data_member.name,
            rec.header_bytes + first * self.sample_bytes, recording_error)

    def read(self, first, count):
        if first != self.next:  # work() reads forwards only
            raise RuntimeError(f"recording_source: read at sample {first}, expected "
                               f"{self.next}")
        data = self.stream.read(count * self.sample_bytes)
        self.next += count
        return np.frombuffer(data, self.dtype)
