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


static const char* __doc_gr_gpufft_large_fft_accumulator =
    R"doc(Integrating spectrometer with very long FFTs (up to 2^32 points and more), on the GPU (CUDA) or the CPU.

The complex input is cut into frames of fft_size samples (consecutive frames share overlap samples); each frame is windowed and transformed, and |X|^2 of n_integrations frames is averaged (mode "mean") or max-held ("max"). Each integration gives one float vector of output_bins channels: the DC-centred bins [band_start, band_stop) with adjacent bins averaged. A tone of amplitude A on a bin centre reads A^2 in its bin (linear), or 10 log10 of it with output_db.

Output 0 (optional): the spectra as vectors, tagged rx_time, rx_freq, rx_rate. Without it the block is a sink (a file-only or message-only flowgraph). Message port 'spectrum': one PDU per spectrum, metadata rx_time, rx_freq, rx_rate, fch1, foff (Hz), nchans, tsamp, integrations, skipped (and partial for an integration cut short by the end of the stream). Message port 'progress': a dict at most once a second. Message port 'cmd' (in): n_integrations, mode, output_db.

With filterbank_path, the linear spectra also go to a filterbank file: SIGPROC .fil or Breakthrough Listen's HDF5 .h5 (file_format "auto" takes it from the extension), header with source_name and the pointing src_raj, src_dej (SIGPROC's hhmmss.s, ddmmss.s), az_start, za_start (degrees). A run that integrates nothing leaves no file. See docs/large_fft_accumulator.md.)doc";


static const char* __doc_gr_gpufft_large_fft_accumulator_large_fft_accumulator_0 =
    R"doc()doc";


static const char* __doc_gr_gpufft_large_fft_accumulator_large_fft_accumulator_1 =
    R"doc()doc";


static const char* __doc_gr_gpufft_large_fft_accumulator_make =
    R"doc(Make a large-FFT accumulator block.

Args:
    fft_size: samples per frame, >= 2 (sizes made of 2, 3, 5, 7 are fast)
    n_integrations: frames per output spectrum, >= 1
    output_bins: channels per output, 1 .. 2^18, dividing band_stop - band_start
    band_start: first DC-centred bin of the band, in [0, fft_size)
    band_stop: end of the band, in (band_start, fft_size]; 0 means fft_size
    overlap: samples shared by consecutive frames, in [0, fft_size)
    window: "none", "hann", "hamming", "blackman", "blackman-harris" or "flattop"
    mode: "mean" or "max"
    output_db: output 10 log10(power) instead of power (the file stays linear)
    samp_rate: sample rate in Hz (> 0) until an rx_rate tag says otherwise
    center_freq: centre frequency in Hz until an rx_freq tag says otherwise
    filterbank_path: filterbank file to write; "" for none
    source_name: source_name of the filterbank header
    backend: "auto" (CUDA when a GPU is usable, else CPU), "cpu" or "cuda"
    device_id: CUDA device
    memory_budget: engine working memory in bytes per device; 0 for its default
    file_format: "auto" (from the extension: .h5, .hdf5, .fbh5 HDF5, else SIGPROC), "fil" or "h5"; one that disagrees with the extension is logged as a warning
    devices: CUDA devices that share frames too large for one ([]: device_id alone)
    src_raj: source right ascension, hhmmss.s, in [0, 240000) (default 0)
    src_dej: source declination, ddmmss.s, in [-900000, 900000] (default 0)
    az_start: azimuth at the start, degrees, in [0, 360] (default 0)
    za_start: zenith angle at the start, degrees, in [0, 180] (default 0)
    input_type: the input's sample type: "fc32" (complex float, default), or interleaved integer I/Q, an item a vector of 2 numbers as GNU Radio's interleaved short/char to complex blocks take: "sc16" (int16, / 32768), "sc8" (int8, / 128), "cu8" (uint8, RTL-SDR: (v - 127.5) / 128), recording_source's scaling; converted with VOLK as it is copied into the frame

Raises ValueError naming the bad parameter; RuntimeError for backend="cuda" without a usable GPU.)doc";


static const char* __doc_gr_gpufft_large_fft_accumulator_set_n_integrations = R"doc()doc";


static const char* __doc_gr_gpufft_large_fft_accumulator_n_integrations = R"doc()doc";


static const char* __doc_gr_gpufft_large_fft_accumulator_set_mode = R"doc()doc";


static const char* __doc_gr_gpufft_large_fft_accumulator_mode = R"doc()doc";


static const char* __doc_gr_gpufft_large_fft_accumulator_set_output_db = R"doc()doc";


static const char* __doc_gr_gpufft_large_fft_accumulator_output_db = R"doc()doc";


static const char* __doc_gr_gpufft_large_fft_accumulator_fft_size = R"doc()doc";


static const char* __doc_gr_gpufft_large_fft_accumulator_output_bins = R"doc()doc";


static const char* __doc_gr_gpufft_large_fft_accumulator_band_start = R"doc()doc";


static const char* __doc_gr_gpufft_large_fft_accumulator_band_stop = R"doc()doc";


static const char* __doc_gr_gpufft_large_fft_accumulator_overlap = R"doc()doc";


static const char* __doc_gr_gpufft_large_fft_accumulator_window = R"doc()doc";


static const char* __doc_gr_gpufft_large_fft_accumulator_input_type =
    R"doc("fc32", "sc16", "sc8" or "cu8": the input's sample type.)doc";


static const char* __doc_gr_gpufft_large_fft_accumulator_file_format = R"doc()doc";


static const char* __doc_gr_gpufft_large_fft_accumulator_backend = R"doc()doc";


static const char* __doc_gr_gpufft_large_fft_accumulator_describe = R"doc()doc";


static const char* __doc_gr_gpufft_large_fft_accumulator_fraction_filled = R"doc()doc";


static const char* __doc_gr_gpufft_large_fft_accumulator_integrations_done = R"doc()doc";


static const char* __doc_gr_gpufft_large_fft_accumulator_frames_skipped = R"doc()doc";
