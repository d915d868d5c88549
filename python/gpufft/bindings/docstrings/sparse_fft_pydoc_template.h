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


static const char* __doc_gr_gpufft_sparse_fft = R"doc()doc";


static const char* __doc_gr_gpufft_sparse_fft_sparse_fft_0 = R"doc()doc";


static const char* __doc_gr_gpufft_sparse_fft_sparse_fft_1 = R"doc()doc";


static const char* __doc_gr_gpufft_sparse_fft_make = R"doc()doc";


static const char* __doc_gr_gpufft_sparse_fft_set_k = R"doc()doc";


static const char* __doc_gr_gpufft_sparse_fft_k = R"doc()doc";


static const char* __doc_gr_gpufft_sparse_fft_set_sample_rate = R"doc()doc";


static const char* __doc_gr_gpufft_sparse_fft_sample_rate = R"doc()doc";


static const char* __doc_gr_gpufft_sparse_fft_fft_size = R"doc()doc";


static const char* __doc_gr_gpufft_sparse_fft_hop = R"doc()doc";


static const char* __doc_gr_gpufft_sparse_fft_display_bins = R"doc()doc";


static const char* __doc_gr_gpufft_sparse_fft_backend = R"doc()doc";


static const char* __doc_gr_gpufft_sparse_fft_describe = R"doc()doc";


static const char* __doc_gr_gpufft_sparse_fft_frames_processed = R"doc()doc";


static const char* __doc_gr_gpufft_sparse_fft_frames_skipped = R"doc()doc";
