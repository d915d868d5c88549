# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later

# The large-FFT accumulator: plain C++ parts (tag timeline, SIGPROC and HDF5 filterbank
# writers, frame pipeline) and the GNU Radio block on top of them. The HDF5 writer
# builds without HDF5 too, then refusing to write (lib/CMakeLists.txt).
list(APPEND GPUFFT_SOURCES
     accumulator/fbh5_writer.cc
     accumulator/filterbank_writer.cc
     accumulator/host_frame.cc
     accumulator/spectrometer_pipeline.cc
     accumulator/tag_timeline.cc)

list(APPEND GPUFFT_BLOCK_SOURCES large_fft_accumulator_impl.cc)
