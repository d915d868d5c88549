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
 * Where FFTW's single-precision wisdom is kept between runs: $GPUFFT_FFTW_WISDOM, else
 * $XDG_CACHE_HOME/gr-gpufft/fftwf_wisdom, else ~/.cache/gr-gpufft/fftwf_wisdom; "" when
 * none can be named (no HOME). GPUFFT_FFTW_WISDOM= (empty) turns the file off.
 */
std::string fftwf_wisdom_path();

/*!
 * Imports the wisdom file into FFTW, once per process. Call with the FFTW planner
 * mutex held. A missing or unreadable file is not an error: planning measures again.
 */
void import_fftwf_wisdom_once();

/*!
 * Writes FFTW's wisdom to the file (through a temporary file and a rename, so a reader
 * never sees half of it). Call with the planner mutex held. Failure (a read-only home)
 * is silent: the next run measures again.
 */
void export_fftwf_wisdom();

} // namespace power
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_POWER_FFTW_WISDOM_H */
