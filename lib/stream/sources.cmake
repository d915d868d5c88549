# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later

# The stream layer between the engines and the GNU Radio blocks, free of GNU Radio:
# frames cut from a stream, the rx_time / rx_freq / rx_rate timeline and the tag rule,
# the NUFFT blocks' time input and clock, the resampler's output grid, and the
# accumulator's double-buffered frame pipeline. Header-only parts: frame_assembler.h,
# time_input.h, resample_grid.h.
list(APPEND GPUFFT_SOURCES stream/host_frame.cc stream/spectrometer_pipeline.cc
            stream/stream_timeline.cc)
