#!/usr/bin/env python3
#
# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""QA for the radio examples' window (examples/sparse_fft_soapy.grc, sparse_fft_uhd.grc):
each, compiled with grcc, runs offscreen (QT_QPA_PLATFORM=offscreen) with its radio
replaced by a recording played at the radio's rate (make_example_recording.py's, at the
examples' default 433.92 MHz and 2.4 MS/s, looped, tagged rx_freq and rx_rate as a radio
tags its stream), and its window is saved as a PNG under test_artefacts/ in the
directory the test runs in (the build tree under ctest): the spectrum with its
max-hold trace (turned on by the example's snippet), the waterfall, the sparse FFT's
spectrum with the detected bands in red, and the raster of detections. The detection
marks must have been fed by detections, red must be drawn in the sparse FFT's spectrum,
and the printer must have printed frames at 433 MHz. Skips (exit 77)
without PyQt5, gnuradio.qtgui or grcc; an example whose radio module (gnuradio.soapy and
python3-soapysdr, gnuradio.uhd) is missing is skipped alone."""

import json
import os
import shutil
import subprocess
import sys
import tempfile

from gnuradio import gr_unittest

SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
EXAMPLES = os.path.join(SOURCE, "examples")
ARTEFACTS = os.path.join(os.getcwd(), "test_artefacts")
SECONDS = 6.0  # of display before the screenshot


def render(build, name, png):
    """In a process of its own: runs example `name` offscreen on the recording and
    saves its window; prints a JSON line of what it found."""
    import numpy as np
    import pmt
    from gnuradio import blocks, gr
    from PyQt5 import Qt, QtCore

    sys.path.insert(0, build)
    module = __import__(name)
    rate, freq = 2.4e6, 433.92e6
    iq = np.fromfile(os.path.join(build, "example_recording.sigmf-data"), np.int8)
    samples = ((iq[0::2] + 1j * iq[1::2]) / 128).astype(np.complex64)

    class Radio(gr.hier_block2):
        """The recording, looped at the radio's rate and tagged as a radio tags it;
        the radio's setters do nothing."""

        def __init__(self, *args, **kwargs):
            gr.hier_block2.__init__(self, "recording as a radio", gr.io_signature(0, 0, 0),
                                    gr.io_signature(1, 1, gr.sizeof_gr_complex))
            tags = [gr.tag_utils.python_to_tag((0, pmt.intern(k), pmt.from_double(v),
                                                pmt.intern("radio")))
                    for k, v in (("rx_rate", rate), ("rx_freq", freq))]
            self.source = blocks.vector_source_c(samples, True, 1, tags)
            self.throttle = blocks.throttle(gr.sizeof_gr_complex, rate, True)
            self.connect(self.source, self.throttle, self)

        def __getattr__(self, attr):
            if attr.startswith("set_"):
                return lambda *args, **kwargs: None
            return super().__getattr__(attr)

    if hasattr(module, "soapy"):
        module.soapy.source = Radio
    if hasattr(module, "uhd"):
        module.uhd.usrp_source = Radio
    app = Qt.QApplication(sys.argv)
    tb = getattr(module, name)()
    if hasattr(module, "snippets_main_after_init"):
        module.snippets_main_after_init(tb)
    tb.resize(1400, 1000)  # the size the example asks for (window_size)
    tb.start()
    tb.show()
    found = {}

    def shoot():
        tb.grab().save(png)
        spectrum = tb._sparse_spectrum_win.grab().toImage()
        red = 0
        for y in range(0, spectrum.height(), 2):
            for x in range(0, spectrum.width(), 2):
                c = Qt.QColor(spectrum.pixel(x, y))
                red += c.red() > 200 and c.green() < 80 and c.blue() < 80
        found.update(red_pixels=red, marked=int(tb.marks._mask.sum()),
                     width=tb.width(), height=tb.height())
        tb.stop()
        tb.wait()
        app.quit()

    QtCore.QTimer.singleShot(int(SECONDS * 1000), shoot)
    app.exec_()
    print("RESULT " + json.dumps(found), flush=True)


class qa_examples_gui(gr_unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.build = tempfile.TemporaryDirectory()
        subprocess.run([sys.executable, os.path.join(EXAMPLES, "make_example_recording.py")],
                       cwd=cls.build.name, check=True, capture_output=True, timeout=120)
        os.makedirs(ARTEFACTS, exist_ok=True)

    @classmethod
    def tearDownClass(cls):
        cls.build.cleanup()

    def window(self, name, module):
        try:
            __import__("gnuradio." + module)
            if module == "soapy":
                import SoapySDR  # noqa: F401  (grcc renders soapy blocks with it)
        except ImportError as e:
            self.skipTest(f"{name}: {e}")
        env = dict(os.environ, GRC_BLOCKS_PATH=os.path.join(SOURCE, "grc"))
        r = subprocess.run(["grcc", "-o", self.build.name,
                            os.path.join(EXAMPLES, name + ".grc")],
                           capture_output=True, text=True, env=env, timeout=300)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertNotIn(">>> Error", r.stdout + r.stderr)
        png = os.path.join(ARTEFACTS, name + ".png")
        if os.path.exists(png):
            os.remove(png)
        r = subprocess.run([sys.executable, os.path.abspath(__file__), "--render",
                            self.build.name, name, png],
                           capture_output=True, text=True, timeout=300,
                           env=dict(os.environ, QT_QPA_PLATFORM="offscreen"))
        result = [line for line in r.stdout.splitlines() if line.startswith("RESULT ")]
        self.assertEqual(r.returncode, 0, r.stdout[-3000:] + r.stderr[-3000:])
        self.assertEqual(len(result), 1, r.stdout[-3000:] + r.stderr[-3000:])
        found = json.loads(result[0][7:])
        print(f"{name}: {found}; screenshot {png}")
        self.assertTrue(os.path.getsize(png) > 10000, "the screenshot is nearly empty")
        self.assertGreater(found["marked"], 0, "no detection reached the marks")
        self.assertGreater(found["red_pixels"], 10, "no detected band drawn in red")
        self.assertRegex(r.stdout, r"frame \d+: 433\.\d+ MHz")

    def test_soapy_window(self):
        self.window("sparse_fft_soapy", "soapy")

    def test_uhd_window(self):
        self.window("sparse_fft_uhd", "uhd")


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--render":
        render(*sys.argv[2:])
        sys.exit(0)
    if shutil.which("grcc") is None:
        print("skip: no grcc")
        sys.exit(77)
    try:
        from PyQt5 import Qt  # noqa: F401
        from gnuradio import qtgui  # noqa: F401
    except ImportError as e:
        print(f"skip: no Qt GUI modules ({e})")
        sys.exit(77)
    gr_unittest.run(qa_examples_gui)
