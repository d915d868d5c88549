/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "accumulator/fbh5_writer.h"
#include "stream/engine_failure.h"
#include "stream/spectrometer_setup.h"
#include <unistd.h>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace gr {
namespace gpufft {
namespace stream {

namespace {

void check_writable(const std::string& path)
{
    if (path.empty())
        return;
    const auto slash = path.find_last_of('/');
    const std::string dir = slash == std::string::npos ? "."
                            : slash == 0               ? "/"
                                                       : path.substr(0, slash);
    const bool exists = ::access(path.c_str(), F_OK) == 0;
    if (::access(exists ? path.c_str() : dir.c_str(), exists ? W_OK : W_OK | X_OK) != 0)
        throw std::invalid_argument("filterbank_path: cannot write '" + path +
                                    "': " + std::strerror(errno));
}

std::string power_of_two_or_number(std::int64_t n)
{
    if (n > 0 && (n & (n - 1)) == 0) {
        int e = 0;
        while ((std::int64_t(1) << e) < n)
            ++e;
        return std::to_string(n) + " (2^" + std::to_string(e) + ")";
    }
    return std::to_string(n);
}

bool ends_with(const std::string& s, const std::string& tail)
{
    if (s.size() < tail.size())
        return false;
    for (std::size_t i = 0; i < tail.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(s[s.size() - tail.size() + i])) !=
            tail[i])
            return false;
    return true;
}

} // namespace

std::string resolve_file_format(const std::string& file_format,
                                const std::string& path,
                                std::string& warning)
{
    warning.clear();
    if (file_format != "auto" && file_format != "fil" && file_format != "h5")
        throw std::invalid_argument(
            "file_format must be \"auto\" (from the path's extension), \"fil\" "
            "(SIGPROC) or \"h5\" (HDF5 filterbank), got \"" +
            file_format + "\"");
    const bool h5_name =
        ends_with(path, ".h5") || ends_with(path, ".hdf5") || ends_with(path, ".fbh5");
    const bool fil_name = ends_with(path, ".fil");
    if (file_format == "auto")
        return h5_name ? "h5" : "fil";
    if ((file_format == "h5" && fil_name) || (file_format == "fil" && h5_name))
        warning = "file_format \"" + file_format + "\" writes " +
                  (file_format == "h5" ? "an HDF5 filterbank" : "a SIGPROC filterbank") +
                  " to '" + path + "', whose extension says " +
                  (file_format == "h5" ? "SIGPROC (.fil)" : "HDF5") +
                  "; file_format \"auto\" takes the format from the extension";
    return file_format;
}

spectrometer_setup checked_spectrometer_setup(const spectrometer_settings& in)
{
    spectrometer_setup s;
    const std::string format =
        resolve_file_format(in.file_format, in.filterbank_path, s.format_warning);
    if (format == "h5" && !accumulator::fbh5_supported())
        throw std::invalid_argument(
            std::string("file_format: \"h5\"") +
            (in.file_format == "auto" ? " (from the extension of filterbank_path)" : "") +
            " needs HDF5, which this build of gr-gpufft lacks (install libhdf5-dev, "
            "then configure and build gr-gpufft again), or use \"fil\"");
    accumulator::check_pointing(in.pointing);
    check_writable(in.filterbank_path);
    pipeline_config& c = s.config;
    c.fft_size = in.fft_size;
    c.n_integrations = in.n_integrations;
    c.output_bins = in.output_bins;
    c.band_start = in.band_start;
    c.band_stop = in.band_stop;
    c.overlap = in.overlap;
    c.window = parse_window(in.window);
    c.mode = parse_integration_mode(in.mode);
    c.input = parse_sample_format(in.input_type);
    if (!(in.samp_rate > 0) || !std::isfinite(in.samp_rate))
        throw std::invalid_argument("samp_rate must be a finite number > 0 Hz, got " +
                                    std::to_string(in.samp_rate));
    if (!std::isfinite(in.center_freq))
        throw std::invalid_argument("center_freq must be finite");
    s.engine.backend = parse_backend(in.backend);
    s.engine.device_id = in.device_id;
    s.engine.memory_budget = std::size_t(in.memory_budget);
    s.engine.devices = in.devices;
    validate(c);
    s.output_db = in.output_db;
    s.samp_rate = in.samp_rate;
    s.center_freq = in.center_freq;
    s.filterbank_path = in.filterbank_path;
    s.source_name = in.source_name;
    s.filterbank_h5 = format == "h5";
    s.pointing = in.pointing;
    return s;
}

std::shared_ptr<spectrum_integrator> make_spectrometer_integrator(spectrometer_setup& s,
                                                                  log_handler log)
{
    pipeline_config& c = s.config;
    spectrum_integrator_options io;
    io.backend = s.engine.backend;
    io.device_id = s.engine.device_id;
    io.memory_budget = s.engine.memory_budget;
    io.devices = s.engine.devices;
    io.threads = c.threads;
    io.window = to_string(c.window);
    io.mode = c.mode;
    // On the fused GPU path the integrator converts integer input there (the pipeline
    // then hands it raw frames); elsewhere the pipeline converts it on the host.
    io.input_type = to_string(c.input);
    io.log = std::move(log);
    // Under backend "auto", a GPU that cannot hold the integrator leaves it on the CPU.
    cpu_fallback fallback(io.backend, "large_fft_accumulator", io.log);
    auto integrator = fallback.make([&](gpufft::backend b) {
        io.backend = b;
        return std::make_shared<spectrum_integrator>(
            c.fft_size, c.band_start, c.band_stop, c.output_bins, io);
    });
    c.pinned = integrator->backend() == gpufft::backend::cuda;
    c.device_id = integrator->device_id();
    const std::uint64_t phys = host_physical_memory();
    const std::uint64_t frames = frame_memory_bytes(c.fft_size);
    if (!c.pinned && phys > 0 && frames + integrator->memory_budget() > phys / 10 * 9)
        throw std::invalid_argument(
            "fft_size / memory_budget: two frames (" + std::to_string(frames >> 20) +
            " MiB) and the CPU engine's working memory (" +
            std::to_string(integrator->memory_budget() >> 20) +
            " MiB) exceed 90% of this host's " + std::to_string(phys >> 20) +
            " MiB; lower fft_size or set a smaller memory_budget");
    return integrator;
}

std::string describe_spectrometer(const pipeline_config& config,
                                  const spectrum_integrator& integrator)
{
    return "fft_size " + power_of_two_or_number(config.fft_size) + " on the " +
           to_string(integrator.backend()) + " backend, " +
           (integrator.on_device() ? "integrated on the GPU"
                                   : "window and band reduction on the host") +
           (config.input == sample_format::fc32 ? ""
            : integrator.converts_on_device()
                ? ", " + to_string(config.input) + " input converted on the GPU"
                : ", " + to_string(config.input) + " input converted on the host");
}

std::string frame_memory_warning(std::int64_t fft_size)
{
    const std::uint64_t need = frame_memory_bytes(fft_size);
    const std::uint64_t available = host_available_memory();
    if (available == 0 || need <= available)
        return {};
    char text[160];
    std::snprintf(text,
                  sizeof text,
                  "the two frames need %.1f GiB but only %.1f GiB of host memory is "
                  "available now: expect swapping",
                  double(need) / double(1ull << 30),
                  double(available) / double(1ull << 30));
    return text;
}

} // namespace stream
} // namespace gpufft
} // namespace gr
