/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "fftw_wisdom.h"
#include <fftw3.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cstdio>
#include <cstdlib>

namespace gr {
namespace gpufft {
namespace power {

std::string fftwf_wisdom_path()
{
    if (const char* p = std::getenv("GPUFFT_FFTW_WISDOM"))
        return p; // "" turns the file off
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
        return std::string(xdg) + "/gr-gpufft/fftwf_wisdom";
    if (const char* home = std::getenv("HOME"); home && *home)
        return std::string(home) + "/.cache/gr-gpufft/fftwf_wisdom";
    return {};
}

void import_fftwf_wisdom_once()
{
    static bool done = false; // guarded by the planner mutex the caller holds
    if (done)
        return;
    done = true;
    const std::string path = fftwf_wisdom_path();
    if (!path.empty() && ::access(path.c_str(), R_OK) == 0)
        fftwf_import_wisdom_from_filename(path.c_str());
}

void export_fftwf_wisdom()
{
    const std::string path = fftwf_wisdom_path();
    if (path.empty())
        return;
    // mkdir -p of the file's folder (and of its parent: ~/.cache may not exist yet).
    const auto slash = path.find_last_of('/');
    if (slash != std::string::npos && slash > 0) {
        const std::string dir = path.substr(0, slash);
        const auto up = dir.find_last_of('/');
        if (up != std::string::npos && up > 0)
            ::mkdir(dir.substr(0, up).c_str(), 0755);
        ::mkdir(dir.c_str(), 0755);
    }
    const std::string tmp = path + ".tmp" + std::to_string(::getpid());
    if (fftwf_export_wisdom_to_filename(tmp.c_str()))
        std::rename(tmp.c_str(), path.c_str());
    else
        std::remove(tmp.c_str());
}

} // namespace power
} // namespace gpufft
} // namespace gr
