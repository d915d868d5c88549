#!/usr/bin/env python3
#
# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""QA for large_fft_accumulator's HDF5 filterbank (file_format="h5"), read back with
h5py as blimpy would: file attributes, the data and mask datasets' shape, type and
chunking, the SIGPROC attributes against the `spectrum` messages, and the values equal
to the linear spectra the messages carried; bad file_format values. Without HDF5 in the
build, that "h5" is refused with a message that says why (then skipped)."""

import os
import sys
import tempfile

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest

try:
    from gnuradio import gpufft
except ImportError:
    dirname, filename = os.path.split(os.path.abspath(__file__))
    sys.path.append(os.path.join(dirname, "bindings"))
    from gnuradio import gpufft

try:
    import h5py
except ImportError:
    h5py = None


def hdf5_in_build():
    """Whether this build writes "h5"; without, the refusal must name HDF5."""
    try:
        gpufft.large_fft_accumulator(64, 1, 64, backend="cpu", file_format="h5")
        return True
    except ValueError as e:
        if "needs HDF5" not in str(e):
            raise
        return False


class qa_large_fft_accumulator_fbh5(gr_unittest.TestCase):

    def setUp(self):
        # Fresh inputs every run; the seed is printed, and GPUFFT_QA_SEED=<seed> replays it.
        self.seed = int(os.environ.get("GPUFFT_QA_SEED", np.random.SeedSequence().entropy))
        print(f"{self.id()}: seed {self.seed}")
        self.rng = np.random.default_rng(self.seed)
        self.tb = gr.top_block()

    def tearDown(self):
        self.tb = None

    def run_block(self, x, tags=(), **kwargs):
        acc = gpufft.large_fft_accumulator(backend="cpu", **kwargs)
        src = blocks.vector_source_c(x.tolist(), False, 1, list(tags))
        sink = blocks.vector_sink_f(acc.output_bins())
        spectra = blocks.message_debug()
        self.tb.connect(src, acc, sink)
        self.tb.msg_connect(acc, "spectrum", spectra, "store")
        self.tb.run()
        out = np.array(sink.data(), dtype=np.float32).reshape(-1, acc.output_bins())
        msgs = [spectra.get_message(i) for i in range(spectra.num_messages())]
        return acc, out, msgs

    @staticmethod
    def meta(msg, key):
        return pmt.to_python(pmt.dict_ref(pmt.car(msg), pmt.intern(key), pmt.PMT_NIL))

    def test_001_layout_attributes_and_values(self):
        if h5py is None:
            self.fail("h5py is missing (Debian: python3-h5py), needed to read the .h5")
        n, n_int, bins = 2048, 2, 128
        rate = float(self.rng.uniform(1e6, 10e6))
        freq = float(self.rng.uniform(1e9, 2e9))
        secs, frac = 1700000000 + int(self.rng.integers(0, 10**6)), float(self.rng.uniform())
        spectra_count = 4
        t = np.arange(spectra_count * n_int * n + 77)  # a partial frame at the end
        cycles = float(self.rng.uniform(-n / 4, n / 4))
        x = (np.exp(2j * np.pi * cycles * t / n) +
             0.1 * (self.rng.standard_normal(len(t)) + 1j * self.rng.standard_normal(len(t)))
             ).astype(np.complex64)
        time_tag = gr.tag_t()
        time_tag.offset = 0
        time_tag.key = pmt.intern("rx_time")
        time_tag.value = pmt.make_tuple(pmt.from_uint64(secs), pmt.from_double(frac))
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "spectra.h5")
            acc, out, msgs = self.run_block(
                x, [time_tag], fft_size=n, n_integrations=n_int, output_bins=bins,
                band_start=n // 4, band_stop=3 * n // 4, window="hann", samp_rate=rate,
                center_freq=freq, filterbank_path=path, source_name="Voyager1",
                file_format="h5")
            self.assertEqual(acc.file_format(), "h5")
            self.assertEqual(len(msgs), spectra_count)
            with h5py.File(path, "r") as f:
                self.assertEqual(f.attrs["CLASS"], b"FILTERBANK")
                self.assertEqual(f.attrs["VERSION"], b"1.0")
                data, mask = f["data"], f["mask"]
                self.assertEqual(data.shape, (spectra_count, 1, bins))
                self.assertEqual(data.dtype, np.dtype("<f4"))
                self.assertEqual(data.maxshape, (None, 1, bins))
                self.assertEqual(data.chunks, (1, 1, bins))
                self.assertEqual(mask.shape, data.shape)
                self.assertEqual(mask.dtype, np.dtype("u1"))
                self.assertFalse(np.any(mask[...]))
                self.assertEqual([dim.label for dim in data.dims],
                                 ["time", "feed_id", "frequency"])
                a = dict(data.attrs)
                values = data[...]
        first = msgs[0]
        # The SIGPROC header, from the first spectrum's metadata (Hz -> MHz, rx_time -> MJD).
        self.assertEqual(a["source_name"], b"Voyager1")
        self.assertEqual(int(a["nchans"]), bins)
        self.assertEqual(int(a["nbits"]), 32)
        self.assertEqual(int(a["nifs"]), 1)
        self.assertEqual(int(a["data_type"]), 1)
        for key in ("telescope_id", "machine_id", "az_start", "za_start", "src_raj",
                    "src_dej", "rawdatafile"):
            self.assertIn(key, a)
        self.assertAlmostEqual(a["fch1"], self.meta(first, "fch1") * 1e-6, places=12)
        self.assertAlmostEqual(a["foff"], self.meta(first, "foff") * 1e-6, places=15)
        self.assertAlmostEqual(a["tsamp"], self.meta(first, "tsamp"), places=12)
        self.assertAlmostEqual(a["tsamp"], n_int * n / rate, places=12)
        self.assertAlmostEqual(a["tstart"], 40587 + (secs + frac) / 86400, places=9)
        # Channel c of the file is at fch1 + c * foff: the tone's channel.
        tone_hz = cycles * rate / n
        channel = int(np.argmax(values[0, 0]))
        self.assertLess(abs(a["fch1"] * 1e6 + channel * a["foff"] * 1e6 - tone_hz - freq),
                        a["foff"] * 1e6)
        # The values are the messages' linear spectra, bit for bit.
        carried = np.array([pmt.f32vector_elements(pmt.cdr(m)) for m in msgs], np.float32)
        self.assertTrue(np.array_equal(values[:, 0, :], carried))
        self.assertTrue(np.array_equal(values[:, 0, :], out))
        self.assertTrue(np.all(np.isfinite(values)))

    def test_002_db_output_keeps_the_file_linear(self):
        if h5py is None:
            self.fail("h5py is missing (Debian: python3-h5py), needed to read the .h5")
        n, bins = 1024, 64
        x = (self.rng.standard_normal(3 * n) + 1j * self.rng.standard_normal(3 * n)
             ).astype(np.complex64)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "db.h5")
            _, out, msgs = self.run_block(
                x, fft_size=n, n_integrations=1, output_bins=bins, output_db=True,
                filterbank_path=path, file_format="h5")
            with h5py.File(path, "r") as f:
                values = f["data"][:, 0, :]
        self.assertEqual(values.shape, (3, bins))
        self.assertLess(np.max(np.abs(10 * np.log10(values) - out)), 1e-3)

    def test_003_bad_file_format(self):
        for bad in ("hdf5", "H5", "", "fits"):
            with self.assertRaisesRegex(ValueError, 'file_format must be "auto".*"fil".*"h5"'):
                gpufft.large_fft_accumulator(64, 1, 64, backend="cpu", file_format=bad)
        with self.assertRaisesRegex(ValueError, "file_format"):
            gpufft.large_fft_accumulator(64, 1, 64, backend="cpu", file_format=5)

    def test_004_unwritable_h5_path(self):
        with self.assertRaisesRegex(ValueError, "filterbank_path: cannot write"):
            gpufft.large_fft_accumulator(64, 1, 64, backend="cpu", file_format="h5",
                                         filterbank_path="/nonexistent-directory/x.h5")


if __name__ == "__main__":
    if not hdf5_in_build():
        print("large_fft_accumulator: this build has no HDF5; file_format=\"h5\" is "
              "refused with a message naming HDF5 (checked); skipping the rest")
        sys.exit(77)
    gr_unittest.run(qa_large_fft_accumulator_fbh5)
