# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later

# The stream layer (lib/stream): no GNU Radio, quick CPU tests; the blocks on top of it
# are tested by python/gpufft/qa_*.py.
gpufft_add_test(test_frame_assembler SOURCES stream/test_frame_assembler.cc)
# The transmission tracker's index of intervals, against a test of every one.
gpufft_add_test(test_interval_index SOURCES stream/test_interval_index.cc)
# The sparse_fft block's frames, in place (CPU engines) or staged (CUDA).
gpufft_add_test(test_block_frames SOURCES stream/test_block_frames.cc)
gpufft_add_test(test_stream_timeline SOURCES stream/test_stream_timeline.cc)
gpufft_add_test(test_time_input SOURCES stream/test_time_input.cc)
gpufft_add_test(test_resample_grid SOURCES stream/test_resample_grid.cc)
gpufft_add_test(test_spectrometer_pipeline SOURCES stream/test_spectrometer_pipeline.cc)
# The same pipeline on the CUDA engine with page-locked frames (skips without a GPU).
gpufft_add_test(test_accumulator_cuda SOURCES stream/test_accumulator_cuda.cc GPU)
# The sparse_fft block's frame analysis and its not-sparse warning.
gpufft_add_test(test_sparse_frame_analyzer SOURCES stream/test_sparse_frame_analyzer.cc)
# The accumulator block's setup, axes, filterbank file, progress and runs.
gpufft_add_test(test_spectrometer_parts SOURCES stream/test_spectrometer_parts.cc)
# The blocks' rule for engine failures inside work() (skip, move to the CPU, or stop).
gpufft_add_test(test_engine_failure SOURCES stream/test_engine_failure.cc)
# The input types' names and conversion (VOLK on the host; the kernel on the GPU).
gpufft_add_test(test_sample_format SOURCES stream/test_sample_format.cc)
gpufft_add_test(test_sample_format_cuda SOURCES stream/test_sample_format_cuda.cc GPU)
# The sparse_fft block's own conversion: input_type counted, device frames on a CPU engine.
gpufft_add_test(test_sparse_frame_input SOURCES stream/test_sparse_frame_input.cc)
