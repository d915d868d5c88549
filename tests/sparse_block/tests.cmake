# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later

# The sparse_fft block's GNU Radio-free helpers (the block itself: python/gpufft/qa_sparse_fft.py).
gpufft_add_test(test_sparse_spectrum SOURCES sparse_block/test_sparse_spectrum.cc)
