#!/usr/bin/env bash
# Run here (Debian 12), before a device call: downloads into .device/debs the Debian
# packages the GPU machine needs to build the engines (FFTW and VOLK headers and
# libraries; it has neither). Carry ".device" with the call; scripts/gpu-check.sh
# unpacks them. To run programs built here with GNU Radio there (gpufft-flowgraph-bench),
# also `apt-get download` GNU Radio's runtime library packages into .device/debs and
# carry the programs.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
mkdir -p .device/debs
cd .device/debs
apt-get download libfftw3-dev libfftw3-single3 libfftw3-double3 libfftw3-bin \
    libvolk2-dev libvolk2.5 liborc-0.4-0 >/dev/null
echo "$(ls | wc -l) packages, $(du -sh . | cut -f1), in .device/debs"
