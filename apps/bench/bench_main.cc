/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// gpufft-bench COMMAND [--sizes 2^20,2^24] [--k 50,1000] [--reps 20] [--device 0]
//                      [--backend cpu|cuda|all] [--json FILE] [--KEY VALUE ...]

#include "bench_common.h"
#include <cstdio>
#include <cstring>
#include <exception>
#include <sstream>

namespace gpufft_bench {
void set_json_path(const std::string& p);
}

using namespace gpufft_bench;

namespace {

std::vector<std::int64_t> parse_list(const std::string& s)
{
    std::vector<std::int64_t> v;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, ','))
        if (!item.empty())
            v.push_back(parse_size(item));
    return v;
}

int usage()
{
    std::printf("usage: gpufft-bench COMMAND [options]\n\ncommands:\n");
    for (const auto& c : commands())
        std::printf("  %-8s %s\n", c.name, c.help);
    std::printf(
        "\noptions: --sizes LIST (e.g. 2^20,2^24,1e6,3*2^18)  --k LIST  --reps N\n"
        "         --device ID  --backend cpu|cuda|all  --json FILE (append lines)\n"
        "         --KEY VALUE (command-specific)\n");
    return 2;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h"))
        return usage();
    const std::string name = argv[1];
    options opt;
    try {
        for (int i = 2; i < argc; ++i) {
            std::string key = argv[i];
            if (key.rfind("--", 0) != 0 || i + 1 >= argc) {
                std::fprintf(
                    stderr, "gpufft-bench: expected --key value, got '%s'\n", argv[i]);
                return 2;
            }
            key = key.substr(2);
            const std::string val = argv[++i];
            if (key == "sizes")
                opt.sizes = parse_list(val);
            else if (key == "k")
                opt.ks = parse_list(val);
            else if (key == "reps")
                opt.reps = std::max(1, std::stoi(val));
            else if (key == "device")
                opt.device = std::stoi(val);
            else if (key == "backend")
                opt.backend = val;
            else if (key == "json")
                set_json_path(val);
            else
                opt.extra[key] = val;
        }
        for (const auto& c : commands())
            if (name == c.name) {
                const int rc = c.fn(opt);
                print_table();
                return rc;
            }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "gpufft-bench %s: %s\n", name.c_str(), e.what());
        print_table();
        return 1;
    }
    std::fprintf(stderr, "gpufft-bench: unknown command '%s'\n\n", name.c_str());
    return usage();
}
