/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_SENSING_PLAN_H
#define INCLUDED_GPUFFT_SENSING_PLAN_H

#include <gnuradio/gpufft/api.h>
#include <gnuradio/gpufft/backend.h>
#include <gnuradio/gpufft/log.h>
#include <complex>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gr {
namespace gpufft {

/*!
 * How a signal's edges (and so its bandwidth) are measured (docs/sensing.md).
 * obw99: the occupied bandwidth of ITU-R SM.328: the edges leave 0.5 % of the band's
 *   power above the floor below the lower one and 0.5 % above the upper one.
 * xdb: the outermost bins of the band within bandwidth_db of its peak bin.
 */
enum class bandwidth_rule { obw99, xdb };

//! "obw99" or "xdb"; anything else throws std::invalid_argument naming bandwidth_rule.
GPUFFT_API bandwidth_rule parse_bandwidth_rule(const std::string& name);
GPUFFT_API std::string to_string(bandwidth_rule r);

/*!
 * Options of a sensing plan. Every field is checked by the plan's constructor
 * (std::invalid_argument naming it and its range).
 */
struct sensing_options {
    gpufft::backend backend = backend::automatic;
    int device_id = 0;
    //! The most signals a frame reports, [1, n / 4]; the strongest (by peak) are kept
    //! and the frame says `truncated`. 0: automatic, min(256, n / 4) (the plan's
    //! options() then hold the number).
    int max_signals = 0;
    //! The chance of one or more false signals in a frame of pure noise, (0, 0.5]. A
    //! bin stands out when its power exceeds the local floor x ln(n / false_alarm).
    double false_alarm = 0.01;
    //! Time window: "blackman_harris" (sidelobes -92 dB: a strong carrier does not
    //! raise its neighbours) or "hann" (a narrower main lobe, -31 dB sidelobes).
    std::string window = "blackman_harris";
    //! The rule for a signal's edges and bandwidth.
    gpufft::bandwidth_rule bandwidth_rule = bandwidth_rule::obw99;
    //! xdb rule: the edges' level under the peak, (0, 100] dB.
    double bandwidth_db = 20.0;
    //! Bins either side of DC left out of every band (the radio's LO leakage), [0,
    //! n / 4). 0 keeps them: a signal touching DC is then labelled `dc`.
    int dc_mask_bins = 0;
    //! Runs of bins above the threshold closer than this join into one band, [0, n/4];
    //! 0: automatic (the window's main lobe, 4 bins for Blackman-Harris, 2 for Hann).
    int gap_bins = 0;
    //! Sub-bands of the noise floor estimate, a power of two; 0: automatic (64 of
    //! n / 64 bins, each at least 512 bins, at least 8 of 256 bins or more, and 4 of 256
    //! at n = 1024, where 8 suits a steep roll-off better). The
    //! floor follows a front end's roll-off at this resolution and sees past signals up
    //! to half the band wide; a weak carrier that fills most of a sub-band lifts its
    //! floor by up to 3 dB, so fewer sub-bands suit a band of wide weak carriers.
    int floor_subbands = 0;
    //! Frames the noise floor is tracked over, [1, 1024]; 1: each frame's own floor.
    //! Each sub-band's floor is a running mean of its log over the frames, then an
    //! exponential one of weight 1 / floor_frames, moved by the change the whole band
    //! shares (a gain step); a frame's floor that jumps (4 standard deviations of its
    //! estimate) starts it again, and a floor that rises a little is followed at once.
    //! A sub-band 6 dB or more over its track holds a signal (a burst that fills most
    //! of the band, an 802.11 packet), and the track is kept, for up to floor_frames
    //! frames in a row; so does a band that rose as a burst over all of it for part of
    //! the frame (ADS-B), which the frame's samples tell from a gain step. The threshold
    //! then needs less allowance for the floor's scatter and stays put from frame to
    //! frame, so an emitter near it is found in more frames at the same false_alarm.
    //! Frames must follow one another without much overlap (overlapping frames' floors
    //! are not independent); reset_floor() forgets the track.
    int floor_frames = 8;
    //! Frames a signal is held for, [0, 8]; 0: none. The cores of the last
    //! watch_frames frames' signals (up to 64 bins), a bin wider either side, that no
    //! band of the frame covers are looked at again with the threshold of a test on
    //! their W bins alone, ln(W / false_alarm) (the floor's allowance added): noise
    //! passes it with the chance false_alarm, so a weak emitter near the full band's
    //! threshold is found frame after frame, not every few frames. Such a signal says
    //! `held`; its snr_db is over held_threshold_db, not always over threshold_db.
    int watch_frames = 2;
    //! Bands this many bins wide or narrower get a tone fit (fractional frequency and
    //! complex amplitude), [0, 64].
    int narrow_bins = 16;
    //! The tone fits' budget a frame, [0, 65536]: the strongest narrow signals get one;
    //! the rest keep their peak bin as tone_bin, tone_refined false.
    int max_tone_fits = 64;
    //! CPU backend: FFTW threads; 0: one below n = 2^18, every hardware thread above.
    int threads = 0;
    //! Where the plan's messages go (gnuradio/gpufft/log.h); empty: stderr.
    gpufft::log_handler log;
};

/*!
 * A signal: one occupied band of a frame. Bins are fractional and signed about DC
 * (fftshift order, -n/2 <= bin < n/2), so its frequency is center_freq + bin * rate / n.
 * dBFS: a complex tone exp(2 pi i f t / n) of amplitude 1 is 0 dBFS peak and total.
 */
struct sensed_signal {
    double center_bin = 0;       //!< power-weighted centre of the band
    double lower_bin = 0;        //!< lower edge by the bandwidth rule
    double upper_bin = 0;        //!< upper edge by the bandwidth rule
    double bandwidth_bins = 0;   //!< upper_bin - lower_bin
    double peak_power_dbfs = 0;  //!< the band's strongest bin, as a tone's power
    double total_power_dbfs = 0; //!< the band's power above the floor
    double snr_db = 0;           //!< peak bin over the local floor, per bin
    double floor_dbfs = 0;       //!< the local floor per bin, as a tone's power
    std::int64_t first_bin = 0;  //!< first bin above the threshold (signed)
    std::int64_t last_bin = 0;   //!< last bin above the threshold (signed)
    bool dc = false;             //!< the band covers DC (+-1 bin)
    bool narrow = false;         //!< narrow_bins or narrower: the tone fit is set
    bool tone_refined = false;   //!< the tone fit converged
    bool held = false;   //!< found by the held test (sensing_options::watch_frames)
    double tone_bin = 0; //!< the tone's fractional frequency (signed)
    std::complex<double> tone_amplitude; //!< n a for a tone a exp(2 pi i f t / n)
};

//! What one frame gives.
struct sensing_result {
    //! Ascending in centre frequency.
    std::vector<sensed_signal> signals;
    //! More bands stood out than max_signals; the strongest were kept.
    bool truncated = false;
    //! The median of the per-bin floor over the band, dBFS.
    double noise_floor_dbfs = 0;
    //! This frame's threshold over the local floor, dB (sensing_plan::threshold_db();
    //! it moves as the floor is tracked over frames): every signal's snr_db is above it.
    double threshold_db = 0;
    //! The threshold of the held test this frame (0: nothing held was looked at), dB:
    //! every held signal's snr_db is above it.
    double held_threshold_db = 0;
    //! Bins above the threshold (before the cap).
    std::int64_t bins_above = 0;
    //! Bands found (before the cap).
    std::int64_t bands_found = 0;
    //! Narrow signals left without a tone fit (over max_tone_fits).
    std::int64_t tone_fits_skipped = 0;
};

/*!
 * Spectrum sensing of n-sample frames: one FFT, then the spectrum read once into the
 * bands that stand above a noise floor, each a signal with centre, edges, bandwidth,
 * power and SNR (sensed_signal); narrow ones also get a tone fit.
 *
 * The floor is estimated per sub-band from the logarithm of the windowed periodogram,
 * censored above the floor (so carriers inside a sub-band do not raise it), then opened
 * (a running minimum, then a running maximum, each over a quarter of the band) so that
 * a signal up to half the band wide does not hold the floor up, while a front end's
 * roll-off is followed. Bins above floor x ln(n / false_alarm) form runs; runs closer
 * than gap_bins join into bands (docs/sensing.md).
 *
 * CPU: FFTW, then one pass for the windowed power and the floor statistics and one for
 * the threshold. CUDA: cuFFT and the same passes as kernels; only the bands come back.
 * Both backends give the same signals within float rounding. One plan must not run
 * detect() from two threads at once.
 */
class GPUFFT_API sensing_plan
{
public:
    //! Throws std::invalid_argument naming the parameter (n, max_signals, ...).
    sensing_plan(std::int64_t n, const sensing_options& options = sensing_options());
    ~sensing_plan();
    sensing_plan(sensing_plan&&) noexcept;
    sensing_plan& operator=(sensing_plan&&) noexcept;
    sensing_plan(const sensing_plan&) = delete;
    sensing_plan& operator=(const sensing_plan&) = delete;

    /*!
     * The signals of the n samples at x (host memory, or device memory on the CUDA
     * backend). A frame of zeros gives none. Throws std::invalid_argument when a sample
     * is not finite.
     */
    void detect(const std::complex<float>* x,
                sensing_result& result,
                memory where = memory::host);

    std::int64_t size() const;
    //! The backend in use (never `automatic`).
    gpufft::backend backend() const;
    int device_id() const;
    const sensing_options& options() const;
    //! Change the cap on signals per frame; [1, n / 4].
    void set_max_signals(int max_signals);
    //! Change the false-alarm chance; (0, 0.5].
    void set_false_alarm(double false_alarm);
    /*!
     * The threshold over the local floor of the last frame (before the first: of the
     * first), in dB: 10 log10(ln(n / false_alarm)) raised for the scatter of the floor's
     * estimate, less as the floor is tracked over more frames (floor_frames).
     */
    double threshold_db() const;
    //! Forget the floor tracked over frames and the signals held: the next frame
    //! starts afresh (a retune, a new stream).
    void reset_floor();
    //! Bytes the plan holds (host and device), for memory checks.
    std::int64_t memory_bytes() const;
    //! One line: backend, window, floor sub-bands, threshold, rule.
    std::string describe() const;

    class impl;

private:
    std::unique_ptr<impl> d_impl;
};

//! Smallest n a sensing plan accepts.
constexpr std::int64_t sensing_min_size = 64;

} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_SENSING_PLAN_H */
