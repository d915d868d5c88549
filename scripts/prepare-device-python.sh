#!/usr/bin/env bash
# Run here (Debian 12 with GNU Radio 3.10 and the CUDA toolkit) to run the Python QA on a
# GPU host that has neither GNU Radio nor Python 3.11:
#   1. builds the module with GNU Radio and CUDA for sm_90 (HDF5 off), only what Python
#      needs: libgnuradio-gpufft and the gpufft_python binding;
#   2. stages into .device/py what the QA needs there:
#        lib/   libgnuradio-gpufft.so*
#        site/  gnuradio/gpufft (the binding and the .py files): PYTHONPATH=.device/py/site
#        qa/    python/gpufft/qa_*.py (with their testing_*.py helpers), apps/gpufft-demo and
#               apps/gpufft-block-soak (scripts/gpu-check.sh -b), in the
#               repository's layout (qa_demo_recording finds the demo at ../../apps)
#        ld-dirs.txt  the library folders (under the unpacked root) the loader needs
#   3. downloads into .device/pydebs the Debian 12 packages of the interpreter, its
#      standard library, numpy, GNU Radio's Python modules and every shared library they
#      load, less what the host has itself (gpu-host-packages.sh);
#   4. simulates the GPU host: unpacks the packages into a scratch root and runs the
#      QA there on the CPU backend with scripts/device-python-qa.sh, the script that
#      scripts/gpu-check.sh -p runs there (isolated from this system's Python, and failing
#      on any library loaded from this system that is not carried).
# Then send .device with the working tree and run `scripts/gpu-check.sh -n -p` there.
#
#   scripts/prepare-device-python.sh [-S] [BUILD_DIR]       (default build-pycuda)
#     -S   skip step 4 (the simulation runs every QA file: minutes)
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
. scripts/gpu-host-packages.sh
simulate=1
if [ "${1:-}" = "-S" ]; then simulate=0; shift; fi
B=${1:-build-pycuda}
PY=/usr/bin/python3 # the interpreter GNU Radio 3.10.5 is built for here (3.11)
D=.device/py
DEBS=.device/pydebs

echo "== build ($B: GNU Radio on, CUDA sm_90, HDF5 off)"
cmake -S . -B "$B" -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DENABLE_HDF5=OFF \
    -DPYTHON_EXECUTABLE=$PY >/dev/null
grep -q '^ENABLE_CUDA:BOOL=ON' "$B/CMakeCache.txt" ||
    { echo "$B: ENABLE_CUDA is not ON (the GPU host needs the CUDA build)" >&2; exit 1; }
ninja -C "$B" -j2 gnuradio-gpufft gpufft_python copy_module_for_tests

echo "== stage $D"
rm -rf "$D"
mkdir -p "$D/lib" "$D/site/gnuradio/gpufft" "$D/qa/python/gpufft" "$D/qa/apps"
cp -P "$B"/lib/libgnuradio-gpufft.so* "$D/lib/"
binding=$(ls "$B"/python/gpufft/bindings/gpufft_python*.so)
cp "$binding" "$D/site/gnuradio/gpufft/"
for f in python/gpufft/*.py; do
    case $(basename "$f") in
    qa_* | testing_*) cp "$f" "$D/qa/python/gpufft/" ;;
    *) cp "$f" "$D/site/gnuradio/gpufft/" ;;
    esac
done
cp apps/gpufft-demo apps/gpufft-block-soak "$D/qa/apps/"
git rev-parse --short HEAD >"$D/commit.txt"
git status --porcelain python apps lib include | head -5 >>"$D/commit.txt" || true

echo "== what the QA loads"
# Import gnuradio.{gr,blocks,pmt,analog}, the module and every QA file (module level only:
# their tests import nothing further but the standard library), then list every file
# loaded. h5py and matplotlib are kept out: the build has no HDF5 (that QA file skips)
# and the demo plots only when asked.
loaded=$(mktemp)
env PYTHONPATH="$PWD/$D/site" LD_LIBRARY_PATH="$PWD/$D/lib" PYTHONDONTWRITEBYTECODE=1 \
    $PY -s - "$D/qa/python/gpufft" >"$loaded" <<'EOF'
import glob, importlib.util, os, sys
for name in ("h5py", "matplotlib"):
    sys.modules[name] = None
qa_dir = sys.argv[1]
sys.path.insert(0, qa_dir)
import numpy, pmt
from gnuradio import analog, blocks, gr, gr_unittest, gpufft
for path in sorted(glob.glob(os.path.join(qa_dir, "qa_*.py"))):
    name = os.path.basename(path)[:-3]
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
files = {getattr(m, "__file__", None) for m in list(sys.modules.values()) if m}
with open("/proc/self/maps") as maps:
    files |= {line.split()[-1] for line in maps if ".so" in line.split()[-1]}
print("\n".join(sorted(os.path.realpath(f) for f in files if f)))
EOF
# Every extension module of the standard library, whether the QA imports it or not, but
# the terminal, database and GUI ones (readline, curses, dbm, nis, sqlite3, tkinter): the
# QA imports none of them, and they would bring ncurses, Kerberos, Tcl/Tk and X11.
stdlib_ext=$($PY -c 'import sysconfig; print(sysconfig.get_path("platstdlib"))')/lib-dynload
ls "$stdlib_ext"/*.so |
    grep -Ev '/(_tkinter|readline|_curses|_curses_panel|_dbm|_gdbm|nis|_sqlite3|ossaudiodev|_test[a-z_]*|_xx[a-z_]*|xxlimited[_0-9]*|_ctypes_test)\.' \
    >>"$loaded"
echo /usr/bin/python3.11 >>"$loaded"
# Modules that .pth files of this system load (setuptools' _distutils_hack, matplotlib's
# mpl_toolkits) are not the QA's: of dist-packages, only gnuradio, numpy and pmt.
grep -Pv '/dist-packages/(?!(gnuradio|numpy|pmt)/)' "$loaded" >"$loaded.keep"
mv "$loaded.keep" "$loaded"
# shared libraries those load in turn
grep '\.so' "$loaded" | xargs ldd 2>/dev/null | awk '/=>/ && $3 ~ /^\// {print $3}' |
    xargs -r realpath >>"$loaded"
sort -u -o "$loaded" "$loaded"
grep -v -e "^$PWD/" -e '^/usr/local/cuda' "$loaded" >"$loaded.sys"
# The owning packages, in one dpkg call (one a file takes minutes). dpkg names a file by
# the path its package ships, which is /lib/... for some (usr-merge): ask for both.
owners=$(sed 's|^/usr\(/lib/.*\)|&\n\1|' "$loaded.sys" | xargs dpkg -S 2>/dev/null || true)
# The host has its own C/C++ runtime (newer), OpenSSL, compression libraries and CUDA
# ($host_has); the build's own libraries travel in .device/py.
skip=$host_has
pkgs=$(echo "$owners" | sed 's/: .*//' | tr ', ' '\n\n' | sed 's/:.*//' | grep -v '^$' |
    sort -u | grep -Ev "$skip" || true)
unowned=$(while read -r f; do
    grep -qF -e ": $f" -e ": ${f#/usr}" <<<"$owners" || echo "$f"; done <"$loaded.sys")
[ -z "$unowned" ] || { echo "loaded but owned by no Debian package (not carried):" >&2
    echo "$unowned" >&2; }
# the folders of the loader's path, relative to the unpacked root (the BLAS and LAPACK
# that numpy loads live in alternatives folders, e.g. /usr/lib/x86_64-linux-gnu/blas)
grep '\.so' "$loaded" | grep -v -e "^$PWD/" -e '^/usr/local/cuda' | grep -v '/python3' |
    xargs -n1 dirname | sort -u >"$D/ld-dirs.txt"
rm -f "$loaded" "$loaded.sys"

echo "== download into $DEBS"
rm -rf "$DEBS"
mkdir -p "$DEBS"
# shellcheck disable=SC2086
(cd "$DEBS" && apt-get download $pkgs >/dev/null)
echo "$(ls $DEBS/*.deb | wc -l) packages:" $(ls $DEBS | sed 's/_.*//')
echo "library folders: $(tr '\n' ' ' <"$D/ld-dirs.txt")"
du -sh "$D" "$DEBS"
total=$(du -sm .device | cut -f1)
echo ".device: ${total} MiB in all ($(du -sh .device/* | tr '\t\n' '= ')) (${carry_limit_mib} MiB at most)"
[ "$total" -le "$carry_limit_mib" ] || echo "WARNING: .device is over ${carry_limit_mib} MiB: send .device/py and .device/pydebs alone"

if [ $simulate = 1 ]; then
    echo "== simulate the GPU host: unpack into /tmp/grrt-sim, run the QA there"
    rm -rf /tmp/grrt-sim
    mkdir -p /tmp/grrt-sim
    for f in "$DEBS"/*.deb; do dpkg -x "$f" /tmp/grrt-sim; done
    scripts/device-python-qa.sh -s /tmp/grrt-sim /tmp/grrt-sim-out
fi
