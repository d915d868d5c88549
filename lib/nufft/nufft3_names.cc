/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The type-3 NUFFT's names: one table per option (kernel, spread, method), from which
// the parsers, to_string and the lists of accepted names that the messages, the Python
// bindings and the blocks show are all made.

#include <gnuradio/gpufft/nufft3_plan.h>
#include <cstddef>
#include <stdexcept>

namespace gr {
namespace gpufft {

namespace {

template <typename E>
struct named {
    E value;
    const char* name;
};

constexpr named<nufft_kernel> kernel_table[] = { { nufft_kernel::es, "es" },
                                                 { nufft_kernel::gaussian, "gaussian" } };
constexpr named<nufft_spread> spread_table[] = { { nufft_spread::automatic, "auto" },
                                                 { nufft_spread::scatter, "scatter" },
                                                 { nufft_spread::gather, "gather" },
                                                 { nufft_spread::direct, "direct" } };
constexpr named<nufft_method> method_table[] = { { nufft_method::automatic, "auto" },
                                                 { nufft_method::grid, "grid" },
                                                 { nufft_method::direct, "direct" } };

//! "'a', 'b' or 'c'"
template <typename E, std::size_t N>
std::string choices(const named<E> (&table)[N])
{
    std::string s;
    for (std::size_t i = 0; i < N; ++i)
        s += (i == 0       ? ""
              : i + 1 == N ? " or "
                           : ", ") +
             std::string("'") + table[i].name + "'";
    return s;
}

template <typename E, std::size_t N>
E parse(const named<E> (&table)[N], const std::string& name, const char* what)
{
    for (const auto& t : table)
        if (name == t.name)
            return t.value;
    throw std::invalid_argument(std::string(what) + ": '" + name + "' is unknown; use " +
                                choices(table));
}

template <typename E, std::size_t N>
std::string name_of(const named<E> (&table)[N], E value)
{
    for (const auto& t : table)
        if (t.value == value)
            return t.name;
    return "unknown";
}

} // namespace

nufft_kernel parse_nufft_kernel(const std::string& name)
{
    return parse(kernel_table, name, "kernel");
}
std::string to_string(nufft_kernel k) { return name_of(kernel_table, k); }
std::string nufft_kernel_names() { return choices(kernel_table); }

nufft_spread parse_nufft_spread(const std::string& name)
{
    return parse(spread_table, name, "spread");
}
std::string to_string(nufft_spread s) { return name_of(spread_table, s); }
std::string nufft_spread_names() { return choices(spread_table); }

nufft_method parse_nufft_method(const std::string& name)
{
    return parse(method_table, name, "method");
}
std::string to_string(nufft_method m) { return name_of(method_table, m); }
std::string nufft_method_names() { return choices(method_table); }

} // namespace gpufft
} // namespace gr
