#!/usr/bin/env python3
"""Draw the plots of docs/performance.md from docs/img/performance.csv.

The CSV holds the rows of performance.md's tables that the plots use, one measurement a
row: engine, case, n (as 2^p), k, device, ours_ms, baseline, baseline_ms, ratio (baseline
time / our time; "a-b" for a range), bound (fraction of the two-round PCIe bound, large
FFT only), date, command and a note. Keep it in step with the tables when figures change.

Writes, next to the CSV:
  performance_speedup.png       speed-up over the same-run baseline against n: sparse FFT
                                (exact and robust mode) against cuFFT + top-k, the dense
                                FFT component against cuFFT, the large FFT against FFTW
  large_fft_pcie_fraction.png   the large FFT's time as a fraction of the two-round PCIe
                                bound (bound / time) against n

Usage: /usr/bin/python3 scripts/plot_performance.py [--csv FILE] [--out DIR]
(defaults: docs/img/performance.csv of this checkout, and the CSV's folder).
"""

import argparse
import csv
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def log2n(s):
    """'2^27' -> 27."""
    base, _, exp = s.partition("^")
    if base != "2" or not exp:
        raise ValueError("n must be written 2^p, got %r" % s)
    return int(exp)


def value_range(s):
    """'3.4' -> (3.4, 3.4); '0.35-0.51' -> (0.35, 0.51); '' -> None."""
    if not s:
        return None
    lo, sep, hi = s.partition("-")
    return (float(lo), float(hi)) if sep else (float(lo), float(lo))


def load(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        r["p"] = log2n(r["n"])
        r["r"] = value_range(r["ratio"])
        r["b"] = value_range(r["bound"])
    return rows


def pick(rows, **want):
    return sorted(
        (r for r in rows if all(r[k] == v for k, v in want.items())), key=lambda r: r["p"]
    )


def line(ax, rows, label, **style):
    """One series; a range is drawn as a bar from its low to its high end."""
    rows = [r for r in rows if r["r"]]
    if not rows:
        return
    xs = [r["p"] for r in rows]
    lo = [r["r"][0] for r in rows]
    hi = [r["r"][1] for r in rows]
    mid = [(a * b) ** 0.5 for a, b in zip(lo, hi)]
    ax.plot(xs, mid, label=label, **style)
    for x, a, b in zip(xs, lo, hi):
        if b > a:
            ax.plot([x, x], [a, b], color=style.get("color"), lw=2)


def speedup_plot(rows, out):
    fig = plt.figure(figsize=(13, 10))
    grid = fig.add_gridspec(2, 2)
    axes = [fig.add_subplot(grid[0, :]), fig.add_subplot(grid[1, 0]),
            fig.add_subplot(grid[1, 1])]

    ax = axes[0]
    colors = {"50": "tab:blue", "1000": "tab:orange", "4000": "tab:green"}
    for k in ("50", "1000", "4000"):
        line(ax, pick(rows, engine="sparse_exact", k=k, device="H200"),
             "exact, k = %s" % k, color=colors[k], marker="o")
    for k in ("50", "1000"):
        for grid, ls in (("on", "--"), ("off", ":")):
            line(ax, pick(rows, engine="sparse_robust", k=k, case=grid, device="H100"),
                 "robust, k = %s, %s-grid (H100)" % (k, grid), color=colors[k], marker="s",
                 ls=ls, mfc="none")
        line(ax, pick(rows, engine="sparse_robust", k=k, case="on/off dense", device="H100"),
             "robust, k = %s, dense path (on/off range, H100)" % k, color=colors[k],
             marker="_", ls="none", ms=12)
    h100 = pick(rows, engine="sparse_exact", device="H100")
    ax.plot([r["p"] for r in h100], [r["r"][0] for r in h100], "k^", mfc="none",
            ls="none", label="H100 spot checks (exact, 2^27)")
    ax.plot([27, 30], [10, 50], "kx", ms=9, mew=2, ls="none",
            label="targets, exact, k = 1000")
    ax.plot([27, 30], [5, 30], "x", color="grey", ms=9, mew=2, ls="none",
            label="targets, robust, k = 1000")
    ax.set_yscale("log")
    ax.set_title("Sparse FFT vs cuFFT + top-k (data on the GPU)")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))

    ax = axes[1]
    for case, color, marker, size in (("device single", "tab:blue", "o", 9),
                                      ("host pinned single", "tab:green", "s", 5),
                                      ("host pageable single", "tab:red", "o", 6)):
        line(ax, pick(rows, engine="dense_fft", case=case), case.replace(" single", ""),
             color=color, marker=marker, ms=size)
    ax.axhline(0.95, color="grey", ls="--", lw=1, label="target: within 5% of cuFFT")
    ax.set_ylim(0, 4.5)
    ax.set_title("Dense FFT component vs cuFFT (+ copies), single")
    ax.legend(fontsize=8, loc="upper left")

    ax = axes[2]
    line(ax, pick(rows, engine="large_fft", case="in card"), "in card", color="tab:blue",
         marker="o")
    big = [r for r in pick(rows, engine="large_fft", case="in place 8 GiB")
           if r["baseline"].startswith("FFTW")]
    line(ax, big, "in place, 8 GiB of GPU memory", color="tab:purple", marker="D")
    small = [r for r in pick(rows, engine="large_fft", case="1/8 budget")
             if r["baseline"].startswith("FFTW")]
    line(ax, [r for r in small if not r["note"]], "GPU memory 1/8 of the data",
         color="tab:green", marker="s", ls="none")
    line(ax, [r for r in small if r["note"]], "the same, cuFFT in the passes",
         color="tab:green", marker="s", ls="none", mfc="none")
    ax.plot([30, 32], [20, 15], "kx", ms=9, mew=2, ls="none", label="targets")
    ax.set_ylim(0, 26)
    ax.set_title("Large FFT (host arrays) vs FFTW, 16 threads")
    ax.legend(fontsize=8, loc="lower right")

    for ax in axes:
        ax.axhline(1, color="black", lw=0.8)
        ax.set_xlabel("n (log2)")
        ax.set_ylabel("speed-up over the same-run baseline")
        ax.grid(True, which="both", alpha=0.3)
    fig.suptitle("Speed-up against size, NVIDIA H200 unless marked (docs/performance.md)")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "performance_speedup.png"), dpi=110)
    plt.close(fig)


def pcie_plot(rows, out):
    fig, ax = plt.subplots(figsize=(7.5, 4.8))
    for case, color, marker in (("1/8 budget", "tab:green", "s"),
                                ("in place 8 GiB", "tab:purple", "D")):
        for device, fill in (("H200", True), ("H100", False)):  # H100: triangles
            sel = [r for r in pick(rows, engine="large_fft", case=case, device=device)
                   if r["b"]]
            for older in (False, True):
                pts = [r for r in sel if bool(r["note"]) == older]
                if not pts:
                    continue
                label = "%s, %s" % ("in place, 8 GiB of GPU memory" if case != "1/8 budget"
                                    else "out of place, GPU memory 1/8 of the data", device)
                if older:
                    label += ", cuFFT in the passes"
                ax.plot([r["p"] for r in pts], [r["b"][0] for r in pts],
                        marker=marker if fill else "^", color=color, ls="none", ms=8,
                        mfc=color if not older else "none", label=label)
    ax.axhline(1, color="black", lw=0.8)
    ax.plot([32], [0.8], "kx", ms=10, mew=2, ls="none",
            label="target: 2^32 in place, 8 GiB, 0.8")
    ax.set_xlabel("n (log2), complex64 in pinned host memory")
    ax.set_ylabel("two-round PCIe bound / our time")
    ax.set_ylim(0, 1.1)
    ax.set_xlim(23, 33)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    ax.set_title("Large FFT: time as a fraction of the PCIe bound")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "large_fft_pcie_fraction.png"), dpi=110)
    plt.close(fig)


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--csv", default=os.path.join(root, "docs", "img", "performance.csv"))
    ap.add_argument("--out", help="folder for the PNGs (default: the CSV's folder)")
    a = ap.parse_args()
    out = a.out or os.path.dirname(os.path.abspath(a.csv))
    rows = load(a.csv)
    speedup_plot(rows, out)
    pcie_plot(rows, out)
    print("wrote performance_speedup.png and large_fft_pcie_fraction.png in", out)


if __name__ == "__main__":
    main()
