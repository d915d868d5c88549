/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <gnuradio/gpufft/backend.h>
#include <gnuradio/gpufft/device.h>
#include <algorithm>
#include <atomic>
#include <cctype>
#include <stdexcept>

namespace gr {
namespace gpufft {

namespace {
std::string lowercase(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) {
        return static_cast<char>(std::tolower(c));
    });
    return s;
}
} // namespace

backend parse_backend(const std::string& name)
{
    const std::string n = lowercase(name);
    if (n == "auto" || n == "automatic")
        return backend::automatic;
    if (n == "cpu")
        return backend::cpu;
    if (n == "cuda" || n == "gpu")
        return backend::cuda;
    throw std::invalid_argument("backend: unknown name '" + name +
                                "'; valid: 'auto', 'cpu', 'cuda'");
}

std::string to_string(backend b)
{
    switch (b) {
    case backend::automatic:
        return "auto";
    case backend::cpu:
        return "cpu";
    case backend::cuda:
        return "cuda";
    }
    return "unknown";
}

precision parse_precision(const std::string& name)
{
    const std::string n = lowercase(name);
    if (n == "single" || n == "float" || n == "float32" || n == "complex64")
        return precision::single;
    if (n == "double" || n == "float64" || n == "complex128")
        return precision::double_;
    throw std::invalid_argument("precision: unknown name '" + name +
                                "'; valid: 'single' (complex64), 'double' (complex128)");
}

std::string to_string(precision p)
{
    return p == precision::single ? "single" : "double";
}

backend resolve_backend(backend requested, int device_id, const log_handler& log)
{
    switch (requested) {
    case backend::cpu:
        return backend::cpu;
    case backend::cuda:
        if (!cuda_compiled())
            throw std::runtime_error(
                "backend=cuda: gr-gpufft was built without CUDA; use backend='cpu' or "
                "'auto', or rebuild with the CUDA toolkit installed");
        if (cuda_device_count() == 0)
            throw std::runtime_error(
                "backend=cuda: no usable CUDA device (no GPU, or no driver); use "
                "backend='cpu' or 'auto'");
        resolve_device_id(device_id); // throws invalid_argument when out of range
        return backend::cuda;
    case backend::automatic:
        if (cuda_available(device_id))
            return backend::cuda;
        {
            const std::string notice = std::string("no usable CUDA device") +
                                       (cuda_compiled() ? "" : " (built without CUDA)") +
                                       "; backend 'auto' runs on the CPU";
            static std::atomic<bool> told{ false };
            if (log)
                log_message(log, log_level::info, notice);
            else if (!told.exchange(true))
                log_message({}, log_level::info, notice);
        }
        return backend::cpu;
    }
    throw std::invalid_argument("backend: invalid value");
}

} // namespace gpufft
} // namespace gr
