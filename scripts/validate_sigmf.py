#!/usr/bin/env python3
#
# Copyright 2026 gr-gpufft authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Validate SigMF files with sigmf-python's own validator, run from a source checkout
(it is not vendored here and not on PyPI for this machine's Debian python3; it needs
numpy and jsonschema, which Debian has: python3-numpy, python3-jsonschema).

    git clone https://github.com/sigmf/sigmf-python /tmp/sigmf-python   # once
    scripts/validate_sigmf.py --sigmf-python /tmp/sigmf-python out.sigmf-meta [...]

The source path may also come from $SIGMF_PYTHON_SRC. For each file it runs the JSON
schema check with the ordering rules (sigmf.validate.validate on the metadata) and
then loads the pair the way sigmf_validate does (sigmf.sigmffile.fromfile, which finds
the data file, checks core:sha512 unless --skip-checksum, and validates again). Prints
one line per file; exit status 0 when all pass, 1 otherwise, 2 on bad usage.
"""

import argparse
import json
import os
import sys
import warnings


def load_sigmf_python(src):
    """Import sigmf from a source checkout (the directory holding sigmf/)."""
    if not src or not os.path.isfile(os.path.join(src, "sigmf", "validate.py")):
        raise ValueError(f"sigmf_python: {src!r} is not a sigmf-python checkout "
                         "(no sigmf/validate.py in it)")
    sys.path.insert(0, os.path.abspath(src))
    import sigmf  # noqa: F401
    import sigmf.sigmffile
    import sigmf.validate
    return sigmf


def validate_file(sigmf, path, skip_checksum=False):
    """None when `path` passes, else the error text."""
    import jsonschema
    try:
        with open(path) as f:
            meta = json.load(f)
        with warnings.catch_warnings():
            warnings.simplefilter("error", DeprecationWarning)  # undeclared extensions
            sigmf.validate.validate(meta)
        s = sigmf.sigmffile.fromfile(path, skip_checksum=skip_checksum)
        s.validate()
    except (jsonschema.exceptions.ValidationError, sigmf.error.SigMFError,
            json.JSONDecodeError, OSError, DeprecationWarning) as e:
        return f"{type(e).__name__}: {str(e).splitlines()[0]}"
    return None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="+", help=".sigmf-meta files")
    ap.add_argument("--sigmf-python", default=os.environ.get("SIGMF_PYTHON_SRC"),
                    help="sigmf-python source checkout (default $SIGMF_PYTHON_SRC)")
    ap.add_argument("--skip-checksum", action="store_true")
    a = ap.parse_args(argv)
    try:
        sigmf = load_sigmf_python(a.sigmf_python)
    except ValueError as e:
        print(e, file=sys.stderr)
        return 2
    bad = 0
    for p in a.paths:
        err = validate_file(sigmf, p, a.skip_checksum)
        print(f"{'FAIL' if err else 'ok'}  {p}{'  ' + err if err else ''}")
        bad += err is not None
    print(f"sigmf-python {sigmf.__version__}: {len(a.paths) - bad} of {len(a.paths)} valid")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
