/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_STREAM_FILTERBANK_RECORDER_H
#define INCLUDED_GPUFFT_STREAM_FILTERBANK_RECORDER_H

#include "accumulator/filterbank_writer.h"
#include "stream/spectrometer_pipeline.h"
#include "stream/spectrum_axes.h"
#include <gnuradio/gpufft/log.h>
#include <memory>
#include <string>

namespace gr {
namespace gpufft {
namespace stream {

/*!
 * The accumulator's filterbank file (SIGPROC .fil or HDF5 .h5): opened at start(), its
 * header made from the first spectrum (a filterbank has one header per file, so a later
 * retune or change of n_integrations is logged once), the spectra appended as linear
 * power, and closed at finish().
 */
class filterbank_recorder
{
public:
    //! An empty path records nothing. `pointing` goes into the header as it is.
    filterbank_recorder(std::string path,
                        std::string source_name,
                        bool h5,
                        log_handler log,
                        accumulator::filterbank_pointing pointing = {});

    bool enabled() const { return !d_path.empty(); }
    const std::string& path() const { return d_path; }

    /*!
     * A new run: truncates the file now, so that one that cannot be written fails here
     * (std::runtime_error naming filterbank_path) rather than at the first spectrum.
     */
    void start();

    /*!
     * Appends `s` (linear power), whose first frame was at centre frequency `freq` and
     * began at `tstart_mjd`; the first spectrum of a run writes the header.
     */
    void write(const integrated_spectrum& s,
               double freq,
               const spectrum_axes& axes,
               double tstart_mjd);

    /*!
     * Closes the file, logging how many spectra it holds. A run that wrote none
     * removes the file start() made (it would have no header, which every
     * filterbank reader refuses) and says so.
     */
    void finish();

private:
    const std::string d_path;
    const std::string d_source_name;
    const bool d_h5;
    const log_handler d_log;
    const accumulator::filterbank_pointing d_pointing;
    bool d_started = false; // start() made the file, which finish() must account for
    std::unique_ptr<accumulator::spectrum_file_writer> d_writer;
    double d_freq = 0.0; // rx_freq and n_integrations the header describes
    int d_integrations = 0;
    bool d_warned_retune = false;
};

} // namespace stream
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_STREAM_FILTERBANK_RECORDER_H */
