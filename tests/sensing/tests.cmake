# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later

gpufft_add_test(test_sensing_cpu SOURCES sensing/test_sensing_cpu.cc)
gpufft_add_test(test_sensing_passes SOURCES sensing/test_sensing_passes.cc)
gpufft_add_test(test_sensing_cuda SOURCES sensing/test_sensing_cuda.cc GPU)
gpufft_add_test(test_transmission_tracker SOURCES sensing/test_transmission_tracker.cc)
gpufft_add_test(test_sensing_track SOURCES sensing/test_sensing_track.cc)
