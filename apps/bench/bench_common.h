/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// gpufft-bench: shared pieces. Each engine's subcommand lives in its own bench_<name>.cc
// and registers itself with GPUFFT_BENCH_COMMAND; main() dispatches on argv[1].
//
// Protocol (docs/benchmarking.md): baseline measured in the same run, warm-up
// first, median of >= 10 runs, inputs larger than L2 rotated, fresh random data, the
// answer checked beside every time, one JSON line per case (with the device, the
// command line and the date: the record docs/perf/ keeps) and a table at the end.

#ifndef INCLUDED_GPUFFT_BENCH_COMMON_H
#define INCLUDED_GPUFFT_BENCH_COMMON_H

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace gpufft_bench {

//! Command-line options common to all subcommands (subcommands read extra keys).
struct options {
    std::vector<std::int64_t>
        sizes;                    //!< --sizes 2^20,2^24,1000000 (empty: command default)
    std::vector<std::int64_t> ks; //!< --k 50,1000 (sparse)
    int reps = 20;                //!< --reps
    int device = 0;               //!< --device
    std::string backend = "all";  //!< --backend cpu|cuda|all
    std::map<std::string, std::string> extra; //!< any other --key value
    std::string get(const std::string& key, const std::string& dflt) const
    {
        auto it = extra.find(key);
        return it == extra.end() ? dflt : it->second;
    }
};

//! Parses "2^20", "1048576", "1e6", "3*2^18".
std::int64_t parse_size(const std::string& s);

struct stats {
    double median_ms = 0, min_ms = 0, max_ms = 0;
    int reps = 0;
};

//! Host wall-clock timing of `fn` (which must synchronize itself): `warmup` untimed
//! calls, then `reps` timed ones.
stats time_host(const std::function<void(int)>& fn, int reps, int warmup = 2);

#ifdef GPUFFT_HAVE_CUDA
//! Device timing with CUDA events around `fn(rep)`, which enqueues work on `stream`.
stats time_device(const std::function<void(int)>& fn,
                  void* stream,
                  int reps,
                  int warmup = 3);
#endif

//! One benchmark case: printed as a JSON line at once and as a table row at the end.
struct result {
    std::string engine, backend, device, case_name;
    std::map<std::string, double> params;      //!< n, k, batch, ...
    std::map<std::string, std::string> labels; //!< precision, memory, ...
    stats time;
    std::string baseline_name;
    double baseline_ms = 0; //!< median of the baseline in the same run (0: none)
    std::map<std::string, double> errors; //!< rel_l2_error, misses, ...
    //! baseline / ours: > 1 means we are faster.
    double ratio() const
    {
        return baseline_ms > 0 && time.median_ms > 0 ? baseline_ms / time.median_ms : 0;
    }
};

//! Print the JSON line (and append it to the --json file), keep the row. The line carries
//! the result's fields and "command" (this process's command line less --json FILE) and
//! "date" (UTC, ISO 8601, the same for every record of the run).
void report(const result& r);
void print_table(); //!< the table of every reported row

//! The device's name, or "cpu: <model>" for CPU-only cases.
std::string device_name(int device);
std::string cpu_name();

//! Number of rotating input buffers so that their total exceeds the L2 cache.
int rotation_count(std::size_t bytes_per_input);

using command_fn = int (*)(const options&);
struct command {
    const char* name;
    const char* help;
    command_fn fn;
};
std::vector<command>& commands();
struct command_registrar {
    command_registrar(const char* name, const char* help, command_fn fn)
    {
        commands().push_back({ name, help, fn });
    }
};

} // namespace gpufft_bench

#define GPUFFT_BENCH_COMMAND(name, help, fn) \
    static gpufft_bench::command_registrar gpufft_bench_reg_##name(#name, help, fn)

#endif /* INCLUDED_GPUFFT_BENCH_COMMON_H */
