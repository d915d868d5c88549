#!/usr/bin/env python3
#
# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""QA for the ZMQ split of examples/ (docs/scaling.md): remote_radio_tx.grc (radio host)
and remote_sensing_rx.grc (GPU host), compiled with grcc, run as two processes over
127.0.0.1 on a random slice of a vendored recording (tests/data, given a random capture
time so that rx_time is tagged), either process started first. The GPU host's
detections, transmissions and display spectrum equal those of the same recording
sensed in one process (sparse_fft_radio_headless.grc), frame for frame, and its stream
carries the rx_time, rx_freq and rx_rate tags at the offsets and with the values the
recording gives. Both processes stop by themselves. With --subscribers 2, two GPU hosts
get the same whole stream, and two GPU hosts that each sense half of the band
(remote_sensing_rx_slice.grc) find the carriers of their half at their absolute
frequencies. A data or control address that
cannot be bound, and a radio host that no GPU host joins, end the radio host with an
error that names them; a GPU host that hears nothing gives up when told to. Skips (exit 77) without grcc or gnuradio.zeromq."""

import datetime
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

import numpy as np
from gnuradio import gr_unittest

SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
EXAMPLES = os.path.join(SOURCE, "examples")
DATA = os.path.join(SOURCE, "tests", "data")
RECORDING = "wmbus_t1_rtlsdr_868MHz_1M6"  # cu8, 1.6 MS/s, 868.95 MHz, 2**20 samples
FLOWGRAPHS = ("remote_radio_tx", "remote_sensing_rx", "remote_sensing_rx_slice",
              "sparse_fft_radio_headless")
TIMEOUT = 120  # s, each process


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def read_log(*paths):
    """The JSON logs of a run (detections, tags), per kind, in the order written: each
    value re-encoded (so that NaN compares equal)."""
    kinds = {"tag": [], "detections": [], "transmission": []}
    for path in paths:
        with open(path) as f:
            for line in f:
                (kind, value), = json.loads(line).items()
                kinds[kind].append(json.dumps(value, sort_keys=True))
    return kinds


class qa_examples_remote(gr_unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.build = tempfile.TemporaryDirectory()
        env = dict(os.environ, GRC_BLOCKS_PATH=os.path.join(SOURCE, "grc"))
        for name in FLOWGRAPHS:
            r = subprocess.run(["grcc", "-o", cls.build.name,
                                os.path.join(EXAMPLES, name + ".grc")],
                               capture_output=True, text=True, env=env, timeout=300)
            assert r.returncode == 0 and ">>> Error" not in r.stdout + r.stderr, \
                f"grcc {name}:\n{r.stdout}\n{r.stderr}"

    @classmethod
    def tearDownClass(cls):
        cls.build.cleanup()

    def setUp(self):
        # Fresh inputs every run; the seed is printed, and GPUFFT_QA_SEED=<seed> replays it.
        self.seed = int(os.environ.get("GPUFFT_QA_SEED", np.random.SeedSequence().entropy))
        print(f"{self.id()}: seed {self.seed}")
        self.rng = np.random.default_rng(self.seed)
        self.dir = tempfile.TemporaryDirectory()
        self.d = self.dir.name

    def tearDown(self):
        self.dir.cleanup()

    def flowgraph(self, name, *args):
        return [sys.executable, "-u", os.path.join(self.build.name, name + ".py"), *args]

    def recording(self):
        """A random slice of the vendored recording with a random capture time: its
        path, first-sample time (s since 1970), centre frequency, rate and length."""
        with open(os.path.join(DATA, RECORDING + ".sigmf-meta")) as f:
            meta = json.load(f)
        data = np.fromfile(os.path.join(DATA, RECORDING + ".sigmf-data"), np.uint8)
        start = int(self.rng.integers(0, 200000))
        count = int(self.rng.integers(500000, 2**20 - start))
        stem = os.path.join(self.d, "slice")
        data[2 * start:2 * (start + count)].tofile(stem + ".sigmf-data")
        when = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc) + \
            datetime.timedelta(microseconds=int(self.rng.integers(0, 10**13)))
        meta["global"].pop("core:sha512", None)
        meta["captures"] = [{"core:sample_start": 0,
                             "core:frequency": meta["captures"][0]["core:frequency"],
                             "core:datetime": when.strftime("%Y-%m-%dT%H:%M:%S.%fZ")}]
        with open(stem + ".sigmf-meta", "w") as f:
            json.dump(meta, f)
        print(f"slice: samples [{start}, {start + count}), capture time {when.isoformat()}")
        return (stem + ".sigmf-meta", when.timestamp(), meta["captures"][0]["core:frequency"],
                meta["global"]["core:sample_rate"], count)

    def split(self, recording, k, tx_first):
        """Runs the radio host and the GPU host; returns the GPU host's log and
        spectrum paths and both processes' output."""
        data, control = free_port(), free_port()
        log, tags = os.path.join(self.d, "rx.jsonl"), os.path.join(self.d, "rx_tags.jsonl")
        spectrum = os.path.join(self.d, "rx.f32")
        tx = self.flowgraph("remote_radio_tx", "--recording", recording,
                            "--address", f"tcp://127.0.0.1:{data}",
                            "--control", f"tcp://127.0.0.1:{control}")
        rx = self.flowgraph("remote_sensing_rx", "--k", str(k), "--log", log,
                            "--tags", tags, "--spectrum", spectrum,
                            "--address", f"tcp://127.0.0.1:{data}",
                            "--control", f"tcp://127.0.0.1:{control}")
        first, second = (tx, rx) if tx_first else (rx, tx)
        began = time.monotonic()
        p1 = subprocess.Popen(first, cwd=self.d, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
        time.sleep(1.0)  # the second one joins a running first one
        p2 = subprocess.Popen(second, cwd=self.d, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
        outputs = []
        for p in (p1, p2):
            try:
                outputs.append(p.communicate(timeout=TIMEOUT)[0])
            except subprocess.TimeoutExpired:
                p1.kill(), p2.kill()
                self.fail(f"{p.args[2]} did not stop within {TIMEOUT} s")
        seconds = time.monotonic() - began
        out_tx, out_rx = outputs if tx_first else outputs[::-1]
        self.assertEqual(p1.returncode, 0, outputs[0][-3000:])
        self.assertEqual(p2.returncode, 0, outputs[1][-3000:])
        print(f"split ({'radio' if tx_first else 'GPU'} host first): {seconds:.1f} s")
        return read_log(log, tags), spectrum, out_tx, out_rx

    def test_split_equals_one_process(self):
        recording, when, freq, rate, count = self.recording()
        k = int(self.rng.integers(16, 65))
        ref_log = os.path.join(self.d, "ref.jsonl")
        ref_tags = os.path.join(self.d, "ref_tags.jsonl")
        ref_spectrum = os.path.join(self.d, "ref.f32")
        r = subprocess.run(self.flowgraph("sparse_fft_radio_headless", "--recording",
                                          recording, "--k", str(k), "--log", ref_log,
                                          "--tags", ref_tags, "--spectrum", ref_spectrum),
                           cwd=self.d, capture_output=True, text=True, timeout=TIMEOUT)
        self.assertEqual(r.returncode, 0, r.stdout[-3000:] + r.stderr[-3000:])
        ref = read_log(ref_log, ref_tags)
        frames = count // 2**16
        self.assertEqual(len(ref["detections"]), frames)
        with open(ref_spectrum, "rb") as f:
            ref_bytes = f.read()
        self.assertEqual(len(ref_bytes), frames * 1024 * 4)

        # the tags, checked against the recording itself (not only the reference run)
        tags = {json.loads(t)["key"]: json.loads(t) for t in ref["tag"]}
        self.assertEqual(sorted(tags), ["rx_freq", "rx_rate", "rx_time"])
        self.assertTrue(all(t["offset"] == 0 for t in tags.values()))
        self.assertEqual(tags["rx_freq"]["value"], freq)
        self.assertEqual(tags["rx_rate"]["value"], rate)
        secs, frac = tags["rx_time"]["value"]
        self.assertAlmostEqual(secs + frac, when, delta=1e-6)

        for tx_first in (True, False):
            with self.subTest(tx_first=tx_first):
                got, spectrum, out_tx, out_rx = self.split(recording, k, tx_first)
                self.assertIn(f"sent {count} samples to 1 GPU host(s)", out_tx)
                # tags at the GPU host: same keys, values and offsets as in one process
                self.assertEqual(got["tag"], ref["tag"])
                # detections frame for frame (frame, first sample, rx_time, centre
                # frequency, rate and every signal), then the transmissions
                self.assertEqual(len(got["detections"]), frames)
                for a, b in zip(got["detections"], ref["detections"]):
                    self.assertEqual(a, b)
                for a in got["detections"]:
                    m = json.loads(a)
                    self.assertEqual(m["center_freq"], freq)
                    self.assertEqual(m["samp_rate"], rate)
                    self.assertIn("rx_time", m)
                self.assertEqual(got["transmission"], ref["transmission"])
                self.assertGreater(len(got["transmission"]), 0)
                with open(spectrum, "rb") as f:
                    self.assertTrue(f.read() == ref_bytes, "display spectra differ")

    def test_two_gpu_hosts(self):
        """--subscribers 2: both GPU hosts get the whole stream (the band-split case
        where every GPU host takes its slice of one radio's stream)."""
        recording, when, freq, rate, count = self.recording()
        data, control = free_port(), free_port()
        addresses = ("--address", f"tcp://127.0.0.1:{data}",
                     "--control", f"tcp://127.0.0.1:{control}")
        rx = []
        for i in range(2):
            log = os.path.join(self.d, f"rx{i}.jsonl")
            tags = os.path.join(self.d, f"rx{i}_tags.jsonl")
            rx.append((subprocess.Popen(
                self.flowgraph("remote_sensing_rx", "--log", log, "--tags", tags, *addresses),
                cwd=self.d, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True),
                log, tags))
            time.sleep(0.5)
        tx = subprocess.run(self.flowgraph("remote_radio_tx", "--recording", recording,
                                           "--subscribers", "2", *addresses),
                            cwd=self.d, capture_output=True, text=True, timeout=TIMEOUT)
        self.assertEqual(tx.returncode, 0, tx.stdout[-3000:] + tx.stderr[-3000:])
        self.assertIn(f"sent {count} samples to 2 GPU host(s)", tx.stdout + tx.stderr)
        logs = []
        for p, log, tags in rx:
            try:
                out = p.communicate(timeout=TIMEOUT)[0]
            except subprocess.TimeoutExpired:
                [q.kill() for q, _, _ in rx]
                self.fail(f"a GPU host did not stop within {TIMEOUT} s")
            self.assertEqual(p.returncode, 0, out[-3000:])
            logs.append(read_log(log, tags))
        self.assertEqual(len(logs[0]["detections"]), count // 2**16)
        self.assertEqual(logs[0], logs[1])

    def test_band_split(self):
        """Two GPU hosts (remote_sensing_rx_slice) each sense half of one radio host's
        band: every carrier of make_example_recording.py's recording is found by the
        host whose slice holds it, at its absolute frequency, and each host's rx_freq
        and rx_rate tags are its slice's."""
        subprocess.run([sys.executable, os.path.join(EXAMPLES, "make_example_recording.py")],
                       cwd=self.d, check=True, capture_output=True, timeout=120)
        radio, rate = 433.92e6, 2.4e6
        carriers = (-412345.6, 98765.4, 687654.3)  # make_example_recording.py's
        data, control = free_port(), free_port()
        addresses = ("--address", f"tcp://127.0.0.1:{data}",
                     "--control", f"tcp://127.0.0.1:{control}")
        shift = float(self.rng.uniform(-20e3, 20e3))
        hosts = []
        for offset in (-600e3 + shift, 600e3 + shift):
            log = os.path.join(self.d, f"slice{offset:+.0f}.jsonl")
            tags = os.path.join(self.d, f"slice{offset:+.0f}_tags.jsonl")
            hosts.append((offset, subprocess.Popen(
                self.flowgraph("remote_sensing_rx_slice", f"--offset={offset}",
                               "--decimation", "2", "--samp-rate", str(rate), "--log", log,
                               "--tags", tags, *addresses),
                cwd=self.d, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True),
                log, tags))
        tx = subprocess.run(self.flowgraph("remote_radio_tx", "--recording",
                                           "example_recording.sigmf-meta", "--subscribers",
                                           "2", *addresses),
                            cwd=self.d, capture_output=True, text=True, timeout=TIMEOUT)
        self.assertEqual(tx.returncode, 0, tx.stdout[-3000:] + tx.stderr[-3000:])
        bin_hz = rate / 2 / 65536
        for offset, p, log, tags in hosts:
            try:
                out = p.communicate(timeout=TIMEOUT)[0]
            except subprocess.TimeoutExpired:
                [q.kill() for _, q, _, _ in hosts]
                self.fail(f"a GPU host did not stop within {TIMEOUT} s")
            self.assertEqual(p.returncode, 0, out[-3000:])
            got = read_log(log, tags)
            tag = {json.loads(t)["key"]: json.loads(t)["value"] for t in got["tag"]}
            self.assertAlmostEqual(tag["rx_freq"], radio + offset, delta=1e-3)
            self.assertEqual(tag["rx_rate"], rate / 2)
            found = [f for d in got["detections"]
                     for f, snr in zip(json.loads(d)["center_hz"], json.loads(d)["snr_db"])
                     if snr > 25]
            mine = [c for c in carriers if abs(c - offset) < 0.45 * rate / 2]
            self.assertEqual(len(mine), 1 if offset < 0 else 2)
            for c in mine:
                near = [f for f in found if abs(f - (radio + c)) < 2 * bin_hz]
                self.assertGreater(len(near), len(got["detections"]) // 2,
                                   f"carrier {c:+.1f} Hz in the slice at {offset:+.0f} Hz")
            for f in found:  # every strong detection is one of the slice's carriers
                self.assertTrue(any(abs(f - (radio + c)) < 2 * bin_hz
                                    for c in mine + [-150000.0]), f)

    def run_tx(self, *args, timeout=60):
        recording = os.path.join(self.d, "r.sigmf-meta")
        if not os.path.exists(recording):
            shutil.copy(os.path.join(DATA, RECORDING + ".sigmf-meta"), recording)
            os.symlink(os.path.join(DATA, RECORDING + ".sigmf-data"),
                       os.path.join(self.d, "r.sigmf-data"))
        return subprocess.run(self.flowgraph("remote_radio_tx", "--recording", recording,
                                             *args),
                              cwd=self.d, capture_output=True, text=True, timeout=timeout)

    def test_address_in_use(self):
        with socket.socket() as taken:
            taken.bind(("127.0.0.1", 0))
            taken.listen()
            port = taken.getsockname()[1]
            for option, what in (("--address", "data"), ("--control", "control")):
                with self.subTest(option=option):
                    other = "--control" if option == "--address" else "--address"
                    r = self.run_tx(option, f"tcp://127.0.0.1:{port}",
                                    other, f"tcp://127.0.0.1:{free_port()}")
                    self.assertNotEqual(r.returncode, 0)
                    self.assertIn(f"ZMQ {what} address 'tcp://127.0.0.1:{port}' cannot be "
                                  "bound: Address already in use", r.stderr)

    def test_address_not_of_this_host(self):
        address = "tcp://192.0.2.1:5555"  # TEST-NET-1 (RFC 5737): never this host's
        r = self.run_tx("--address", address, "--control", f"tcp://127.0.0.1:{free_port()}")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn(f"ZMQ data address '{address}' cannot be bound", r.stderr)

    def test_no_radio_host(self):
        began = time.monotonic()
        r = subprocess.run(self.flowgraph("remote_sensing_rx",
                                          "--address", f"tcp://127.0.0.1:{free_port()}",
                                          "--control", f"tcp://127.0.0.1:{free_port()}",
                                          "--wait-s", "1"),
                           cwd=self.d, capture_output=True, text=True, timeout=60)
        self.assertLess(time.monotonic() - began, 30)
        self.assertIn("no samples from the radio host for 1.0 s (0 of its stream arrived)",
                      r.stdout + r.stderr)

    def test_no_gpu_host(self):
        began = time.monotonic()
        r = self.run_tx("--address", f"tcp://127.0.0.1:{free_port()}",
                        "--control", f"tcp://127.0.0.1:{free_port()}", "--wait-s", "1")
        self.assertLess(time.monotonic() - began, 30)
        self.assertIn("no GPU host joined within 1.0 s", r.stdout + r.stderr)


if __name__ == "__main__":
    if shutil.which("grcc") is None:
        print("skip: no grcc")
        sys.exit(77)
    try:
        from gnuradio import zeromq  # noqa: F401
        import zmq  # noqa: F401
    except ImportError as e:
        print(f"skip: {e}")
        sys.exit(77)
    gr_unittest.run(qa_examples_remote)
