# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later

# The large-FFT accumulator's file writers (SIGPROC and HDF5 filterbank) and the GNU
# Radio block. The HDF5 writer builds without HDF5 too, then refusing to write
# (lib/CMakeLists.txt). Frames and tags: lib/stream.
list(APPEND GPUFFT_SOURCES accumulator/fbh5_writer.cc accumulator/filterbank_writer.cc)

list(APPEND GPUFFT_BLOCK_SOURCES large_fft_accumulator_impl.cc large_fft_accumulator_messages.cc)
