/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "pydoc_macros.h"
#define D(...) DOC(gr, gpufft, __VA_ARGS__)
/*
  This file contains placeholders for docstrings for the Python bindings.
  Do not edit! These were automatically extracted during the binding process
  and will be overwritten during the build process
 */


static const char* __doc_gr_gpufft_nufft3_spectrum =
    R"doc(Spectrum of irregularly timed complex samples at chosen frequencies: a type-3 NUFFT per frame (GPU or CPU).

Every frame_len samples give one output vector of len(frequencies) values F[k] = sum_j x[j] exp(-2 pi i f_k (t_j - t_0)), t_0 the frame's first time (double-precision transform, complex64 output).

Input 0: complex samples. Input 1: their times, in one of two forms:
  - nominal_rate = 0: float64 seconds after the integer epoch (a Python block or a file source of float64 feeds it; GNU Radio has no stock float64 source);
  - nominal_rate > 0 (the GRC default, samp_rate): float32 deviations from a grid of nominal_rate samples per second: sample n is at epoch + n / nominal_rate + deviation[n] (a stock float source, e.g. a Null Source for a uniform stream or a Vector Source of jitter, feeds it).

Tags: rx_time on every vector (epoch + t_0, or anchored by an input rx_time), rx_freq and rx_rate on change. Message port 'cmd' (in): {"frequencies": [...]} of the same length. Frames with NaN/inf samples or times are skipped with a warning (at most one per 10 s). See docs/nufft3.md.)doc";


static const char* __doc_gr_gpufft_nufft3_spectrum_nufft3_spectrum_0 = R"doc()doc";


static const char* __doc_gr_gpufft_nufft3_spectrum_nufft3_spectrum_1 = R"doc()doc";


static const char* __doc_gr_gpufft_nufft3_spectrum_make =
    R"doc(Make a NUFFT spectrum block.

Args:
    frame_len: samples per frame, in [1, 2^24]
    frequencies: output frequencies in Hz (finite), one output value each
    eps: transform tolerance, 1e-12 .. 0.1
    epoch: integer seconds the times count from
    nominal_rate: 0 for float64 times on input 1; > 0 for float32 deviations from a grid of this rate (samples per second)
    backend: "auto", "cpu" or "cuda"
    device_id: CUDA device)doc";


static const char* __doc_gr_gpufft_nufft3_spectrum_set_frequencies = R"doc()doc";


static const char* __doc_gr_gpufft_nufft3_spectrum_frequencies = R"doc()doc";


static const char* __doc_gr_gpufft_nufft3_spectrum_frame_len = R"doc()doc";


static const char* __doc_gr_gpufft_nufft3_spectrum_epoch = R"doc()doc";


static const char* __doc_gr_gpufft_nufft3_spectrum_backend = R"doc()doc";


static const char* __doc_gr_gpufft_nufft3_spectrum_frames_processed = R"doc()doc";


static const char* __doc_gr_gpufft_nufft3_spectrum_frames_skipped = R"doc()doc";
