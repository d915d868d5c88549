/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The conversions of the parameters that the sparse_fft_plan binding and the sparse_fft
// block's binding (constructor and setters) share, written once, so that a wrong type
// reads the same from the plan, the block and a setter. Ranges are the engine's one
// owner's (sparse_fft_plan.h) to refuse, in its words; here only what is not a number
// or a name.

#ifndef INCLUDED_GPUFFT_BINDINGS_SPARSE_KEYWORDS_H
#define INCLUDED_GPUFFT_BINDINGS_SPARSE_KEYWORDS_H

#include "numpy_arrays.h"
#include <gnuradio/gpufft/sparse_fft_plan.h>
#include <string>

namespace gpufft_python {

//! What k must be, for a wrong type: its range is check_sparse_fft_k's.
constexpr const char* sparse_k_valid = "a whole number of coefficients or tones";

inline std::string sparse_mode_arg(const py::handle& v)
{
    static const std::string names = gr::gpufft::sparse_fft_mode_names();
    return text(v, "mode", names.c_str());
}
inline double sparse_min_snr_db_arg(const py::handle& v)
{
    // NaN and infinity pass, for check_sparse_fft_min_snr_db to refuse with its range.
    return real_number(v, "min_snr_db", "a number of dB in [0, 200]", false);
}
inline double sparse_false_alarm_arg(const py::handle& v)
{
    return real_number(v, "false_alarm", "a probability in (0, 0.5]", false);
}

} // namespace gpufft_python

#endif /* INCLUDED_GPUFFT_BINDINGS_SPARSE_KEYWORDS_H */
