/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_LARGE_FFT_ACCUMULATOR_H
#define INCLUDED_GPUFFT_LARGE_FFT_ACCUMULATOR_H

#include <gnuradio/block.h>
#include <gnuradio/gpufft/api.h>
#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace gpufft {

/*!
 * \brief Integrating spectrometer with very long FFTs (up to 2^32 points and more).
 * \ingroup gpufft
 *
 * \details
 * Cuts the complex input stream into frames of \p fft_size samples (consecutive frames
 * share \p overlap samples), gathered in host memory (page-locked when the CUDA engine
 * runs) while the previous frame is windowed and transformed by the large-FFT engine
 * on a worker thread, so the input does not wait for the transform. The power |X|^2 of
 * \p n_integrations frames is averaged (\p mode "mean") or max-held ("max"), and each
 * integration gives one output item: a float vector of \p output_bins channels, the
 * DC-centred bins [band_start, band_stop) of the FFT (band_stop = 0: fft_size) with
 * (band_stop - band_start) / output_bins adjacent bins averaged per channel. Power is
 * normalised by the window's coherent gain: a tone of amplitude A on a bin centre
 * reads A^2 in its bin (before channel averaging). Linear, or dB when \p output_db.
 *
 * Each output also goes out as a PDU on the \c spectrum message port, its metadata
 * holding rx_time (of the integration's first sample), rx_freq, rx_rate, fch1 (centre
 * of the first channel, Hz), foff (channel width, Hz), nchans, tsamp, integrations
 * (frames averaged) and skipped (frames dropped for non-finite samples). rx_time,
 * rx_freq and rx_rate stream tags are read (until they come, \p samp_rate and
 * \p center_freq are used, and the host clock stands in for rx_time) and re-tagged on
 * each output item. With \p filterbank_path set, the linear spectra are also written
 * to a filterbank file (nbits 32, nifs 1, fch1/foff in MHz, tstart in MJD from
 * rx_time, tsamp = n_integrations * (fft_size - overlap) / rate, \p source_name,
 * and the pointing \p src_raj, \p src_dej, \p az_start, \p za_start, 0 unless
 * given): SIGPROC .fil when \p file_format is "fil", Breakthrough Listen's HDF5
 * filterbank (FBH5, as rawspec -j and blimpy write it) when it is "h5", and by the
 * path's extension when it is "auto" (.h5, .hdf5, .fbh5: HDF5; else SIGPROC); a
 * format that disagrees with the extension is logged as a warning. A run that
 * integrates no spectrum leaves no file.
 *
 * The stream output is optional: without it (a file-only or message-only
 * flowgraph) the block is a sink, and the spectra that complete when the input ends
 * still reach the file and the \c spectrum port.
 * The \c progress port publishes a dict (fraction_filled, frames_done,
 * n_integrations, integrations_done, skipped_frames) at most once a second.
 *
 * Input: complex float (\p input_type "fc32"), or interleaved integer I/Q as radios
 * deliver it, an item being a vector of 2 numbers as GNU Radio's interleaved
 * short/char to complex blocks take: "sc16" (2 x int16, value / 32768), "sc8"
 * (2 x int8, value / 128) or "cu8" (2 x uint8, RTL-SDR: (value - 127.5) / 128), the
 * scaling recording_source uses. On the fused GPU path the frame keeps them as they
 * came and the GPU converts them (only 4 or 2 bytes a sample cross PCIe); otherwise
 * they are converted with VOLK as they are copied into the frame.
 *
 * \p backend ("auto", "cpu", "cuda"), \p device_id, \p memory_budget (bytes of
 * working memory for the engine, per device; 0: its default) and \p devices go to
 * the engine (spectrum_integrator). With several \p devices, a frame that fits each
 * device's budget goes whole to the GPUs in turn (each accumulates its frames; the
 * spectra are merged at the end of each integration), so one GPU's copy of a frame
 * overlaps another's transform, and where NVLink joins the GPUs each frame's
 * second half crosses the next GPU's PCIe link; a larger frame has its out-of-card
 * passes dealt out to all of them. describe() says which.
 * Parameters out of range throw std::invalid_argument (ValueError in Python) naming the
 * parameter and the valid range, including an fft_size whose two frames would not fit
 * in host memory.
 */
class GPUFFT_API large_fft_accumulator : virtual public gr::block
{
public:
    typedef std::shared_ptr<large_fft_accumulator> sptr;

    /*!
     * \param fft_size samples per frame, >= 2 (any size; sizes made of 2, 3, 5, 7 are
     * fast) \param n_integrations frames per output spectrum, >= 1 \param output_bins
     * channels per output, dividing band_stop - band_start \param band_start first
     * DC-centred bin of the band, in [0, fft_size) \param band_stop end of the band, in
     * (band_start, fft_size]; 0 means fft_size \param overlap samples shared by
     * consecutive frames, in [0, fft_size) \param window "none", "hann", "hamming",
     * "blackman", "blackman-harris", "flattop" \param mode "mean" or "max" \param
     * output_db output 10 log10(power) instead of power \param samp_rate sample rate in
     * Hz until an rx_rate tag says otherwise, > 0 \param center_freq centre frequency in
     * Hz until an rx_freq tag says otherwise \param filterbank_path SIGPROC .fil file to
     * write; empty for none \param source_name source_name field of the filterbank header
     * \param backend "auto", "cpu" or "cuda"
     * \param device_id CUDA device
     * \param memory_budget engine working memory in bytes; 0 for its default
     * \param file_format "auto" (from the extension of \p filterbank_path), "fil"
     * (SIGPROC) or "h5" (HDF5 filterbank; needs a build with HDF5)
     * \param devices CUDA devices ([]: device_id alone; each listed once;
     * memory_budget per device): whole frames dealt to them in turn when a frame fits
     * each device's budget, else each frame's out-of-card passes dealt out to them
     * \param src_raj source right ascension for the filterbank header, hhmmss.s
     * (SIGPROC's convention), in [0, 240000)
     * \param src_dej source declination, ddmmss.s, in [-900000, 900000]
     * \param az_start telescope azimuth at the start, degrees, in [0, 360]
     * \param za_start telescope zenith angle at the start, degrees, in [0, 180]
     * \param input_type the input's sample type: "fc32" (complex float), "sc16",
     * "sc8" or "cu8" (interleaved integer I/Q, 2 numbers an item)
     */
    static sptr make(std::int64_t fft_size,
                     int n_integrations,
                     std::int64_t output_bins,
                     std::int64_t band_start = 0,
                     std::int64_t band_stop = 0,
                     std::int64_t overlap = 0,
                     const std::string& window = "none",
                     const std::string& mode = "mean",
                     bool output_db = false,
                     double samp_rate = 1.0,
                     double center_freq = 0.0,
                     const std::string& filterbank_path = "",
                     const std::string& source_name = "gpufft",
                     const std::string& backend = "auto",
                     int device_id = 0,
                     std::uint64_t memory_budget = 0,
                     const std::string& file_format = "auto",
                     const std::vector<int>& devices = std::vector<int>(),
                     double src_raj = 0.0,
                     double src_dej = 0.0,
                     double az_start = 0.0,
                     double za_start = 0.0,
                     const std::string& input_type = "fc32");

    //! Frames per output; applies from the next integration to start.
    virtual void set_n_integrations(int n_integrations) = 0;
    virtual int n_integrations() const = 0;
    //! "mean" or "max"; applies from the next integration to start.
    virtual void set_mode(const std::string& mode) = 0;
    virtual std::string mode() const = 0;
    //! dB (true) or linear (false) output vectors and PDUs, from the next output on.
    virtual void set_output_db(bool output_db) = 0;
    virtual bool output_db() const = 0;

    virtual std::int64_t fft_size() const = 0;
    virtual std::int64_t output_bins() const = 0;
    virtual std::int64_t band_start() const = 0;
    virtual std::int64_t band_stop() const = 0;
    virtual std::int64_t overlap() const = 0;
    virtual std::string window() const = 0;
    //! "fc32", "sc16", "sc8" or "cu8".
    virtual std::string input_type() const = 0;
    //! "fil" or "h5": the format of filterbank_path ("auto" resolved).
    virtual std::string file_format() const = 0;

    //! The engine's backend in use: "cpu" or "cuda".
    virtual std::string backend() const = 0;
    //! The engine's pass schedule in words.
    virtual std::string describe() const = 0;

    //! Fraction of the current frame filled, in [0, 1).
    virtual double fraction_filled() const = 0;
    virtual std::uint64_t integrations_done() const = 0;
    virtual std::uint64_t frames_skipped() const = 0;
};

} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_LARGE_FFT_ACCUMULATOR_H */
