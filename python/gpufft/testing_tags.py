#
# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""QA helper (no tests of its own): tagged input and the tags that come out, for the
QA files of the blocks that keep time (qa_stream_rules, qa_nufft3_spectrum,
qa_nufft_resampler, qa_large_fft_accumulator)."""

import numpy as np
import pmt
from gnuradio import gr


class f64_source(gr.sync_block):
    """Streams a float64 array once (GNU Radio has no float64 vector source): the time
    input of the NUFFT blocks."""

    def __init__(self, data):
        gr.sync_block.__init__(self, "f64_source", in_sig=None, out_sig=[np.float64])
        self.data = np.asarray(data, dtype=np.float64)
        self.pos = 0

    def work(self, input_items, output_items):
        if self.pos >= len(self.data):
            return -1
        n = min(len(output_items[0]), len(self.data) - self.pos)
        output_items[0][:n] = self.data[self.pos:self.pos + n]
        self.pos += n
        return n


def tag(offset, key, value):
    """A stream tag for a vector source's tag list."""
    t = gr.tag_t()
    t.offset = offset
    t.key = pmt.intern(key)
    t.value = value
    return t


def time_value(secs, frac):
    """An rx_time value: (whole seconds, fractional seconds)."""
    return pmt.make_tuple(pmt.from_uint64(secs), pmt.from_double(frac))


def time_parts(value):
    """(whole seconds, fractional seconds) of an rx_time value."""
    return pmt.to_uint64(pmt.tuple_ref(value, 0)), pmt.to_double(pmt.tuple_ref(value, 1))


def seconds(value):
    """An rx_time value in seconds (a float: microseconds near 2^31 s)."""
    whole, frac = time_parts(value)
    return whole + frac


def tags_named(tags, key):
    """The tags of a list (a sink's tags()) whose key is `key`, in order."""
    return [t for t in tags if pmt.symbol_to_string(t.key) == key]


def tags_of(sink, key):
    """(offset, value) of each tag `key` a sink received."""
    return [(t.offset, t.value) for t in tags_named(sink.tags(), key)]
