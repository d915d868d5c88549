# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later

# The sparse_fft block: GNU Radio glue around sparse_fft_plan. The spectrum helpers are
# plain C++ (no GNU Radio) so the C++ tests can reach them.
list(APPEND GPUFFT_SOURCES sparse_block/sparse_spectrum.cc)
list(APPEND GPUFFT_BLOCK_SOURCES sparse_fft_impl.cc)
