#!/usr/bin/env bash
# On the GPU machine (through the device tool), from the repository root:
#   unpack the carried Debian packages, build the engines without GNU Radio for sm_90,
#   run the tests (ctest; `gpu`-labelled ones need the GPU), then each benchmark given.
#
#   scripts/gpu-check.sh [-t CTEST_REGEX] [-L LABEL] [-n] [-s] ['BENCH ARGS' ...]
#     -t REGEX  only the tests whose name matches (default: all)
#     -L LABEL  only tests with this label (gpu, cpu)
#     -n        no tests
#     -s        also run the GPU tests under compute-sanitizer memcheck
#     each further argument is one gpufft-bench command line, e.g. 'fft --sizes 2^20,2^24',
#               optionally led by environment settings: 'GPUFFT_DEVICE=1 large ...'
#
# Logs go under $OUT (the device tool brings them back): build.log, ctest.log,
# bench.jsonl (every JSON line), bench.log; the last lines printed are a short summary.
set -uo pipefail
OUT=${OUT:-/tmp/gpufft-out}
mkdir -p "$OUT"
regex="" label="" run_tests=1 sanitize=0
while getopts "t:L:ns" opt; do
    case $opt in
    t) regex=$OPTARG ;;
    L) label=$OPTARG ;;
    n) run_tests=0 ;;
    s) sanitize=1 ;;
    *) echo "usage: $0 [-t regex] [-L label] [-n] [-s] ['bench args' ...]" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))

nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"

if compgen -G ".device/debs/*.deb" >/dev/null; then
    mkdir -p /opt/grrt
    for f in .device/debs/*.deb; do dpkg -x "$f" /opt/grrt; done
    export LD_LIBRARY_PATH=/opt/grrt/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
else
    echo "no .device/debs: run scripts/fetch-device-debs.sh here and carry .device" >&2
fi

B=/tmp/gpufft-build
t0=$(date +%s)
if ! { cmake -S . -B $B -G Ninja -DENABLE_GNURADIO=OFF -DCMAKE_CUDA_ARCHITECTURES=90 \
        -DCMAKE_PREFIX_PATH=/opt/grrt/usr && ninja -C $B -j16; } >"$OUT/build.log" 2>&1; then
    tail -n 60 "$OUT/build.log"
    echo "BUILD FAILED"
    exit 1
fi
echo "build: $(($(date +%s) - t0)) s"

status=0
if [ $run_tests = 1 ]; then
    args=(--test-dir $B --output-on-failure --timeout 600)
    [ -n "$regex" ] && args+=(-R "$regex")
    [ -n "$label" ] && args+=(-L "$label")
    ctest "${args[@]}" >"$OUT/ctest.log" 2>&1 || status=1
    grep -E "^\[ (FAIL|SKIP) \]|Failed|\*\*\*" "$OUT/ctest.log" | head -40
    tail -n 3 "$OUT/ctest.log"
    if [ $sanitize = 1 ]; then
        for t in $(ctest --test-dir $B -L gpu -N | awk '/Test +#/ {print $3}'); do
            [ -n "$regex" ] && ! [[ $t =~ $regex ]] && continue
            exe=$(find $B -name "$t" -type f -executable | head -1)
            compute-sanitizer --tool memcheck --error-exitcode 9 "$exe" \
                >"$OUT/sanitize-$t.log" 2>&1 && echo "memcheck $t: clean" ||
                { echo "memcheck $t: ERRORS (see sanitize-$t.log)"; status=1; }
        done
    fi
fi

for cmd in "$@"; do
    echo "== gpufft-bench $cmd" | tee -a "$OUT/bench.log"
    # leading NAME=value words are environment settings, the rest the bench's arguments
    read -r -a words <<<"$cmd"
    envs=()
    while [ ${#words[@]} -gt 0 ] && [[ ${words[0]} =~ ^[A-Za-z_][A-Za-z0-9_]*= ]]; do
        envs+=("${words[0]}")
        words=("${words[@]:1}")
    done
    env "${envs[@]}" $B/apps/gpufft-bench "${words[@]}" --json "$OUT/bench.jsonl" \
        >>"$OUT/bench.log" 2>&1 || status=1
    # The table each command prints last is the summary.
    awk '/^== table/{p=1} p' "$OUT/bench.log" | tail -n 40
    sed -i 's/^== table/== table (printed)/' "$OUT/bench.log"
done
exit $status
