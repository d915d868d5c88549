# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later

# The accumulator's plain C++ parts (no GNU Radio, no GPU): quick CPU tests.
gpufft_add_test(test_accumulator_parts SOURCES accumulator/test_accumulator_parts.cc)
gpufft_add_test(test_spectrometer_pipeline SOURCES accumulator/test_spectrometer_pipeline.cc)
# The same pipeline on the CUDA engine with page-locked frames (skips without a GPU).
gpufft_add_test(test_accumulator_cuda SOURCES accumulator/test_accumulator_cuda.cc GPU)
