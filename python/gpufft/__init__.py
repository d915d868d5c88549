#
# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
'''
gr-gpufft: GPU Fourier engines with CPU twins, and GNU Radio blocks on top of them.

Engines (usable without a flowgraph): dense_fft_plan, and the sparse FFT, type-3 NUFFT
and large-FFT plans. Every plan takes backend="auto" | "cpu" | "cuda" and device_id.
'''

# import pybind11 generated symbols into the gpufft namespace
from .gpufft_python import *

# Recordings in (SigMF, raw .cfile) as a tagged GNU Radio source: pure Python.
from .recording import open_recording, recording_error
from .recording_source import recording_source

# SigMF annotations out (transmissions -> .sigmf-meta): pure Python, no flowgraph.
from .sigmf_annotations import write_annotations, write_sigmf_meta
