/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "pydoc_macros.h"
#define D(...) DOC(gr, gpufft, __VA_ARGS__)
/*
  This file contains placeholders for docstrings for the Python bindings.
  Do not edit! These were automatically extracted during the binding process
  and will be overwritten during the build process
 */


static const char* __doc_gr_gpufft_large_fft_accumulator = R"doc()doc";


static const char* __doc_gr_gpufft_large_fft_accumulator_large_fft_accumulator_0 =
    R"doc()doc";


static const char* __doc_gr_gpufft_large_fft_accumulator_large_fft_accumulator_1 =
    R"doc()doc";


static const char* __doc_gr_gpufft_large_fft_accumulator_make = R"doc()doc";


static const char* __doc_gr_gpufft_large_fft_accumulator_set_n_integrations = R"doc()doc";


static const char* __doc_gr_gpufft_large_fft_accumulator_n_integrations = R"doc()doc";


static const char* __doc_gr_gpufft_large_fft_accumulator_set_mode = R"doc()doc";


static const char* __doc_gr_gpufft_large_fft_accumulator_mode = R"doc()doc";


static const char* __doc_gr_gpufft_large_fft_accumulator_set_output_db = R"doc()doc";


static const char* __doc_gr_gpufft_large_fft_accumulator_output_db = R"doc()doc";


static const char* __doc_gr_gpufft_large_fft_accumulator_fft_size = R"doc()doc";


static const char* __doc_gr_gpufft_large_fft_accumulator_output_bins = R"doc()doc";


static const char* __doc_gr_gpufft_large_fft_accumulator_band_start = R"doc()doc";


static const char* __doc_gr_gpufft_large_fft_accumulator_band_stop = R"doc()doc";


static const char* __doc_gr_gpufft_large_fft_accumulator_overlap = R"doc()doc";


static const char* __doc_gr_gpufft_large_fft_accumulator_window = R"doc()doc";


static const char* __doc_gr_gpufft_large_fft_accumulator_file_format = R"doc()doc";


static const char* __doc_gr_gpufft_large_fft_accumulator_backend = R"doc()doc";


static const char* __doc_gr_gpufft_large_fft_accumulator_describe = R"doc()doc";


static const char* __doc_gr_gpufft_large_fft_accumulator_fraction_filled = R"doc()doc";


static const char* __doc_gr_gpufft_large_fft_accumulator_integrations_done = R"doc()doc";


static const char* __doc_gr_gpufft_large_fft_accumulator_frames_skipped = R"doc()doc";
