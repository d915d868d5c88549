# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later

# The stream layer between the engines and the GNU Radio blocks, free of GNU Radio:
# frames cut from a stream, the rx_time / rx_freq / rx_rate timeline and the tag rule,
# the NUFFT blocks' time input and clock, the resampler's output grid, the sparse FFT
# block's frame analysis, and the accumulator's double-buffered frame pipeline, its
# setup, runs, spectrum axes and filterbank file, and the input sample types
# (sample_format, frame_converter), and the sparse_fft block's frames, in place or
# staged in page-locked memory (block_frames). Header-only parts: frame_assembler.h,
# time_input.h, resample_grid.h, not_sparse_warning.h, progress_timer.h, interval_index.h
# (the transmission tracker's search of its rows).
list(APPEND GPUFFT_SOURCES stream/block_frames.cc stream/filterbank_recorder.cc stream/frame_converter.cc
            stream/host_frame.cc stream/sample_format.cc
            stream/sparse_frame_analyzer.cc stream/sparse_spectrum.cc
            stream/spectrometer_pipeline.cc
            stream/spectrometer_runner.cc stream/spectrometer_setup.cc
            stream/spectrum_axes.cc stream/stream_timeline.cc
            stream/transmission_tracker.cc
            stream/transmission_tracker_moving.cc)
