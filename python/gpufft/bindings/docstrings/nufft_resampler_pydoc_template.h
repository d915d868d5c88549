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


static const char* __doc_gr_gpufft_nufft_resampler = R"doc()doc";


static const char* __doc_gr_gpufft_nufft_resampler_nufft_resampler_0 = R"doc()doc";


static const char* __doc_gr_gpufft_nufft_resampler_nufft_resampler_1 = R"doc()doc";


static const char* __doc_gr_gpufft_nufft_resampler_make = R"doc()doc";


static const char* __doc_gr_gpufft_nufft_resampler_output_rate = R"doc()doc";


static const char* __doc_gr_gpufft_nufft_resampler_bandwidth = R"doc()doc";


static const char* __doc_gr_gpufft_nufft_resampler_frame_len = R"doc()doc";


static const char* __doc_gr_gpufft_nufft_resampler_overlap = R"doc()doc";


static const char* __doc_gr_gpufft_nufft_resampler_backend = R"doc()doc";


static const char* __doc_gr_gpufft_nufft_resampler_frames_processed = R"doc()doc";


static const char* __doc_gr_gpufft_nufft_resampler_frames_skipped = R"doc()doc";
