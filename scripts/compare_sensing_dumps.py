#!/usr/bin/env python3
#
# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Sets two `gpufft-bench sensing --dump` files side by side frame by frame: the CPU
backend's and the CUDA backend's of the same frames (captures: `--captures DIR`; field
cases: `--sizes ...`), and says per recording how many frames agree.

The rules are test_sensing_cuda's (check_same): the same number of signals; a signal's
99 % edges within a bin, its centre within 0.1 bin, peak and total power within 0.1 dB;
where its runs (first and last bin above the threshold) differ, a run's end sat on the
threshold, and the edges may differ by 2 bins, the centre by 0.5 bin, `narrow` freely.
The two floors may differ by a censoring step (0.05 dB here).

    scripts/compare_sensing_dumps.py cpu.txt cuda.txt [--show 5]

Exit status 1 when a frame breaks the rules, 0 otherwise (ties are counted, not failed).
"""

import argparse
import sys
from collections import OrderedDict, defaultdict


def read_dump(path):
    """{(recording, frame): (header fields, [signal fields])} in file order."""
    frames = OrderedDict()
    key = None
    with open(path) as f:
        for line in f:
            if not line.strip():
                continue
            if not line.startswith(" "):
                parts = line.split()
                key = (parts[0], parts[1])
                head = dict(p.split("=", 1) for p in parts[2:] if "=" in p)
                frames[key] = (head, [])
            else:
                parts = line.split()
                sig = {"first": int(parts[0]), "last": int(parts[1])}
                sig.update(p.split("=", 1) for p in parts[2:] if "=" in p)
                frames[key][1].append(sig)
    return frames


def num(v):
    return float.fromhex(v) if "0x" in v else float(v)


def compare_frame(a, b):
    """'same', 'tie' or the first broken rule."""
    (ha, sa), (hb, sb) = a, b
    if len(sa) != len(sb):
        return "signals %d against %d" % (len(sa), len(sb))
    if abs(num(ha["floor"]) - num(hb["floor"])) > 0.05:
        return "floor %.3f against %.3f dBFS" % (num(ha["floor"]), num(hb["floor"]))
    tie = False
    for s, t in zip(sa, sb):
        runs_differ = s["first"] != t["first"] or s["last"] != t["last"]
        tie = tie or runs_differ
        edge, centre = (2.0, 0.5) if runs_differ else (1.0, 0.1)
        for k, tol in (("lo", edge), ("hi", edge), ("c", centre), ("pk", 0.1),
                       ("tot", 0.1)):
            if abs(num(s[k]) - num(t[k])) >= tol:
                return "%s %.3f against %.3f (runs %d..%d, %d..%d)" % (
                    k, num(s[k]), num(t[k]), s["first"], s["last"], t["first"], t["last"])
        if s["dc"] != t["dc"] or (not runs_differ and s["nar"] != t["nar"]):
            return "dc or narrow differ at %s" % s["c"]
    return "tie" if tie else "same"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("cpu")
    p.add_argument("cuda")
    p.add_argument("--show", type=int, default=5, help="broken frames to print")
    args = p.parse_args()
    a, b = read_dump(args.cpu), read_dump(args.cuda)
    if list(a) != list(b):
        sys.exit("the two dumps hold different frames (%d and %d)" % (len(a), len(b)))
    counts = defaultdict(lambda: defaultdict(int))
    broken = []
    for key in a:
        verdict = compare_frame(a[key], b[key])
        kind = verdict if verdict in ("same", "tie") else "broken"
        counts[key[0]][kind] += 1
        counts[key[0]]["signals"] += len(a[key][1])
        if kind == "broken":
            broken.append((key, verdict))
    print("| recording | frames | signals (CPU) | same | a run end on the threshold | broken |")
    print("|---|---|---|---|---|---|")
    for name, c in counts.items():
        frames = c["same"] + c["tie"] + c["broken"]
        print("| %s | %d | %d | %d | %d | %d |" % (name, frames, c["signals"], c["same"],
                                                 c["tie"], c["broken"]))
    for key, verdict in broken[:args.show]:
        print("%s frame %s: %s" % (key[0], key[1], verdict))
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
