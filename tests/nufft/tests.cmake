# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later

gpufft_add_test(test_nufft3_cpu SOURCES nufft/test_nufft3_cpu.cc)
gpufft_add_test(test_nufft3_cuda SOURCES nufft/test_nufft3_cuda.cc GPU)
# The cases every backend must pass, written once (nufft3_variants.h): one program runs
# them on the CPU (label cpu), one on CUDA with host and with device arrays (label gpu;
# it skips without a GPU).
gpufft_add_test(test_nufft3_backends_cpu SOURCES nufft/test_nufft3_backends.cc)
gpufft_add_test(test_nufft3_backends_cuda SOURCES nufft/test_nufft3_backends.cc GPU)
target_compile_definitions(test_nufft3_backends_cuda PRIVATE GPUFFT_TEST_ON_CUDA)
gpufft_add_test(test_band_limited_fit SOURCES nufft/test_band_limited_fit.cc)
gpufft_add_test(test_nufft3_spread_layout SOURCES nufft/test_nufft3_spread_layout.cc)
gpufft_add_test(test_nufft3_params SOURCES nufft/test_nufft3_params.cc)
gpufft_add_test(test_nufft_stream_parts SOURCES nufft/test_nufft_stream_parts.cc)
