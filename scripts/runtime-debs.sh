#!/usr/bin/env bash
# Run here (Debian 12): downloads into DIR the Debian packages that programs built here
# need at run time on a GPU host without GNU Radio or FFTW: GNU Radio's libraries (the
# list in gpu-host-packages.sh) and every shared library that they and the FILEs named
# load (found with ldd), less the packages the host has itself.
#
#   scripts/runtime-debs.sh DIR [PROGRAM_OR_LIBRARY ...]
#
# Carry DIR with the working tree; there, scripts/gpu-check.sh unpacks .device/debs into
# /opt/grrt and puts /opt/grrt/usr/lib/x86_64-linux-gnu on LD_LIBRARY_PATH. Python
# modules do not travel this way (another Python there): see prepare-device-python.sh.
set -euo pipefail
here=$(dirname "$0")
# shellcheck source=scripts/gpu-host-packages.sh
. "$here/gpu-host-packages.sh"
dir=${1:?usage: runtime-debs.sh DIR [program-or-library ...]}
shift
mkdir -p "$dir"
files=("$@")
for name in "${gnuradio_libraries[@]}"; do
    for f in /usr/lib/x86_64-linux-gnu/libgnuradio-"$name".so.3.10.*; do
        [ -e "$f" ] && files+=("$f")
    done
done
[ ${#files[@]} -gt 0 ] || { echo "nothing to look at: no GNU Radio libraries and no file named" >&2; exit 1; }
pkgs=$({ printf '%s\n' "${files[@]}"; ldd "${files[@]}" 2>/dev/null | awk '/=>/ {print $3}'; } |
    sort -u | while read -r so; do
        [ -e "$so" ] && dpkg -S "$(readlink -f "$so")" 2>/dev/null | cut -d: -f1
    done | sort -u | grep -Ev "$host_has" || true)
[ -n "$pkgs" ] || { echo "no Debian package owns what those files load" >&2; exit 1; }
# shellcheck disable=SC2086
(cd "$dir" && apt-get download $pkgs >/dev/null 2>&1)
echo "downloaded $(ls "$dir"/*.deb | wc -l) packages, $(du -sh "$dir" | cut -f1), into $dir"
