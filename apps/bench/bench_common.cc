/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "bench_common.h"
#include <gnuradio/gpufft/device.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>

#ifdef GPUFFT_HAVE_CUDA
#include "cuda/cuda_resources.h"
#endif

namespace gpufft_bench {

std::vector<command>& commands()
{
    static std::vector<command> c;
    return c;
}

std::int64_t parse_size(const std::string& text)
{
    // Products of factors, each "a^b", "1e6" or an integer.
    std::int64_t total = 1;
    std::stringstream ss(text);
    std::string factor;
    while (std::getline(ss, factor, '*')) {
        std::int64_t v = 0;
        const auto caret = factor.find('^');
        if (caret != std::string::npos) {
            const double base = std::stod(factor.substr(0, caret));
            const double exp = std::stod(factor.substr(caret + 1));
            v = std::llround(std::pow(base, exp));
        } else {
            v = std::llround(std::stod(factor));
        }
        if (v <= 0)
            throw std::invalid_argument("size: '" + text + "' is not a positive size");
        total *= v;
    }
    return total;
}

stats summarize(std::vector<double> ms)
{
    stats s;
    std::sort(ms.begin(), ms.end());
    s.reps = int(ms.size());
    s.min_ms = ms.front();
    s.max_ms = ms.back();
    const std::size_t m = ms.size() / 2;
    s.median_ms = ms.size() % 2 ? ms[m] : 0.5 * (ms[m - 1] + ms[m]);
    return s;
}

stats time_host(const std::function<void(int)>& fn, int reps, int warmup)
{
    for (int i = 0; i < warmup; ++i)
        fn(i);
    std::vector<double> ms;
    for (int i = 0; i < reps; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        fn(i);
        const auto t1 = std::chrono::steady_clock::now();
        ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    return summarize(ms);
}

#ifdef GPUFFT_HAVE_CUDA
stats time_device(const std::function<void(int)>& fn, void* stream, int reps, int warmup)
{
    auto s = static_cast<cudaStream_t>(stream);
    for (int i = 0; i < warmup; ++i)
        fn(i);
    GPUFFT_CUDA_CHECK(cudaStreamSynchronize(s));
    gr::gpufft::cuda::event start(true), stop(true);
    std::vector<double> ms;
    for (int i = 0; i < reps; ++i) {
        start.record(s);
        fn(i);
        stop.record(s);
        stop.synchronize();
        ms.push_back(stop.elapsed_ms_since(start));
    }
    return summarize(ms);
}
#endif

namespace {
std::vector<result>& rows()
{
    static std::vector<result> r;
    return r;
}
std::string& json_path()
{
    static std::string p;
    return p;
}

std::string quote(const std::string& s)
{
    std::string o = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\')
            o += '\\';
        o += c;
    }
    return o + "\"";
}

// The command line of this process, from /proc (so main needs not pass it), as the user
// would type it again: "gpufft-bench ARGS", less --json FILE (a local path).
std::string read_command_line()
{
    std::ifstream f("/proc/self/cmdline", std::ios::binary);
    const std::string raw((std::istreambuf_iterator<char>(f)),
                          std::istreambuf_iterator<char>());
    std::vector<std::string> args;
    std::string::size_type at = 0;
    while (at < raw.size()) {
        const auto end = raw.find('\0', at);
        args.push_back(raw.substr(at, end == std::string::npos ? end : end - at));
        at = end == std::string::npos ? raw.size() : end + 1;
    }
    std::string line = "gpufft-bench";
    for (std::size_t i = 1; i < args.size(); ++i) {
        if (args[i] == "--json") {
            ++i;
            continue;
        }
        const bool plain = args[i].find_first_of(" \t'\"|&;<>()$*?") == std::string::npos;
        line += " " + (plain ? args[i] : "'" + args[i] + "'");
    }
    return line;
}

// UTC date and time of the run's first record (ISO 8601): one run, one date.
std::string run_date()
{
    static const std::string date = [] {
        const std::time_t now = std::time(nullptr);
        std::tm utc{};
        gmtime_r(&now, &utc);
        char buf[32];
        std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &utc);
        return std::string(buf);
    }();
    return date;
}

std::string number(double v)
{
    if (!std::isfinite(v))
        return "null";
    char buf[64];
    // Whole numbers (sizes, counts) exactly: %.6g made n = 1000003 "1e+06" and 2^20
    // "1.04858e+06".
    if (v == std::floor(v) && std::fabs(v) < 9.0e15)
        std::snprintf(buf, sizeof buf, "%.0f", v);
    else
        std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}
} // namespace

void report(const result& r)
{
    std::ostringstream j;
    j << "{\"engine\":" << quote(r.engine) << ",\"backend\":" << quote(r.backend)
      << ",\"device\":" << quote(r.device) << ",\"case\":" << quote(r.case_name);
    static const std::string command = read_command_line();
    j << ",\"command\":" << quote(command) << ",\"date\":" << quote(run_date());
    for (const auto& p : r.params)
        j << "," << quote(p.first) << ":" << number(p.second);
    for (const auto& l : r.labels)
        j << "," << quote(l.first) << ":" << quote(l.second);
    j << ",\"time_ms\":{\"median\":" << number(r.time.median_ms)
      << ",\"min\":" << number(r.time.min_ms) << ",\"max\":" << number(r.time.max_ms)
      << ",\"reps\":" << r.time.reps << "}";
    if (!r.baseline_name.empty())
        j << ",\"baseline\":" << quote(r.baseline_name)
          << ",\"baseline_ms\":" << number(r.baseline_ms)
          << ",\"ratio\":" << number(r.ratio());
    for (const auto& e : r.errors)
        j << "," << quote(e.first) << ":" << number(e.second);
    j << "}";
    std::printf("%s\n", j.str().c_str());
    std::fflush(stdout);
    if (!json_path().empty()) {
        std::ofstream f(json_path(), std::ios::app);
        f << j.str() << "\n";
    }
    rows().push_back(r);
}

void print_table()
{
    std::printf("== table\n%-8s %-5s %-22s %-34s %10s %12s %8s  %s\n",
                "engine",
                "bknd",
                "case",
                "params",
                "ours_ms",
                "baseline_ms",
                "ratio",
                "check");
    for (const auto& r : rows()) {
        std::ostringstream p, e;
        for (const auto& kv : r.params)
            p << kv.first << "=" << number(kv.second) << " ";
        for (const auto& kv : r.labels)
            p << kv.second << " ";
        for (const auto& kv : r.errors)
            e << kv.first << "=" << number(kv.second) << " ";
        std::printf("%-8s %-5s %-22s %-34s %10.4f %12.4f %8.2f  %s\n",
                    r.engine.c_str(),
                    r.backend.c_str(),
                    r.case_name.c_str(),
                    p.str().c_str(),
                    r.time.median_ms,
                    r.baseline_ms,
                    r.ratio(),
                    e.str().c_str());
    }
    if (!rows().empty())
        std::printf("device: %s\n", rows().front().device.c_str());
    rows().clear();
}

std::string device_name(int device)
{
    try {
        return gr::gpufft::get_device_info(device).name;
    } catch (const std::exception&) {
        return "no GPU";
    }
}

std::string cpu_name()
{
    std::ifstream f("/proc/cpuinfo");
    std::string line;
    while (std::getline(f, line))
        if (line.rfind("model name", 0) == 0) {
            const auto c = line.find(':');
            return line.substr(c + 2);
        }
    return "unknown CPU";
}

int rotation_count(std::size_t bytes_per_input)
{
    std::size_t l2 = std::size_t(64) << 20;
    try {
        l2 = std::max<std::size_t>(gr::gpufft::get_device_info(0).l2_cache_bytes, 1);
    } catch (const std::exception&) {
    }
    // Enough distinct inputs that their total is at least 4x the L2.
    const std::size_t n = (4 * l2 + bytes_per_input - 1) / bytes_per_input;
    return int(std::max<std::size_t>(1, std::min<std::size_t>(n, 64)));
}

void set_json_path(const std::string& p) { json_path() = p; }

} // namespace gpufft_bench
