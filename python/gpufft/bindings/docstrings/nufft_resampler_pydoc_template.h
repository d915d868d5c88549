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


static const char* __doc_gr_gpufft_nufft_resampler =
    R"doc(Irregularly timed complex samples (jittered ADC, timestamped packets) to a uniform stream at output_rate, band-limited to [-bandwidth/2, bandwidth/2].

Frame by frame (frame_len input samples, frames overlapping by 2 x overlap) a weighted least-squares fit by a band-limited model (type-3 NUFFT engine, GPU or CPU); only outputs inside each frame's centre are kept. Needs a mean input rate above about 1.6 x bandwidth and no gap between input times longer than 2 / bandwidth: a longer gap is reported (a warning at most once per 10 s, and a "gap" tag, value {"duration": seconds, "samples": n}, on the first of the n outputs within 1 / bandwidth of it, which are unreliable).

Input 0: complex samples. Input 1: their times, in one of two forms:
  - nominal_rate = 0: float64 seconds after the integer epoch (no stock GNU Radio block produces float64);
  - nominal_rate > 0 (the GRC default, samp_rate): float32 deviations from a grid of nominal_rate samples per second: sample n is at epoch + n / nominal_rate + deviation[n].

Tags: rx_time and rx_rate on the first output and after a skipped frame or a change of settings; the latest rx_freq is carried. Message port 'cmd' (in): {"output_rate": Hz, "bandwidth": Hz}, taken at the next frame (also set_output_rate, set_bandwidth). See docs/nufft3.md.)doc";


static const char* __doc_gr_gpufft_nufft_resampler_nufft_resampler_0 = R"doc()doc";


static const char* __doc_gr_gpufft_nufft_resampler_nufft_resampler_1 = R"doc()doc";


static const char* __doc_gr_gpufft_nufft_resampler_make =
    R"doc(Make a NUFFT resampler block.

Args:
    output_rate: output samples per second (> 0)
    bandwidth: two-sided bandwidth kept in Hz, 0 < bandwidth <= output_rate
    frame_len: input samples per frame, in [64, 2^24]
    overlap: input samples discarded at each frame edge, in [8, frame_len / 4]
    eps: transform and conjugate-gradient tolerance
    epoch: integer seconds the times count from
    nominal_rate: 0 for float64 times on input 1; > 0 for float32 deviations from a grid of this rate
    backend: "auto", "cpu" or "cuda"
    device_id: CUDA device)doc";


static const char* __doc_gr_gpufft_nufft_resampler_output_rate = R"doc()doc";


static const char* __doc_gr_gpufft_nufft_resampler_bandwidth = R"doc()doc";


static const char* __doc_gr_gpufft_nufft_resampler_frame_len = R"doc()doc";


static const char* __doc_gr_gpufft_nufft_resampler_overlap = R"doc()doc";


static const char* __doc_gr_gpufft_nufft_resampler_backend = R"doc()doc";


static const char* __doc_gr_gpufft_nufft_resampler_frames_processed = R"doc()doc";


static const char* __doc_gr_gpufft_nufft_resampler_frames_skipped = R"doc()doc";


static const char* __doc_gr_gpufft_nufft_resampler_set_output_rate =
    R"doc(Output samples per second from the next frame on (> 0, >= bandwidth); that frame starts a new output grid.)doc";


static const char* __doc_gr_gpufft_nufft_resampler_set_bandwidth =
    R"doc(Bandwidth kept, in Hz, from the next frame on (0 < bandwidth <= output_rate).)doc";


static const char* __doc_gr_gpufft_nufft_resampler_gaps_found =
    R"doc(Gaps in the input times longer than 2 / bandwidth found so far.)doc";
