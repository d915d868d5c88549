#
# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""An exception in a Python block's work() must end the flowgraph, not hang it.

Why it hangs without this (GNU Radio 3.10, thread-per-block scheduler): the block's
Python work() is called from C++ (block_gateway -> gateway.py handle_general_work). An
exception comes back as a C++ exception (pybind11::error_already_set) that unwinds out
of block_executor::run_one_iteration and tpb_thread_body into thread_body_wrapper, which
logs "ERROR thread[...]: ..." and lets the block's thread end. The path that ends a block
properly, work() returning WORK_DONE (-1), is skipped: block_detail::set_done(true) is
never called, so the block's output buffers are never marked done. The blocks
downstream wait for input that never comes (BLKD_IN, waking every 250 ms to find
nothing), the blocks upstream wait for buffer space, and top_block::wait() joins their
threads: tb.run() never returns.

@guarded_work on work() (or general_work()) turns any exception into: the error in the
block's log (type, message and where it was raised), the exception kept in the block's
`error` attribute for the caller to check after tb.run(), and WORK_DONE, so the
flowgraph ends the way it ends at the end of a file.
"""

import functools
import os
import traceback

GUARD_MARK = "_gpufft_guarded"


def _where(exc):
    """file:line in function, of the frame that raised."""
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return ""
    f = frames[-1]
    return f" (at {os.path.basename(f.filename)}:{f.lineno} in {f.name})"


def guarded_work(work):
    """Decorates a Python block's work() / general_work(): an exception is logged
    through self.logger, kept in self.error, and ends the block (WORK_DONE)."""

    @functools.wraps(work)
    def guarded(self, input_items, output_items):
        try:
            return work(self, input_items, output_items)
        except Exception as e:  # every error: a block that raises hangs the flowgraph
            self.error = e
            try:
                name = self.alias()
            except Exception:
                name = type(self).__name__
            self.logger.error(f"{name}: {type(e).__name__}: {e}{_where(e)}; ending the "
                              f"flowgraph (the block's `error` attribute holds the "
                              f"exception)")
            return -1  # WORK_DONE: the buffers are marked done, downstream finishes

    setattr(guarded, GUARD_MARK, True)
    return guarded


def raise_block_errors(*blocks):
    """After tb.run(): raises the first exception a guarded block kept (its `error`),
    so the caller of a flowgraph sees the failure the log reported."""
    for b in blocks:
        e = vars(b).get("error")
        if e is not None:
            raise e
