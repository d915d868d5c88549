#
# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""SigMF annotations out: the transmissions that gpufft.transmission_tracker reports,
written as SigMF 1.0 annotations so that inspectrum, IQEngine or sigmf-python show them
on the recording.

    from gnuradio.gpufft.sigmf_annotations import write_annotations, write_sigmf_meta

    # a recording that was sensed: a new .sigmf-meta for the SAME data file
    out = write_annotations("rec.sigmf-meta", transmissions)   # rec.annotated.sigmf-meta

    # a live flowgraph that records with a file sink (gr_complex -> cf32_le)
    write_sigmf_meta("live.sigmf-meta", transmissions, sample_rate=2.4e6,
                     center_freq=433.92e6, datetime=rx_time)

A transmission is a dict as the tracker gives it: start_sample and sample_count (int),
lower_hz and upper_hz (Hz, absolute when the tracker had the centre frequency, else
relative: say so with freqs_relative=True and the capture's core:frequency is added),
and optionally center_hz, peak_power_dbfs, mean_snr_db, frames and dc (bool).

Each becomes one annotation: core:sample_start, core:sample_count, core:freq_lower_edge,
core:freq_upper_edge, core:label ("dc" for the radio's DC spur, else `label`),
core:comment (SNR, peak power, centre, frames) and core:generator. Annotations are
sorted by core:sample_start (the SigMF spec requires it). Only core fields are written,
so no extension has to be declared.

Errors are ValueError naming the parameter (and the transmission's index and key), or
OSError naming the path that cannot be written.
"""

import datetime as _dt
import json
import math
import os

SIGMF_VERSION = "1.0.0"
GENERATOR = "gr-gpufft"


def _datatype_bytes():
    """Bytes per sample of each of SigMF 1.x's 28 datatypes: complex (two components) or
    real, each component a float of 32 or 64 bits or an integer of 8, 16 or 32, signed or
    not; the 8-bit ones have no byte order."""
    sizes = {}
    for domain, parts in (("c", 2), ("r", 1)):
        for kind, bits in (("f", 32), ("f", 64), ("i", 32), ("i", 16), ("u", 32),
                           ("u", 16)):
            for order in ("_le", "_be"):
                sizes[f"{domain}{kind}{bits}{order}"] = parts * bits // 8
        for kind in "iu":
            sizes[f"{domain}{kind}8"] = parts
    return sizes


DATATYPE_BYTES = _datatype_bytes()

_REQUIRED = ("start_sample", "sample_count", "lower_hz", "upper_hz")


def _finite(v, what):
    try:
        f = float(v)
    except (TypeError, ValueError):
        raise ValueError(f"{what}: {v!r} is not a number") from None
    if not math.isfinite(f):
        raise ValueError(f"{what}: {v!r} is not finite")
    return f


def _count(v, what, minimum):
    if isinstance(v, bool) or not isinstance(v, (int, float)) or v != int(v) or v < minimum:
        raise ValueError(f"{what}: {v!r} must be an integer >= {minimum}")
    return int(v)


def make_annotations(transmissions, freq_offset=0.0, sample_offset=0, label="signal",
                     dc_label="dc", generator=GENERATOR, num_samples=None):
    """SigMF annotation dicts (sorted by core:sample_start) for transmission dicts.

    freq_offset is added to lower_hz/upper_hz (the capture's core:frequency when the
    tracker ran with centre 0), sample_offset to start_sample. With num_samples (the
    data file's length) an annotation that runs past the end is cut to it and one that
    starts past it is a ValueError."""
    if not isinstance(label, str) or not label:
        raise ValueError(f"label: {label!r} must be a non-empty string")
    sample_offset = _count(sample_offset, "sample_offset", 0)
    freq_offset = _finite(freq_offset, "freq_offset")
    out = []
    for i, t in enumerate(transmissions):
        if not isinstance(t, dict):
            raise ValueError(f"transmissions[{i}]: {type(t).__name__} is not a dict")
        for k in _REQUIRED:
            if k not in t:
                raise ValueError(f"transmissions[{i}]: key {k!r} is missing (a transmission "
                                 f"needs {', '.join(_REQUIRED)})")
        start = _count(t["start_sample"], f"transmissions[{i}]['start_sample']", 0)
        count = _count(t["sample_count"], f"transmissions[{i}]['sample_count']", 1)
        start += sample_offset
        if num_samples is not None:
            if start >= num_samples:
                raise ValueError(f"transmissions[{i}]['start_sample']: {start} is past the "
                                 f"data file's {num_samples} samples")
            count = min(count, num_samples - start)
        lo = _finite(t["lower_hz"], f"transmissions[{i}]['lower_hz']") + freq_offset
        hi = _finite(t["upper_hz"], f"transmissions[{i}]['upper_hz']") + freq_offset
        if lo > hi:
            raise ValueError(f"transmissions[{i}]: lower_hz {t['lower_hz']!r} is above "
                             f"upper_hz {t['upper_hz']!r}")
        a = {"core:sample_start": start, "core:sample_count": count,
             "core:freq_lower_edge": lo, "core:freq_upper_edge": hi,
             "core:label": dc_label if t.get("dc") else label,
             "core:comment": _comment(t, freq_offset)}
        if generator:
            a["core:generator"] = str(generator)
        out.append(a)
    out.sort(key=lambda a: (a["core:sample_start"], a["core:freq_lower_edge"]))
    return out


def _comment(t, freq_offset):
    parts = []
    snr = t.get("mean_snr_db")
    if snr is not None:
        parts.append(f"SNR {float(snr):.1f} dB")
    pk = t.get("peak_power_dbfs")
    if pk is not None:
        parts.append(f"peak {float(pk):.1f} dBFS")
    c = t.get("center_hz")
    if c is not None:
        parts.append(f"centre {float(c) + freq_offset:.0f} Hz")
    bw = t.get("bandwidth_hz")
    if bw is None:
        bw = float(t["upper_hz"]) - float(t["lower_hz"])
    parts.append(f"bandwidth {float(bw):.0f} Hz")
    if t.get("frames") is not None:
        parts.append(f"{int(t['frames'])} frames")
    if t.get("dc"):
        parts.append("touches DC (the radio's DC spur?)")
    return ", ".join(parts)


def _write_json(path, meta, param):
    d = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(d):
        raise OSError(f"{param}: cannot write {path!r}: directory {d!r} does not exist")
    tmp = path + ".tmp"
    try:
        with open(tmp, "w") as f:
            json.dump(meta, f, indent=2)
            f.write("\n")
        os.replace(tmp, path)
    except OSError as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise OSError(e.errno, f"{param}: cannot write {path!r}: {e.strerror}") from e


def _stem(path):
    for ext in (".sigmf-meta", ".sigmf-data", ".sigmf"):
        if path.endswith(ext):
            return path[: -len(ext)]
    return path


def write_annotations(meta_path_in, transmissions, out_path=None, freqs_relative=False,
                      sample_offset=0, label="signal", dc_label="dc", generator=GENERATOR,
                      keep_existing=True, overwrite=False):
    """Write a .sigmf-meta for the same data file as meta_path_in, with one annotation
    per transmission; return its path.

    global and captures are kept from the input (so are its annotations, merged and
    sorted, unless keep_existing=False). out_path defaults to <stem>.annotated.sigmf-meta
    beside the input; a name whose stem differs from the data file's gets
    global core:dataset naming the data file (sigmf-python follows it). Writing over the
    input itself needs overwrite=True. freqs_relative=True adds the first capture's
    core:frequency to the edges."""
    if not isinstance(meta_path_in, str) or not meta_path_in.endswith(".sigmf-meta"):
        raise ValueError(f"meta_path_in: {meta_path_in!r} is not a .sigmf-meta path")
    try:
        with open(meta_path_in) as f:
            meta = json.load(f)
    except OSError as e:
        raise ValueError(f"meta_path_in: cannot read {meta_path_in!r}: {e.strerror}") from e
    except json.JSONDecodeError as e:
        raise ValueError(f"meta_path_in: {meta_path_in!r} is not JSON: {e}") from e
    if not isinstance(meta.get("global"), dict):
        raise ValueError(f"meta_path_in: {meta_path_in!r} has no global object")
    g = meta["global"]
    in_dir = os.path.dirname(os.path.abspath(meta_path_in))
    data = g.get("core:dataset")
    data_path = (os.path.join(in_dir, data) if data else _stem(meta_path_in) + ".sigmf-data")
    if not os.path.isfile(data_path):
        raise ValueError(f"meta_path_in: the data file {data_path!r} of {meta_path_in!r} "
                         "is missing")
    dt = g.get("core:datatype")
    if dt not in DATATYPE_BYTES:
        raise ValueError(f"meta_path_in: {meta_path_in!r}: global.core:datatype {dt!r} is "
                         "not a known SigMF datatype")
    num_samples = (os.path.getsize(data_path) - int(
        (meta.get("captures") or [{}])[0].get("core:header_bytes", 0))) // DATATYPE_BYTES[dt]
    caps = meta.get("captures") or [{"core:sample_start": 0}]
    foff = 0.0
    if freqs_relative:
        foff = float(caps[0].get("core:frequency", 0.0))

    if out_path is None:
        out_path = _stem(meta_path_in) + ".annotated.sigmf-meta"
    if not isinstance(out_path, str) or not out_path.endswith(".sigmf-meta"):
        raise ValueError(f"out_path: {out_path!r} must end in .sigmf-meta")
    if (os.path.abspath(out_path) == os.path.abspath(meta_path_in)) and not overwrite:
        raise ValueError(f"out_path: {out_path!r} is the input metadata; pass "
                         "overwrite=True to replace it")

    anns = make_annotations(transmissions, foff, sample_offset, label, dc_label,
                            generator, num_samples)
    if keep_existing:
        anns = sorted(list(meta.get("annotations") or []) + anns,
                      key=lambda a: a.get("core:sample_start", 0))
    out = {"global": dict(g), "captures": caps, "annotations": anns}
    out_dir = os.path.dirname(os.path.abspath(out_path))
    if os.path.abspath(_stem(out_path) + ".sigmf-data") != os.path.abspath(data_path):
        out["global"]["core:dataset"] = os.path.relpath(os.path.abspath(data_path), out_dir)
    elif not data:
        out["global"].pop("core:dataset", None)
    _write_json(out_path, out, "out_path")
    return out_path


def _iso8601(t):
    """core:datetime from a datetime, an rx_time pair (whole s, frac s) or seconds."""
    if t is None:
        return None
    if isinstance(t, str):
        return t
    if isinstance(t, _dt.datetime):
        if t.tzinfo is not None:
            t = t.astimezone(_dt.timezone.utc).replace(tzinfo=None)
        return t.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    if isinstance(t, (tuple, list)) and len(t) == 2:
        whole, frac = int(t[0]), float(t[1])
    else:
        s = _finite(t, "datetime")
        whole, frac = int(math.floor(s)), s - math.floor(s)
    base = _dt.datetime(1970, 1, 1) + _dt.timedelta(seconds=whole)
    us = int(round(frac * 1e6))
    if us >= 1000000:
        base, us = base + _dt.timedelta(seconds=1), 0
    return base.strftime("%Y-%m-%dT%H:%M:%S") + f".{us:06d}Z"


def write_sigmf_meta(out_path, transmissions, sample_rate, datatype="cf32_le",
                     center_freq=None, datetime=None, freqs_relative=False,
                     description=None, author=None, hw=None, extra_global=None,
                     num_samples=None, label="signal", dc_label="dc",
                     generator=GENERATOR):
    """Write a new .sigmf-meta for a recording made by a flowgraph (a file sink of
    gr_complex is cf32_le; name the data file <stem>.sigmf-data). global carries the
    datatype, sample rate and version (plus description, author, hw, extra_global);
    one capture at sample 0 with core:frequency (center_freq) and core:datetime
    (datetime: a datetime, an rx_time pair (whole, fraction) or seconds since 1970
    UTC); one annotation per transmission. With num_samples (or a data file beside
    out_path) annotations are cut to the data's length. freqs_relative=True adds
    center_freq to the edges. Returns out_path."""
    if not isinstance(out_path, str) or not out_path.endswith(".sigmf-meta"):
        raise ValueError(f"out_path: {out_path!r} must end in .sigmf-meta")
    rate = _finite(sample_rate, "sample_rate")
    if rate <= 0:
        raise ValueError(f"sample_rate: {sample_rate!r} must be > 0")
    if datatype not in DATATYPE_BYTES:
        raise ValueError(f"datatype: {datatype!r} is not one of {sorted(DATATYPE_BYTES)}")
    g = {"core:datatype": datatype, "core:sample_rate": rate, "core:version": SIGMF_VERSION}
    if description:
        g["core:description"] = str(description)
    if author:
        g["core:author"] = str(author)
    if hw:
        g["core:hw"] = str(hw)
    g["core:recorder"] = GENERATOR
    if extra_global:
        g.update(extra_global)
    cap = {"core:sample_start": 0}
    if center_freq is not None:
        cap["core:frequency"] = _finite(center_freq, "center_freq")
    iso = _iso8601(datetime)
    if iso:
        cap["core:datetime"] = iso
    if num_samples is None:
        data = _stem(out_path) + ".sigmf-data"
        if os.path.isfile(data):
            num_samples = os.path.getsize(data) // DATATYPE_BYTES[datatype]
    foff = float(center_freq) if (freqs_relative and center_freq is not None) else 0.0
    anns = make_annotations(transmissions, foff, 0, label, dc_label, generator, num_samples)
    _write_json(out_path, {"global": g, "captures": [cap], "annotations": anns}, "out_path")
    return out_path
