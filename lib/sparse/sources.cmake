# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later

# Sparse FFT engine: plan front end, parameters/cost model and CPU backend always;
# the CUDA backend when CUDA is found.
list(APPEND GPUFFT_SOURCES sparse/sparse_fft_plan.cc sparse/sparse_spectrum.cc sparse/sparse_params.cc sparse/robust_params.cc
            sparse/robust_cpu.cc sparse/robust_tones.cc sparse/robust_check.cc
            sparse/sparse_cpu.cc sparse/sparse_cpu_values.cc sparse/host_gather.cc)
list(APPEND GPUFFT_CUDA_SOURCES sparse/sparse_cuda.cc sparse/sparse_kernels.cu
            sparse/sparse_value_kernels.cu sparse/sparse_vote_kernels.cu sparse/topk_cuda.cu
            sparse/sparse_signal_cuda.cu sparse/robust_cuda.cc sparse/robust_kernels.cu
            sparse/robust_round_kernels.cu sparse/robust_tone_kernels.cu
            sparse/robust_dense_kernels.cu sparse/robust_order_kernels.cu sparse/select_cuda.cu)
list(APPEND GPUFFT_BLOCK_SOURCES sparse_fft_impl.cc sparse_fft_messages.cc)
