#!/usr/bin/env bash
# Compiles every examples/*.grc with grcc and runs each *_headless one (they stop by
# themselves) in OUTPUT_DIR, after the examples' data makers (examples/make_*.py) have
# written their files there. Each flowgraph's id (Options block) must equal its file
# name. A radio example whose GNU Radio module is not installed (gr-soapy with
# python3-soapysdr, which grcc needs to render Soapy blocks; gr-uhd) is skipped and
# said so. Used by ctest (examples_grcc) with the build tree's module on PYTHONPATH
# and the source tree's GRC blocks on GRC_BLOCKS_PATH.
#   check-examples.sh EXAMPLES_DIR OUTPUT_DIR
set -uo pipefail
src=${1:?examples dir} out=${2:?output dir}
mkdir -p "$out"
shopt -s nullglob
grcs=("$src"/*.grc)
if [ ${#grcs[@]} -eq 0 ]; then
    echo "no example flowgraphs yet"
    exit 77
fi
fail=0
for m in "$src"/make_*.py; do
    if ! (cd "$out" && /usr/bin/python3 "$m") >"$out/$(basename "$m" .py).log" 2>&1; then
        echo "data $(basename "$m"): FAILED"; cat "$out/$(basename "$m" .py).log"; fail=1
    fi
done
for g in "${grcs[@]}"; do
    name=$(basename "$g" .grc)
    missing=""
    grep -q "id: soapy_" "$g" && ! /usr/bin/python3 -c "import SoapySDR; from gnuradio import soapy" 2>/dev/null &&
        missing="gr-soapy or python3-soapysdr"
    grep -q "id: uhd_" "$g" && ! /usr/bin/python3 -c "from gnuradio import uhd" 2>/dev/null &&
        missing="gr-uhd"
    if [ -n "$missing" ]; then
        echo "grcc $name: skipped (needs $missing)"
        continue
    fi
    # grcc exits 0 when it drops a connection it cannot make (a port that an installed,
    # older copy of a block lacks): its ">>> Error" lines fail the example too.
    if grcc -o "$out" "$g" >"$out/$name.grcc.log" 2>&1 && ! grep -q ">>> Error" "$out/$name.grcc.log"; then
        echo "grcc $name: ok"
    else
        echo "grcc $name: FAILED"; cat "$out/$name.grcc.log"; fail=1; continue
    fi
    if [[ $name == *_headless ]]; then
        # each example's flowgraph id is its file name
        if (cd "$out" && timeout 300 /usr/bin/python3 "$name.py") >"$out/$name.run.log" 2>&1; then
            echo "run  $name: ok ($(tail -n 1 "$out/$name.run.log"))"
        else
            echo "run  $name: FAILED"; tail -n 30 "$out/$name.run.log"; fail=1
        fi
    fi
done
exit $fail
