/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// A constructor's arguments from one table: each row names a keyword, gives its default
// (none for a required one) and says how it sets the object's settings. The keyword list
// that a wrong call is told about (call_error), the defaults and the order of the
// positional arguments all come from that row, so they cannot drift apart:
//
//   const keyword<nufft3_args> rows[] = {
//       { "dim", nullptr, [](nufft3_args& a, const py::handle& v) { ... } },
//       { "precision", [] { return py::object(py::str("double")); }, ... },
//   };
//   .def(py::init([](const py::args& a, const py::kwargs& k) {
//            const auto s = parse_call("nufft3_plan", rows, a, k); ...
//        }), signature("nufft3_plan", rows) + doc)
//
// A wrong type or range stays the setter's ValueError naming the parameter; a wrong
// call (unknown keyword, missing or repeated argument, too many) is a TypeError.

#ifndef INCLUDED_GPUFFT_BINDINGS_KEYWORD_TABLE_H
#define INCLUDED_GPUFFT_BINDINGS_KEYWORD_TABLE_H

#include "numpy_arrays.h"
#include <pybind11/pybind11.h>
#include <cstddef>
#include <string>
#include <vector>

namespace gpufft_python {

template <typename Settings>
struct keyword {
    const char* name;
    py::object (*default_value)(); //!< nullptr: the argument is required
    void (*set)(Settings&, const py::handle&);
};

//! The keyword names in order, and how many lead without a default.
template <typename Settings, std::size_t N>
std::vector<const char*> keyword_names(const keyword<Settings> (&rows)[N],
                                       std::size_t* required)
{
    std::vector<const char*> names;
    *required = 0;
    for (const auto& r : rows) {
        names.push_back(r.name);
        if (!r.default_value)
            *required = names.size();
    }
    return names;
}

//! A TypeError from call_error() unless the call fits the table: no unknown keyword,
//! none given twice, not too many, none of the required ones missing.
template <typename Settings, std::size_t N>
void check_call(const char* name,
                const keyword<Settings> (&rows)[N],
                const py::args& args,
                const py::kwargs& kwargs)
{
    std::size_t required = 0;
    const auto names = keyword_names(rows, &required);
    bool wrong = args.size() > N;
    for (const auto& kv : kwargs) {
        const std::string key = py::str(kv.first).cast<std::string>();
        std::size_t i = 0;
        while (i < N && key != rows[i].name)
            ++i;
        wrong = wrong || i == N || i < args.size();
    }
    for (std::size_t i = args.size(); i < required; ++i)
        wrong = wrong || !kwargs.contains(rows[i].name);
    if (wrong)
        throw py::type_error(call_error(name, names, required, args, kwargs));
}

//! The settings of one call: positional arguments in the table's order, then keywords,
//! then the defaults; a wrong call is check_call()'s TypeError.
template <typename Settings, std::size_t N>
Settings parse_call(const char* name,
                    const keyword<Settings> (&rows)[N],
                    const py::args& args,
                    const py::kwargs& kwargs)
{
    check_call(name, rows, args, kwargs);
    Settings s{};
    for (std::size_t i = 0; i < N; ++i) {
        if (i < args.size())
            rows[i].set(s, args[i]);
        else if (kwargs.contains(rows[i].name))
            rows[i].set(s, kwargs[rows[i].name]);
        else
            rows[i].set(s, rows[i].default_value());
    }
    return s;
}

//! "name(a, b, c='x', d=0)\n\n": the first line of the docstring, from the table.
template <typename Settings, std::size_t N>
std::string signature(const char* name, const keyword<Settings> (&rows)[N])
{
    std::string s = std::string(name) + "(";
    for (std::size_t i = 0; i < N; ++i) {
        s += (i ? ", " : "") + std::string(rows[i].name);
        if (rows[i].default_value)
            s += "=" + std::string(py::repr(rows[i].default_value()));
    }
    return s + ")\n\n";
}

namespace detail {

//! The parameter names of a method's py::arg / py::arg_v extras, in order, and how
//! many lead without a default.
struct method_params {
    std::vector<const char*> names;
    std::size_t required = 0;
    bool defaulted = false;
    void add(const py::arg_v& a)
    {
        names.push_back(a.name);
        defaulted = true;
    }
    void add(const py::arg& a)
    {
        names.push_back(a.name);
        if (!defaulted)
            required = names.size();
    }
    template <typename Other>
    void add(const Other&)
    {
    }
};

} // namespace detail

/*!
 * cls.def(name, f, extra...) and, as the method's last overload, the catch-all
 * (refuse_other_method_calls) naming "class.method" and the parameters of the py::arg
 * extras: the names a wrong call is told about are the method's own, written once.
 */
template <typename Class, typename F, typename... Extra>
Class& def_method(Class& cls, const char* name, F&& f, const Extra&... extra)
{
    detail::method_params p;
    (p.add(extra), ...);
    const std::string qualified =
        py::str(cls.attr("__name__")).cast<std::string>() + "." + name;
    cls.def(name, std::forward<F>(f), extra...);
    cls.def(
        name,
        refuse_other_method_calls<typename Class::type>(qualified, p.names, p.required),
        "Any other call: a TypeError naming the argument at fault.");
    return cls;
}

} // namespace gpufft_python

#endif /* INCLUDED_GPUFFT_BINDINGS_KEYWORD_TABLE_H */
