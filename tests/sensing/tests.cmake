# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later

gpufft_add_test(test_sensing_cpu SOURCES sensing/test_sensing_cpu.cc)
gpufft_add_test(test_sensing_passes SOURCES sensing/test_sensing_passes.cc)
gpufft_add_test(test_sensing_cuda SOURCES sensing/test_sensing_cuda.cc GPU)
# It reads the vendored recordings with the bench's SigMF reader.
target_include_directories(test_sensing_cuda PRIVATE ${PROJECT_SOURCE_DIR}/apps)
target_compile_definitions(test_sensing_cuda
                           PRIVATE GPUFFT_TEST_DATA="${PROJECT_SOURCE_DIR}/tests/data")
gpufft_add_test(test_transmission_tracker SOURCES sensing/test_transmission_tracker.cc)
gpufft_add_test(test_sensing_track SOURCES sensing/test_sensing_track.cc)
