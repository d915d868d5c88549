#
# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Recordings in: SigMF (.sigmf-meta + .sigmf-data, or a .sigmf archive, compressed or
not) and raw I/Q files such as GNU Radio's .cfile or rtl_sdr's .cu8: what a file holds
(its data, sample type, rate, frequency, start time and captures), checked against what
its metadata says. recording_source.py streams it into a flowgraph.

    rec = open_recording("capture.sigmf-meta")            # or .sigmf-data, .sigmf.xz
    rec = open_recording("capture.cu8", samp_rate=2.4e6, center_freq=100e6)

Every problem with a file is a recording_error (a ValueError) whose message names the
file and, for the metadata, the field: "capture.sigmf-meta: global.core:datatype:
'rf32_le' is real ...".
"""

import calendar
import json
import math
import os
import re
import time as _time
import warnings

import numpy as np

from .gpufft_python import input_type_scale
from . import sigmf_archive
from .sigmf_annotations import DATATYPE_BYTES


def _datatype(dtype, input_type):
    # The scale and offset are the blocks' (lib/stream/sample_format.h), so a recording
    # read here and the same samples given to a block as input_type agree.
    return (np.dtype(dtype), 2) + tuple(input_type_scale(input_type))


def _other_datatypes():
    """The complex SigMF datatypes the blocks take no input_type for (the names from
    sigmf_annotations' table of all of SigMF's), each read as the blocks read its kin:
    floats as they are, signed integers over 2^(b-1), unsigned ones centred on
    (2^b - 1) / 2 first (as cu8). Radios and tools write them all: big-endian from
    network streamers, cf64 from numpy, ci32 / cu16 from wide ADCs."""
    types = {}
    for name in DATATYPE_BYTES:
        if not name.startswith("c"):
            continue
        kind, bits = name[1], int(name[2:].split("_")[0])
        order = ">" if name.endswith("_be") else "<"
        half = float(2 ** (bits - 1))
        scale, offset = {"f": (1.0, 0.0), "i": (1.0 / half, 0.0),
                         "u": (1.0 / half, half - 0.5)}[kind]
        types[name] = (np.dtype(f"{order}{kind}{bits // 8}"), 2, scale, offset)
    return types


# SigMF core:datatype -> (numpy type of one stored number, numbers per sample, scale,
# offset): sample = (stored - offset) * scale, full scale 1.0 as GNU Radio's
# interleaved_*_to_complex blocks make it. Every complex datatype of SigMF 1.x.
DATATYPES = {
    "cf32_le": _datatype("<f4", "fc32"),
    "ci16_le": _datatype("<i2", "sc16"),
    "ci8": _datatype("i1", "sc8"),
    "cu8": _datatype("u1", "cu8"),  # rtl_sdr's raw output
}
DATATYPES.update((k, v) for k, v in _other_datatypes().items() if k not in DATATYPES)

# A raw file's sample type from its extension, as the tools that write them name it:
# GNU Radio's File Sink (.cfile: complex64), rtl_sdr (.cu8), hackrf_transfer (.cs8),
# UHD's rx_samples_to_file and the SDR apps that follow it (.sc16 / .cs16 int16,
# .sc8 / .cs8 int8, .fc32 / .cf32 float32). Any other raw file needs its datatype.
RAW_EXTENSIONS = {
    ".cfile": "cf32_le", ".cf32": "cf32_le", ".fc32": "cf32_le",
    ".cs16": "ci16_le", ".sc16": "ci16_le",
    ".cs8": "ci8", ".sc8": "ci8",
    ".cu8": "cu8",
}

# Names that say the file holds something other than bare samples: never read as raw.
NOT_RAW = (
    ((".gz", ".xz", ".bz2", ".zst", ".lz4", ".zip", ".7z", ".tar", ".tgz"),
     "a compressed or archived file: decompress it first"),
    ((".wav",), "a WAV file: a header precedes its samples (convert it to SigMF first, "
                "e.g. with sigmf-python's converter)"),
    ((".h5", ".hdf5", ".fil"), "a filterbank of spectra, not I/Q samples"),
    ((".json", ".sigmf-collection"), "JSON metadata, not samples"),
)

# The first bytes of files that are not bare samples (a raw file starts so by chance
# once in 2^24 files or fewer: 3 to 8 bytes each).
MAGIC = (
    (((0, b"\x1f\x8b\x08"),), "gzip-compressed"),
    (((0, b"\xfd7zXZ\x00"),), "xz-compressed"),
    (((0, b"BZh"), (4, b"1AY&SY")), "bzip2-compressed"),
    (((0, b"(\xb5/\xfd"),), "zstd-compressed"),
    (((0, b"PK\x03\x04"),), "a zip archive"),
    (((257, b"ustar"),), "a tar archive"),
    (((0, b"RIFF"), (8, b"WAVE")), "a WAV file"),
    (((0, b"\x89HDF\r\n\x1a\n"),), "an HDF5 file"),
    (((0, b"\x0c\x00\x00\x00HEADER_START"),), "a SIGPROC filterbank"),
)


class recording_error(ValueError):
    """A recording that cannot be read: the message names the file and the field."""


class capture:
    """One SigMF capture segment: where it starts, its frequency and time (None when
    the metadata does not say)."""

    def __init__(self, sample_start, center_freq, time):
        self.sample_start = sample_start
        self.center_freq = center_freq
        self.time = time  # (whole seconds, fraction) since 1970 UTC, or None

    def __repr__(self):
        return (f"capture(sample_start={self.sample_start}, center_freq="
                f"{self.center_freq!r}, time={self.time!r})")


class recording:
    """What open_recording found: the data file, its sample type (and what said it),
    rate, frequency, start time and length, and the captures (one for a raw file).

    data_path: the file the samples are read from (for an archive: the archive);
    meta_path: the metadata (for an archive: ARCHIVE:MEMBER), None for a raw file;
    datatype_from: what gave the datatype ("the .cu8 extension", "the datatype given",
    "x.sigmf-meta global.core:datatype"); archive: None, or the sigmf_archive.archive
    the samples are in (data_member: their member)."""

    def __init__(self, data_path, meta_path, datatype, samp_rate, captures,
                 num_samples, header_bytes=0, datatype_from=None, archive=None,
                 data_member=None):
        self.data_path = data_path
        self.meta_path = meta_path
        self.datatype = datatype
        self.samp_rate = samp_rate
        self.captures = captures
        self.num_samples = num_samples
        self.header_bytes = header_bytes
        self.datatype_from = datatype_from
        self.archive = archive
        self.data_member = data_member

    @property
    def sample_rate(self):
        """Deprecated (goes in the next release): samp_rate."""
        warnings.warn("recording.sample_rate is deprecated and goes in the next "
                      "release; use samp_rate", DeprecationWarning, stacklevel=2)
        return self.samp_rate

    def capture_at(self, sample):
        """The capture that describes a sample: the last one starting at or before it.
        Samples before the first capture (core:sample_start > 0) are described by the
        first: no capture says otherwise, and the blocks need a frequency from the
        first sample on."""
        found = self.captures[0]
        for c in self.captures:
            if c.sample_start > sample:
                break
            found = c
        return found

    def time_at(self, sample):
        """(seconds, fraction in [0, 1)) since 1970 UTC of a sample: its capture's time
        moved by the samples between them (backwards before the first capture), or
        None when that capture has no time."""
        c = self.capture_at(sample)
        if c.time is None:
            return None
        secs, frac = c.time
        frac += (sample - c.sample_start) / self.samp_rate
        whole = math.floor(frac)
        return int(secs + whole), frac - whole

    @property
    def center_freq(self):
        """The first sample's frequency (Hz; 0 when unknown)."""
        f = self.capture_at(0).center_freq
        return 0.0 if f is None else f

    @property
    def start_time(self):
        """(seconds, fraction) since 1970 UTC of the first sample, or None."""
        return self.time_at(0)

    @property
    def duration(self):
        return self.num_samples / self.samp_rate

    def describe(self):
        if self.archive is not None:
            what = f"SigMF {self.archive.kind} archive,"
        else:
            what = "SigMF" if self.meta_path else "raw"
        origin = ""
        if self.meta_path is None and self.datatype_from:
            origin = f" from {self.datatype_from}"
        when = ""
        if self.start_time is not None:
            secs, frac = self.start_time
            when = ", starts " + format_utc(secs, frac)
        retunes = f", {len(self.captures)} captures" if len(self.captures) > 1 else ""
        return (f"{self.data_path} ({what} {self.datatype}{origin}): {self.num_samples} "
                f"samples at {self.samp_rate / 1e6:g} MS/s ({self.duration:.3f} s), centre "
                f"{self.center_freq / 1e6:g} MHz{retunes}{when}")


def format_utc(secs, frac=0.0):
    """(seconds, fraction) since 1970 as ISO 8601 UTC, to the microsecond."""
    return _time.strftime("%Y-%m-%dT%H:%M:%S", _time.gmtime(secs)) + f"{frac:.6f}"[1:] + "Z"


_DATETIME = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}:?\d{2})?$")


def parse_datetime(text):
    """ISO 8601 as SigMF writes it ("2026-01-02T03:04:05.123456789Z") -> (whole
    seconds since 1970 UTC, fraction), keeping every digit of the fraction. Returns
    None when it is not such a time."""
    m = _DATETIME.match(text.strip()) if isinstance(text, str) else None
    if not m:
        return None
    y, mo, d, h, mi, s = (int(g) for g in m.groups()[:6])
    if not (1 <= mo <= 12 and 1 <= d <= 31 and h <= 23 and mi <= 59 and s <= 60):
        return None
    secs = calendar.timegm((y, mo, d, h, mi, s, 0, 0, 0))
    zone = m.group(8)
    if zone and zone != "Z":
        sign = 1 if zone[0] == "+" else -1
        digits = zone[1:].replace(":", "")
        secs -= sign * (int(digits[:2]) * 3600 + int(digits[2:]) * 60)
    frac = float("0" + m.group(7)) if m.group(7) else 0.0
    return secs, frac


def _number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and \
        math.isfinite(value)


def _file_size(path, what):
    try:
        with open(path, "rb"):
            pass
        return os.path.getsize(path)
    except OSError as e:
        raise recording_error(f"{path}: cannot read the {what}: "
                              f"{e.strerror or e}") from None


def sigmf_paths(path):
    """(meta, data) for a path naming either file of a SigMF pair (or their common
    stem); None when the path is not SigMF."""
    if path.endswith(".sigmf-meta"):
        stem = path[:-len(".sigmf-meta")]
    elif path.endswith(".sigmf-data"):
        stem = path[:-len(".sigmf-data")]
    elif not os.path.exists(path) and os.path.exists(path + ".sigmf-meta"):
        stem = path
    else:
        return None
    return stem + ".sigmf-meta", stem + ".sigmf-data"


def _renamed_keyword(func, old_kwargs, old, new, value, default):
    """The value of keyword `new`, or of its deprecated old name `old` (in old_kwargs,
    with a DeprecationWarning); old_kwargs must hold nothing else."""
    if old in old_kwargs:
        warnings.warn(f"{func}: {old}= is deprecated and goes in the next release; use "
                      f"{new}=", DeprecationWarning, stacklevel=3)
        if value is not default:
            raise TypeError(f"{func}: give {new} or {old}, not both")
        value = old_kwargs.pop(old)
    if old_kwargs:
        raise TypeError(f"{func}() got an unexpected keyword argument "
                        f"{next(iter(old_kwargs))!r}")
    return value


def open_recording(path, samp_rate=None, center_freq=None, datatype=None, **deprecated):
    """Reads what a recording holds without reading its samples.

    path: a .sigmf-meta or .sigmf-data file (the other one beside it), a SigMF archive
    (.sigmf tar, .sigmf.gz, .sigmf.xz, .sigmf.bz2, .sigmf.zip: read in place), a
    .sigmf-collection of one recording (open_collection reads each of several), or a raw
    file of interleaved I/Q. samp_rate (Hz) and center_freq (Hz): required / optional
    for a raw file; for SigMF they replace what the metadata says. datatype: a complex
    SigMF core:datatype for a raw file (DATATYPES); by default its extension says it (.cfile, .cf32,
    .fc32: cf32_le; .cs16, .sc16: ci16_le; .cs8, .sc8: ci8; .cu8: cu8), and any other
    raw file must be given one. sample_rate=: the deprecated old name of samp_rate (goes
    in the next release).
    """
    sample_rate = _renamed_keyword("open_recording", deprecated, "sample_rate",
                                   "samp_rate", samp_rate, None)
    path = os.fspath(path)
    if sample_rate is not None and not (_number(sample_rate) and sample_rate > 0):
        raise recording_error(f"{path}: sample rate must be a number > 0 Hz, got "
                              f"{sample_rate!r}")
    if center_freq is not None and not _number(center_freq):
        raise recording_error(f"{path}: centre frequency must be a finite number of Hz, "
                              f"got {center_freq!r}")
    sigmf = (sigmf_archive.is_archive_name(path) or path.endswith(".sigmf-collection")
             or sigmf_paths(path) is not None)
    if sigmf and datatype is not None:
        raise recording_error(f"{path}: a SigMF recording says its own datatype "
                              f"(global.core:datatype); no datatype may be given")
    if path.endswith(".sigmf-collection"):
        streams = _collection_streams(path)
        if len(streams) != 1:
            names = ", ".join(os.path.basename(m) for m in streams)
            raise recording_error(
                f"{path}: a SigMF collection of {len(streams)} recordings ({names}); "
                f"open_recording and recording_source read one: give one of their "
                f".sigmf-meta files, or read each with "
                f"gnuradio.gpufft.recording.open_collection")
        return _open_sigmf(*sigmf_paths(streams[0]), sample_rate, center_freq)
    if sigmf_archive.is_archive_name(path):
        return _open_archive(path, sample_rate, center_freq)
    pair = sigmf_paths(path)
    if pair is not None:
        return _open_sigmf(*pair, sample_rate, center_freq)
    return _open_raw(path, sample_rate, center_freq, datatype)


def open_collection(path, samp_rate=None, center_freq=None):
    """Every recording of a SigMF collection (.sigmf-collection: core:streams, each the
    base name of a recording beside it), opened as open_recording opens one, in the
    collection's order. The streams' hashes are not checked."""
    path = os.fspath(path)
    if not path.endswith(".sigmf-collection"):
        raise recording_error(f"{path}: a SigMF collection is a .sigmf-collection file")
    return [open_recording(m, samp_rate, center_freq) for m in _collection_streams(path)]


def _collection_streams(path):
    """The .sigmf-meta path of each stream of a collection."""
    _file_size(path, "SigMF collection")
    doc = _load_json(path)
    coll = doc.get("collection") if isinstance(doc, dict) else None
    if not isinstance(coll, dict):
        raise recording_error(f"{path}: collection: missing or not an object (not a "
                              f"SigMF collection)")
    streams = coll.get("core:streams")
    if not isinstance(streams, list) or not streams:
        raise recording_error(f"{path}: collection.core:streams: must be a list of one "
                              f"or more recordings, got {streams!r}")
    metas = []
    for i, s in enumerate(streams):
        # A SigMF Recording Object {"name": base name, "hash": ...}; older files give
        # the base name alone.
        name = s.get("name") if isinstance(s, dict) else s
        if not isinstance(name, str) or not name:
            raise recording_error(f"{path}: collection.core:streams[{i}].name: must be a "
                                  f"recording's base name, got {name!r}")
        if name.endswith(".sigmf-meta"):
            name = name[:-len(".sigmf-meta")]
        metas.append(os.path.join(os.path.dirname(path), name + ".sigmf-meta"))
    return metas


def _check_datatype(where, field, datatype):
    if datatype in DATATYPES:
        return
    supported = ", ".join(DATATYPES)
    if isinstance(datatype, str) and datatype.startswith("r"):
        raise recording_error(f"{where}: {field}: {datatype!r} is real; the sensing "
                              f"needs complex (I/Q) samples: one of {supported}")
    hint = ""
    if isinstance(datatype, str) and "." + datatype.lower() in RAW_EXTENSIONS:
        hint = f" ({datatype} is {RAW_EXTENSIONS['.' + datatype.lower()]})"
    raise recording_error(f"{where}: {field}: {datatype!r} is not read; supported: "
                          f"{supported}{hint}")


def _sample_count(data_path, size, datatype, where):
    dtype, per_sample, _, _ = DATATYPES[datatype]
    sample_bytes = dtype.itemsize * per_sample
    if size % sample_bytes:
        raise recording_error(
            f"{data_path}: {size} bytes is not a whole number of {datatype} samples "
            f"({sample_bytes} bytes each, datatype from {where}); the file is cut short "
            f"or the datatype is wrong")
    if size == 0:
        raise recording_error(f"{data_path}: no samples (empty file)")
    return size // sample_bytes


def _extensions_text():
    by_type = {}
    for ext, t in RAW_EXTENSIONS.items():
        by_type.setdefault(t, []).append(ext)
    return "; ".join(f"{', '.join(e)}: {t}" for t, e in by_type.items())


def _raw_datatype(path, datatype):
    """(datatype, what said it) for a raw file; refuses a name that says the file is
    not bare samples, a datatype its extension contradicts, and a file neither its
    name nor the caller types."""
    name = os.path.basename(path).lower()
    for suffixes, what in NOT_RAW:
        if name.endswith(suffixes):
            raise recording_error(f"{path}: not read as raw I/Q samples: its name says "
                                  f"{what}")
    ext = os.path.splitext(name)[1]
    named = RAW_EXTENSIONS.get(ext)
    if datatype is None:
        if named is None:
            raise recording_error(
                f"{path}: a raw recording whose name does not say its sample type: give "
                f"the datatype (gpufft-demo --datatype; recording_source datatype), one "
                f"of {', '.join(DATATYPES)}; the extensions read: {_extensions_text()}")
        return named, f"the {ext} extension"
    _check_datatype(path, "datatype", datatype)
    if named is not None and named != datatype:
        raise recording_error(f"{path}: datatype: {datatype!r} given, but the {ext} "
                              f"extension says {named}: give {named!r} (or none), or "
                              f"rename the file")
    return datatype, "the datatype given"


def _sniff(path):
    """What the first bytes say the file is, when they say it is not bare samples."""
    with open(path, "rb") as f:
        head = f.read(512)
    for marks, what in MAGIC:
        if all(head[o:o + len(m)] == m for o, m in marks):
            return what
    return None


def _open_raw(path, sample_rate, center_freq, datatype):
    datatype, origin = _raw_datatype(path, datatype)
    size = _file_size(path, "recording")
    if sample_rate is None:
        raise recording_error(f"{path}: a raw recording does not say its sample rate: "
                              f"give the sample rate (gpufft-demo --rate; recording_source "
                              f"samp_rate)")
    what = _sniff(path)
    if what is not None:
        raise recording_error(f"{path}: not read as raw I/Q samples: its first bytes say "
                              f"it is {what}")
    n = _sample_count(path, size, datatype, origin)
    return recording(path, None, datatype, float(sample_rate),
                     [capture(0, None if center_freq is None else float(center_freq),
                              None)], n, datatype_from=origin)


def _load_json(path, text=None):
    """The JSON of a metadata file (or of its bytes), errors naming the file."""
    try:
        if text is None:
            with open(path, "rb") as f:
                text = f.read()
        return json.loads(text.decode("utf-8"))
    except json.JSONDecodeError as e:
        raise recording_error(f"{path}: not valid JSON: line {e.lineno} column "
                              f"{e.colno}: {e.msg}") from None
    except UnicodeDecodeError as e:
        raise recording_error(f"{path}: not UTF-8 text (SigMF metadata is JSON): "
                              f"{e.reason}") from None


def _open_sigmf(meta_path, data_path, sample_rate, center_freq):
    _file_size(meta_path, "SigMF metadata")
    meta = _load_json(meta_path)

    def locate(dataset):
        path = data_path if dataset is None else \
            os.path.join(os.path.dirname(meta_path), dataset)
        return path, path, _file_size(path, "SigMF data (beside its .sigmf-meta)"), {}

    return _sigmf_recording(meta, meta_path, locate, sample_rate, center_freq)


def _open_archive(path, sample_rate, center_freq):
    _file_size(path, "SigMF archive")
    arc = sigmf_archive.read_archive(path, recording_error)
    meta_where = arc.where(arc.meta_name)
    meta = _load_json(meta_where, arc.meta_bytes)

    def locate(dataset):
        m = arc.data_member(dataset)
        if m is None:
            wanted = arc.data_member_name(dataset)
            field = " (global.core:dataset)" if dataset else ""
            raise recording_error(f"{meta_where}: the archive holds no {wanted}{field}, "
                                  f"the samples of {arc.meta_name}")
        return path, arc.where(m.name), m.size, {"archive": arc, "data_member": m}

    return _sigmf_recording(meta, meta_where, locate, sample_rate, center_freq)


def _sigmf_recording(meta, meta_path, locate, sample_rate, center_freq):
    """The recording a SigMF metadata object describes. locate(core:dataset or None)
    gives (the file the samples are read from, how messages name them, their size in
    bytes, more recording fields)."""
    if not isinstance(meta, dict) or not isinstance(meta.get("global"), dict):
        raise recording_error(f"{meta_path}: global: missing or not an object (not "
                              f"SigMF metadata)")
    g = meta["global"]

    datatype = g.get("core:datatype")
    if datatype is None:
        raise recording_error(f"{meta_path}: global.core:datatype: missing")
    _check_datatype(meta_path, "global.core:datatype", datatype)

    channels = g.get("core:num_channels", 1)
    if channels != 1:
        raise recording_error(f"{meta_path}: global.core:num_channels: {channels!r}; "
                              f"only single-channel recordings are read")

    if sample_rate is None:
        rate = g.get("core:sample_rate")
        if rate is None:
            raise recording_error(f"{meta_path}: global.core:sample_rate: missing; give "
                                  f"the sample rate (gpufft-demo --rate; "
                                  f"recording_source samp_rate)")
        if not (_number(rate) and rate > 0):
            raise recording_error(f"{meta_path}: global.core:sample_rate: must be a "
                                  f"number > 0 Hz, got {rate!r}")
        sample_rate = float(rate)

    dataset = g.get("core:dataset")
    if dataset is not None:
        if not isinstance(dataset, str) or not dataset:
            raise recording_error(f"{meta_path}: global.core:dataset: must be a file "
                                  f"name, got {dataset!r}")
    data_path, data_where, size, located = locate(dataset)
    trailing = g.get("core:trailing_bytes", 0)
    if not (isinstance(trailing, int) and not isinstance(trailing, bool) and trailing >= 0):
        raise recording_error(f"{meta_path}: global.core:trailing_bytes: must be a whole "
                              f"number >= 0, got {trailing!r}")

    caps = meta.get("captures", [])
    if not isinstance(caps, list) or not all(isinstance(c, dict) for c in caps):
        raise recording_error(f"{meta_path}: captures: must be a list of objects")
    if not caps:
        caps = [{"core:sample_start": 0}]
    header_bytes = 0
    captures = []
    for i, c in enumerate(caps):
        field = f"captures[{i}]"
        start = c.get("core:sample_start", 0 if i == 0 else None)
        if not (isinstance(start, int) and not isinstance(start, bool) and start >= 0):
            raise recording_error(f"{meta_path}: {field}.core:sample_start: must be a "
                                  f"whole number >= 0, got {start!r}")
        if captures and start <= captures[-1].sample_start:
            raise recording_error(f"{meta_path}: {field}.core:sample_start: {start} does "
                                  f"not come after the previous capture's "
                                  f"{captures[-1].sample_start}")
        hb = c.get("core:header_bytes", 0)
        if hb:
            if i > 0 or not (isinstance(hb, int) and hb > 0):
                raise recording_error(f"{meta_path}: {field}.core:header_bytes: {hb!r}: "
                                      f"only a header before the first capture is read")
            header_bytes = hb
        freq = c.get("core:frequency")
        if freq is not None and not _number(freq):
            raise recording_error(f"{meta_path}: {field}.core:frequency: must be a "
                                  f"number of Hz, got {freq!r}")
        when = c.get("core:datetime")
        time = None
        if when is not None:
            time = parse_datetime(when)
            if time is None:
                raise recording_error(f"{meta_path}: {field}.core:datetime: {when!r} is "
                                      f"not an ISO 8601 UTC time such as "
                                      f"2026-01-02T03:04:05.5Z")
        captures.append(capture(start, None if freq is None else float(freq), time))
    if center_freq is not None:
        # Given by the user: the first capture's; later ones keep their retune steps.
        base = captures[0].center_freq or 0.0
        for c in captures:
            own = base if c.center_freq is None else c.center_freq
            c.center_freq = own + (float(center_freq) - base)
    if captures[0].center_freq is None:
        captures[0].center_freq = 0.0

    payload = size - header_bytes - trailing
    if payload < 0:
        raise recording_error(
            f"{data_where}: {size} bytes, fewer than the header and trailing bytes "
            f"{meta_path} declares ({header_bytes} + {trailing})")
    n = _sample_count(data_where, payload, datatype, f"{meta_path} global.core:datatype")
    for i, c in enumerate(captures):
        if c.sample_start >= n:
            raise recording_error(
                f"{meta_path}: captures[{i}].core:sample_start: {c.sample_start} is past "
                f"the end of {data_where} ({n} samples of {datatype}): metadata and data "
                f"do not match")
    return recording(data_path, meta_path, datatype, sample_rate, captures, n,
                     header_bytes, f"{meta_path} global.core:datatype", **located)
