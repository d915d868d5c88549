#!/usr/bin/env bash
# Runs the carried Python QA (.device/py, made by scripts/prepare-device-python.sh) with
# the carried Python 3.11 unpacked under ROOT, isolated from the machine's own Python:
# env -i, PYTHONHOME=ROOT/usr, PYTHONPATH=.device/py/site, LD_LIBRARY_PATH only into
# .device/py/lib, ROOT and CUDA. scripts/gpu-check.sh -p runs it on the GPU host
# (ROOT=/opt/grrt); prepare-device-python.sh runs it here with -s (a scratch ROOT).
#
#   scripts/device-python-qa.sh [-s] [-t SECS] ROOT OUTDIR [QA_NAME ...]
#     -s       simulation: a shared library loaded from outside ROOT, .device and the
#              system set the GPU host has (C/C++ runtime, OpenSSL, compression,
#              CUDA) is an error: the carried packages miss it
#     -t SECS  time limit per QA file (default 300)
#     -r 'APP ARGS'  instead of the QA, run the carried app .device/py/qa/apps/APP with
#              ARGS in the same environment (e.g. 'gpufft-block-soak --seconds 30'),
#              its output in OUTDIR/APP.log, within -t SECS
#     QA_NAME  e.g. qa_nufft3 (default: every .device/py/qa/python/gpufft/qa_*.py; the
#              helpers they import are named testing_*.py)
#
# Writes OUTDIR/python-qa.log (every file's output, in turn), OUTDIR/python-qa-env.txt
# (interpreter, sys.path, the files gnuradio, numpy and gpufft resolve to) and
# OUTDIR/python-qa-summary.txt (a line per file: pass, FAIL, skip or TIMEOUT, seconds,
# the backends it ran), and prints the summary. Exit status 1 when anything failed.
set -uo pipefail
strict=0 limit=300 app=""
while getopts "st:r:" opt; do
    case $opt in
    s) strict=1 ;;
    t) limit=$OPTARG ;;
    r) app=$OPTARG ;;
    *) echo "usage: $0 [-s] [-t secs] [-r 'app args'] ROOT OUTDIR [qa_name ...]" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
ROOT=${1:?usage: $0 [-s] [-t secs] ROOT OUTDIR [qa_name ...]}
OUTDIR=${2:?usage: $0 [-s] [-t secs] ROOT OUTDIR [qa_name ...]}
shift 2
ROOT=$(realpath "$ROOT")
DEV=$PWD/.device/py
QA=$DEV/qa/python/gpufft
py=$ROOT/usr/bin/python3.11
# The QA reads tests/data (the vendored captures) beside its python/ folder, as in the
# repository: the working tree's, linked rather than carried twice.
[ -e "$DEV/qa/tests" ] || ln -s "$PWD/tests" "$DEV/qa/tests"
mkdir -p "$OUTDIR"
log=$OUTDIR/python-qa.log summary=$OUTDIR/python-qa-summary.txt
# Only the QA starts its logs afresh: gpu-check.sh -p -b runs the QA, then an app (-r),
# into the same OUTDIR.
if [ -z "$app" ]; then
    : >"$log"
    : >"$summary"
fi

fail() { echo "python QA: $*" | tee -a "$summary" >&2; exit 1; }
[ -d "$QA" ] || fail "no $QA: run scripts/prepare-device-python.sh on the build machine and carry .device"
[ -x "$py" ] || fail "no interpreter $py: the python3.11-minimal package was not unpacked into $ROOT (carry .device/pydebs)"
# Debian's sitecustomize is a link to /etc/python3.11, which is not carried; here it
# would load this machine's file.
link=$ROOT/usr/lib/python3.11/sitecustomize.py
[ -L "$link" ] && rm -f "$link"

ld=$DEV/lib
# Packages of the usr-merge ship some libraries under /lib (libbz2, libexpat): dpkg -x
# puts those in ROOT/lib.
while read -r d; do
    ld=$ld:$ROOT$d
    [[ $d == /usr/lib/* ]] && ld=$ld:$ROOT${d#/usr}
done <"$DEV/ld-dirs.txt"
# cudart and cuFFT of the machine's CUDA (the module was built with CUDA 13)
for d in /usr/local/cuda/lib64 /usr/local/cuda/lib; do [ -d $d ] && ld=$ld:$d; done
home=$(mktemp -d)
pyenv=(env -i PATH=/usr/bin:/bin HOME="$home" LANG=C.UTF-8 TMPDIR=/tmp
    PYTHONHOME="$ROOT/usr" PYTHONPATH="$DEV/site" PYTHONNOUSERSITE=1
    PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 LD_LIBRARY_PATH="$ld")
[ -n "${GPUFFT_QA_SEED:-}" ] && pyenv+=(GPUFFT_QA_SEED="$GPUFFT_QA_SEED")
pyenv+=("$py" -s)

# The environment first: each import on its own, so a failure names what is missing.
env_txt=$OUTDIR/python-qa-env.txt
if ! "${pyenv[@]}" - "$ROOT" "$DEV" >"$env_txt" 2>&1 <<'EOF'; then
import os, sys
root, dev = sys.argv[1], sys.argv[2]
print("python", sys.version.replace("\n", " "))
print("executable", sys.executable, "prefix", sys.prefix)
print("sys.path:")
for p in sys.path:
    print("   ", p)
import numpy
import pmt
from gnuradio import gr, blocks, analog
from gnuradio import gpufft
files = {"numpy": numpy.__file__, "pmt": pmt.__file__, "gnuradio.gr": gr.__file__,
         "gnuradio.gpufft": gpufft.__file__,
         "gpufft binding": gpufft.gpufft_python.__file__}
for name, f in files.items():
    print(f"{name}: {f}")
bad = [n for n, f in files.items()
       if not (os.path.realpath(f).startswith(root + "/") or
               os.path.realpath(f).startswith(dev + "/"))]
print("numpy", numpy.__version__, "GNU Radio", gr.version())
print("gpufft: cuda_compiled", gpufft.cuda_compiled(), "cuda_available",
      gpufft.cuda_available(), "|", gpufft.describe_backend())
if bad:
    sys.exit(f"resolved outside {root} and {dev}: {bad}")
EOF
    cat "$env_txt" >&2
    fail "the carried interpreter cannot load the module (the error is above, also in $env_txt)"
fi
cat "$env_txt"

if [ -n "$app" ]; then
    read -r -a words <<<"$app"
    app_log=$OUTDIR/${words[0]}.log
    timeout -k 10 "$limit" "${pyenv[@]}" "$DEV/qa/apps/${words[0]}" "${words[@]:1}" \
        >"$app_log" 2>&1
    rc=$?
    rm -rf "$home"
    grep -v ':info:' "$app_log" | tail -n 30
    [ $rc = 124 ] && echo "${words[0]}: TIMEOUT after $limit s"
    exit $rc
fi

if [ $# -gt 0 ]; then
    files=()
    for name in "$@"; do files+=("$QA/${name%.py}.py"); done
else
    # every qa_*.py runs tests; their helpers are named testing_*.py (as in CMake)
    mapfile -t files < <(ls "$QA"/qa_*.py)
fi
status=0 passed=0 failed=0 skipped=0 t_all=$(date +%s)
libs_all=$(mktemp)
for f in "${files[@]}"; do
    name=$(basename "$f" .py)
    if [ ! -f "$f" ]; then
        echo "$name: no such QA file in $QA" | tee -a "$summary"
        failed=$((failed + 1)) status=1
        continue
    fi
    libs=$(mktemp)
    echo "===== $name" >>"$log"
    t0=$(date +%s)
    timeout -k 10 "$limit" "${pyenv[@]}" "$PWD/scripts/device_qa_run.py" "$libs" "$f" \
        >>"$log" 2>&1
    rc=$?
    secs=$(($(date +%s) - t0))
    cat "$libs" >>"$libs_all"
    rm -f "$libs"
    ran=$(sed -n "/^===== $name\$/,\$p" "$log" | grep -o '^backends: .*' | sort -u |
        head -1)
    case $rc in
    0) result=pass; passed=$((passed + 1)) ;;
    77) result=skip; skipped=$((skipped + 1)) ;;
    124) result="TIMEOUT after $limit s"; failed=$((failed + 1)); status=1 ;;
    *) result="FAIL rc=$rc"; failed=$((failed + 1)); status=1 ;;
    esac
    printf '%-36s %-18s %5d s  %s\n' "$name" "$result" "$secs" "${ran:-}" | tee -a "$summary"
    if [ "$rc" != 0 ] && [ "$rc" != 77 ]; then
        # the failing tests' own lines, to read without the log
        sed -n "/^===== $name\$/,\$p" "$log" |
            grep -E -A3 '^(FAIL|ERROR):|Error|error:|Traceback' | head -30 | sed 's/^/    /'
    fi
done
# Shared libraries loaded from outside the carried ones: the system set the GPU host has
# is expected; anything else there would be missing.
foreign=$(sort -u "$libs_all" | grep -v -e "^$ROOT/" -e "^$DEV/" -e '^/usr/local/cuda' |
    grep -Ev '/(ld-linux-x86-64|libc|libm|libpthread|libdl|librt|libstdc\+\+|libgcc_s|libssl|libcrypto|libz|libzstd|liblzma|libselinux|libcap|libcuda|libnvidia-[a-z-]*|libcufft[a-z]*|libcudart)\.so' ||
    true)
rm -f "$libs_all"
rm -rf "$home"
if [ -n "$foreign" ]; then
    echo "shared libraries loaded from this system, not from the carried packages:" |
        tee -a "$summary"
    echo "$foreign" | sed 's/^/    /' | tee -a "$summary"
    [ $strict = 1 ] && status=1
fi
echo "python QA: $passed passed, $failed failed, $skipped skipped of ${#files[@]} files," \
    "$(($(date +%s) - t_all)) s (log: $log)" | tee -a "$summary"
exit $status
