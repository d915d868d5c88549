# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later

gpufft_add_test(test_sparse_fft_cpu SOURCES sparse/test_sparse_fft_cpu.cc)
gpufft_add_test(test_sparse_host_gather SOURCES sparse/test_sparse_host_gather.cc)
gpufft_add_test(test_sparse_fft_cuda SOURCES sparse/test_sparse_fft_cuda.cc GPU)
gpufft_add_test(test_sparse_robust_cpu SOURCES sparse/test_sparse_robust_cpu.cc)
gpufft_add_test(test_sparse_robust_cuda SOURCES sparse/test_sparse_robust_cuda.cc GPU)
gpufft_add_test(test_select_cuda SOURCES sparse/test_select_cuda.cc GPU)
gpufft_add_test(test_sparse_spectrum SOURCES sparse/test_sparse_spectrum.cc)
# The sublinear path's self-check on real frames (tests/data) and on synthetic ones.
gpufft_add_test(test_sparse_self_check SOURCES sparse/test_sparse_self_check.cc)
target_compile_definitions(test_sparse_self_check
                           PRIVATE GPUFFT_TEST_DATA="${PROJECT_SOURCE_DIR}/tests/data")
target_compile_definitions(test_sparse_robust_cuda
                           PRIVATE GPUFFT_TEST_DATA="${PROJECT_SOURCE_DIR}/tests/data")
