#!/usr/bin/env python3
#
# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Writes docs/performance.md from the benchmark records in docs/perf/*.jsonl.

Each record is one JSON line as `gpufft-bench --json` or `scripts/flowgraph_bench.py
--json` writes it (docs/benchmarking.md), with `device`, `command` and `date`. A table
row is identified by its key columns and its device: where several records share them,
the one with the latest date is shown (so a re-run replaces the row; git keeps the
older lines' history). Rows keep the order in which they first appear in the files.

    /usr/bin/python3 scripts/make_performance_md.py            # rewrite the page
    /usr/bin/python3 scripts/make_performance_md.py --check    # exit 1 if it differs
"""

import argparse
import glob
import json
import math
import os
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PERF = os.path.join(ROOT, "docs", "perf")
PAGE = os.path.join(ROOT, "docs", "performance.md")
MAX_LINES = 300  # a reference page, not a diary

NAMES = {
    "cufft": "cuFFT", "memcpy+cufft+memcpy": "memcpy+cuFFT+memcpy",
    "fftw-threads": "FFTW, all threads", "cufft+topk": "cuFFT + top-k",
    "copy+cufft+topk": "copy + cuFFT + top-k", "fftw-threads+topk": "FFTW + top-k",
    "fftw": "FFTW", "device-resident": "device", "host-pinned": "host, pinned",
    "host-pageable": "host, pageable",
}


def get(rec, key):
    cur = rec
    for part in key.split("."):
        if not isinstance(cur, dict) or part not in cur:
            return None
        cur = cur[part]
    return cur


def pow2(v):
    if isinstance(v, str):
        return v
    v = int(v)
    if v >= 1024 and v & (v - 1) == 0:
        return "2^%d" % (v.bit_length() - 1)
    return str(v)


def fmt(v, kind="g"):
    """One cell. Strings (ranges and notes of the seeded records) print as they are."""
    if v is None:
        return ""
    if kind == "name":
        return NAMES.get(v, v)
    if isinstance(v, str):
        return v
    if isinstance(v, list):
        return " / ".join(fmt(x, kind) for x in v)
    if isinstance(v, float) and not math.isfinite(v):
        return "–"
    if kind == "n":
        return pow2(v)
    if kind == "ratio":
        return "%.2f" % v if v < 100 else "%.0f" % v
    if kind == "err":
        return "%.1e" % v if v else "0"
    if kind == "pct":
        return "%.0f%%" % (100 * v)
    if kind == "M":
        return "%.2f M" % (v / 1e6)
    if kind == "db":
        return "%.1f dB" % v
    if kind == "int":
        return "%d" % v
    return "%.4g" % v if abs(v) < 1e4 else "%.0f" % v


def load():
    records = []
    for path in sorted(glob.glob(os.path.join(PERF, "*.jsonl"))):
        with open(path) as f:
            for number, line in enumerate(f, 1):
                line = line.strip()
                if not line:
                    continue
                rec = json.loads(line)
                for key in ("engine", "device", "command", "date"):
                    if not rec.get(key):
                        raise SystemExit("%s:%d: the record has no %s" %
                                         (os.path.relpath(path, ROOT), number, key))
                records.append(rec)
    return records


def nufft3_rows(records):
    """The bench writes a record per stage (case 'NAME-KERNEL-MEM:stage'); one row per
    case and run, with set_points_ms, execute_ms and total_ms."""
    rows, index = [], {}
    for r in records:
        if r["engine"] != "nufft3":
            continue
        case = r["case"]
        if ":" not in case:
            rows.append(r)
            continue
        name, stage = case.rsplit(":", 1)
        key = (name, r["device"], r["date"])
        if key not in index:
            row = {k: v for k, v in r.items() if k not in ("time_ms", "ratio", "baseline",
                                                          "baseline_ms")}
            row["case"] = name.split("-es-")[0].split("-gaussian-")[0]
            index[key] = row
            rows.append(row)
        row = index[key]
        row[stage + "_ms"] = get(r, "time_ms.median")
        cells = [int(r.get("grid%d" % a, 0)) for a in range(int(r.get("dim", 1)))]
        if "grid" not in row and cells and all(cells):
            row["grid"] = ("%d^%d" % (cells[0], len(cells)) if len(set(cells)) == 1 and
                           len(cells) > 1 else " x ".join(str(c) for c in cells))
        if stage == "execute" and r.get("ntransf", 1) > 1:
            row["baseline_ms"] = r.get("baseline_ms")
            row["ratio"] = r.get("ratio")
    cufinufft = {(r["case"], r["device"]): r for r in records if r["engine"] == "cufinufft"}
    for row in rows:
        peer = cufinufft.get((row["case"], row["device"]))
        if peer:
            row["cufinufft"] = "%s / %s" % (fmt(peer["execute_ms"]), fmt(peer["total_ms"]))
            if isinstance(row.get("execute_ms"), (int, float)):
                row["execute_ratio"] = row["execute_ms"] / peer["execute_ms"]
            if isinstance(row.get("total_ms"), (int, float)):
                row["total_ratio"] = row["total_ms"] / peer["total_ms"]
    return rows


def flowgraph_rows(records):
    """One row per block case (accumulator, sparse_fft) and run, beside the stock chain,
    the input alone and the null flowgraph of the same run."""
    # integer input types have their own table (input_type_rows)
    fg = [r for r in records if r["engine"] == "flowgraph" and
          r.get("input_type") in (None, "fc32")]
    peers = {}
    for r in fg:
        peers[(r["case"], r["n"], r["buffers"], r.get("input"), r["date"], r["command"])] = r
    rows = []
    for r in fg:
        ref = {"accumulator": "stock_integrate", "sparse_fft": "stock_fft"}.get(r["case"])
        if not ref:
            continue
        key = (r["n"], r["buffers"], r.get("input"), r["date"], r["command"])
        stock = peers.get((ref,) + key, {})
        row = dict(r)
        row["size"] = pow2(r["n"]) + (" x %d" % r["integrations"] if r.get("integrations")
                                      else "")
        row["stock"] = rate(stock)
        row["ours"] = rate(r)
        row["source"] = rate(peers.get(("source",) + key, {}))
        row["null"] = rate(peers.get(("null",) + key, {}))
        if stock.get("cpu_ns_per_sample") is not None:
            row["cpu"] = "%s / %s" % (fmt(stock["cpu_ns_per_sample"]),
                                      fmt(r["cpu_ns_per_sample"]))
        rows.append(row)
    return rows


def input_type_rows(records):
    """The blocks on integer input (input_type sc16, sc8, cu8), each beside the same
    block on fc32 in the same run (the record carries that run's figures)."""
    rows = []
    for r in records:
        if r["engine"] != "flowgraph" or r.get("input_type") in (None, "fc32"):
            continue
        row = dict(r)
        row["size"] = pow2(r["n"]) + (" x %d" % r["integrations"] if r.get("integrations")
                                      else "")
        row["ours"] = rate(r)
        if r.get("cpu_ns_per_sample") is not None:
            row["cpu"] = "%s / %s" % (fmt(r.get("fc32_cpu_ns_per_sample")),
                                      fmt(r["cpu_ns_per_sample"]))
        rows.append(row)
    return rows


def rate(r):
    if not r or r.get("msps") is None:
        return ""
    runs = r.get("msps_runs") or []
    if len(runs) > 1:
        return "%.1f (%.0f-%.0f)" % (r["msps"], min(runs), max(runs))
    return "%.1f" % r["msps"]


# Each section: its engine, a short statement of what is measured (the method; the
# design is in the engine's page), and its tables: (title, row filter, columns, key
# columns). A column is (header, key, kind).
SECTIONS = [
    dict(
        title="Dense FFT component", engine="fft",
        text="`gpufft-bench fft`: `dense_fft_plan`, the batched FFT every engine uses, "
        "against the library it wraps on the same data: raw cuFFT on device arrays, "
        "`cudaMemcpy` + cuFFT + `cudaMemcpy` on host arrays, FFTW on all threads on the "
        "CPU. Error: relative l2 error against FFTW in double. Target (#2): within 5% of "
        "raw cuFFT.",
        tables=[(None, None, [
            ("n", "n", "n"), ("precision", "precision", "s"), ("data", "case", "name"),
            ("ours ms", "time_ms.median", "g"), ("baseline", "baseline", "name"),
            ("baseline ms", "baseline_ms", "g"), ("ratio", "ratio", "ratio"),
            ("rel. l2 error", "rel_l2_error", "err")], ["n", "precision", "case",
                                                        "backend"])]),
    dict(
        title="Sparse FFT, robust mode", engine="sparse-robust",
        text="`gpufft-bench sparse_robust`: `detect()` of a robust plan against a dense "
        "FFT + top-k in the same run, on k equal-amplitude tones on or off the grid in "
        "white noise at a total SNR of 10 dB. Times: from the call to the tones in host "
        "memory (device input). recovered: tones found within 0.5 bin; false: detections "
        "matching no tone, per frame; error: median |A_est - A| / |A|. `path`: the "
        "planner's choice. Targets (#12): >= 5x at 2^27 and >= 30x at 2^30, k = 1000.",
        tables=[(None, None, [
            ("n", "n", "n"), ("k", "k", "int"), ("backend", "backend", "s"),
            ("grid", "case", "s"), ("per-bin SNR", "per_bin_snr_db", "db"),
            ("path", "path", "s"), ("samples read", "samples_read", "M"),
            ("ours ms", "time_ms.median", "g"), ("baseline ms", "baseline_ms", "g"),
            ("ratio", "ratio", "ratio"), ("recovered", "recovered", "pct"),
            ("false/frame", "false_per_frame", "g"),
            ("median rel. error", "median_rel_amp_error", "g")],
            ["n", "k", "backend", "case"])]),
    dict(
        title="Sparse FFT, exact mode", engine="sparse",
        text="`gpufft-bench sparse`: `sparse_fft_plan` in exact mode against a dense FFT "
        "+ top-k in the same run, on exactly k-sparse signals (|X| uniform in [0.1, 1] n). "
        "Times: from the call to bins and values in host memory, every transfer included "
        "for host input (ours gathers only the samples it reads). misses: planted bins "
        "absent over the trials; error: max |value - X| / max |X|. `loops` and `cg` are "
        "the accuracy options (defaults 4 and 5). Targets (#3): >= 10x at 2^27 and >= 50x "
        "at 2^30 on the device, >= 5x with host input, k = 1000; error <= 1e-5.",
        tables=[(None, None, [
            ("n", "n", "n"), ("k", "k", "int"), ("input", "case", "name"),
            ("location", "location", "s"), ("loops", "loops", "int"), ("cg", "cg", "int"),
            ("ours ms", "time_ms.median", "g"), ("baseline", "baseline", "name"),
            ("baseline ms", "baseline_ms", "g"), ("ratio", "ratio", "ratio"),
            ("misses", "misses", "int"), ("trials", "trials", "int"),
            ("max error", "max_error", "err")],
            ["n", "k", "case", "backend", "location", "loops", "cg"])]),
    dict(
        title="Spectrum sensing", engine="sensing",
        text="`gpufft-bench sensing`: `sensing_plan.detect()` against one FFT of the same "
        "frame in the same run (cuFFT on the same device array; FFTW with the plan's "
        "threads) on field cases: tones spread 20-80 dB per bin (`spread50`, "
        "`spread1000`), a 70 dB tone with 35 dB neighbours (`neighbours`), a modulated "
        "carrier and 5 tones (`carrier`). found: components inside a signal's edges. "
        "Targets (#30): <= 1.3x cuFFT, <= 1.5x FFTW.",
        tables=[(None, None, [
            ("case", "case", "s"), ("n", "n", "n"), ("backend", "backend", "s"),
            ("detect ms", "time_ms.median", "g"), ("FFT", "baseline", "name"),
            ("FFT ms", "baseline_ms", "g"), ("x FFT", "x_fft", "ratio"),
            ("found", "found", "int"), ("of", "components", "int")],
            ["case", "n", "backend"])]),
    dict(
        title="Type-3 NUFFT", engine="nufft3", rows=nufft3_rows,
        text="`gpufft-bench nufft3`: `nufft3_plan`, device arrays, sources uniform in "
        "[-pi, pi]^dim, targets in [-S, S]^dim; `set_points` and `execute` timed apart "
        "and together (`total`). Error: relative l2 against a direct sum in double on the "
        "first targets. cuFINUFFT's times are records of its own run on the same kind of "
        "GPU (docs/perf/cufinufft.jsonl); ratio = ours / theirs. Targets (#14): execute "
        "<= 0.8x, total <= 0.67x cuFINUFFT; a batch of 16 <= 0.6x per vector.",
        tables=[
            (None, lambda r: r.get("set_points_ms") is not None, [
                ("case", "case", "s"), ("backend", "backend", "s"),
                ("kernel", "kernel", "s"), ("eps", "eps", "g"),
                ("upsampling", "upsampling", "g"), ("grid", "grid", "s"),
                ("taps", "taps", "int"), ("set_points ms", "set_points_ms", "g"),
                ("execute ms", "execute_ms", "g"), ("total ms", "total_ms", "g"),
                ("cuFINUFFT execute / total ms", "cufinufft", "s"),
                ("execute ratio", "execute_ratio", "ratio"),
                ("total ratio", "total_ratio", "ratio"),
                ("rel. l2 error", "rel_l2_error", "err")], ["case", "backend", "kernel"]),
            ("Batches: ms per vector against single executes in the same run",
             lambda r: r.get("ms_per_transform") is not None, [
                 ("case", "case", "s"), ("vectors", "ntransf", "int"),
                 ("spread", "spread", "s"), ("ms per vector", "ms_per_transform", "g"),
                 ("single execute ms", "baseline_ms", "g"), ("ratio", "ratio", "ratio")],
             ["case", "ntransf", "spread"]),
            ("Where the time goes: device time of one execute's stages, ms (`--trace 1`)",
             lambda r: r.get("spread_stage_ms") is not None, [
                 ("case", "case", "s"), ("clear", "clear_stage_ms", "g"),
                 ("spread", "spread_stage_ms", "g"), ("FFT", "fft_stage_ms", "g"),
                 ("interpolate", "interp_stage_ms", "g")], ["case"])]),
    dict(
        title="Large FFT", engine="large",
        text="`gpufft-bench large`: `large_fft_plan` on pinned host complex64 arrays "
        "against pinned copy + cuFFT + copy back (in card, where the array fits twice) "
        "and FFTW (`FFTW_ESTIMATE`, all threads) in the same run. `eff GB/s`: bytes moved "
        "over PCIe / time; `bound`: the two-round PCIe bound (4 x data / the pinned copy "
        "rate both ways at once, measured in the same run) / our time. Error: relative l2 "
        "on 16 bins against a direct DFT. Targets (#5): 2^30 >= 20x FFTW; 2^32 >= 15x "
        "FFTW; 2^32 in place with 8 GiB >= 0.80 of the bound.",
        tables=[(None, None, [
            ("shape", "case", "s"), ("budget", "budget", "s"), ("schedule", "schedule", "s"),
            ("ours ms", "time_ms.median", "g"), ("cuFFT+copies ms", "cufft_copy_ms", "g"),
            ("FFTW ms", "fftw_ms", "g"), ("vs cuFFT+copies", "vs_cufft_copies", "ratio"),
            ("vs FFTW", "ratio", "ratio"), ("eff GB/s", "eff_GBps", "g"),
            ("bound", "frac_2round_bound", "ratio"), ("error", "rel_err_bins", "err")],
            ["case", "budget", "schedule"])]),
    dict(
        title="Large-FFT accumulator: |X|^2 integration on the GPU", engine="integrate",
        text="`gpufft-bench integrate`: one accumulator frame (complex64, pinned, hann "
        "window, 2^14 channels) through `spectrum_integrator`'s fused GPU path against "
        "the host path (`large_fft_plan` in card, window and band reduction on the host "
        "cores) in the same run. `copy`: the pinned upload of one frame alone, the fused "
        "path's bound.",
        tables=[(None, None, [
            ("n", "n", "n"), ("fused ms", "time_ms.median", "g"),
            ("fused GB/s", "fused_GBps", "g"), ("copy ms", "copy_ms", "g"),
            ("host path ms", "baseline_ms", "g"), ("ratio", "ratio", "ratio"),
            ("max err / peak", "max_err_over_peak_vs_host", "err")], ["n"])]),
    dict(
        title="Blocks against GNU Radio's stock chains on the CPU", engine="flowgraph",
        rows=flowgraph_rows,
        text="`scripts/flowgraph_bench.py`: in one process, on the same input (noise and "
        "tones repeated by `vector_source_c`, then `head`), each block against the stock "
        "chain doing its job: `large_fft_accumulator` against `stream_to_vector -> fft_vcc "
        "-> complex_to_mag_squared -> integrate_ff`, `sparse_fft` (robust, k 64) against "
        "the same chain without `integrate_ff`. Rounds of every case, medians; `ratio` = "
        "block / stock (above 1: the block is faster), `per round` = the median of the "
        "rounds' ratios; CPU = the process's CPU time per sample. Buffers: GNU Radio's "
        "defaults or 4 frames upstream (`4f`).",
        tables=[(None, None, [
            ("block", "case", "s"), ("n x N", "size", "s"), ("buffers", "buffers", "s"),
            ("input", "input", "s"), ("input alone MS/s", "source", "s"),
            ("stock MS/s (range)", "stock", "s"), ("block MS/s (range)", "ours", "s"),
            ("ratio", "ratio", "ratio"), ("per round", "round_ratio", "ratio"),
            ("CPU ns/sample stock / block", "cpu", "s"), ("null MS/s", "null", "s")],
            ["case", "n", "integrations", "buffers", "input", "backend"])]),
    dict(
        title="Blocks on integer input", engine="flowgraph", rows=input_type_rows,
        text="`scripts/flowgraph_bench.py --input-types`: `sparse_fft` and "
        "`large_fft_accumulator` fed the same noise and tones quantised to interleaved "
        "integer I/Q (`vector_source_s` / `vector_source_b`, vlen 2, then `head`; the "
        "block's `input_type`), against the same block on complex float in the same run. "
        "`to fc32` = the median of the rounds' rate ratios (above 1: the integer input is "
        "faster). Target (#33): on the CPU not slower than fc32; on the GPU at 2^20, "
        "sparse_fft on sc16 >= 1.5x its fc32 rate.",
        tables=[(None, None, [
            ("block", "case", "s"), ("n x N", "size", "s"), ("buffers", "buffers", "s"),
            ("backend", "backend", "s"), ("input type", "input_type", "s"),
            ("fc32 MS/s", "fc32_msps", "g"), ("block MS/s (range)", "ours", "s"),
            ("to fc32", "type_ratio", "ratio"),
            ("CPU ns/sample fc32 / this type", "cpu", "s")],
            ["case", "n", "integrations", "buffers", "input_type", "backend"])]),
    dict(
        title="sparse_fft block on the GPU", engine="flowgraph-gpu",
        text="`gpufft-flowgraph-bench`: `frame_source` (a bulk-copy repeat of one 64-sparse "
        "2^20-sample frame; robust mode: plus white noise 60 dB under its tones; sc16: "
        "quantised) -> head -> `sparse_fft` -> null_sink against GNU Radio's null_source "
        "-> head -> null_sink moving items of the same size, in the same run; beside them "
        "frame_source -> head -> stream_to_vector -> null_sink (frames only: GNU Radio's "
        "buffers moving whole frames) and the stock chain stream_to_vector -> fft_vcc "
        "(Blackman-Harris, 1 thread) -> complex_to_mag_squared [-> integrate_ff] -> "
        "null_sink. Targets: >= 90% of the null flowgraph's rate (#3 exact mode, #30 "
        "robust); sc16 >= 1.5x the fc32 rate (#33).",
        tables=[(None, None, [
            ("mode, input", "case", "s"),
            ("source/head output buffers", "buffers", "s"),
            ("null -> head -> null MS/s", "null_msps", "g"),
            ("frame_source -> head -> null MS/s", "source_msps", "g"),
            ("frames only MS/s", "frames_msps", "g"),
            ("stock chain MS/s", "stock_msps", "g"),
            ("frame_source -> head -> block -> null MS/s", "msps", "g"),
            ("block vs null", "vs_null", "pct"),
            ("block vs stock", "block_ratio", "ratio")], ["case", "buffers"])]),
]


def run_label(i):
    return chr(ord("a") + i) if i < 26 else "a%d" % i


def render_table(rows, columns, keys):
    # the latest record of each key (and device) wins; first appearance keeps the order
    latest, order = {}, []
    for r in rows:
        key = tuple(json.dumps(r.get(k), sort_keys=True) for k in keys) + (r["device"],)
        if key not in latest:
            order.append(key)
            latest[key] = r
        elif r["date"] >= latest[key]["date"]:
            latest[key] = r
    shown = [latest[k] for k in order]
    runs = []
    for r in shown:
        run = (r["date"][:10], r["device"], r["command"], r.get("note", ""))
        if run not in runs:
            runs.append(run)
    out = ["| " + " | ".join([c[0] for c in columns] + ["run"]) + " |",
           "|" + "---|" * (len(columns) + 1)]
    for r in shown:
        run = (r["date"][:10], r["device"], r["command"], r.get("note", ""))
        cells = [fmt(get(r, c[1]), c[2]) for c in columns]
        out.append("| " + " | ".join(cells + [run_label(runs.index(run))]) + " |")
    out.append("")
    out.append("Runs:")
    for i, (date, device, command, note) in enumerate(runs):
        out.append("**%s** %s, %s: `%s`%s" % (run_label(i), date, device, command,
                                                ("; " + note) if note else ""))
        out[-1] += "" if i == len(runs) - 1 else ";"
    return out


def targets_table(records):
    rows = [r for r in records if r["engine"] == "target"]
    out = ["| engine | target (issue) | measured | met | as of |", "|---|---|---|---|---|"]
    for r in rows:
        out.append("| %s | %s | %s | %s | %s, %s |" % (r["what"], r["target"], r["measured"],
                                                    r["met"], r["device"], r["date"][:10]))
    return out


def render(records):
    intro = textwrap.fill(
           "The current figures of each engine and block, one row per case, each the latest "
           "record of [docs/perf/](perf/README.md). `ratio` = baseline time / our time, the "
           "baseline timed in the same run on the same data: above 1 means we are faster. "
           "How the figures are measured: [benchmarking.md](benchmarking.md); the history "
           "of each figure is the history of its records in git.", 90, break_on_hyphens=False)
    out = ["# Performance", "",
           "<!-- Generated by scripts/make_performance_md.py from docs/perf/*.jsonl: edit "
           "those, then run the script. -->", "", intro, "", "## Targets", ""]
    out += targets_table(records)
    for s in SECTIONS:
        rows = s["rows"](records) if "rows" in s else [r for r in records
                                                      if r["engine"] == s["engine"]]
        if not rows:
            continue
        # one line a paragraph: the page stays short (at most 300 lines)
        out += ["", "## " + s["title"], "", s["text"]]
        for title, keep, columns, keys in s["tables"]:
            chosen = [r for r in rows if keep is None or keep(r)]
            if not chosen:
                continue
            out += [""] + (["**%s**" % title, ""] if title else [])
            out += render_table(chosen, columns, keys)
    return "\n".join(out) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--check", action="store_true",
                   help="compare with docs/performance.md instead of writing it")
    p.add_argument("--output", default=PAGE)
    a = p.parse_args()
    text = render(load())
    lines = text.count("\n")
    if lines > MAX_LINES:
        print("the page would have %d lines, more than %d: keep fewer records (git keeps "
              "the history) or fewer columns" % (lines, MAX_LINES))
        return 1
    if a.check:
        with open(a.output) as f:
            if f.read() != text:
                print("%s is out of date with docs/perf/: run "
                      "scripts/make_performance_md.py" % os.path.relpath(a.output, ROOT))
                return 1
        return 0
    with open(a.output, "w") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
