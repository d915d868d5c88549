/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "accumulator/fbh5_writer.h"
#include "stream/filterbank_recorder.h"
#include <cstdio>
#include <sstream>
#include <stdexcept>

namespace gr {
namespace gpufft {
namespace stream {

filterbank_recorder::filterbank_recorder(std::string path,
                                         std::string source_name,
                                         bool h5,
                                         log_handler log,
                                         accumulator::filterbank_pointing pointing)
    : d_path(std::move(path)),
      d_source_name(std::move(source_name)),
      d_h5(h5),
      d_log(std::move(log)),
      d_pointing(pointing)
{
    accumulator::check_pointing(d_pointing);
}

void filterbank_recorder::start()
{
    d_writer.reset();
    d_warned_retune = false;
    if (d_path.empty())
        return;
    std::FILE* f = std::fopen(d_path.c_str(), "wb");
    if (!f)
        throw std::runtime_error("filterbank_path: cannot write '" + d_path + "'");
    std::fclose(f);
    d_started = true;
}

void filterbank_recorder::write(const integrated_spectrum& s,
                                double freq,
                                const spectrum_axes& axes,
                                double tstart_mjd)
{
    if (d_path.empty())
        return;
    if (!d_writer) {
        accumulator::filterbank_header h;
        h.source_name = d_source_name;
        h.rawdatafile = "gr-gpufft large_fft_accumulator";
        // Divided, not multiplied by 1e-6 (which is not exact in binary): 1418976234.375
        // Hz must read 1418.976234375 MHz, not 1418.9762343749999.
        h.fch1 = axes.fch1 / 1e6;
        h.foff = axes.foff / 1e6;
        h.src_raj = d_pointing.src_raj;
        h.src_dej = d_pointing.src_dej;
        h.az_start = d_pointing.az_start;
        h.za_start = d_pointing.za_start;
        h.nchans = int(s.power.size());
        h.tstart = tstart_mjd;
        h.tsamp = axes.tsamp;
        if (d_h5) {
            accumulator::fbh5_options fo;
            fo.log = d_log;
            d_writer = std::make_unique<accumulator::fbh5_writer>(d_path, h, fo);
        } else {
            d_writer = std::make_unique<accumulator::filterbank_writer>(d_path, h);
        }
        d_freq = freq;
        d_integrations = s.n_integrations;
    } else if (!d_warned_retune &&
               (freq != d_freq || s.n_integrations != d_integrations)) {
        d_warned_retune = true;
        std::ostringstream os;
        os << "rx_freq (" << freq << " Hz) or n_integrations (" << s.n_integrations
           << ") changed; the header of " << d_path << " describes " << d_freq
           << " Hz and " << d_integrations << " integrations";
        log_message(d_log, log_level::warning, os.str());
    }
    d_writer->write_spectrum(s.power.data());
}

void filterbank_recorder::finish()
{
    if (!d_writer) {
        if (d_started && std::remove(d_path.c_str()) == 0)
            log_message(d_log,
                        log_level::warning,
                        "no spectrum was integrated: removed the empty " + d_path);
        d_started = false;
        return;
    }
    d_started = false;
    log_message(d_log,
                log_level::info,
                "wrote " + std::to_string(d_writer->spectra_written()) + " spectra to " +
                    d_writer->path());
    d_writer.reset();
}

} // namespace stream
} // namespace gpufft
} // namespace gr
