# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later

# Sparse FFT engine, by mode: common/ (parameters, permutations, host gather, top-k and
# selection on the GPU, the hash kernel), exact/ (exactly k-sparse signals) and robust/
# (noise, off-grid tones, the self-check), behind the one front end sparse_fft_plan.cc.
# The CPU backends always; the CUDA backends when CUDA is found. The block's parameters
# and output formatting live in lib/stream (sparse_block_params.h, sparse_spectrum).
list(APPEND GPUFFT_SOURCES sparse/sparse_fft_plan.cc
            sparse/common/sparse_params.cc sparse/common/sparse_names.cc
            sparse/common/sparse_common.cc
            sparse/common/host_gather.cc
            sparse/exact/exact_params.cc sparse/exact/exact_cpu.cc
            sparse/exact/exact_cpu_values.cc
            sparse/robust/robust_params.cc sparse/robust/robust_cpu.cc
            sparse/robust/robust_tones.cc sparse/robust/robust_check.cc)
list(APPEND GPUFFT_CUDA_SOURCES sparse/common/topk_cuda.cu sparse/common/select_cuda.cu
            sparse/common/sparse_signal_cuda.cu
            sparse/exact/exact_cuda.cc sparse/exact/exact_kernels.cu
            sparse/exact/exact_value_kernels.cu sparse/exact/exact_vote_kernels.cu
            sparse/robust/robust_cuda.cc sparse/robust/robust_kernels.cu
            sparse/robust/robust_round_kernels.cu sparse/robust/robust_tone_kernels.cu
            sparse/robust/robust_dense_kernels.cu sparse/robust/robust_order_kernels.cu
            sparse/robust/probe_kernels.cu)
list(APPEND GPUFFT_BLOCK_SOURCES sparse_fft_impl.cc sparse_fft_messages.cc)
