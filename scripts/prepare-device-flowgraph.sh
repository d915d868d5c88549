#!/usr/bin/env bash
# Run here (Debian 12 with GNU Radio and the CUDA toolkit) to run the real GNU Radio
# blocks on a GPU host that has no GNU Radio: builds gpufft-flowgraph-bench with CUDA
# for sm_90 (HDF5 off: one package set less), copies it into .device/bin and
# libgnuradio-gpufft into .device/lib, and downloads into .device/debs the Debian
# packages of everything they load (scripts/runtime-debs.sh). Send .device with the
# working tree; there, scripts/gpu-check.sh -f runs the bench.
#
#   scripts/prepare-device-flowgraph.sh [BUILD_DIR]      (default build-grcuda)
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
. scripts/gpu-host-packages.sh
B=${1:-build-grcuda}
cmake -S . -B "$B" -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DENABLE_HDF5=OFF >/dev/null
ninja -C "$B" -j2 gpufft-flowgraph-bench
mkdir -p .device/bin .device/lib .device/debs
cp "$B/apps/gpufft-flowgraph-bench" .device/bin/
cp -P "$B"/lib/libgnuradio-gpufft.so* .device/lib/
scripts/runtime-debs.sh .device/debs .device/bin/gpufft-flowgraph-bench .device/lib/libgnuradio-gpufft.so
total=$(du -sm .device | cut -f1)
echo ".device: ${total} MiB (${carry_limit_mib} MiB at most, CARRY_LIMIT_MIB)"
[ "$total" -le "$carry_limit_mib" ] || echo "WARNING: .device is over ${carry_limit_mib} MiB" >&2
