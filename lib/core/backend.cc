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

// The names of backend and precision, one table each: the parsers, to_string, the
// messages and the lists the bindings show all come from here. The first name of a
// value is its own; the others are accepted spellings.
struct backend_name {
    backend value;
    const char* name;
};
constexpr backend_name backend_table[] = { { backend::automatic, "auto" },
                                           { backend::cpu, "cpu" },
                                           { backend::cuda, "cuda" },
                                           { backend::automatic, "automatic" },
                                           { backend::cuda, "gpu" } };
constexpr int backend_count = 3; //!< the first three: the values' own names

struct precision_name {
    precision value;
    const char* name;
};
constexpr precision_name precision_table[] = {
    { precision::single, "single" },     { precision::double_, "double" },
    { precision::single, "float" },      { precision::single, "float32" },
    { precision::single, "complex64" },  { precision::double_, "float64" },
    { precision::double_, "complex128" }
};

//! "'a', 'b' or 'c'" (last = " or ") or "'a', 'b', 'c'" (last = ", ") of the first
//! `count` names of a table.
template <typename Row>
std::string listing(const Row* rows, int count, const char* last)
{
    std::string s;
    for (int i = 0; i < count; ++i)
        s += std::string(i == 0           ? ""
                         : i + 1 == count ? last
                                          : ", ") +
             "'" + rows[i].name + "'";
    return s;
}

backend parse_backend(const std::string& name)
{
    const std::string n = lowercase(name);
    for (const auto& t : backend_table)
        if (n == t.name)
            return t.value;
    throw std::invalid_argument("backend: unknown name '" + name + "'; valid: " +
                                listing(backend_table, backend_count, ", "));
}

std::string to_string(backend b)
{
    for (int i = 0; i < backend_count; ++i)
        if (backend_table[i].value == b)
            return backend_table[i].name;
    return "unknown";
}

std::string backend_names() { return listing(backend_table, backend_count, " or "); }

precision parse_precision(const std::string& name)
{
    const std::string n = lowercase(name);
    for (const auto& t : precision_table)
        if (n == t.name)
            return t.value;
    throw std::invalid_argument("precision: unknown name '" + name +
                                "'; valid: 'single' (complex64), 'double' (complex128)");
}

std::string to_string(precision p)
{
    return p == precision::single ? precision_table[0].name : precision_table[1].name;
}

std::string precision_names() { return listing(precision_table, 2, " or "); }

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
