/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "accumulator/filterbank_writer.h"
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <set>
#include <stdexcept>

namespace gr {
namespace gpufft {
namespace accumulator {

namespace {
std::runtime_error file_error(const std::string& what, const std::string& path)
{
    return std::runtime_error("filterbank_path: cannot " + what + " '" + path +
                              "': " + std::strerror(errno));
}
} // namespace

void check_pointing(const filterbank_pointing& p)
{
    auto check = [](const char* name, double v, double lo, double hi, bool hi_open) {
        if (std::isfinite(v) && v >= lo && (hi_open ? v < hi : v <= hi))
            return;
        char text[160];
        std::snprintf(text,
                      sizeof text,
                      "%s must be in [%.10g, %.10g%c, got %.10g",
                      name,
                      lo,
                      hi,
                      hi_open ? ')' : ']',
                      v);
        throw std::invalid_argument(text);
    };
    check("src_raj (hhmmss.s)", p.src_raj, 0.0, 240000.0, true);
    check("src_dej (ddmmss.s)", p.src_dej, -900000.0, 900000.0, false);
    check("az_start (degrees)", p.az_start, 0.0, 360.0, false);
    check("za_start (degrees)", p.za_start, 0.0, 180.0, false);
}

filterbank_writer::filterbank_writer(const std::string& path,
                                     const filterbank_header& header)
    : d_path(path), d_header(header)
{
    if (header.nchans < 1)
        throw std::invalid_argument("filterbank: nchans must be >= 1");
    if (header.nbits != 32)
        throw std::invalid_argument("filterbank: only nbits = 32 (float) is written");
    d_file = std::fopen(path.c_str(), "wb");
    if (!d_file)
        throw file_error("open", path);
    try {
        put_string("HEADER_START");
        put_int("telescope_id", header.telescope_id);
        put_int("machine_id", header.machine_id);
        put_int("data_type", header.data_type);
        // SIGPROC readers reject zero-length strings: leave empty names out.
        if (!header.rawdatafile.empty()) {
            put_string("rawdatafile");
            put_string(header.rawdatafile);
        }
        if (!header.source_name.empty()) {
            put_string("source_name");
            put_string(header.source_name);
        }
        put_double("az_start", header.az_start);
        put_double("za_start", header.za_start);
        put_double("src_raj", header.src_raj);
        put_double("src_dej", header.src_dej);
        put_double("fch1", header.fch1);
        put_double("foff", header.foff);
        put_int("nchans", header.nchans);
        put_int("nbits", header.nbits);
        put_int("nifs", header.nifs);
        put_double("tstart", header.tstart);
        put_double("tsamp", header.tsamp);
        put_string("HEADER_END");
        flush();
    } catch (...) {
        std::fclose(d_file);
        throw;
    }
}

filterbank_writer::~filterbank_writer()
{
    if (d_file)
        std::fclose(d_file);
}

void filterbank_writer::put(const void* data, std::size_t bytes)
{
    if (std::fwrite(data, 1, bytes, d_file) != bytes)
        throw file_error("write", d_path);
}

void filterbank_writer::put_string(const std::string& s)
{
    const std::int32_t len = std::int32_t(s.size());
    put(&len, sizeof len);
    put(s.data(), s.size());
}

void filterbank_writer::put_int(const std::string& key, int value)
{
    put_string(key);
    const std::int32_t v = value;
    put(&v, sizeof v);
}

void filterbank_writer::put_double(const std::string& key, double value)
{
    put_string(key);
    put(&value, sizeof value);
}

void filterbank_writer::write_spectrum(const float* channels)
{
    put(channels, sizeof(float) * std::size_t(d_header.nchans));
    ++d_spectra;
}

void filterbank_writer::flush()
{
    if (std::fflush(d_file) != 0)
        throw file_error("write", d_path);
}

filterbank_header read_filterbank_header(const std::string& path,
                                         std::int64_t* header_bytes)
{
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"),
                                                      &std::fclose);
    if (!f)
        throw file_error("open", path);
    auto bad = [&](const std::string& why) {
        return std::runtime_error("'" + path + "' is not a SIGPROC filterbank: " + why);
    };
    auto get = [&](void* p, std::size_t n) {
        if (std::fread(p, 1, n, f.get()) != n)
            throw bad("header ends early");
    };
    auto get_string = [&]() {
        std::int32_t len = 0;
        get(&len, sizeof len);
        if (len < 1 || len > 4096)
            throw bad("string length " + std::to_string(len));
        std::string s(std::size_t(len), '\0');
        get(&s[0], s.size());
        return s;
    };
    auto get_int = [&]() {
        std::int32_t v = 0;
        get(&v, sizeof v);
        return int(v);
    };
    auto get_double = [&]() {
        double v = 0;
        get(&v, sizeof v);
        return v;
    };

    if (get_string() != "HEADER_START")
        throw bad("no HEADER_START");
    static const std::set<std::string> other_ints = {
        "barycentric", "pulsarcentric", "nbeams", "ibeam", "nsamples"
    };
    static const std::set<std::string> other_doubles = { "refdm", "period" };
    filterbank_header h;
    for (;;) {
        const std::string key = get_string();
        if (key == "HEADER_END")
            break;
        if (key == "telescope_id")
            h.telescope_id = get_int();
        else if (key == "machine_id")
            h.machine_id = get_int();
        else if (key == "data_type")
            h.data_type = get_int();
        else if (key == "nchans")
            h.nchans = get_int();
        else if (key == "nbits")
            h.nbits = get_int();
        else if (key == "nifs")
            h.nifs = get_int();
        else if (key == "fch1")
            h.fch1 = get_double();
        else if (key == "foff")
            h.foff = get_double();
        else if (key == "tstart")
            h.tstart = get_double();
        else if (key == "tsamp")
            h.tsamp = get_double();
        else if (key == "az_start")
            h.az_start = get_double();
        else if (key == "za_start")
            h.za_start = get_double();
        else if (key == "src_raj")
            h.src_raj = get_double();
        else if (key == "src_dej")
            h.src_dej = get_double();
        else if (key == "source_name")
            h.source_name = get_string();
        else if (key == "rawdatafile")
            h.rawdatafile = get_string();
        else if (other_ints.count(key))
            get_int();
        else if (other_doubles.count(key))
            get_double();
        else
            throw bad("unknown keyword '" + key + "'");
    }
    if (header_bytes)
        *header_bytes = std::int64_t(std::ftell(f.get()));
    return h;
}

} // namespace accumulator
} // namespace gpufft
} // namespace gr
