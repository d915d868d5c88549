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

#include <complex>
#include <cstdint>
#include <stdexcept>
#include <string>

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

} // namespace gpufft_python

#endif /* INCLUDED_GPUFFT_PYTHON_NUMPY_ARRAYS_H */
