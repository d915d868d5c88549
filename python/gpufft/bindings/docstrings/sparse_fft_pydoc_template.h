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
    R"doc(Sparse FFT of a complex stream, frame by frame (fft_size samples), on the GPU (CUDA) or the CPU: the signals of every frame as PDUs, and the transmissions they form.

mode "robust" (default): signals as a radio delivers them (noise, tones between bins, modulated carriers, an unknown number of them). Each frame reports the signals (occupied bands) above the estimated noise floor, at most k, strongest kept (the frame then says truncated; a warning is logged at most once per 10 s). Where the engine's cost model picks a dense FFT (low min_snr_db, small fft_size; describe() says so) the frame goes to spectrum sensing (sensing_plan): bands with centre, edges, bandwidth (bandwidth_rule), power, SNR, a tone fit for narrow ones and a DC label. On the sparse path (high min_snr_db, large fft_size) each tone is a signal one bin wide. mode "exact": frames that are exactly k-sparse on the frame's grid; the k largest DFT coefficients, each a 1-bin signal; a frame that is not is flagged (not_sparse, truncated) and a warning is logged (rate-limited).

Message port 'detections': one PDU per frame, (meta dict . f32vector), which message_debug's print_pdu, pdu_to_tagged_stream (float), pdu_filter and pdu_set take. meta: frame, first_sample, fft_size, samp_rate, center_freq, rx_time (when tagged), truncated, noise_floor_dbfs, bins_above, bands_found, threshold_db (the frame's threshold over the local floor, dB; it moves as the floor is tracked, floor_frames), held_threshold_db (the held test's; 0: none looked at), and per signal (vectors, ascending in frequency): center_bin, lower_bin, upper_bin, bandwidth_bins, peak_power_dbfs, total_power_dbfs, snr_db, floor_dbfs, tone_bin, first_bin, last_bin (f64; the last two whole bins), dc, narrow, tone_refined, held (u8; held: found by the held test, watch_frames), tone_amplitude (c32), center_hz, lower_hz, upper_hz, bandwidth_hz (f64). Bins are fractional and signed about DC (Hz = center_freq + bin * samp_rate / fft_size). The vector: 4 floats a signal, [center_hz - center_freq, bandwidth_hz, peak_power_dbfs, snr_db].

Message port 'transmissions': one PDU per transmission when it ends (unseen for more than hold_frames frames) and every open one at the end of the stream: meta id, start_sample, sample_count, start_s, duration_s, center_hz, lower_hz, upper_hz, bandwidth_hz, peak_power_dbfs, mean_snr_db, frames, dc, rx_time (its first sample, when tagged); vector [duration_s, bandwidth_hz, peak_power_dbfs, mean_snr_db].

Message port 'coefficients' (deprecated, removed in the next release; use 'detections'): one dict per frame with frame, offset, fft_size, samp_rate, center_freq, mode, bins, freqs, values (exact: DFT values; robust: one tone amplitude n*a per signal, its tone fit), power_db, snr_db, noise_floor_db (robust, rectangular window) or not_sparse (exact), rx_time. A frame holding NaN or infinity is counted (frames_skipped), reported here with an 'error' entry, and skipped (no detections PDU).

Message port 'cmd': a dict of k, samp_rate, min_snr_db, false_alarm, mode, floor_frames, watch_frames to change while running.

Optional output 0: display_bins float values per frame, the spectrum in dB (20 log10(|value| / fft_size)), DC centred, each the maximum over its group of bins (floor_db where empty). See docs/sparse_fft_block.md.)doc";


static const char* __doc_gr_gpufft_sparse_fft_sparse_fft_0 = R"doc()doc";


static const char* __doc_gr_gpufft_sparse_fft_sparse_fft_1 = R"doc()doc";


static const char* __doc_gr_gpufft_sparse_fft_make = R"doc(Make a sparse FFT block.

Args:
    fft_size: frame length n in samples, [16, 2^31 - 1]; refused (ValueError naming fft_size and the memory needed) when the host, or the process's ulimit -v, cannot hold the engine and the frame buffer
    k: coefficients (exact mode, 1 <= k < fft_size) or most signals (robust mode, 1 <= k <= fft_size / 4) per frame
    samp_rate: input sample rate in Hz (> 0); an rx_rate tag overrides it (sample_rate=: the deprecated old keyword, with a DeprecationWarning)
    display_bins: length of the dB vector output, 1 .. min(fft_size, 65536)
    hop: samples between frame starts; 0 means fft_size
    backend: "auto" (CUDA when a GPU is usable, else CPU), "cpu" or "cuda"
    device_id: CUDA device (the GPUFFT_DEVICE environment variable overrides it)
    mode: "robust" (noise, tones between bins; k an upper bound, 1 <= k <= fft_size / 4) or "exact" (exactly k-sparse on-grid frames)
    min_snr_db: robust mode: the weakest tone to find, dB over the noise of one bin of an fft_size-point FFT, in [0, 200]; reading m of n samples costs about 10 log10(n / m) dB, so low values make the engine run a dense FFT + spectrum sensing (describe() says which)
    false_alarm: robust mode: chance of a false signal in a frame of pure noise, in (0, 0.5]
    dc_mask_bins: bins either side of DC left out of the signals (the radio's LO leakage), [0, fft_size / 4); 0 keeps them (a signal on DC is labelled dc)
    bandwidth_rule: a signal's edges: "obw99" (99 % of its power, ITU-R SM.328) or "xdb" (20 dB under its peak)
    hold_frames: frames a transmission may go unseen and go on, [0, 1000]
    input_type: the input's sample type: "fc32" (complex float, default), or interleaved integer I/Q, an item a vector of 2 numbers as GNU Radio's interleaved short/char to complex blocks take: "sc16" (int16, / 32768), "sc8" (int8, / 128), "cu8" (uint8, RTL-SDR: (v - 127.5) / 128), recording_source's scaling; converted on the GPU on the CUDA backend, with VOLK on the CPU
    floor_frames: robust mode's sensing: frames the noise floor is tracked over, [1, 1024] (1: each frame's own floor; more keeps the threshold steady, so a signal near it is found in more frames); sensing uses 1 whatever the value while frames overlap by half or more (hop <= fft_size / 2), as they share their noise (describe() shows the value in force)
    watch_frames: robust mode's sensing: frames a signal is held for, [0, 8]: the bins of the last watch_frames frames' signals are tested again on their own at a lower threshold (such signals say held); 0: none

Raises ValueError naming the bad parameter; RuntimeError for backend="cuda" without a usable GPU.)doc";


static const char* __doc_gr_gpufft_sparse_fft_set_k =
    R"doc(Change k (1 <= k < fft_size in exact mode, 1 <= k <= fft_size / 4 in robust mode; ValueError otherwise); takes effect at the next frame.)doc";


static const char* __doc_gr_gpufft_sparse_fft_k =
    R"doc(Coefficients (exact mode) or most signals (robust mode) per frame.)doc";


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
    R"doc(Robust mode's chance of a false signal in a frame of pure noise.)doc";


static const char* __doc_gr_gpufft_sparse_fft_floor_frames =
    R"doc(Frames the noise floor is tracked over, as asked for (sensing uses 1 while frames overlap by half or more; describe() shows the value in force).)doc";


static const char* __doc_gr_gpufft_sparse_fft_set_floor_frames =
    R"doc(Change floor_frames, [1, 1024] (ValueError otherwise, the sensing plan's message); takes effect at the next frame, whose sensing starts a fresh floor track and forgets its held signals.)doc";


static const char* __doc_gr_gpufft_sparse_fft_watch_frames =
    R"doc(Frames a signal is held for (0: none).)doc";


static const char* __doc_gr_gpufft_sparse_fft_set_watch_frames =
    R"doc(Change watch_frames, [0, 8] (ValueError otherwise, the sensing plan's message); takes effect at the next frame, whose sensing starts afresh (a fresh floor track, no held signals).)doc";


static const char* __doc_gr_gpufft_sparse_fft_describe =
    R"doc(The engine's one-line description: mode, backend and the parameters it chose, among them whether it runs sparse or a dense FFT (+ spectrum sensing in robust mode). Logged once when the block is made.)doc";


static const char* __doc_gr_gpufft_sparse_fft_set_mode =
    R"doc(Change the mode, "robust" or "exact" (ValueError otherwise, or when k is out of the new mode's range); takes effect at the next frame.)doc";


static const char* __doc_gr_gpufft_sparse_fft_set_min_snr_db =
    R"doc(Change min_snr_db, [0, 200] dB (ValueError otherwise); takes effect at the next frame.)doc";


static const char* __doc_gr_gpufft_sparse_fft_set_false_alarm =
    R"doc(Change false_alarm, (0, 0.5] (ValueError otherwise); takes effect at the next frame.)doc";


static const char* __doc_gr_gpufft_sparse_fft_dc_mask_bins =
    R"doc(Bins either side of DC left out of the signals.)doc";


static const char* __doc_gr_gpufft_sparse_fft_bandwidth_rule =
    R"doc("obw99" or "xdb".)doc";


static const char* __doc_gr_gpufft_sparse_fft_hold_frames =
    R"doc(Frames a transmission may go unseen and go on.)doc";


static const char* __doc_gr_gpufft_sparse_fft_input_type =
    R"doc("fc32", "sc16", "sc8" or "cu8": the input's sample type.)doc";


static const char* __doc_gr_gpufft_sparse_fft_frames_truncated =
    R"doc(Frames whose signals hit the cap k (their detections say truncated).)doc";


static const char* __doc_gr_gpufft_sparse_fft_frames_processed =
    R"doc(Frames transformed so far.)doc";


static const char* __doc_gr_gpufft_sparse_fft_frames_skipped =
    R"doc(Frames skipped (non-finite samples or a failed transform).)doc";
