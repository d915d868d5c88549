# Package lists for running on a GPU host that has CUDA but no GNU Radio, no FFTW, no
# VOLK and no network: what travels there as Debian 12 packages (in .device/, with the
# working tree) and what the host is expected to have itself. Sourced by
# fetch-device-debs.sh, runtime-debs.sh and prepare-device-python.sh; edit the lists here.

# To build the engines there (gpu-check.sh): FFTW and VOLK, headers and libraries.
build_packages=(libfftw3-dev libfftw3-single3 libfftw3-double3 libfftw3-bin
    libvolk2-dev libvolk2.5 liborc-0.4-0)

# GNU Radio libraries a program built here with GNU Radio loads there (libgnuradio-NAME).
gnuradio_libraries=(runtime pmt blocks fft filter analog)

# Packages never carried: the host's newer system has its own C/C++ runtime, OpenSSL
# and compression libraries (an extended regular expression on package names).
host_has='^(libc6|libstdc\+\+6|libgcc-s1|gcc-12-base|libssl3|zlib1g|libzstd1|liblzma5|libselinux1|libcap2)$'

# The most .device may hold, in MiB, for the copy of the working tree that goes to the
# host; override with CARRY_LIMIT_MIB where your copy allows more.
carry_limit_mib=${CARRY_LIMIT_MIB:-64}
