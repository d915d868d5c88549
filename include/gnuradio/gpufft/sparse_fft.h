/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_SPARSE_FFT_H
#define INCLUDED_GPUFFT_SPARSE_FFT_H

#include <gnuradio/block.h>
#include <gnuradio/gpufft/api.h>
#include <cstdint>
#include <string>

namespace gr {
namespace gpufft {

/*!
 * \brief Sparse FFT of a complex stream: the signals (robust mode) or the k largest
 * DFT coefficients (exact mode) of every frame, as PDUs, and the transmissions they
 * form.
 * \ingroup gpufft
 *
 * \details
 * Cuts the incoming complex stream into frames of \p fft_size samples (a new frame
 * every \p hop samples: hop < fft_size overlaps frames, hop > fft_size skips samples
 * between them) and transforms each on the GPU (CUDA) or the CPU.
 *
 * \p mode "robust" (default) is for signals as a radio delivers them: a noise floor,
 * tones between FFT bins, modulated carriers, an unknown number of them. Each frame
 * reports the signals (occupied bands) that stand above the estimated noise floor, at
 * most k, strongest kept (the frame then says \c truncated, and a warning is logged at
 * most once per 10 s). \p min_snr_db is the weakest tone the sparse path must find (its
 * power over the noise of one bin of an fft_size-point FFT): the engine reads fewer
 * samples for higher values (reading m of n samples costs about 10 log10(n / m) dB).
 * Where it cannot read fewer (the cost model picks a dense FFT; describe() says so),
 * the frame goes to spectrum sensing (sensing_plan, docs/sensing.md): every band above
 * the threshold, with centre, edges, bandwidth (\p bandwidth_rule), power, SNR, a tone
 * fit for narrow ones, and a DC label (\p dc_mask_bins leaves bins around DC out).
 * On the sparse path each tone is a signal one bin wide. \p false_alarm is the chance
 * of a false signal in a frame of pure noise.
 *
 * Sensing follows the noise floor and the signals over frames (docs/sensing.md):
 * \p floor_frames is how many frames the floor is tracked over (1: each frame its
 * own floor; more keeps the threshold steady, so a signal near it is found in more
 * frames), and \p watch_frames how many frames a signal is held for: the bins of the
 * last watch_frames frames' signals are tested again on their own, at a lower
 * threshold, so a weak emitter near the full band's threshold is found frame after
 * frame (such a signal says \c held; 0: none). While frames overlap by half or more
 * (hop <= fft_size / 2) sensing uses floor_frames = 1 whatever the value asked for
 * (overlapping frames share their noise, and a floor averaged over them is not the
 * steadier one the threshold assumes); floor_frames() still gives the value asked for,
 * describe() the one in force. Both apply to the sensing path only (robust mode, dense
 * FFT); the sparse path and exact mode have no floor track.
 * \p mode "exact" is for frames that are exactly k-sparse on the frame's frequency grid
 * (no noise, on-grid tones): the k largest coefficients, exact to float precision, each
 * a signal one bin wide (snr_db NaN: no noise estimate); a frame that is not exactly
 * sparse is flagged (and \c truncated) and only the vouched-for coefficients come back.
 *
 * Signals are followed from frame to frame into transmissions (docs/sensing.md,
 * "Transmissions"): a signal continues the transmission it overlaps in frequency; one
 * unseen for more than \p hold_frames frames has ended.
 *
 * Message port \c detections: one PDU per frame, a pair (meta . f32vector) that the
 * stock PDU blocks take (message_debug print_pdu, pdu_to_tagged_stream with type float,
 * pdu_filter, pdu_set). meta (a dict):
 *  - \c frame (uint64): frame index from 0; \c first_sample (uint64): absolute input
 *    sample index of the frame's first sample; \c fft_size (uint64)
 *  - \c samp_rate, \c center_freq (double, Hz): the parameter or the latest rx_rate
 *    tag, and the latest rx_freq tag (0 without one)
 *  - \c rx_time (tuple (uint64 seconds, double fraction)): time of the frame's first
 *    sample, only when the stream carried an rx_time tag
 *  - \c truncated (bool): more signals stood out than k; the strongest k are reported
 *  - \c noise_floor_dbfs (double): the frame's median floor per bin as a tone's power
 *    (robust mode; NaN in exact mode); \c bins_above, \c bands_found (int64, before
 *    the cap)
 *  - \c threshold_db (double): the frame's threshold over the local floor, dB (it
 *    moves as the floor is tracked, floor_frames); \c held_threshold_db (double): the
 *    held test's (0: nothing held was looked at)
 *  - one vector per signal key, the signals ascending in frequency, bins fractional and
 *    signed about DC (Hz = center_freq + bin * samp_rate / fft_size): f64vector
 *    \c center_bin, \c lower_bin, \c upper_bin, \c bandwidth_bins,
 *    \c peak_power_dbfs, \c total_power_dbfs, \c snr_db, \c floor_dbfs,
 *    \c tone_bin, \c first_bin, \c last_bin (the last two whole bins, f64 since
 *    pmt.to_python() converts no s64vector); u8vector \c dc, \c narrow,
 *    \c tone_refined, \c held (found by the held test, watch_frames);
 *    c32vector \c tone_amplitude (n a for a tone a e^{2 pi i f t/n});
 *    f64vector \c center_hz, \c lower_hz, \c upper_hz, \c bandwidth_hz
 * The vector holds 4 floats a signal: center_hz - center_freq, bandwidth_hz,
 * peak_power_dbfs, snr_db. A frame with no signal gives an empty vector.
 *
 * Message port \c transmissions: one PDU per transmission when it ends, and every open
 * one at the end of the stream (or stop()): meta with \c id, \c start_sample,
 * \c sample_count, \c start_s, \c duration_s, \c center_hz, \c lower_hz,
 * \c upper_hz, \c bandwidth_hz, \c peak_power_dbfs, \c mean_snr_db, \c frames,
 * \c dc, and \c rx_time of its first sample when the stream carried rx_time; vector
 * f32 [duration_s, bandwidth_hz, peak_power_dbfs, mean_snr_db].
 *
 * Message port \c coefficients (deprecated, removed in the next release: use
 * \c detections): one PMT dict per frame with \c frame, \c offset, \c fft_size,
 * \c samp_rate (and its old name \c sample_rate), \c center_freq, \c mode, \c bins
 * (s32vector, [0, fft_size), ascending), \c freqs (f64vector, Hz), \c values
 * (c32vector: exact mode the DFT values X[f] = sum_t x[t] e^{-2 pi i f t/n}; robust
 * mode the tone amplitudes n a, one per signal: its tone fit, or for a wide signal its
 * peak bin at its peak power), \c power_db (f32vector, 20 log10(|value| / fft_size)
 * dBFS), \c snr_db (f32vector: robust mode over the noise of one bin, rectangular
 * window; exact mode NaN), \c noise_floor_db (robust: dBFS per bin, rectangular
 * window) or \c not_sparse (exact), and \c rx_time when the stream is tagged.
 *
 * A frame holding a NaN or an infinity is logged, counted (frames_skipped()), reported
 * on \c coefficients as a dict with \c frame, \c offset and an \c error string, and
 * skipped: no detections PDU and no output item; a transmission's hold bridges it.
 *
 * Message port \c cmd: a dict of settings to change while running: \c k,
 * \c samp_rate, \c min_snr_db, \c false_alarm, \c mode, \c floor_frames,
 * \c watch_frames (the setters below).
 *
 * Optional output 0: one float vector of \p display_bins items per frame, the frame's
 * spectrum in dB (20 log10(|value| / fft_size) of the coefficients message's values),
 * DC in the middle (fftshift order), each value the maximum over its group of
 * fft_size / display_bins bins; groups without a coefficient hold \ref floor_db. A QT
 * GUI vector sink shows it as a spectrum, a time raster sink (after a vector-to-stream)
 * as a waterfall. \c rx_time, \c rx_freq and \c rx_rate tags are carried to the output
 * items (rx_time recomputed for each frame).
 *
 * Input: complex float (\p input_type "fc32"), or interleaved integer I/Q as radios
 * deliver it, an item being a vector of 2 numbers as GNU Radio's interleaved
 * short/char to complex blocks take: "sc16" (2 x int16, value / 32768), "sc8"
 * (2 x int8, value / 128) or "cu8" (2 x uint8, RTL-SDR: (value - 127.5) / 128), the
 * scaling recording_source uses. The frame is converted after it is cut: on the GPU
 * when the CUDA engine runs (2 or 4 bytes a sample cross the bus, not 8), with VOLK
 * on the CPU.
 *
 * Memory: the constructor counts what the block allocates (the engine and its frame
 * buffer) and refuses, naming fft_size and the bytes needed, what the host (or the
 * process's address-space limit) cannot hold.
 */
class GPUFFT_API sparse_fft : virtual public gr::block
{
public:
    typedef std::shared_ptr<sparse_fft> sptr;

    //! Value of display groups that hold no coefficient, in dB.
    static constexpr float floor_db = -200.0f;

    /*!
     * \param fft_size frame length n (samples), >= 16 (the engine may ask for more)
     * \param k coefficients (exact) or most signals (robust) per frame: 1 <= k <
     * fft_size in exact mode, 1 <= k <= fft_size / 4 in robust mode
     * \param samp_rate input sample rate in Hz (> 0), used for frequencies and times
     * \param display_bins length of the dB vector output, 1 .. min(fft_size, 65536)
     * \param hop samples between the starts of consecutive frames; 0 means fft_size
     * \param backend "auto" (CUDA when a GPU is usable, else CPU), "cpu" or "cuda"
     * \param device_id CUDA device (the GPUFFT_DEVICE environment variable overrides)
     * \param mode "robust" (noise, off-grid tones; k an upper bound) or "exact"
     * (exactly k-sparse on-grid frames)
     * \param min_snr_db robust mode: the weakest tone to find, its power over the noise
     * of one bin of an fft_size-point FFT in dB, [0, 200]
     * \param false_alarm robust mode: chance of a false signal in a frame of pure
     * noise, (0, 0.5]
     * \param dc_mask_bins bins either side of DC left out of the signals (the radio's
     * LO leakage), [0, fft_size / 4); 0 keeps them (a signal on DC is labelled dc)
     * \param bandwidth_rule how a signal's edges are measured: "obw99" (99 % of its
     * power) or "xdb" (20 dB under its peak)
     * \param hold_frames frames a transmission may go unseen and go on, [0, 1000]
     * \param input_type the input's sample type: "fc32" (complex float), "sc16",
     * "sc8" or "cu8" (interleaved integer I/Q, 2 numbers an item)
     * \param floor_frames robust mode's sensing: frames the noise floor is tracked
     * over, [1, 1024]; 1: each frame's own floor; 1 is used while hop <= fft_size / 2
     * \param watch_frames robust mode's sensing: frames a signal is held for (tested
     * again on its own bins at a lower threshold), [0, 8]; 0: none
     *
     * Throws std::invalid_argument (ValueError in Python) naming the bad parameter.
     */
    static sptr make(int fft_size,
                     int k,
                     double samp_rate,
                     int display_bins = 1024,
                     int hop = 0,
                     const std::string& backend = "auto",
                     int device_id = 0,
                     const std::string& mode = "robust",
                     double min_snr_db = 20.0,
                     double false_alarm = 0.01,
                     int dc_mask_bins = 0,
                     const std::string& bandwidth_rule = "obw99",
                     int hold_frames = 1,
                     const std::string& input_type = "fc32",
                     int floor_frames = 8,
                     int watch_frames = 2);

    //! Change k; takes effect at the next frame. Throws for k outside [1, fft_size)
    //! (exact mode) or [1, fft_size / 4] (robust mode).
    virtual void set_k(int k) = 0;
    virtual int k() const = 0;

    //! Change the sample rate used for frequencies and times (an rx_rate tag wins).
    virtual void set_samp_rate(double samp_rate) = 0;
    virtual double samp_rate() const = 0;
    //! Deprecated names of set_samp_rate() and samp_rate(), removed in the next release.
    [[deprecated("use set_samp_rate")]] void set_sample_rate(double samp_rate)
    {
        set_samp_rate(samp_rate);
    }
    [[deprecated("use samp_rate")]] double sample_rate() const { return samp_rate(); }

    virtual int fft_size() const = 0;
    virtual int hop() const = 0;
    virtual int display_bins() const = 0;
    //! The backend in use: "cpu" or "cuda".
    virtual std::string backend() const = 0;
    //! "robust" or "exact".
    virtual std::string mode() const = 0;
    //! Robust mode's sensitivity: the weakest tone to find, dB over one bin's noise.
    virtual double min_snr_db() const = 0;
    //! Robust mode's chance of a false signal in a frame of pure noise.
    virtual double false_alarm() const = 0;
    //! Change the mode ("robust" or "exact"); takes effect at the next frame. Throws
    //! for another name, or when k is out of the new mode's range.
    virtual void set_mode(const std::string& mode) = 0;
    //! Change min_snr_db, [0, 200]; takes effect at the next frame.
    virtual void set_min_snr_db(double min_snr_db) = 0;
    //! Change false_alarm, (0, 0.5]; takes effect at the next frame.
    virtual void set_false_alarm(double false_alarm) = 0;
    //! Frames the noise floor is tracked over, as asked for (make(), set_floor_frames()).
    virtual int floor_frames() const = 0;
    //! Change floor_frames, [1, 1024]; takes effect at the next frame, whose sensing
    //! starts a fresh track (and forgets its held signals). Overlap by half or more
    //! still uses 1.
    virtual void set_floor_frames(int floor_frames) = 0;
    //! Frames a signal is held for (make(), set_watch_frames()).
    virtual int watch_frames() const = 0;
    //! Change watch_frames, [0, 8]; takes effect at the next frame, whose sensing
    //! starts afresh (a fresh floor track, no held signals).
    virtual void set_watch_frames(int watch_frames) = 0;
    virtual int dc_mask_bins() const = 0;
    //! "obw99" or "xdb".
    virtual std::string bandwidth_rule() const = 0;
    virtual int hold_frames() const = 0;
    //! "fc32", "sc16", "sc8" or "cu8".
    virtual std::string input_type() const = 0;
    //! One line from the engine: mode, backend and the parameters it chose, among
    //! them whether it runs sparse or a dense FFT (+ threshold in robust mode).
    virtual std::string describe() const = 0;

    //! Frames transformed so far.
    virtual std::uint64_t frames_processed() const = 0;
    //! Frames skipped because they held non-finite samples or the transform failed.
    virtual std::uint64_t frames_skipped() const = 0;
    //! Frames whose signals hit the cap k (their detections say truncated).
    virtual std::uint64_t frames_truncated() const = 0;
};

} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_SPARSE_FFT_H */
