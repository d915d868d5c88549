/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The keywords that both NUFFT blocks (nufft3_spectrum, nufft_resampler) take last, in
// this order, with their defaults and conversions: one definition for both tables
// (keyword_table.h).

#ifndef INCLUDED_GPUFFT_BINDINGS_NUFFT_BLOCK_KEYWORDS_H
#define INCLUDED_GPUFFT_BINDINGS_NUFFT_BLOCK_KEYWORDS_H

#include "keyword_table.h"
#include "numpy_arrays.h"
#include <cstdint>
#include <string>

namespace gpufft_python {

//! What the shared keywords set; a block's settings derive from it.
struct nufft_block_args {
    double eps = 0;
    std::int64_t epoch = 0;
    double nominal_rate = 0;
    std::string backend;
    int device_id = 0;
};

} // namespace gpufft_python

//! The rows eps=1e-6, epoch=0, nominal_rate=0.0, backend='auto', device_id=0 of a table
//! of keyword<S>, S derived from nufft_block_args.
#define GPUFFT_NUFFT_BLOCK_KEYWORDS(S)                                                \
    { "eps",                                                                          \
      [] { return py::object(py::float_(1e-6)); },                                    \
      [](S& a, const py::handle& v) { a.eps = gpufft_python::eps_arg(v); } },         \
        { "epoch",                                                                    \
          [] { return py::object(py::int_(0)); },                                     \
          [](S& a, const py::handle& v) { a.epoch = gpufft_python::epoch_arg(v); } }, \
        { "nominal_rate",                                                             \
          [] { return py::object(py::float_(0.0)); },                                 \
          [](S& a, const py::handle& v) {                                             \
              a.nominal_rate = gpufft_python::nominal_rate_arg(v);                    \
          } },                                                                        \
        { "backend",                                                                  \
          [] { return py::object(py::str("auto")); },                                 \
          [](S& a, const py::handle& v) {                                             \
              a.backend = gpufft_python::backend_arg(v);                              \
          } },                                                                        \
    {                                                                                 \
        "device_id", [] { return py::object(py::int_(0)); },                          \
            [](S& a, const py::handle& v) {                                           \
                a.device_id = gpufft_python::device_id_arg(v);                        \
            }                                                                         \
    }

#endif /* INCLUDED_GPUFFT_BINDINGS_NUFFT_BLOCK_KEYWORDS_H */
