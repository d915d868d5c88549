# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later

# Spectrum sensing: signals (occupied bands) per frame. Plan front end, parameters and
# CPU backend always; the CUDA backend when CUDA is found.
list(APPEND GPUFFT_SOURCES sensing/sensing_plan.cc sensing/sensing_params.cc sensing/sensing_cpu.cc
     sensing/sensing_cpu_loops.cc sensing/sensing_fit.cc)
list(APPEND GPUFFT_CUDA_SOURCES sensing/sensing_cuda.cc sensing/sensing_threshold_kernels.cu
     sensing/sensing_band_kernels.cu)

# The loops' vector and compiler-made forms must give the same bits (test_sensing_passes):
# GCC contracts a * b + c into one FMA only from -O2, so a Debug build compiles them at -O2.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    set_source_files_properties(sensing/sensing_cpu_loops.cc PROPERTIES COMPILE_OPTIONS
                                "$<$<CONFIG:Debug>:-O2>")
endif()
