#!/usr/bin/env bash
# GRC's C++ output of the gr-gpufft blocks (their cpp_templates), end to end: grcc writes
# the flowgraph GRC_FILE as a C++ project, CMake builds it against the gnuradio-gpufft
# package config in PACKAGE_DIR (the build tree's, so this build is what is tested, not an
# install), and the program runs to its end (Head blocks stop it). Used by ctest
# (grc_cpp_flowgraph) with the source tree's GRC blocks on GRC_BLOCKS_PATH.
#   check-cpp-flowgraph.sh GRC_FILE OUTPUT_DIR PACKAGE_DIR
set -euo pipefail
grc=${1:?grc file} out=${2:?output dir} pkg=${3:?gnuradio-gpufft package dir}
command -v grcc >/dev/null || { echo "grcc not found"; exit 77; }
id=$(sed -n 's/^ *id: *//p' "$grc" | head -n 1) # the Options block comes first
rm -rf "$out"
mkdir -p "$out"
grcc "$grc" -o "$out" >"$out/grcc.log" 2>&1 || { cat "$out/grcc.log"; exit 1; }
project=$out/$id
# Without `packages` in a block's cpp_templates the project links gnuradio-gpufft
# without finding it, and CMake stops.
grep -q 'find_package(gnuradio-gpufft)' "$project/CMakeLists.txt" ||
    { echo "$project/CMakeLists.txt does not find gnuradio-gpufft"; exit 1; }
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S "$project" -B "$project/build" "${generator[@]}" -Dgnuradio-gpufft_DIR="$pkg" \
    >"$out/cmake.log" 2>&1 || { cat "$out/cmake.log"; exit 1; }
cmake --build "$project/build" >"$out/build.log" 2>&1 || { cat "$out/build.log"; exit 1; }
cd "$out"
"$project/build/$id"
# An empty Filterbank File means no file (GRC's no_quotes() left '' as a file name).
if [ -n "$(ls -A "$out" | grep -v -x -e "$id" -e grcc.log -e cmake.log -e build.log)" ]; then
    echo "the flowgraph left files it was not asked to write:"; ls -A "$out"; exit 1
fi
echo "C++ flowgraph $id built and ran"
