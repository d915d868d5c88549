#!/usr/bin/python3
#
# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Measures the rate of the ZMQ split's link alone (docs/scaling.md): the radio host's
half of remote_radio_tx.grc (a recording, the ZMQ link block, the ZMQ PUB sink) to the
GPU host's half of remote_sensing_rx.grc (the ZMQ SUB source, the ZMQ link block) into a
null sink instead of the sparse FFT, with the examples' buffers and watermarks. The
link blocks come from the examples compiled with grcc (their directory, --compiled).

  # on the GPU host (or a second terminal):
  remote_link_rate.py rx --compiled DIR --address tcp://RADIO:5555 --control tcp://RADIO:5556
  # on the radio host:
  remote_link_rate.py tx --compiled DIR --recording FILE.sigmf-meta \\
      --address tcp://*:5555 --control tcp://*:5556

The GPU host prints the samples that arrived, the seconds from the first to the last
and the rate."""

import argparse
import sys
import time

from gnuradio import blocks, gpufft, gr, zeromq


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("role", choices=("tx", "rx"))
    p.add_argument("--compiled", required=True,
                   help="folder of remote_radio_tx.py and remote_sensing_rx.py (grcc -o)")
    p.add_argument("--recording", help="tx: the recording to send")
    p.add_argument("--address", default="tcp://127.0.0.1:5555")
    p.add_argument("--control", default="tcp://127.0.0.1:5556")
    a = p.parse_args()
    sys.path.insert(0, a.compiled)
    tb = gr.top_block()
    if a.role == "tx":
        import remote_radio_tx_tx_link as link_module
        source = gpufft.recording_source(a.recording, 0, None, "", 0, 0)
        link = link_module.blk(control=a.control)
        link.set_min_output_buffer(2**18)
        publish = zeromq.pub_sink(gr.sizeof_gr_complex, 1, a.address, 100, True, 16, "",
                                  False)
        tb.connect(source, link, publish)
        tb.run()
        return
    import remote_sensing_rx_rx_link as link_module
    receive = zeromq.sub_source(gr.sizeof_gr_complex, 1, a.address, 100, True, 16, "")
    receive.set_min_output_buffer(2**18)
    link = link_module.blk(control=a.control)
    link.set_min_output_buffer(2**18)
    sink = blocks.null_sink(gr.sizeof_gr_complex)
    tb.connect(receive, link, sink)
    tb.msg_connect((link, "done"), (receive, "system"))
    tb.start()
    while link.nitems_written(0) == 0:  # the radio host's stream has not begun
        time.sleep(0.001)
    began = time.monotonic()
    tb.wait()
    seconds = time.monotonic() - began
    n = link.nitems_written(0)
    print(f"{n} samples in {seconds:.2f} s: {n / seconds / 1e6:.1f} MS/s "
          f"({n * 8 / seconds / 1e9:.2f} Gbit/s of complex float)")


if __name__ == "__main__":
    main()
