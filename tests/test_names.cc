/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// One owner for each name (issue #34): every engine's string-to-enum parser takes each
// of its names back from to_string, refuses an unknown one with a message that names
// the parameter, the value and every accepted name, and the block layer (lib/stream)
// refuses the same value with the engine's own message, word for word. Python's side
// (plan, block and setter give one message) is qa_names.py.

#include "large/large_fft_config.h"
#include "large/power/spectral_window.h"
#include "stream/sample_format.h"
#include "stream/sparse_frame_analyzer.h"
#include "stream/spectrometer_setup.h"
#include "test_harness.h"
#include <gnuradio/gpufft/backend.h>
#include <gnuradio/gpufft/nufft3_plan.h>
#include <gnuradio/gpufft/sensing_plan.h>
#include <gnuradio/gpufft/sparse_fft_plan.h>
#include <gnuradio/gpufft/spectrum_integrator.h>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

using namespace gr::gpufft;

namespace {

//! The std::invalid_argument message of f(); fails the test if f does not throw one.
std::string message_of(const std::function<void()>& f)
{
    try {
        f();
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    GPUFFT_FAIL("no std::invalid_argument");
    return {};
}

//! parse(to_string(v)) == v for every value, to_string gives its listed name, and an
//! unknown name is refused naming `param`, the value and each listed name.
template <typename E, typename Parse, typename Name>
void check_table(const char* param,
                 const std::vector<std::pair<E, std::string>>& listed,
                 Parse parse,
                 Name name)
{
    for (const auto& [value, text] : listed) {
        GPUFFT_CHECK(parse(text) == value);
        GPUFFT_CHECK_EQ(name(value), text);
        GPUFFT_CHECK(parse(name(value)) == value);
    }
    const std::string bad = "no-such-name";
    const std::string m = message_of([&] { parse(bad); });
    GPUFFT_CHECK_EQ(m.rfind(param, 0), std::size_t(0));
    GPUFFT_CHECK(m.find(bad) != std::string::npos);
    for (const auto& [value, text] : listed)
        if (m.find(text) == std::string::npos)
            GPUFFT_FAIL("'" << m << "' does not offer '" << text << "'");
}

stream::spectrometer_settings spectrometer()
{
    stream::spectrometer_settings s;
    s.fft_size = 1024;
    s.output_bins = 16;
    s.backend = "cpu";
    return s;
}

stream::sparse_frame_settings sparse_block()
{
    stream::sparse_frame_settings s;
    s.fft_size = 1024;
    s.k = 4;
    s.samp_rate = 1e6;
    s.display_bins = 64;
    s.backend = "cpu";
    return s;
}

void no_log(log_level, const std::string&) {}

} // namespace

GPUFFT_TEST(core_names)
{
    check_table<backend>("backend",
                         { { backend::automatic, "auto" },
                           { backend::cpu, "cpu" },
                           { backend::cuda, "cuda" } },
                         parse_backend,
                         [](backend b) { return to_string(b); });
    check_table<precision>(
        "precision",
        { { precision::single, "single" }, { precision::double_, "double" } },
        parse_precision,
        [](precision p) { return to_string(p); });
}

GPUFFT_TEST(sparse_names)
{
    check_table<sparse_fft_mode>(
        "mode",
        { { sparse_fft_mode::robust, "robust" }, { sparse_fft_mode::exact, "exact" } },
        parse_sparse_fft_mode,
        [](sparse_fft_mode m) { return to_string(m); });
    check_table<sparse_fft_window>(
        "window",
        { { sparse_fft_window::automatic, "auto" },
          { sparse_fft_window::none, "none" },
          { sparse_fft_window::hann, "hann" },
          { sparse_fft_window::blackman_harris, "blackman-harris" } },
        parse_sparse_fft_window,
        [](sparse_fft_window w) { return to_string(w); });
    // The alias sensing's window name uses is taken, not offered.
    GPUFFT_CHECK(parse_sparse_fft_window("blackman_harris") ==
                 sparse_fft_window::blackman_harris);
    GPUFFT_CHECK(sparse_fft_window_names().find("blackman_harris") == std::string::npos);
    check_table<sparse_fft_transfer>("transfer",
                                     { { sparse_fft_transfer::automatic, "auto" },
                                       { sparse_fft_transfer::gather, "gather" },
                                       { sparse_fft_transfer::full_copy, "copy" } },
                                     parse_sparse_fft_transfer,
                                     [](sparse_fft_transfer t) { return to_string(t); });
    check_table<sparse_fft_location>("location",
                                     { { sparse_fft_location::phase, "phase" },
                                       { sparse_fft_location::voting, "voting" } },
                                     parse_sparse_fft_location,
                                     [](sparse_fft_location l) { return to_string(l); });
    // The names listed in messages are the ones the messages of a bad value show.
    GPUFFT_CHECK(message_of([] {
                     parse_sparse_fft_window("x");
                 }).find(sparse_fft_window_names()) != std::string::npos);
    GPUFFT_CHECK(message_of([] {
                     parse_sparse_fft_mode("x");
                 }).find(sparse_fft_mode_names()) != std::string::npos);
}

GPUFFT_TEST(nufft_names)
{
    check_table<nufft_kernel>(
        "kernel",
        { { nufft_kernel::es, "es" }, { nufft_kernel::gaussian, "gaussian" } },
        parse_nufft_kernel,
        [](nufft_kernel k) { return to_string(k); });
    check_table<nufft_spread>("spread",
                              { { nufft_spread::automatic, "auto" },
                                { nufft_spread::scatter, "scatter" },
                                { nufft_spread::gather, "gather" },
                                { nufft_spread::direct, "direct" } },
                              parse_nufft_spread,
                              [](nufft_spread s) { return to_string(s); });
    check_table<nufft_method>("method",
                              { { nufft_method::automatic, "auto" },
                                { nufft_method::grid, "grid" },
                                { nufft_method::direct, "direct" } },
                              parse_nufft_method,
                              [](nufft_method m) { return to_string(m); });
}

GPUFFT_TEST(large_names)
{
    check_table<integration_mode>(
        "mode",
        { { integration_mode::mean, "mean" }, { integration_mode::max_hold, "max" } },
        parse_integration_mode,
        [](integration_mode m) { return to_string(m); });
    check_table<power::window_type>(
        "window",
        { { power::window_type::none, "none" },
          { power::window_type::hann, "hann" },
          { power::window_type::hamming, "hamming" },
          { power::window_type::blackman, "blackman" },
          { power::window_type::blackman_harris, "blackman-harris" },
          { power::window_type::flattop, "flattop" } },
        power::parse_window,
        [](power::window_type w) { return power::to_string(w); });
    check_table<detail::pass_fft>(
        "pass_fft",
        { { detail::pass_fft::four_step, "four_step" },
          { detail::pass_fft::stockham, "stockham" },
          { detail::pass_fft::cufft, "cufft" } },
        detail::parse_pass_fft,
        [](detail::pass_fft f) { return detail::to_string(f); });
}

GPUFFT_TEST(stream_names)
{
    check_table<stream::sample_format>(
        "input_type",
        { { stream::sample_format::fc32, "fc32" },
          { stream::sample_format::sc16, "sc16" },
          { stream::sample_format::sc8, "sc8" },
          { stream::sample_format::cu8, "cu8" } },
        stream::parse_sample_format,
        [](stream::sample_format f) { return to_string(f); });
    check_table<bandwidth_rule>(
        "bandwidth_rule",
        { { bandwidth_rule::obw99, "obw99" }, { bandwidth_rule::xdb, "xdb" } },
        parse_bandwidth_rule,
        [](bandwidth_rule r) { return to_string(r); });
}

// The accumulator's block layer refuses each name with its engine's message.
GPUFFT_TEST(spectrometer_block_uses_engine_names)
{
    auto refused = [](void (*set)(stream::spectrometer_settings&)) {
        auto s = spectrometer();
        set(s);
        return message_of([&] { stream::checked_spectrometer_setup(s); });
    };
    GPUFFT_CHECK_EQ(refused([](auto& s) { s.window = "kaiser"; }),
                    message_of([] { power::parse_window("kaiser"); }));
    GPUFFT_CHECK_EQ(refused([](auto& s) { s.mode = "median"; }),
                    message_of([] { parse_integration_mode("median"); }));
    GPUFFT_CHECK_EQ(refused([](auto& s) { s.input_type = "s16"; }),
                    message_of([] { stream::parse_sample_format("s16"); }));
    GPUFFT_CHECK_EQ(refused([](auto& s) { s.backend = "tpu"; }),
                    message_of([] { parse_backend("tpu"); }));
    // And the engine itself, made from options.
    spectrum_integrator_options o;
    o.backend = backend::cpu;
    o.window = "kaiser";
    GPUFFT_CHECK_EQ(message_of([&] { spectrum_integrator(1024, 0, 0, 16, o); }),
                    message_of([] { power::parse_window("kaiser"); }));
}

// The sparse_fft block's layer refuses each name with its engine's message.
GPUFFT_TEST(sparse_block_uses_engine_names)
{
    auto refused = [](void (*set)(stream::sparse_frame_settings&)) {
        auto s = sparse_block();
        set(s);
        return message_of([&] { stream::sparse_frame_analyzer(s, no_log); });
    };
    GPUFFT_CHECK_EQ(refused([](auto& s) { s.mode = "fast"; }),
                    message_of([] { parse_sparse_fft_mode("fast"); }));
    GPUFFT_CHECK_EQ(refused([](auto& s) { s.bandwidth_rule = "x"; }),
                    message_of([] { parse_bandwidth_rule("x"); }));
    GPUFFT_CHECK_EQ(refused([](auto& s) { s.input_type = "s16"; }),
                    message_of([] { stream::parse_sample_format("s16"); }));
    GPUFFT_CHECK_EQ(refused([](auto& s) { s.backend = "tpu"; }),
                    message_of([] { parse_backend("tpu"); }));
    // The ranges the block and the plan share: one owner's words.
    GPUFFT_CHECK_EQ(refused([](auto& s) { s.min_snr_db = -1; }),
                    message_of([] { check_sparse_fft_min_snr_db(-1); }));
    GPUFFT_CHECK_EQ(refused([](auto& s) { s.false_alarm = 0.9; }),
                    message_of([] { check_sparse_fft_false_alarm(0.9); }));
    GPUFFT_CHECK_EQ(refused([](auto& s) { s.k = 0; }), message_of([] {
                        check_sparse_fft_k(0, 1024, sparse_fft_mode::robust);
                    }));
}

GPUFFT_TEST_MAIN()
