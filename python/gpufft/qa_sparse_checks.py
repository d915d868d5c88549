#!/usr/bin/env python3
#
# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""k, min_snr_db, false_alarm and mode have one owner (sparse_fft_plan.h's
parse_sparse_fft_mode and check_sparse_fft_*): the engine's plan through its binding and
the sparse_fft block refuse each bad value with the same message."""

from gnuradio import gr, gr_unittest

from gnuradio import gpufft

N = 1024
BAD = [
    ("k", 0, "robust"), ("k", 257, "robust"), ("k", 1024, "exact"), ("k", -3, "exact"),
    ("min_snr_db", -1.0, "robust"), ("min_snr_db", 250.0, "robust"),
    ("min_snr_db", float("nan"), "robust"),
    ("false_alarm", 0.0, "robust"), ("false_alarm", 0.7, "robust"),
    ("mode", "fuzzy", None),
]


def message(make):
    try:
        make()
    except ValueError as e:
        return str(e)
    raise AssertionError("no ValueError")


class qa_sparse_checks(gr_unittest.TestCase):

    def test_001_plan_and_block_say_the_same(self):
        for name, value, mode in BAD:
            kw = {"k": 4, "mode": mode or "robust", "min_snr_db": 20.0,
                  "false_alarm": 0.01}
            kw[name] = value
            k = kw.pop("k")
            plan = message(lambda: gpufft.sparse_fft_plan(N, k, backend="cpu", **kw))
            block = message(lambda: gpufft.sparse_fft(N, k, 1e6, 64, backend="cpu", **kw))
            with self.subTest(name=name, value=value):
                self.assertTrue(plan.startswith(name + ": "), plan)
                self.assertEqual(plan, block)

    def test_002_the_owner_words(self):
        self.assertEqual(message(lambda: gpufft.sparse_fft_plan(N, 4, mode="fuzzy")),
                         'mode: must be "robust" or "exact", got "fuzzy"')
        self.assertIn('k: must be in [1, fft_size / 4] = [1, 256] in mode "robust"',
                      message(lambda: gpufft.sparse_fft_plan(N, 300, backend="cpu")))


if __name__ == "__main__":
    gr_unittest.run(qa_sparse_checks)
