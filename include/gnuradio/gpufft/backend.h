/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_BACKEND_H
#define INCLUDED_GPUFFT_BACKEND_H

#include <gnuradio/gpufft/api.h>
#include <gnuradio/gpufft/log.h>
#include <string>

namespace gr {
namespace gpufft {

//! Where an engine runs. `automatic` picks CUDA when a usable device exists, else CPU.
enum class backend { automatic, cpu, cuda };

//! Where the arrays handed to execute() live.
enum class memory { host, device };

//! Sample precision of a plan: complex64 (single) or complex128 (double).
enum class precision { single, double_ };

//! Transform direction; the sign of the exponent, as in FFTW (unnormalized both ways).
enum class direction { forward = -1, backward = +1 };

// The names of backend and precision come from one table each (lib/core/backend.cc),
// shared by the engines, lib/stream and the Python bindings.

//! "auto", "cpu" or "cuda" -> backend; anything else throws std::invalid_argument.
GPUFFT_API backend parse_backend(const std::string& name);
GPUFFT_API std::string to_string(backend b);
//! "'auto', 'cpu' or 'cuda'": the accepted names, for messages.
GPUFFT_API std::string backend_names();

//! "single"/"float"/"complex64" or "double"/"complex128" -> precision.
GPUFFT_API precision parse_precision(const std::string& name);
GPUFFT_API std::string to_string(precision p);
//! "'single' or 'double'": the accepted names, for messages.
GPUFFT_API std::string precision_names();

/*!
 * Turns a requested backend into the one a plan will use.
 *  - automatic: cuda if a device is usable, otherwise cpu, with a notice so a user
 *    knows the GPU was not used: to `log` at info level, or once per process on
 *    stderr when `log` is empty;
 *  - cuda: throws std::runtime_error when the library was built without CUDA or no
 *    usable device exists, and std::invalid_argument for a device id out of range.
 */
GPUFFT_API backend resolve_backend(backend requested,
                                   int device_id,
                                   const log_handler& log = {});

} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_BACKEND_H */
