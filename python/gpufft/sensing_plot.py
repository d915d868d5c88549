#
# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""sensing.png for a sensing run (sensing_run.sensor): the spectrum (max hold), the power
waterfall with the tracked transmissions drawn on it as rectangles, and the signals
found frame by frame; for the synthetic capture also what was transmitted and the check's
verdict per signal (synthetic_capture.check)."""

import numpy as np


def plot(path, sens, title, cap=None, result=None):
    """Writes the PNG; False (and a line saying why) when matplotlib is missing."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.patches import Rectangle
    except ImportError:
        print("No PNG written: matplotlib is not installed (Debian/Ubuntu: apt install "
              "python3-matplotlib). The table and detections.csv have the detections.")
        return False
    wf = sens.waterfall_db
    cols = wf.shape[1]
    span = sens.samp_rate
    mhz = (sens.center_freq + (np.arange(cols) + 0.5 - cols / 2) * span / cols) / 1e6
    f0, f1 = (sens.center_freq - span / 2) / 1e6, (sens.center_freq + span / 2) / 1e6
    t_end = len(wf) * sens.per_row * sens.n / sens.samp_rate
    finite = wf[np.isfinite(wf)]
    floor = sens.noise_floor_dbfs()
    lo = np.percentile(finite, 5) if finite.size else -120.0
    hi = finite.max() if finite.size else lo + 40.0
    hold = wf.max(axis=0) if len(wf) else np.full(cols, lo)

    fig, (ax1, ax2, ax3) = plt.subplots(3, 1, figsize=(12, 14), constrained_layout=True)
    ax1.plot(mhz, hold, color="tab:blue", linewidth=0.7,
             label=f"max hold (max over {sens.n // cols} bins a point)")
    if floor is not None:
        ax1.axhline(floor, color="tab:purple", linestyle="--", linewidth=1,
                    label="noise floor per bin, as sensing_plan estimates it (median)")
    if cap is not None:
        _truth_markers(ax1, cap, result, sens.center_freq)
    ax1.set_ylim(lo - 10, hi + 12)
    ax1.set_xlim(f0, f1)
    ax1.set_xlabel("frequency (MHz)")
    ax1.set_ylabel("power (dBFS per bin)")
    ax1.set_title(f"{title}\nspectrum, max hold over {len(sens.per_frame)} "
                  f"frames of {sens.n} ({sens.df:.4g} Hz bins)", fontsize=9)
    ax1.legend(fontsize=7, loc="lower center", ncol=2, framealpha=0.9)
    ax1.grid(alpha=0.3)

    im = ax2.imshow(np.where(np.isfinite(wf), wf, lo), aspect="auto", cmap="viridis",
                    vmin=lo, vmax=hi, extent=(f0, f1, t_end * 1e3, 0),
                    interpolation="nearest")
    fig.colorbar(im, ax=ax2, label="dBFS per bin (max over the pixel)")
    # Rectangles at least 1/300 of the span wide, so narrow carriers stay visible.
    least = span / 300
    for t in sens.transmissions:
        width = max(t["bandwidth_hz"], least)
        left = (t["lower_hz"] + t["upper_hz"] - width) / 2
        ax2.add_patch(Rectangle((left / 1e6, t["start_s"] * 1e3), width / 1e6,
                                t["duration_s"] * 1e3, fill=False, linewidth=0.8,
                                edgecolor="tab:orange" if t["dc"] else "red"))
    ax2.plot([], [], color="red", label="transmission (tracked: start, length, edges)")
    ax2.plot([], [], color="tab:orange", label="transmission at DC (the radio's spur?)")
    ax2.legend(fontsize=7, loc="lower left")
    ax2.set_xlim(f0, f1)
    ax2.set_xlabel("frequency (MHz)")
    ax2.set_ylabel("time (ms)")
    ax2.set_title(f"power waterfall ({len(wf)} rows of {sens.per_row} frame(s)) and the "
                  f"{len(sens.transmissions)} transmissions", fontsize=9)

    if cap is not None:
        for tx in cap.tx:  # when each transmitter was on (thin grey)
            for first, end in [(0, cap.frames * cap.n)] if tx.on is None else tx.on:
                ax3.plot([(sens.center_freq + tx.freq) / 1e6] * 2,
                         [first / sens.samp_rate * 1e3, end / sens.samp_rate * 1e3],
                         color="0.8", linewidth=4, solid_capstyle="butt", zorder=0)
        ax3.plot([], [], color="0.8", linewidth=4, label="transmitted (on)")
    classes = result["det_class"] if result is not None else \
        [["hit"] * len(d["center_hz"]) for d in sens.per_frame]
    pts = {"hit": [], "splatter": [], "false": []}
    for d, cls in zip(sens.per_frame, classes):
        for f, snr, c in zip(d["center_hz"], d["snr_db"], cls):
            pts[c].append((f / 1e6, d["t0"] * 1e3, snr))
    if pts["hit"]:
        f, t, s = zip(*pts["hit"])
        sc = ax3.scatter(f, t, c=s, s=6, cmap="viridis", zorder=2)
        fig.colorbar(sc, ax=ax3, label="SNR (dB over the local floor per bin)")
    if pts["splatter"]:
        f, t, _ = zip(*pts["splatter"])
        ax3.scatter(f, t, s=10, marker="+", color="tab:gray", zorder=2,
                    label="splatter of a carrier switching inside the frame")
    if pts["false"]:
        f, t, _ = zip(*pts["false"])
        ax3.scatter(f, t, s=40, marker="x", color="tab:red", zorder=3, label="false signal")
    if cap is not None or pts["false"]:
        ax3.legend(fontsize=7, loc="lower left")
    ax3.set_xlim(f0, f1)
    ax3.set_ylim(t_end * 1e3, 0)
    ax3.set_xlabel("frequency (MHz)")
    ax3.set_ylabel("time (ms)")
    ax3.set_title("signals per frame (centre; sensing_plan)", fontsize=9)
    ax3.grid(alpha=0.3)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return True


def _truth_markers(ax, cap, result, center):
    """One triangle per transmitter kind and frequency, at its strongest bin's level:
    green found in every frame it had to be, orange in some, red never."""
    groups = {}
    for j, tx in enumerate(cap.tx):
        s = result["per_tx"][j]
        g = groups.setdefault((tx.name, round(tx.freq / 1e3)), [tx, 0, 0, 0])
        g[1] += s["required"]
        g[2] += s["found"]
        g[3] += s["optional_found"]
    labelled = set()
    for (name, _), (tx, req, fnd, opt) in groups.items():
        level = tx.snr_db + cap.bin_floor_dbfs
        colour = ("tab:green" if (fnd == req if req else opt) else
                  "tab:orange" if req and fnd else "tab:red")
        x = (center + tx.freq) / 1e6
        ax.plot(x, level, "v", color=colour, markersize=8, markeredgecolor="black",
                markeredgewidth=0.5)
        if name not in labelled:
            labelled.add(name)
            ax.annotate(name, (x, level), xytext=(0, 9), textcoords="offset points",
                        ha="center", fontsize=7)
    for colour, what in (("tab:green", "found in every frame"),
                         ("tab:orange", "missed in some frames"), ("tab:red", "never found")):
        ax.plot([], [], "v", color=colour, label=f"transmitter: {what}")
