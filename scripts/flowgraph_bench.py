#!/usr/bin/env python3
#
# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""The module's blocks against GNU Radio's stock chains doing the same job, in one
process, on the same input (issue #30).

Each case runs source -> head(samples) -> ... and times tb.run() (the flowgraph is
built, and FFTW plans made, before the clock starts). The source is one pre-generated
buffer of complex noise and tones repeated by vector_source, the same for every case.

Cases, for each n and buffer setting:
  null            null_source -> head -> null_sink (GNU Radio's null flowgraph)
  source          vector_source -> head -> null_sink (the input alone)
  stock_fft       stream_to_vector -> fft_vcc (Blackman-Harris, shifted)
                  -> complex_to_mag_squared -> null_sink
  sparse_fft      gpufft.sparse_fft (robust, k 64, display 1024) -> null_sink, its
                  detections port to message_debug (store): a sensing flowgraph
                  takes the PDUs, and the block builds none for an unconnected port
  stock_integrate stream_to_vector -> fft_vcc -> complex_to_mag_squared
                  -> integrate_ff(N, n) -> null_sink
  accumulator     gpufft.large_fft_accumulator(n, N, min(n, 2^18) bins,
                  Blackman-Harris) -> null_sink

With --input-types (fc32 by default; sc16, sc8, cu8), sparse_fft and accumulator also
run on the same buffer quantised to interleaved integer I/Q (a vector of 2 shorts or 2
bytes an item, as a radio delivers it; the block's input_type), and `type_ratio` is
that run's MS/s over the same block's fc32 run (median of per-round ratios; above 1
when the integer input is faster).

`ratio` is the block's MS/s over its stock chain's (sparse_fft / stock_fft,
accumulator / stock_integrate), above 1 when the block is faster. Cases run in rounds
(each case once per round) and report medians; the median of the per-round ratios
cancels drift between rounds. `CPU ns/sample` is the process's CPU time (all threads)
per sample: steadier than MS/s on a shared host. Buffers: "default"
(GNU Radio's) or "4f" (head's output buffer set to 4 frames with
set_min_output_buffer). One JSON line per case, then a table.

Run against a build tree:
  PYTHONPATH=build/test_modules /usr/bin/python3 scripts/flowgraph_bench.py
"""

import argparse
import json
import os
import resource
import statistics
import sys
import time

import numpy as np
from gnuradio import blocks, fft, gr
import pmt
from gnuradio.fft import window

try:
    from gnuradio import gpufft
except ImportError:  # a build tree's module, when PYTHONPATH is not set
    sys.path.append(os.path.join(os.path.dirname(__file__), "..", "build",
                                 "test_modules"))
    from gnuradio import gpufft

MAX_OUTPUT_BINS = 2 ** 18


def parse_size(text):
    text = text.strip()
    if "^" in text:
        base, exp = text.split("^")
        return int(base) ** int(exp)
    return int(float(text))


def make_input(length, n, seed):
    """Complex noise (variance 1) and 8 tones 20-40 dB over one bin's noise; and the
    tones' frequencies in cycles a sample."""
    rng = np.random.default_rng(seed)
    tones = []
    t = np.arange(length)
    x = (rng.normal(0, np.sqrt(0.5), length) +
         1j * rng.normal(0, np.sqrt(0.5), length))
    for k in range(8):
        cycles = rng.uniform(0.05, 0.45) * (1 if k % 2 else -1)
        snr_db = rng.uniform(20, 40)
        # A tone of amplitude a reads (a n)^2 in its bin against noise n.
        a = np.sqrt(10 ** (snr_db / 10) / n)
        x += a * np.exp(2j * np.pi * cycles * t)
        tones.append(cycles)
    return x.astype(np.complex64), tones


def check_detections(store, tones, n):
    """The first frame's detections PDU (message_debug `store`) holds every tone (cycles
    a sample; the block's samp_rate is 1e6) inside one of its signals, a bin's slack."""
    if store.num_messages() == 0:
        raise RuntimeError("sparse_fft: no detections PDU")
    meta = pmt.to_python(pmt.car(store.get_message(0)))
    slack = 1e6 / n
    for c in tones:
        hz = c * 1e6
        if not any(lo - slack <= hz <= hi + slack
                   for lo, hi in zip(meta["lower_hz"], meta["upper_hz"])):
            raise RuntimeError("sparse_fft: the tone at %.0f Hz is in no signal of the "
                               "first frame" % hz)


# Item bytes of each input type (gpufft.input_type_scale gives its scale and offset).
ITEM_BYTES = {"fc32": gr.sizeof_gr_complex, "sc16": 4, "sc8": 2, "cu8": 2}


def quantise(x, input_type):
    """x (complex noise of variance 1 and tones) as input_type's stored numbers, I and Q
    interleaved, at 1/8 of full scale (no clipping at 8 sigma)."""
    scale, offset = gpufft.input_type_scale(input_type)
    v = np.empty(2 * len(x))
    v[0::2], v[1::2] = x.real, x.imag
    lo, hi = {"sc16": (-32768, 32767), "sc8": (-128, 127), "cu8": (0, 255)}[input_type]
    q = np.clip(np.round(v / 8 / scale + offset), lo, hi)
    if input_type == "sc16":
        return q.astype(np.int16)
    # vector_source_b takes unsigned chars: int8 values as their bytes
    return q.astype(np.int8 if input_type == "sc8" else np.uint8).view(np.uint8)


def typed_source(data, input_type):
    """A repeating source of `data` (quantise()'s numbers) as input_type's items."""
    if input_type == "sc16":
        return blocks.vector_source_s(data.tolist(), True, 2)
    return blocks.vector_source_b(data.tolist(), True, 2)


def stock_fft_chain(tb, src, n, integrate=0):
    s2v = blocks.stream_to_vector(gr.sizeof_gr_complex, n)
    f = fft.fft_vcc(n, True, window.blackman_harris(n), True, 1)
    mag = blocks.complex_to_mag_squared(n)
    tb.connect(src, s2v, f, mag)
    if integrate:
        integ = blocks.integrate_ff(integrate, n)
        tb.connect(mag, integ, blocks.null_sink(gr.sizeof_float * n))
    else:
        tb.connect(mag, blocks.null_sink(gr.sizeof_float * n))


def build(case, n, integrations, backend, data, samples, buffer_frames,
          input_type="fc32"):
    """A top block for one case, and the block under test (or None). `data`: complex
    samples, or (an integer input_type) quantise()'s numbers."""
    tb = gr.top_block()
    item = ITEM_BYTES[input_type]
    if case == "null" or data is None:
        src = blocks.null_source(item)
    elif input_type == "fc32":
        src = blocks.vector_source_c(data, True)
    else:
        src = typed_source(data, input_type)
    head = blocks.head(item, samples)
    if buffer_frames:
        head.set_min_output_buffer(buffer_frames * n)
    tb.connect(src, head)
    dut = store = None
    if case in ("null", "source"):
        tb.connect(head, blocks.null_sink(gr.sizeof_gr_complex))
    elif case == "stock_fft":
        stock_fft_chain(tb, head, n)
    elif case == "stock_integrate":
        stock_fft_chain(tb, head, n, integrations)
    elif case == "sparse_fft":
        dut = gpufft.sparse_fft(n, 64, 1e6, display_bins=1024, backend=backend,
                                input_type=input_type)
        tb.connect(head, dut, blocks.null_sink(gr.sizeof_float * 1024))
        store = blocks.message_debug()
        tb.msg_connect(dut, "detections", store, "store")
    elif case == "accumulator":
        bins = min(n, MAX_OUTPUT_BINS)
        dut = gpufft.large_fft_accumulator(n, integrations, bins,
                                           window="blackman-harris",
                                           samp_rate=1e6, backend=backend,
                                           input_type=input_type)
        tb.connect(head, dut, blocks.null_sink(gr.sizeof_float * bins))
    else:
        raise ValueError("unknown case " + case)
    return tb, dut, store


def run_once(case, n, integrations, backend, data, samples, buffer_frames,
             input_type="fc32", tones=None):
    """MS/s of one run of one case; sparse_fft's first frame must hold `tones`."""
    tb, dut, store = build(case, n, integrations, backend, data, samples, buffer_frames,
                           input_type)
    c0 = resource.getrusage(resource.RUSAGE_SELF)
    t0 = time.perf_counter()
    tb.run()
    rate = samples / (time.perf_counter() - t0) / 1e6
    c1 = resource.getrusage(resource.RUSAGE_SELF)
    # CPU time of the whole process (every block's thread) per sample: on a shared
    # host whose free cores come and go, a steadier measure of the work than MS/s.
    cpu_ns = ((c1.ru_utime - c0.ru_utime) + (c1.ru_stime - c0.ru_stime)) / samples * 1e9
    if case == "sparse_fft" and tones:
        check_detections(store, tones, n)
    if case == "accumulator":
        want = samples // n // integrations
        if dut.integrations_done() != want:
            raise RuntimeError("accumulator: %d integrations, want %d" %
                               (dut.integrations_done(), want))
    return rate, cpu_ns


def cpu_device():
    """The record's device: the CPU model and the cores this process may use."""
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            model = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return "cpu: %s, %d cores" % (model, len(os.sched_getaffinity(0)))


def cuda_usable():
    try:
        gpufft.large_fft_accumulator(1024, 1, 1024, backend="cuda")
        return True
    except Exception:  # no GPU, or a build without CUDA
        return False


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", default="2^16,2^20")
    p.add_argument("--integrations", default="2^16:8,2^20:4",
                   help="n:N pairs, frames per accumulator output")
    p.add_argument("--backends", default="cpu,cuda",
                   help="backends of our blocks; cuda only where usable")
    p.add_argument("--buffers", default="default,4f", help="default and/or 4f")
    p.add_argument("--cases",
                   default="null,source,stock_fft,sparse_fft,stock_integrate,accumulator")
    p.add_argument("--samples", default="2^26",
                   help="samples per run, rounded up to whole integrations")
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--input", choices=("noise", "zeros"), default="noise",
                   help="noise: the repeated noise-and-tones buffer; zeros: "
                   "null_source, the cheapest source, to see each chain's own ceiling")
    p.add_argument("--input-types", default="fc32",
                   help="input_type of sparse_fft and accumulator: fc32 and/or sc16, "
                   "sc8, cu8 (each compared with fc32, which then always runs)")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--json", default=None, help="append the JSON lines to this file")
    a = p.parse_args()

    seed = a.seed if a.seed is not None else int.from_bytes(os.urandom(4), "little")
    sizes = [parse_size(s) for s in a.sizes.split(",")]
    integ = {parse_size(k): int(v) for k, v in
             (pair.split(":") for pair in a.integrations.split(","))}
    cases = a.cases.split(",")
    itypes = ["fc32"] + [t for t in a.input_types.split(",") if t != "fc32"]
    for t in itypes:
        gpufft.input_type_scale(t)  # ValueError naming input_type for a bad one
    backends = [b for b in a.backends.split(",") if b == "cpu" or
                (b == "cuda" and cuda_usable())]
    print("seed %d; backends %s; GNU Radio %s; %d cores" %
          (seed, ",".join(backends), gr.version(), os.cpu_count()), flush=True)

    rows = []
    jfile = open(a.json, "a") if a.json else None
    # what every record carries (docs/benchmarking.md): device, command line, date
    argv = [x for i, x in enumerate(sys.argv[1:]) if x != "--json" and
            (i == 0 or sys.argv[i] != "--json") and not x.startswith("--json=")]
    # a run with the CUDA backend names its GPU too (the blocks' figures are the GPU's)
    device = cpu_device() + ("; gpu: " + gpufft.describe_backend(0) if "cuda" in backends
                             else "")
    stamp = {"device": device,
             "command": " ".join(["scripts/flowgraph_bench.py"] + argv),
             "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    for n in sizes:
        N = integ.get(n, 8)
        # A whole number of integrations, at least 4 of them.
        frames = max(-(-parse_size(a.samples) // n), 4 * N)
        frames = -(-frames // N) * N
        samples = frames * n
        data, tones = (make_input(max(4 * n, 2 ** 20), n, seed) if a.input == "noise"
                       else (None, None))
        typed = {t: (data if t == "fc32" or data is None else quantise(data, t))
                 for t in itypes}
        for buf in a.buffers.split(","):
            bf = 4 if buf == "4f" else 0
            runs = [(case, backend, t) for case in cases
                    for backend in (backends if case in ("sparse_fft", "accumulator")
                                    else ["-"])
                    for t in (itypes if case in ("sparse_fft", "accumulator")
                              else ["fc32"])]
            # Rounds of every case in turn, so that a machine whose speed drifts (other
            # work on a shared host) moves each case alike; medians over the rounds.
            rates = {r: [] for r in runs}
            cpu = {r: [] for r in runs}
            for _ in range(a.reps):
                for r in runs:
                    ms, ns = run_once(r[0], n, N, r[1], typed[r[2]], samples, bf, r[2],
                                      tones)
                    rates[r].append(ms)
                    cpu[r].append(ns)
            base = {}
            for case, backend, itype in runs:
                r = (case, backend, itype)
                ms = statistics.median(rates[r])
                if itype == "fc32":
                    base.setdefault(case, ms)
                ref = {"sparse_fft": "stock_fft",
                       "accumulator": "stock_integrate"}.get(case)
                ratio = round_ratio = type_ratio = None
                if ref in base and (ref, "-", "fc32") in rates:
                    ratio = ms / base[ref]
                    # the median of the per-round ratios: drift between rounds cancels
                    round_ratio = statistics.median(
                        x / y for x, y in zip(rates[r], rates[(ref, "-", "fc32")]))
                fc32 = (case, backend, "fc32")
                if itype != "fc32":
                    type_ratio = statistics.median(
                        x / y for x, y in zip(rates[r], rates[fc32]))
                row = {"engine": "flowgraph", "case": case, "n": n, "input": a.input,
                       "input_type": itype,
                       "integrations": N if case in ("stock_integrate",
                                                     "accumulator") else None,
                       "backend": backend, "buffers": buf, "samples": samples,
                       "msps": round(ms, 2),
                       "msps_runs": [round(x, 2) for x in rates[r]],
                       "cpu_ns_per_sample": round(statistics.median(cpu[r]), 2),
                       "ratio": round(ratio, 3) if ratio else None,
                       "round_ratio": round(round_ratio, 3) if round_ratio else None,
                       "type_ratio": round(type_ratio, 3) if type_ratio else None,
                       # the same block's fc32 run, for a record read on its own
                       "fc32_msps": (round(statistics.median(rates[fc32]), 2)
                                     if itype != "fc32" else None),
                       "fc32_cpu_ns_per_sample": (
                           round(statistics.median(cpu[fc32]), 2) if itype != "fc32"
                           else None),
                       "seed": seed, **stamp}
                line = json.dumps(row)
                print(line, flush=True)
                if jfile:
                    jfile.write(line + "\n")
                rows.append(row)
    if jfile:
        jfile.close()

    print()
    print("| n | N | buffers | case | backend | input type | MS/s (median) | MS/s range "
          "| ratio to stock | median of per-round ratios | to fc32 | CPU ns/sample |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print("| 2^%d | %s | %s | %s | %s | %s | %.1f | %.0f-%.0f | %s | %s | %s | %.2f |" %
              (int(np.log2(r["n"])), r["integrations"] or "", r["buffers"], r["case"],
               r["backend"], r["input_type"], r["msps"], min(r["msps_runs"]),
               max(r["msps_runs"]),
               "%.2f" % r["ratio"] if r["ratio"] else "",
               "%.2f" % r["round_ratio"] if r["round_ratio"] else "",
               "%.2f" % r["type_ratio"] if r["type_ratio"] else "",
               r["cpu_ns_per_sample"]))


if __name__ == "__main__":
    main()
