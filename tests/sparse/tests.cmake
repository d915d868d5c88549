# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later

# The cases every backend must pass, written once (sparse_variants.h): one program per
# mode runs them on the CPU (label cpu), one on CUDA with host and with device frames
# (label gpu; it skips without a GPU).
foreach(mode fft robust)
    gpufft_add_test(test_sparse_${mode}_backends_cpu
                    SOURCES sparse/test_sparse_${mode}_backends.cc)
    gpufft_add_test(test_sparse_${mode}_backends_cuda
                    SOURCES sparse/test_sparse_${mode}_backends.cc GPU)
    target_compile_definitions(test_sparse_${mode}_backends_cuda PRIVATE GPUFFT_TEST_ON_CUDA)
endforeach()
# The self-check reads the vendored real frames.
foreach(backend cpu cuda)
    target_compile_definitions(test_sparse_robust_backends_${backend}
                               PRIVATE GPUFFT_TEST_DATA="${PROJECT_SOURCE_DIR}/tests/data")
endforeach()
# Each backend's own cases.
gpufft_add_test(test_sparse_fft_cpu SOURCES sparse/test_sparse_fft_cpu.cc)
gpufft_add_test(test_sparse_host_gather SOURCES sparse/test_sparse_host_gather.cc)
gpufft_add_test(test_sparse_fft_cuda SOURCES sparse/test_sparse_fft_cuda.cc GPU)
gpufft_add_test(test_sparse_robust_cuda SOURCES sparse/test_sparse_robust_cuda.cc GPU)
gpufft_add_test(test_select_cuda SOURCES sparse/test_select_cuda.cc GPU)
gpufft_add_test(test_sparse_spectrum SOURCES sparse/test_sparse_spectrum.cc)
# The parts of the sublinear path's self-check against direct computation.
gpufft_add_test(test_sparse_self_check SOURCES sparse/test_sparse_self_check.cc)
