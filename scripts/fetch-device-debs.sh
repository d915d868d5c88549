#!/usr/bin/env bash
# Run here (Debian 12), before running scripts/gpu-check.sh on a GPU host: downloads into
# .device/debs the Debian packages the host needs to build the engines (FFTW and VOLK
# headers and libraries, listed in gpu-host-packages.sh). Send .device with the working
# tree; gpu-check.sh unpacks them there. Programs built here with GNU Radio need its
# runtime too: scripts/prepare-device-flowgraph.sh (through runtime-debs.sh) adds it.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
. scripts/gpu-host-packages.sh
mkdir -p .device/debs
cd .device/debs
apt-get download "${build_packages[@]}" >/dev/null
echo "$(ls | wc -l) packages, $(du -sh . | cut -f1), in .device/debs"
