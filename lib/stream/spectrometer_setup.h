/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_STREAM_SPECTROMETER_SETUP_H
#define INCLUDED_GPUFFT_STREAM_SPECTROMETER_SETUP_H

#include "accumulator/filterbank_writer.h"
#include "stream/spectrometer_pipeline.h"
#include <gnuradio/gpufft/large_fft_plan.h>
#include <gnuradio/gpufft/log.h>
#include <gnuradio/gpufft/spectrum_integrator.h>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gr {
namespace gpufft {
namespace stream {

/*!
 * The large_fft_accumulator block's parameters as make() takes them, with make()'s
 * defaults: the one list of them (the block fills it, checked_spectrometer_setup()
 * checks it; docs/large_fft_accumulator.md gives each range).
 */
struct spectrometer_settings {
    std::int64_t fft_size = 1024; //!< samples per frame, >= 2
    int n_integrations = 1;       //!< frames per output spectrum, >= 1
    std::int64_t output_bins = 1024;
    std::int64_t band_start = 0;
    std::int64_t band_stop = 0; //!< 0: fft_size
    std::int64_t overlap = 0;
    std::string window = "none";
    std::string mode = "mean";
    bool output_db = false;
    double samp_rate = 1.0;      //!< Hz, until an rx_rate tag
    double center_freq = 0.0;    //!< Hz, until an rx_freq tag
    std::string filterbank_path; //!< empty: no filterbank
    std::string source_name = "gpufft";
    std::string backend = "auto";
    int device_id = 0;
    std::uint64_t memory_budget = 0; //!< bytes per device; 0: the engine's default
    std::string file_format = "auto";
    std::vector<int> devices;
    accumulator::filterbank_pointing pointing; //!< src_raj, src_dej, az/za_start
    //! The input's sample type (stream/sample_format.h): "fc32", "sc16", "sc8", "cu8".
    std::string input_type = "fc32";
};

//! The large_fft_accumulator block's parameters, checked.
struct spectrometer_setup {
    pipeline_config config;
    bool output_db = false;
    double samp_rate = 1.0;      //!< Hz, until an rx_rate tag
    double center_freq = 0.0;    //!< Hz, until an rx_freq tag
    std::string filterbank_path; //!< empty: no filterbank
    std::string source_name;
    bool filterbank_h5 = false; //!< HDF5 filterbank rather than SIGPROC .fil
    //! A file_format that disagrees with the path's extension, in words; "" if none.
    std::string format_warning;
    accumulator::filterbank_pointing pointing; //!< src_raj, src_dej, az/za_start
    large_fft_options engine; //!< backend, device_id, memory_budget, devices
};

/*!
 * The block's parameters checked and gathered, the one validator of them:
 * std::invalid_argument naming the first bad one and its valid range (a filterbank path
 * that cannot be written, the file itself if it exists, else its directory, is refused
 * here: start() runs on the block's thread, where it cannot make tb.start() raise).
 */
spectrometer_setup checked_spectrometer_setup(const spectrometer_settings& settings);

/*!
 * "fil" or "h5" for `file_format` and `path`: "auto" takes "h5" for a path ending in
 * .h5, .hdf5 or .fbh5 and "fil" otherwise; "fil" and "h5" stay as given, with
 * `warning` set when the extension says the other. Anything else throws
 * std::invalid_argument naming file_format.
 */
std::string resolve_file_format(const std::string& file_format,
                                const std::string& path,
                                std::string& warning);

/*!
 * The setup's engine, made now so that one that cannot do the size (budget too small,
 * CUDA asked for and missing) fails when the block is made, not mid-run. Sets
 * config.pinned and config.device_id from it; on the CPU, whose working memory is host
 * memory too, refuses (std::invalid_argument) two frames and that memory above 90% of
 * the host's.
 */
std::shared_ptr<spectrum_integrator> make_spectrometer_integrator(spectrometer_setup& s,
                                                                  log_handler log);

//! The line the block logs when made: size (as a power of two when it is one),
//! backend, and where the integration runs.
std::string describe_spectrometer(const pipeline_config& config,
                                  const spectrum_integrator& integrator);

//! A warning when the two frames need more host memory than is available now, else "".
std::string frame_memory_warning(std::int64_t fft_size);

} // namespace stream
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_STREAM_SPECTROMETER_SETUP_H */
