#
# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""QA helper (no tests of its own): runs a flowgraph in a child Python with a deadline,
so a flowgraph that hangs fails its test instead of hanging the suite (a hung
top_block's threads cannot be stopped from inside the process that runs it).
GNU Radio's log goes to stdout when stdout is not a terminal: look for it in both."""

import os
import subprocess
import sys


def run_python(test, code, deadline_s=60):
    """Runs `code` in a fresh Python (this one's interpreter, path and environment);
    fails `test` when it runs past deadline_s. Returns the CompletedProcess."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    child = subprocess.Popen([sys.executable, "-B", "-c", code], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=env)
    try:
        out, err = child.communicate(timeout=deadline_s)
    except subprocess.TimeoutExpired:
        child.kill()
        out, err = child.communicate()
        test.fail(f"the flowgraph did not end within {deadline_s} s (hung); its "
                  f"output:\n{(out + err)[-3000:]}")
    return subprocess.CompletedProcess(child.args, child.returncode, out, err)
