# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later

# The accumulator's plain C++ parts (no GNU Radio, no GPU): quick CPU tests.
gpufft_add_test(test_accumulator_parts SOURCES accumulator/test_accumulator_parts.cc)
# The HDF5 filterbank writer, read back through the HDF5 C API (without HDF5 in the
# build: that it refuses, saying why).
gpufft_add_test(test_fbh5_writer SOURCES accumulator/test_fbh5_writer.cc)
if(GPUFFT_HAVE_HDF5)
    target_compile_definitions(test_fbh5_writer PRIVATE GPUFFT_HAVE_HDF5=1)
    target_include_directories(test_fbh5_writer PRIVATE ${HDF5_INCLUDE_DIRS})
endif()
