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
 * Imports the wisdom file `path` into FFTW, once per process and path. Call with the
 * FFTW planner mutex held. A missing or unreadable file is not an error: planning
 * measures again. "" does nothing.
 */
//! How the fused CPU path plans its FFT (spectrum_integrator_options::fftw_planner).
enum class fftw_planning { automatic, measure, estimate };

//! "auto", "measure" or "estimate"; std::invalid_argument naming fftw_planner otherwise.
fftw_planning parse_fftw_planner(const std::string& name);

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
