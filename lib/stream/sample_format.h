/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The sample types the blocks take in (input_type) and the one place that says how each
// becomes complex float: recording_source (python/gpufft/recording.py) reads its scale
// and offset from here through the bindings, so a recording and a live radio give the
// same values. Exported (GPUFFT_API) for the bindings.

#ifndef INCLUDED_GPUFFT_STREAM_SAMPLE_FORMAT_H
#define INCLUDED_GPUFFT_STREAM_SAMPLE_FORMAT_H

#include <gnuradio/gpufft/api.h>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace gpufft {
namespace stream {

/*!
 * Interleaved I/Q as radios deliver it, in GNU Radio's conventions (an item is a vector
 * of 2 numbers, as interleaved_short_to_complex and interleaved_char_to_complex take):
 *  - fc32: complex float (gr_complex), as is;
 *  - sc16: 2 x int16 (USRP, HackRF's tools, Pluto), value / 32768;
 *  - sc8:  2 x int8 (hackrf_transfer .cs8, UHD sc8), value / 128;
 *  - cu8:  2 x uint8 (rtl_sdr), (value - 127.5) / 128.
 */
enum class sample_format { fc32, sc16, sc8, cu8 };

//! How one stored number becomes a float: (stored - offset) * scale.
struct sample_scale {
    double scale = 1.0;
    double offset = 0.0;
};

//! "fc32", "sc16", "sc8" or "cu8"; anything else throws std::invalid_argument naming
//! input_type and the choices.
GPUFFT_API sample_format parse_sample_format(const std::string& name);
GPUFFT_API std::string to_string(sample_format f);
//! The names parse_sample_format() takes, fc32 first.
GPUFFT_API std::vector<std::string> sample_format_names();

//! Bytes of one input item (one complex sample): 8, 4, 2, 2.
GPUFFT_API std::size_t sample_bytes(sample_format f);
GPUFFT_API sample_scale scale_of(sample_format f);

/*!
 * Converts n samples of format f at `in` to complex float at `out` (host memory both;
 * `in` need not be aligned beyond its type). fc32 is a copy; the integer types run
 * through VOLK (volk_16i_s32f_convert_32f, volk_8i_s32f_convert_32f; cu8 as the
 * int16 2u - 255 over 256), exact: every value is a float.
 */
GPUFFT_API void convert_samples(sample_format f,
                                const void* in,
                                std::complex<float>* out,
                                std::int64_t n);

} // namespace stream
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_STREAM_SAMPLE_FORMAT_H */
