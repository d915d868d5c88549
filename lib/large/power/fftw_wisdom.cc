/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "large/power/fftw_wisdom.h"
#include <fftw3.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cstdio>
#include <set>
#include <stdexcept>

namespace gr {
namespace gpufft {
namespace power {

fftw_planning parse_fftw_planner(const std::string& name)
{
    if (name == "auto")
        return fftw_planning::automatic;
    if (name == "measure")
        return fftw_planning::measure;
    if (name == "estimate")
        return fftw_planning::estimate;
    throw std::invalid_argument(
        "fftw_planner must be \"auto\", \"measure\" or \"estimate\", not \"" + name +
        "\"");
}

void import_fftwf_wisdom_once(const std::string& path)
{
    static std::set<std::string> done; // guarded by the planner mutex the caller holds
    if (path.empty() || !done.insert(path).second)
        return;
    if (::access(path.c_str(), R_OK) == 0)
        fftwf_import_wisdom_from_filename(path.c_str());
}

void export_fftwf_wisdom(const std::string& path)
{
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
