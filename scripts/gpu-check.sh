#!/usr/bin/env bash
# On a GPU host (a copy of the working tree), from the repository root:
#   unpack the carried Debian packages, build the engines without GNU Radio for sm_90,
#   run the tests (ctest; `gpu`-labelled ones need the GPU), then each benchmark given.
#
#   scripts/gpu-check.sh [-t CTEST_REGEX] [-L LABEL] [-n] [-s] [-S TOOLS] [-k SECS] [-f ARGS]
#                        [-C] [-T SECS] [-p] [-P QA_NAMES] [-b SECS [-B BLOCKS]]
#                        ['BENCH ARGS' ...]
#     -t REGEX  only the tests whose name matches (default: all)
#     -L LABEL  only tests with this label (gpu, cpu)
#     -n        no tests
#     -s        also run the GPU tests under compute-sanitizer memcheck (= -S memcheck)
#     -S TOOLS  also run the GPU tests under each compute-sanitizer tool listed, e.g.
#               memcheck,racecheck,synccheck (initcheck too); -t narrows the tests
#     -C        with -S: one sanitizer run per test case (`TEST =CASE`), each within the
#               limit, so a long test is covered case by case
#     -T SECS   limit of one sanitizer run (default 300)
#     -k SECS   soak: gpufft-soak runs each engine SECS seconds on cuda (fresh inputs,
#               host RSS and device memory watched; fails on growth)
#     -f ARGS   run the carried GNU Radio flowgraph bench (.device/bin, made here by
#               scripts/prepare-device-flowgraph.sh) with these arguments; repeatable
#     -p        run the carried Python QA (.device/py and .device/pydebs, made here by
#               scripts/prepare-device-python.sh) with the carried Python 3.11, every
#               qa_*.py with a 300 s limit (scripts/device-python-qa.sh); needs no build:
#               with -n and nothing else to run, nothing is built
#     -P NAMES  -p for these QA files only, e.g. -P qa_nufft3,qa_sparse_fft_plan
#     -b SECS   block soak: apps/gpufft-block-soak runs each of the four blocks SECS
#               seconds on cuda in a GNU Radio flowgraph, with the carried Python (as
#               -p; needs no build): exact item counts, tags, host and device memory
#     -B BLOCKS with -b: only these blocks, in turn, e.g. -B nufft3_spectrum (one block
#               alone for 560 s fills one device command)
#     each further argument is one gpufft-bench command line, e.g. 'fft --sizes 2^20,2^24',
#               optionally led by environment settings: 'GPUFFT_DEVICE=1 large ...'
#
# Logs go under $OUT (default /tmp/gpufft-out; point it where you collect the results): build.log, ctest.log,
# bench.jsonl (every JSON line), bench.log, sanitize-<tool>-<test>.log, soak.log,
# python-qa.log, python-qa-env.txt, python-qa-summary.txt; the last lines printed are a
# short summary.
set -uo pipefail
OUT=${OUT:-/tmp/gpufft-out}
mkdir -p "$OUT"
regex="" label="" run_tests=1 tools="" soak=0 flowgraphs=() python_qa=0 python_names=""
block_soak=0 soak_blocks="" per_case=0 san_limit=300
while getopts "t:L:nsS:CT:k:f:pP:b:B:" opt; do
    case $opt in
    t) regex=$OPTARG ;;
    L) label=$OPTARG ;;
    n) run_tests=0 ;;
    s) tools=${tools:+$tools,}memcheck ;;
    S) tools=${tools:+$tools,}$OPTARG ;;
    k) soak=$OPTARG ;;
    f) flowgraphs+=("$OPTARG") ;;
    p) python_qa=1 ;;
    P) python_qa=1 python_names=$OPTARG ;;
    b) block_soak=$OPTARG ;;
    B) soak_blocks=$OPTARG ;;
    C) per_case=1 ;;
    T) san_limit=$OPTARG ;;
    *) echo "usage: $0 [-t regex] [-L label] [-n] [-s] [-S tools] [-C] [-T secs] [-k secs] [-f 'flowgraph args'] [-p] [-P qa_names] [-b secs [-B blocks]] ['bench args' ...]" >&2
       exit 2 ;;
    esac
done
for tool in ${tools//,/ }; do
    case $tool in
    memcheck | racecheck | synccheck | initcheck) ;;
    *) echo "-S: unknown compute-sanitizer tool '$tool' (memcheck, racecheck, synccheck, initcheck)" >&2
       exit 2 ;;
    esac
done
shift $((OPTIND - 1))

nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"

if compgen -G ".device/debs/*.deb" >/dev/null; then
    mkdir -p /opt/grrt
    for f in .device/debs/*.deb; do dpkg -x "$f" /opt/grrt; done
    export LD_LIBRARY_PATH=/opt/grrt/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
elif [ $python_qa = 0 ] && [ "$block_soak" = 0 ]; then
    echo "no .device/debs: run scripts/fetch-device-debs.sh here and carry .device" >&2
fi

status=0
# The Python QA first: it needs no build, and a failed build must not hide it.
if [ $python_qa = 1 ]; then
    if compgen -G ".device/pydebs/*.deb" >/dev/null; then
        mkdir -p /opt/grrt
        for f in .device/pydebs/*.deb; do dpkg -x "$f" /opt/grrt; done
        # shellcheck disable=SC2086
        scripts/device-python-qa.sh /opt/grrt "$OUT" ${python_names//,/ } || status=1
    else
        echo "-p: no .device/pydebs: run scripts/prepare-device-python.sh here and carry .device" |
            tee "$OUT/python-qa-summary.txt" >&2
        status=1
    fi
fi
if [ "$block_soak" != 0 ]; then
    if compgen -G ".device/pydebs/*.deb" >/dev/null; then
        mkdir -p /opt/grrt
        for f in .device/pydebs/*.deb; do dpkg -x "$f" /opt/grrt; done
        nblocks=4 select=""
        if [ -n "$soak_blocks" ]; then
            nblocks=$(echo "$soak_blocks" | tr ',' '\n' | wc -l)
            select="--blocks $soak_blocks"
        fi
        echo "== gpufft-block-soak --backend cuda --seconds $block_soak $select"
        # each block: two probes of ~2 s, its soak and the flowgraph's start and stop
        scripts/device-python-qa.sh -t $((nblocks * (block_soak + 20) + 20)) \
            -r "gpufft-block-soak --backend cuda --seconds $block_soak $select" /opt/grrt "$OUT" ||
            status=1
    else
        echo "-b: no .device/pydebs: run scripts/prepare-device-python.sh here and carry .device" >&2
        status=1
    fi
fi
# The engines' build serves the tests, sanitizers, soak and benchmarks (the flowgraph
# bench is carried prebuilt).
if [ $run_tests = 0 ] && [ -z "$tools" ] && [ "$soak" = 0 ] && [ $# = 0 ]; then
    need_build=0
else
    need_build=1
fi

B=/tmp/gpufft-build
t0=$(date +%s)
if [ $need_build = 1 ] && ! { cmake -S . -B $B -G Ninja -DENABLE_GNURADIO=OFF -DCMAKE_CUDA_ARCHITECTURES=90 \
        -DCMAKE_PREFIX_PATH=/opt/grrt/usr && ninja -C $B -j16; } >"$OUT/build.log" 2>&1; then
    tail -n 60 "$OUT/build.log"
    echo "BUILD FAILED"
    [ -f "$OUT/python-qa-summary.txt" ] && cat "$OUT/python-qa-summary.txt"
    exit 1
fi
[ $need_build = 1 ] && echo "build: $(($(date +%s) - t0)) s"

if [ $run_tests = 1 ]; then
    args=(--test-dir $B --output-on-failure --timeout 600)
    [ -n "$regex" ] && args+=(-R "$regex")
    [ -n "$label" ] && args+=(-L "$label")
    ctest "${args[@]}" >"$OUT/ctest.log" 2>&1 || status=1
    grep -E "^\[ (FAIL|SKIP) \]|Failed|\*\*\*" "$OUT/ctest.log" | head -40
    tail -n 3 "$OUT/ctest.log"
fi
# Sanitizers run even with -n (the tests are built either way). Each tool reports
# "clean", or its error summary line; an exit code of 77 (no GPU) is a skip. The
# out-of-memory test is left out: its failed cudaMalloc calls are the point, and the
# sanitizers report every failed API call as an error. Each run is cut at -T seconds (300)
# (racecheck slows shared-memory kernels a hundredfold).
for tool in ${tools//,/ }; do
    for t in $(ctest --test-dir $B -L gpu -N | awk '/Test +#/ {print $3}'); do
        [ -n "$regex" ] && ! [[ $t =~ $regex ]] && continue
        [[ $t == *out_of_memory* ]] && continue
        exe=$(find $B -name "$t" -type f -executable | head -1)
        log="$OUT/sanitize-$tool-$t.log"
        : >"$log"
        cases=("")
        [ $per_case = 1 ] && mapfile -t cases < <("$exe" --list)
        for c in "${cases[@]}"; do
            name=$t${c:+ $c}
            echo "===== $name" >>"$log"
            t0=$(date +%s)
            timeout "$san_limit" compute-sanitizer --tool "$tool" --error-exitcode 9 \
                "$exe" ${c:+"=$c"} >>"$log" 2>&1
            rc=$?
            secs=$(($(date +%s) - t0))
            if [ $rc = 0 ]; then
                echo "$tool $name: clean (${secs} s)"
            elif [ $rc = 77 ]; then
                echo "$tool $name: skipped (no GPU)"
            elif [ $rc = 124 ]; then
                echo "$tool $name: TIMED OUT after $san_limit s (see $(basename "$log"))"
                status=1
            else
                echo "$tool $name: ERRORS rc=$rc (${secs} s): $(sed -n "/^===== $name\$/,\$p" "$log" |
                    grep -m1 -E 'ERROR SUMMARY|RACECHECK SUMMARY|Error')"
                status=1
            fi
        done
    done
done

if [ "$soak" != 0 ]; then
    echo "== gpufft-soak --seconds $soak" | tee "$OUT/soak.log"
    $B/apps/gpufft-soak --backend cuda --seconds "$soak" >>"$OUT/soak.log" 2>&1 || status=1
    tail -n 8 "$OUT/soak.log"
fi

for args in "${flowgraphs[@]}"; do
    fg=.device/bin/gpufft-flowgraph-bench
    [ -x $fg ] || { echo "-f: no $fg: run scripts/prepare-device-flowgraph.sh here and carry .device" >&2
        status=1; break; }
    echo "== gpufft-flowgraph-bench $args" | tee -a "$OUT/flowgraph.log"
    read -r -a words <<<"$args"
    LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-} $fg "${words[@]}" >>"$OUT/flowgraph.log" 2>&1 ||
        status=1
    tail -n 8 "$OUT/flowgraph.log"
done

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
# the Python QA's summary again, last, where the reply's tail shows it
if [ $python_qa = 1 ] && { [ $need_build = 1 ] || [ ${#flowgraphs[@]} -gt 0 ]; }; then
    echo "== Python QA (again)"
    cat "$OUT/python-qa-summary.txt"
fi
exit $status
