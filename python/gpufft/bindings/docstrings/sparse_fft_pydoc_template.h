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


static const char* __doc_gr_gpufft_sparse_fft =
    R"doc(Sparse FFT of a complex stream: the k largest DFT coefficients of every frame of fft_size samples, on the GPU (CUDA) or the CPU.

Message port 'coefficients': one dict per frame with frame, offset, fft_size, sample_rate, center_freq, bins, freqs (Hz), values (unnormalized DFT, numpy.fft convention), power_db and, when the stream is time-tagged, rx_time. A frame holding NaN or infinity is reported with an 'error' entry and skipped.

Optional output 0: display_bins float values per frame, the sparse spectrum in dB (20 log10(|X| / fft_size)), DC centred, each the maximum over its group of bins (floor_db where empty). See docs/sparse_fft_block.md.)doc";


static const char* __doc_gr_gpufft_sparse_fft_sparse_fft_0 = R"doc()doc";


static const char* __doc_gr_gpufft_sparse_fft_sparse_fft_1 = R"doc()doc";


static const char* __doc_gr_gpufft_sparse_fft_make = R"doc(Make a sparse FFT block.

Args:
    fft_size: frame length n in samples (>= 16)
    k: coefficients per frame, 1 <= k < fft_size
    sample_rate: input sample rate in Hz (> 0); an rx_rate tag overrides it
    display_bins: length of the dB vector output, 1 .. min(fft_size, 65536)
    hop: samples between frame starts; 0 means fft_size
    backend: "auto" (CUDA when a GPU is usable, else CPU), "cpu" or "cuda"
    device_id: CUDA device (the GPUFFT_DEVICE environment variable overrides it)

Raises ValueError naming the bad parameter; RuntimeError for backend="cuda" without a usable GPU.)doc";


static const char* __doc_gr_gpufft_sparse_fft_set_k =
    R"doc(Change k (1 <= k < fft_size; ValueError otherwise); takes effect at the next frame.)doc";


static const char* __doc_gr_gpufft_sparse_fft_k = R"doc(Coefficients per frame.)doc";


static const char* __doc_gr_gpufft_sparse_fft_set_sample_rate =
    R"doc(Change the sample rate (Hz) used for frequencies and times; an rx_rate tag wins.)doc";


static const char* __doc_gr_gpufft_sparse_fft_sample_rate =
    R"doc(The sample_rate parameter in Hz.)doc";


static const char* __doc_gr_gpufft_sparse_fft_fft_size = R"doc(Frame length n.)doc";


static const char* __doc_gr_gpufft_sparse_fft_hop =
    R"doc(Samples between frame starts.)doc";


static const char* __doc_gr_gpufft_sparse_fft_display_bins =
    R"doc(Length of the dB vector output.)doc";


static const char* __doc_gr_gpufft_sparse_fft_backend =
    R"doc(The backend in use: "cpu" or "cuda".)doc";


static const char* __doc_gr_gpufft_sparse_fft_describe =
    R"doc(The engine's one-line description: backend and the parameters it chose.)doc";


static const char* __doc_gr_gpufft_sparse_fft_frames_processed =
    R"doc(Frames transformed so far.)doc";


static const char* __doc_gr_gpufft_sparse_fft_frames_skipped =
    R"doc(Frames skipped (non-finite samples or a failed transform).)doc";
