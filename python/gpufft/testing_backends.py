#
# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""QA helper (no tests of its own): the backends a QA file checks. The CPU always; CUDA
where a device is usable (gpufft.cuda_available), as on the GPU machine. Each test runs
its body once per backend inside self.subTest(backend=...), so a failure names its
backend and the other backends still run:

    for backend in testing_backends.backends():
        with self.subTest(backend=backend):
            ...

The first call prints which backends run, and why CUDA does not where it does not: no
backend is left out silently."""

from gnuradio import gpufft

_announced = False


def backends():
    """["cpu"], plus "cuda" where device 0 is a usable GPU."""
    global _announced
    names = ["cpu"] + (["cuda"] if gpufft.cuda_available(0) else [])
    if not _announced:
        _announced = True
        why = ""
        if "cuda" not in names:
            why = (" (cuda not run: this build has no CUDA)" if not gpufft.cuda_compiled()
                   else " (cuda not run: no usable CUDA device)")
        print(f"backends: {', '.join(names)}{why}", flush=True)
    return names
