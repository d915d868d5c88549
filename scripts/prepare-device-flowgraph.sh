#!/usr/bin/env bash
# Run here (Debian 12 with GNU Radio and the CUDA toolkit), before a device call that runs
# the real GNU Radio blocks on the GPU machine, which has no GNU Radio:
#   builds gpufft-flowgraph-bench with CUDA for sm_90 (HDF5 off: one package set less),
#   copies it into .device/bin and libgnuradio-gpufft into .device/lib, and downloads
#   into .device/debs the Debian packages of everything they load
#   (../shared/device/gr-runtime-debs.sh). Carry ".device"; scripts/gpu-check.sh -f runs
#   the bench there.
#
#   scripts/prepare-device-flowgraph.sh [BUILD_DIR]      (default build-grcuda)
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
B=${1:-build-grcuda}
debs_script=../shared/device/gr-runtime-debs.sh
[ -x "$debs_script" ] || { echo "$debs_script not found (it lives beside the checkout)" >&2; exit 1; }
cmake -S . -B "$B" -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DENABLE_HDF5=OFF >/dev/null
ninja -C "$B" -j2 gpufft-flowgraph-bench
mkdir -p .device/bin .device/lib .device/debs
cp "$B/apps/gpufft-flowgraph-bench" .device/bin/
cp -P "$B"/lib/libgnuradio-gpufft.so* .device/lib/
"$debs_script" .device/debs .device/bin/gpufft-flowgraph-bench .device/lib/libgnuradio-gpufft.so
echo "carry .device: $(du -sh .device | cut -f1) (the device tool carries 64 MiB at most)"
