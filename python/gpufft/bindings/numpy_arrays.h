/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// numpy conversion and validation shared by the hand-written engine bindings. Every
// error names the parameter; std::invalid_argument reaches Python as ValueError.

#ifndef INCLUDED_GPUFFT_PYTHON_NUMPY_ARRAYS_H
#define INCLUDED_GPUFFT_PYTHON_NUMPY_ARRAYS_H

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "stream/sample_format.h"
#include <gnuradio/gpufft/backend.h>
#include <gnuradio/gpufft/spectrum_integrator.h>

#include <climits>
#include <cmath>
#include <complex>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpufft_python {

namespace py = pybind11;

//! C-contiguous complex<T> array; forcecast converts other dtypes (a copy).
template <typename T>
using complex_array =
    py::array_t<std::complex<T>, py::array::c_style | py::array::forcecast>;

//! numpy's name for std::complex<T>: complex64 or complex128.
template <typename T>
std::string complex_dtype_name()
{
    return "complex" + std::to_string(8 * sizeof(std::complex<T>));
}

//! `a` as a C-contiguous complex<T> array, converted if it is not one already.
template <typename T>
complex_array<T> to_complex_array(const py::handle& a, const char* name)
{
    // numpy makes None a 0-d array of nan, which the size checks then report as an
    // array of 1 element in 0 dimensions.
    if (a.is_none())
        throw std::invalid_argument(std::string(name) + ": must be an array of " +
                                    complex_dtype_name<T>() + " samples, not None");
    auto x = complex_array<T>::ensure(a);
    if (!x)
        throw std::invalid_argument(std::string(name) + ": must be convertible to a " +
                                    complex_dtype_name<T>() + " numpy array");
    return x;
}

/*!
 * `a` itself for work done in place (`use`, e.g. "in-place execute"): it must already
 * be a writeable C-contiguous complex<T> array, as a converted copy would leave the
 * caller's array untouched.
 */
template <typename T>
py::array_t<std::complex<T>>
in_place_complex_array(const py::handle& a, const char* name, const char* use)
{
    if (!py::isinstance<py::array_t<std::complex<T>>>(a))
        throw std::invalid_argument(std::string(name) + ": " + use + " needs a " +
                                    complex_dtype_name<T>() + " array");
    auto x = py::reinterpret_borrow<py::array_t<std::complex<T>>>(a);
    if (!(x.flags() & py::array::c_style) || !x.writeable())
        throw std::invalid_argument(std::string(name) + ": " + use +
                                    " needs a writeable C-contiguous array");
    return x;
}

/*!
 * The error for an array of the wrong size:
 * "<name>: has <a.size()> <items>; <expected> <n><after>".
 */
inline std::invalid_argument size_error(const py::array& a,
                                        std::int64_t n,
                                        const char* name,
                                        const char* expected,
                                        const char* after = "",
                                        const char* items = "elements")
{
    return std::invalid_argument(std::string(name) + ": has " + std::to_string(a.size()) +
                                 " " + items + "; " + expected + " " + std::to_string(n) +
                                 after);
}

//! Throws size_error(...) unless `a` holds exactly n elements.
inline void check_size(const py::array& a,
                       std::int64_t n,
                       const char* name,
                       const char* expected,
                       const char* after = "",
                       const char* items = "elements")
{
    if (a.size() != n)
        throw size_error(a, n, name, expected, after, items);
}

//! Throws unless `x` is one frame of a plan of n points, a 1-D array of n samples:
//! size_error() "<name>: has <size> samples[ in <d> dimensions]; a frame is a 1-D
//! array of n = <n>".
inline void check_frame(const py::array& x, std::int64_t n, const char* name)
{
    if (x.ndim() == 1 && x.size() == n)
        return;
    const std::string items =
        x.ndim() == 1 ? "samples"
                      : "samples in " + std::to_string(x.ndim()) + " dimensions";
    throw size_error(x, n, name, "a frame is a 1-D array of n =", "", items.c_str());
}

/*!
 * A whole number from a Python int, or from a float with no fractional part (1e9), for
 * sizes and byte counts; at least `min`. Anything else (a string, 1.5, nan, a value
 * below min) is a ValueError naming the parameter and `valid`.
 */
inline long long
whole_number(const py::handle& v, const char* name, long long min, const char* valid)
{
    auto bad = [&](const std::string& got) {
        return std::invalid_argument(std::string(name) + ": must be " + valid + ", got " +
                                     got);
    };
    long long n = 0;
    if (py::isinstance<py::bool_>(v))
        throw bad(py::str(v).cast<std::string>());
    if (py::isinstance<py::int_>(v) || py::hasattr(v, "__index__")) {
        try {
            n = py::int_(py::reinterpret_borrow<py::object>(v)).cast<long long>();
        } catch (const py::error_already_set&) {
            throw bad(py::str(v).cast<std::string>());
        } catch (const py::cast_error&) {
            throw bad(py::str(v).cast<std::string>() + " (too large)");
        }
    } else if (py::isinstance<py::float_>(v)) {
        const double d = v.cast<double>();
        if (!std::isfinite(d) || d != std::floor(d) || std::fabs(d) > 9.0e18)
            throw bad(py::str(v).cast<std::string>());
        n = static_cast<long long>(d);
    } else {
        throw bad("a " + py::str(py::type::of(v).attr("__name__")).cast<std::string>());
    }
    if (n < min)
        throw bad(std::to_string(n));
    return n;
}

//! The Python type name of `v`, for error messages ("str", "NoneType", "ndarray").
inline std::string type_name(const py::handle& v)
{
    return py::str(py::type::of(v).attr("__name__")).cast<std::string>();
}

//! A whole number in [min, max] as an int (device ids, thread counts, signs).
inline int whole_int(const py::handle& v,
                     const char* name,
                     long long min,
                     long long max,
                     const char* valid)
{
    const long long n = whole_number(v, name, min, valid);
    if (n > max)
        throw std::invalid_argument(std::string(name) + ": must be " + valid + ", got " +
                                    std::to_string(n));
    return int(n);
}

/*!
 * A real number from an int, a float or a numpy scalar (not a bool, a string or a
 * complex number); with `finite`, NaN and infinity are refused too. Errors name the
 * parameter and `valid`.
 */
inline double
real_number(const py::handle& v, const char* name, const char* valid, bool finite = true)
{
    auto bad = [&](const std::string& got) {
        return std::invalid_argument(std::string(name) + ": must be " + valid + ", got " +
                                     got);
    };
    if (v.is_none() || py::isinstance<py::bool_>(v) || py::isinstance<py::str>(v) ||
        py::isinstance<py::bytes>(v) || PyComplex_Check(v.ptr()) ||
        type_name(v) == "bool_" || type_name(v) == "bool" ||
        !(py::isinstance<py::int_>(v) || py::isinstance<py::float_>(v) ||
          py::hasattr(v, "__float__")) ||
        (py::hasattr(v, "dtype") && py::hasattr(v, "ndim") &&
         v.attr("ndim").cast<int>() != 0))
        throw bad("a " + type_name(v));
    const double d = PyFloat_AsDouble(v.ptr());
    if (d == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        throw bad("a " + type_name(v));
    }
    if (finite && !std::isfinite(d))
        throw bad(py::str(v).cast<std::string>());
    return d;
}

//! A True/False switch: a bool or numpy.bool_; anything else names the parameter.
inline bool flag(const py::handle& v, const char* name)
{
    if (py::isinstance<py::bool_>(v) || type_name(v) == "bool_" ||
        (type_name(v) == "bool" && py::hasattr(v, "dtype")))
        return PyObject_IsTrue(v.ptr()) == 1;
    throw std::invalid_argument(std::string(name) + ": must be True or False, got a " +
                                type_name(v));
}

//! "'a', 'b' or 'c'": a list of names as the messages show them; a non-empty `other`
//! (such as "None") ends the list unquoted: "'a', 'b' or None".
inline std::string quoted_choices(const std::vector<std::string>& names,
                                  const std::string& other = "")
{
    std::vector<std::string> all;
    for (const auto& n : names)
        all.push_back("'" + n + "'");
    if (!other.empty())
        all.push_back(other);
    std::string s;
    for (std::size_t i = 0; i < all.size(); ++i)
        s += (i == 0 ? "" : i + 1 == all.size() ? " or " : ", ") + all[i];
    return s;
}

//! A str; anything else is an error naming the parameter and `valid` (its choices).
inline std::string text(const py::handle& v, const char* name, const char* valid)
{
    if (!py::isinstance<py::str>(v))
        throw std::invalid_argument(std::string(name) + ": must be " + valid +
                                    ", got a " + type_name(v));
    return v.cast<std::string>();
}

/*!
 * A list of whole numbers from one number or a sequence of them (a shape); each at
 * least `min`. Errors name the parameter.
 */
inline std::vector<std::int64_t>
whole_numbers(const py::handle& v, const char* name, long long min, const char* valid)
{
    std::vector<std::int64_t> out;
    if (py::isinstance<py::str>(v) || py::isinstance<py::bytes>(v))
        throw std::invalid_argument(std::string(name) +
                                    ": must be a number or a sequence of numbers, got a "
                                    "string");
    if (!py::isinstance<py::sequence>(v)) {
        out.push_back(whole_number(v, name, min, valid));
        return out;
    }
    for (const auto& e : py::reinterpret_borrow<py::sequence>(v))
        out.push_back(whole_number(e, name, min, valid));
    return out;
}

/*!
 * A list of CUDA device ids (a sequence of whole numbers >= 0, or None for none), as
 * std::invalid_argument naming `name` otherwise; duplicates are the engine's to refuse.
 */
inline std::vector<int> device_list(const py::handle& v, const char* name)
{
    std::vector<int> out;
    if (v.is_none())
        return out;
    if (!py::isinstance<py::sequence>(v) || py::isinstance<py::str>(v) ||
        py::isinstance<py::bytes>(v))
        throw std::invalid_argument(
            std::string(name) +
            ": must be a list of CUDA device ids ([]: device_id "
            "alone), got a " +
            py::str(py::type::of(v).attr("__name__")).cast<std::string>());
    for (const auto& e : py::reinterpret_borrow<py::sequence>(v)) {
        const long long d = whole_number(e, name, 0, "a list of CUDA device ids >= 0");
        if (d > 1 << 20)
            throw std::invalid_argument(std::string(name) + ": device id " +
                                        std::to_string(d) + " is out of range");
        out.push_back(int(d));
    }
    return out;
}

//! A Python list of ints (a default such as devices=[]), without pybind11/stl.h: a
//! type caster must be the same in every file of the module, and not all include it.
inline py::list int_list(const std::vector<int>& values)
{
    py::list l;
    for (int v : values)
        l.append(v);
    return l;
}

//! A whole number of any sign that fits an int; the engine checks its range.
inline int int_arg(const py::handle& v, const char* name, const char* valid)
{
    return whole_int(v, name, INT_MIN, INT_MAX, valid);
}

//! A whole number of any sign (64-bit); the engine checks its range.
inline std::int64_t int64_arg(const py::handle& v, const char* name, const char* valid)
{
    return whole_number(v, name, LLONG_MIN, valid);
}

/*!
 * Real numbers from a sequence or a 1-D numpy array of them (not a string, not one
 * number); NaN and infinity pass, for the engine to refuse with its range.
 */
inline std::vector<double>
real_numbers(const py::handle& v, const char* name, const char* valid)
{
    if (py::isinstance<py::str>(v) || py::isinstance<py::bytes>(v) ||
        !(py::isinstance<py::sequence>(v) || py::isinstance<py::array>(v)))
        throw std::invalid_argument(std::string(name) + ": must be " + valid +
                                    ", got a " + type_name(v));
    if (py::isinstance<py::array>(v) && v.attr("ndim").cast<int>() != 1)
        throw std::invalid_argument(
            std::string(name) + ": must be " + valid + ", got an array of " +
            std::to_string(v.attr("ndim").cast<int>()) + " dimensions");
    std::vector<double> out;
    for (const auto& e : py::reinterpret_borrow<py::iterable>(v))
        out.push_back(real_number(e, name, valid, false));
    return out;
}

/*!
 * What is wrong with a constructor or method call that no overload took: an unknown
 * keyword, a missing or repeated argument, or too many of them, naming it and what
 * `name` takes. `params` are the parameters in order; the first `required` have no
 * default.
 */
inline std::string call_error(const char* name,
                              const std::vector<const char*>& params,
                              std::size_t required,
                              const py::args& args,
                              const py::kwargs& kwargs)
{
    std::string takes;
    for (std::size_t i = 0; i < params.size(); ++i)
        takes += (i ? ", " : "") + std::string(params[i]);
    const std::string lead = std::string(name) + ": ";
    const std::string tail = "; it takes (" + takes + ")";
    auto position = [&](const std::string& key) {
        for (std::size_t i = 0; i < params.size(); ++i)
            if (key == params[i])
                return i;
        return params.size();
    };
    for (const auto& kv : kwargs) {
        const std::string key = py::str(kv.first).cast<std::string>();
        const std::size_t i = position(key);
        if (i == params.size())
            return lead + "unknown keyword argument '" + key + "'" + tail;
        if (i < args.size())
            return lead + "'" + key + "' given by position and by keyword" + tail;
    }
    if (args.size() > params.size())
        return lead + "takes at most " + std::to_string(params.size()) +
               (params.size() == 1 ? " argument" : " arguments") + ", got " +
               std::to_string(args.size()) + tail;
    for (std::size_t i = args.size(); i < required; ++i)
        if (!kwargs.contains(params[i]))
            return lead + "missing argument '" + params[i] + "'" + tail;
    return lead + "these arguments are not accepted" + tail;
}

/*!
 * For a method of class T (constructors read one table, keyword_table.h, whose
 * parse_call refuses the same way): registered as the method's last overload, after
 * the real ones, any call they did not take becomes a TypeError from call_error(). The
 * real overloads take py::object arguments and convert them inside, so a wrong type
 * still reaches them (and their ValueError naming the parameter), never this one.
 * `name` is "class.method"; `params` the union of the overloads' parameter names in
 * order, `required` the fewest any overload needs.
 */
template <typename T>
auto refuse_other_method_calls(std::string name,
                               std::vector<const char*> params,
                               std::size_t required)
{
    return [=](T&, const py::args& args, const py::kwargs& kwargs) -> py::object {
        throw py::type_error(call_error(name.c_str(), params, required, args, kwargs));
    };
}

// The NUFFT blocks' shared arguments.
inline double eps_arg(const py::handle& v)
{
    return real_number(v, "eps", "a tolerance such as 1e-6", false);
}
inline std::int64_t epoch_arg(const py::handle& v)
{
    return int64_arg(v, "epoch", "whole seconds since 1970");
}
inline double nominal_rate_arg(const py::handle& v)
{
    return real_number(
        v, "nominal_rate", "0 (float64 times) or a sample rate in Hz", false);
}

// The options every plan shares, read the same way by every binding.
inline int device_id_arg(const py::handle& v)
{
    return whole_int(v, "device_id", 0, 1 << 20, "a CUDA device id >= 0");
}
inline int threads_arg(const py::handle& v)
{
    return whole_int(
        v, "threads", 0, 1 << 20, "a whole number of threads >= 0 (0: all cores)");
}
inline std::string backend_arg(const py::handle& v)
{
    static const std::string names = gr::gpufft::backend_names();
    return text(v, "backend", names.c_str());
}
inline std::string precision_arg(const py::handle& v)
{
    static const std::string names = gr::gpufft::precision_names();
    return text(v, "precision", names.c_str());
}

//! The integration modes' names as the engine writes them: "'mean' or 'max'", or with
//! `other` last ("'mean', 'max' or None").
inline std::string integration_mode_names(const std::string& other = "")
{
    return quoted_choices(
        { gr::gpufft::to_string(gr::gpufft::integration_mode::mean),
          gr::gpufft::to_string(gr::gpufft::integration_mode::max_hold) },
        other);
}

//! The window of an integrated spectrum (spectrum_integrator, large_fft_accumulator):
//! the names are the engine's (lib/large/power/spectral_window) to refuse.
inline std::string integration_window_arg(const py::handle& v)
{
    return text(v, "window", "a window name such as 'none' or 'hann'");
}

//! The blocks' input_type (sparse_fft, large_fft_accumulator): the names are
//! lib/stream/sample_format's, the one list of them.
inline std::string input_type_arg(const py::handle& v)
{
    static const std::string names =
        quoted_choices(gr::gpufft::stream::sample_format_names());
    return text(v, "input_type", names.c_str());
}

} // namespace gpufft_python

#endif /* INCLUDED_GPUFFT_PYTHON_NUMPY_ARRAYS_H */
