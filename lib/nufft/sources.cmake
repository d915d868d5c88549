# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later

# Type-3 NUFFT engine: parameter choice and CPU backend (plain C++), CUDA backend.
list(APPEND GPUFFT_SOURCES nufft/nufft3_plan.cc nufft/nufft3_names.cc nufft/nufft3_params.cc nufft/nufft3_cpu_makeplan.cc
     nufft/nufft3_cpu_setpts.cc nufft/nufft3_cpu_execute.cc
     nufft/nufft3_direct_sum.cc
     nufft/nufft3_grid_fft_cpu.cc nufft/nufft3_spread_layout.cc)
list(APPEND GPUFFT_CUDA_SOURCES nufft/nufft3_cuda_makeplan.cc nufft/nufft3_cuda_setpts.cc
     nufft/nufft3_cuda_execute.cc nufft/nufft3_grid_fft_cuda.cc
     nufft/nufft3_setpoints_kernels.cu
     nufft/nufft3_spread_kernels.cu nufft/nufft3_direct_kernels.cu
     nufft/nufft3_interp_kernels.cu nufft/nufft3_direct_sum_kernels.cu)
list(APPEND GPUFFT_BLOCK_SOURCES nufft3_spectrum_impl.cc)
list(APPEND GPUFFT_SOURCES nufft/band_limited_fit.cc)
list(APPEND GPUFFT_BLOCK_SOURCES nufft_resampler_impl.cc)
