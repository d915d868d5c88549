/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_POWER_FFTW_WISDOM_H
#define INCLUDED_GPUFFT_POWER_FFTW_WISDOM_H

#include <string>

namespace gr {
namespace gpufft {
namespace power {

/*!
 * The default file of FFTW's single-precision wisdom: $XDG_CACHE_HOME/gr-gpufft/
 * fftwf_wisdom, else ~/.cache/gr-gpufft/fftwf_wisdom; "" when neither can be named.
 */
std::string default_fftwf_wisdom_path();

/*!
 * The file for spectrum_integrator_options::fftw_wisdom: "" the default, "none" no file
 * (returned as ""), anything else itself.
 */
std::string fftwf_wisdom_path(const std::string& option);

/*!
 * Imports the wisdom file `path` into FFTW, once per process and path. Call with the
 * FFTW planner mutex held. A missing or unreadable file is not an error: planning
 * measures again. "" does nothing.
 */
void import_fftwf_wisdom_once(const std::string& path);

/*!
 * Writes FFTW's wisdom to `path` (through a temporary file and a rename, so a reader
 * never sees half of it). Call with the planner mutex held. Failure (a read-only home)
 * is silent: the next run measures again. "" does nothing.
 */
void export_fftwf_wisdom(const std::string& path);

} // namespace power
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_POWER_FFTW_WISDOM_H */
