/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// A small self-contained test harness. The engines' C++ tests must build on the GPU
// machine, which has neither GNU Radio nor Boost.Test, so we do not use either.
//
//   GPUFFT_TEST(name) { GPUFFT_CHECK(x == 1); GPUFFT_CHECK_THROWS(f(),
//   std::invalid_argument); } GPUFFT_SKIP("no GPU");   // the test is reported as skipped
//
// main() (from GPUFFT_TEST_MAIN) runs every test (`test_x NAME_PART` those whose name
// holds NAME_PART, `test_x =NAME` that one alone, `test_x --list` lists them), prints a
// line per test and
// "N passed, N failed, N skipped", and exits 0, 1 on any failure, or 77 when every test
// skipped (ctest's SKIP_RETURN_CODE).

#ifndef INCLUDED_GPUFFT_TEST_HARNESS_H
#define INCLUDED_GPUFFT_TEST_HARNESS_H

#include <cstdio>
#include <exception>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace gpufft_test {

struct skipped {
    std::string why;
};
struct failed {
    std::string what;
};

struct test_case {
    const char* name;
    std::function<void()> body;
};

inline std::vector<test_case>& registry()
{
    static std::vector<test_case> r;
    return r;
}

struct registrar {
    registrar(const char* name, std::function<void()> body)
    {
        registry().push_back({ name, std::move(body) });
    }
};

inline int run_all(int argc, char** argv)
{
    int passed = 0, failures = 0, skips = 0;
    const std::string only = argc > 1 ? argv[1] : "";
    if (only == "--list") {
        for (const auto& t : registry())
            std::printf("%s\n", t.name);
        return 0;
    }
    // "=name" runs that test alone; any other argument, the tests whose name holds it.
    const bool exact = !only.empty() && only[0] == '=';
    for (const auto& t : registry()) {
        if (exact ? only.compare(1, std::string::npos, t.name) != 0
                  : !only.empty() && std::string(t.name).find(only) == std::string::npos)
            continue;
        try {
            t.body();
            std::printf("[  OK  ] %s\n", t.name);
            ++passed;
        } catch (const skipped& s) {
            std::printf("[ SKIP ] %s: %s\n", t.name, s.why.c_str());
            ++skips;
        } catch (const failed& f) {
            std::printf("[ FAIL ] %s: %s\n", t.name, f.what.c_str());
            ++failures;
        } catch (const std::exception& e) {
            std::printf("[ FAIL ] %s: unexpected exception: %s\n", t.name, e.what());
            ++failures;
        }
        std::fflush(stdout);
    }
    std::printf("%d passed, %d failed, %d skipped\n", passed, failures, skips);
    if (failures)
        return 1;
    return passed == 0 && skips > 0 ? 77 : 0;
}

} // namespace gpufft_test

#define GPUFFT_TEST(name)                                                       \
    static void gpufft_test_##name();                                           \
    static gpufft_test::registrar gpufft_reg_##name(#name, gpufft_test_##name); \
    static void gpufft_test_##name()

#define GPUFFT_TEST_MAIN() \
    int main(int argc, char** argv) { return gpufft_test::run_all(argc, argv); }

#define GPUFFT_SKIP(why) \
    throw gpufft_test::skipped { why }

#define GPUFFT_FAIL(msg)                                          \
    do {                                                          \
        std::ostringstream gpufft_os_;                            \
        gpufft_os_ << __FILE__ << ":" << __LINE__ << ": " << msg; \
        throw gpufft_test::failed{ gpufft_os_.str() };            \
    } while (0)

#define GPUFFT_CHECK(cond)                       \
    do {                                         \
        if (!(cond))                             \
            GPUFFT_FAIL("check failed: " #cond); \
    } while (0)

//! Checks a <= b, printing both values when it fails (for error-vs-tolerance checks).
#define GPUFFT_CHECK_LE(a, b)                                                         \
    do {                                                                              \
        const auto gpufft_a_ = (a);                                                   \
        const auto gpufft_b_ = (b);                                                   \
        if (!(gpufft_a_ <= gpufft_b_))                                                \
            GPUFFT_FAIL(#a " <= " #b " failed: " << gpufft_a_ << " > " << gpufft_b_); \
    } while (0)

#define GPUFFT_CHECK_EQ(a, b)                                                          \
    do {                                                                               \
        const auto gpufft_a_ = (a);                                                    \
        const auto gpufft_b_ = (b);                                                    \
        if (!(gpufft_a_ == gpufft_b_))                                                 \
            GPUFFT_FAIL(#a " == " #b " failed: " << gpufft_a_ << " != " << gpufft_b_); \
    } while (0)

//! Checks that `stmt` throws `type` and that its message contains `needle`.
#define GPUFFT_CHECK_THROWS(stmt, type, needle)                                        \
    do {                                                                               \
        bool gpufft_threw_ = false;                                                    \
        try {                                                                          \
            stmt;                                                                      \
        } catch (const type& e) {                                                      \
            gpufft_threw_ = true;                                                      \
            if (std::string(e.what()).find(needle) == std::string::npos)               \
                GPUFFT_FAIL(#stmt " threw '" << e.what() << "', expected it to name '" \
                                             << needle << "'");                        \
        } catch (const std::exception& e) {                                            \
            GPUFFT_FAIL(#stmt " threw the wrong type: " << e.what());                  \
        }                                                                              \
        if (!gpufft_threw_)                                                            \
            GPUFFT_FAIL(#stmt " did not throw " #type);                                \
    } while (0)

#endif /* INCLUDED_GPUFFT_TEST_HARNESS_H */
