/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The sparse FFT's names: one table per option (mode, window, transfer, location), from
// which the parsers, to_string and the lists of accepted names that the messages, the
// Python binding, the block and the bench show are all made.

#include <gnuradio/gpufft/sparse_fft_plan.h>
#include <cstddef>
#include <stdexcept>

namespace gr {
namespace gpufft {

namespace {

template <typename E>
struct named {
    E value;
    const char* name;
    bool listed; //!< false: an alias, accepted but not offered
};

constexpr named<sparse_fft_mode> mode_table[] = {
    { sparse_fft_mode::robust, "robust", true },
    { sparse_fft_mode::exact, "exact", true },
};
constexpr named<sparse_fft_window> window_table[] = {
    { sparse_fft_window::automatic, "auto", true },
    { sparse_fft_window::none, "none", true },
    { sparse_fft_window::hann, "hann", true },
    { sparse_fft_window::blackman_harris, "blackman-harris", true },
    { sparse_fft_window::blackman_harris, "blackman_harris", false },
};
constexpr named<sparse_fft_transfer> transfer_table[] = {
    { sparse_fft_transfer::automatic, "auto", true },
    { sparse_fft_transfer::gather, "gather", true },
    { sparse_fft_transfer::full_copy, "copy", true },
};
constexpr named<sparse_fft_location> location_table[] = {
    { sparse_fft_location::phase, "phase", true },
    { sparse_fft_location::voting, "voting", true },
};

//! The listed names, each between `quote`s: "'a', 'b' or 'c'".
template <typename E, std::size_t N>
std::string choices(const named<E> (&table)[N], const char* quote)
{
    std::size_t count = 0;
    for (const auto& t : table)
        count += t.listed;
    std::string s;
    std::size_t i = 0;
    for (const auto& t : table) {
        if (!t.listed)
            continue;
        s += (i == 0           ? ""
              : i + 1 == count ? " or "
                               : ", ") +
             std::string(quote) + t.name + quote;
        ++i;
    }
    return s;
}

template <typename E, std::size_t N>
bool find(const named<E> (&table)[N], const std::string& name, E& value)
{
    for (const auto& t : table)
        if (name == t.name) {
            value = t.value;
            return true;
        }
    return false;
}

//! "what: 'name' is invalid; must be 'a', 'b' or 'c'"
template <typename E, std::size_t N>
E parse(const named<E> (&table)[N], const std::string& name, const char* what)
{
    E value{};
    if (!find(table, name, value))
        throw std::invalid_argument(std::string(what) + ": '" + name +
                                    "' is invalid; must be " + choices(table, "'"));
    return value;
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

// The mode's message predates the table and is kept, in double quotes, as the block,
// the plan and Python have always shown it.
std::string sparse_fft_mode_names() { return choices(mode_table, "\""); }

sparse_fft_mode parse_sparse_fft_mode(const std::string& name)
{
    sparse_fft_mode m{};
    if (!find(mode_table, name, m))
        throw std::invalid_argument("mode: must be " + sparse_fft_mode_names() +
                                    ", got \"" + name + "\"");
    return m;
}
std::string to_string(sparse_fft_mode m) { return name_of(mode_table, m); }

sparse_fft_window parse_sparse_fft_window(const std::string& name)
{
    return parse(window_table, name, "window");
}
std::string to_string(sparse_fft_window w) { return name_of(window_table, w); }
std::string sparse_fft_window_names() { return choices(window_table, "'"); }

sparse_fft_transfer parse_sparse_fft_transfer(const std::string& name)
{
    return parse(transfer_table, name, "transfer");
}
std::string to_string(sparse_fft_transfer t) { return name_of(transfer_table, t); }
std::string sparse_fft_transfer_names() { return choices(transfer_table, "'"); }

sparse_fft_location parse_sparse_fft_location(const std::string& name)
{
    return parse(location_table, name, "location");
}
std::string to_string(sparse_fft_location l) { return name_of(location_table, l); }
std::string sparse_fft_location_names() { return choices(location_table, "'"); }

} // namespace gpufft
} // namespace gr
