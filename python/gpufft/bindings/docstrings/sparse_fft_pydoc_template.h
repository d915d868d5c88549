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
    R"doc(Sparse FFT of a complex stream, frame by frame (fft_size samples), on the GPU (CUDA) or the CPU.

mode "robust" (default): signals as a radio delivers them (noise, tones between bins, an unknown number of them; k is an upper bound). Each frame reports the tones above the estimated noise floor, at most k, strongest detectable down to min_snr_db (dB over the noise of one bin of an fft_size-point FFT), with fractional frequencies; pure noise gives none (a false tone in a frame with probability false_alarm). mode "exact": frames that are exactly k-sparse on the frame's grid; the k largest DFT coefficients, exact to float precision; a frame that is not is flagged (not_sparse) and a warning is logged (rate-limited).

Message port 'coefficients': one dict per frame with frame, offset, fft_size, samp_rate (and sample_rate, its deprecated old name), center_freq, mode, bins (ascending; robust: each tone's nearest bin), freqs (Hz; robust: at the tone's fractional frequency), values (exact: unnormalized DFT, numpy.fft convention; robust: tone amplitudes n*a), power_db (20 log10(|value| / fft_size)), snr_db (robust: per tone; exact: NaN), noise_floor_db (robust: dBFS per bin) or not_sparse (exact) and, when the stream is time-tagged, rx_time. A frame holding NaN or infinity is reported with an 'error' entry and skipped.

Optional output 0: display_bins float values per frame, the sparse spectrum in dB (20 log10(|value| / fft_size)), DC centred, each the maximum over its group of bins (floor_db where empty). See docs/sparse_fft_block.md.)doc";


static const char* __doc_gr_gpufft_sparse_fft_sparse_fft_0 = R"doc()doc";


static const char* __doc_gr_gpufft_sparse_fft_sparse_fft_1 = R"doc()doc";


static const char* __doc_gr_gpufft_sparse_fft_make = R"doc(Make a sparse FFT block.

Args:
    fft_size: frame length n in samples (>= 16)
    k: coefficients (exact mode, 1 <= k < fft_size) or most tones (robust mode, 1 <= k <= fft_size / 4) per frame
    samp_rate: input sample rate in Hz (> 0); an rx_rate tag overrides it (sample_rate=: the deprecated old keyword, with a DeprecationWarning)
    display_bins: length of the dB vector output, 1 .. min(fft_size, 65536)
    hop: samples between frame starts; 0 means fft_size
    backend: "auto" (CUDA when a GPU is usable, else CPU), "cpu" or "cuda"
    device_id: CUDA device (the GPUFFT_DEVICE environment variable overrides it)
    mode: "robust" (noise, tones between bins; k an upper bound, 1 <= k <= fft_size / 4) or "exact" (exactly k-sparse on-grid frames)
    min_snr_db: robust mode: the weakest tone to find, dB over the noise of one bin of an fft_size-point FFT, in [0, 200]; reading m of n samples costs about 10 log10(n / m) dB, so low values make the engine run a dense FFT + threshold (describe() says which)
    false_alarm: robust mode: chance of a false tone in a frame of pure noise, in (0, 0.5]

Raises ValueError naming the bad parameter; RuntimeError for backend="cuda" without a usable GPU.)doc";


static const char* __doc_gr_gpufft_sparse_fft_set_k =
    R"doc(Change k (1 <= k < fft_size in exact mode, 1 <= k <= fft_size / 4 in robust mode; ValueError otherwise); takes effect at the next frame.)doc";


static const char* __doc_gr_gpufft_sparse_fft_k =
    R"doc(Coefficients (exact mode) or most tones (robust mode) per frame.)doc";


static const char* __doc_gr_gpufft_sparse_fft_set_samp_rate =
    R"doc(Change the sample rate (Hz) used for frequencies and times; an rx_rate tag wins.)doc";


static const char* __doc_gr_gpufft_sparse_fft_samp_rate =
    R"doc(The samp_rate parameter in Hz.)doc";


static const char* __doc_gr_gpufft_sparse_fft_set_sample_rate =
    R"doc(Deprecated (DeprecationWarning; removed in the next release): set_samp_rate().)doc";


static const char* __doc_gr_gpufft_sparse_fft_sample_rate =
    R"doc(Deprecated (DeprecationWarning; removed in the next release): samp_rate().)doc";


static const char* __doc_gr_gpufft_sparse_fft_fft_size = R"doc(Frame length n.)doc";


static const char* __doc_gr_gpufft_sparse_fft_hop =
    R"doc(Samples between frame starts.)doc";


static const char* __doc_gr_gpufft_sparse_fft_display_bins =
    R"doc(Length of the dB vector output.)doc";


static const char* __doc_gr_gpufft_sparse_fft_backend =
    R"doc(The backend in use: "cpu" or "cuda".)doc";


static const char* __doc_gr_gpufft_sparse_fft_mode = R"doc("robust" or "exact".)doc";


static const char* __doc_gr_gpufft_sparse_fft_min_snr_db =
    R"doc(Robust mode's sensitivity: the weakest tone to find, dB over the noise of one bin.)doc";


static const char* __doc_gr_gpufft_sparse_fft_false_alarm =
    R"doc(Robust mode's chance of a false tone in a frame of pure noise.)doc";


static const char* __doc_gr_gpufft_sparse_fft_describe =
    R"doc(The engine's one-line description: mode, backend and the parameters it chose, among them whether it runs sparse or a dense FFT (+ threshold in robust mode).)doc";


static const char* __doc_gr_gpufft_sparse_fft_frames_processed =
    R"doc(Frames transformed so far.)doc";


static const char* __doc_gr_gpufft_sparse_fft_frames_skipped =
    R"doc(Frames skipped (non-finite samples or a failed transform).)doc";
