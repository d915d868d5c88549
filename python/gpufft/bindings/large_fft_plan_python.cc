/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Hand-written numpy binding of the large (out-of-card) FFT plan. The GIL is released
// while a transform runs; execute(x, in_place=True) transforms a numpy array in its own
// memory, so a 32 GiB transform does not need a second 32 GiB array.

#include "keyword_table.h"
#include "numpy_arrays.h"
#include <pybind11/complex.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <gnuradio/gpufft/large_fft_plan.h>
#include <stdexcept>

namespace py = pybind11;
using namespace gr::gpufft;

namespace {

std::vector<std::int64_t> to_shape(py::object shape)
{
    return gpufft_python::whole_numbers(
        shape, "shape", 1, "a positive whole number or a sequence of 1 to 3 of them");
}

std::string shape_string(const py::ssize_t* dims, std::size_t ndim)
{
    std::string s = "(";
    for (std::size_t i = 0; i < ndim; ++i)
        s += (i ? ", " : "") + std::to_string(dims[i]);
    return s + (ndim == 1 ? ",)" : ")");
}

// x must have the plan's shape, or be flat with size() elements (C order); a flat
// plan never takes a 2-D array, so a (256, 256) array is not silently one 65536-point
// transform.
void check_shape(const py::array& x, const large_fft_plan& plan)
{
    const auto shape = plan.shape();
    bool same = std::size_t(x.ndim()) == shape.size();
    for (std::size_t i = 0; same && i < shape.size(); ++i)
        same = x.shape(py::ssize_t(i)) == shape[i];
    if (same || (x.ndim() == 1 && x.size() == plan.size()))
        return;
    std::vector<py::ssize_t> want(shape.begin(), shape.end());
    throw std::invalid_argument(
        "x: has shape " + shape_string(x.shape(), x.ndim()) +
        "; this plan transforms shape " + shape_string(want.data(), want.size()) +
        " (or a flat array of " + std::to_string(plan.size()) + " elements)");
}

template <typename T>
py::array run_large(large_fft_plan& plan, py::object x_any, bool in_place)
{
    using C = std::complex<T>;
    const auto shape = plan.shape();
    if (in_place) {
        auto x = gpufft_python::in_place_complex_array<T>(x_any, "x", "in-place execute");
        check_shape(x, plan);
        C* p = x.mutable_data();
        {
            py::gil_scoped_release release;
            plan.execute(p, p);
        }
        return x;
    }
    auto x = gpufft_python::to_complex_array<T>(x_any, "x");
    check_shape(x, plan);
    py::array_t<C> y(std::vector<py::ssize_t>(shape.begin(), shape.end()));
    const C* in = x.data();
    C* out = y.mutable_data();
    {
        py::gil_scoped_release release;
        plan.execute(in, out);
    }
    return y;
}

namespace gp = gpufft_python;

//! The constructor's arguments; the options' own defaults are the Python defaults.
struct plan_args {
    std::vector<std::int64_t> shape;
    bool forward = true;
    large_fft_options o;
};

const large_fft_options defaults{};

// large_fft_plan(...)'s keywords, defaults and conversions, in order: the keyword list,
// the defaults and the refusals of a wrong call all come from here.
const gp::keyword<plan_args> plan_keywords[] = {
    { "shape",
      nullptr,
      [](plan_args& a, const py::handle& v) {
          a.shape = to_shape(py::reinterpret_borrow<py::object>(v));
      } },
    { "forward",
      [] { return py::object(py::bool_(true)); },
      [](plan_args& a, const py::handle& v) { a.forward = gp::flag(v, "forward"); } },
    // None: the options' default (most of what is free).
    { "memory_budget",
      [] { return py::object(py::none()); },
      [](plan_args& a, const py::handle& v) {
          if (!v.is_none())
              a.o.memory_budget = std::size_t(gp::whole_number(
                  v,
                  "memory_budget",
                  1,
                  "a whole number of bytes > 0 (None: most of what is free)"));
      } },
    { "precision",
      [] { return py::object(py::str(to_string(defaults.precision))); },
      [](plan_args& a, const py::handle& v) {
          a.o.precision = parse_precision(gp::precision_arg(v));
      } },
    { "backend",
      [] { return py::object(py::str(to_string(defaults.backend))); },
      [](plan_args& a, const py::handle& v) {
          a.o.backend = parse_backend(gp::backend_arg(v));
      } },
    { "device_id",
      [] { return py::object(py::int_(defaults.device_id)); },
      [](plan_args& a, const py::handle& v) { a.o.device_id = gp::device_id_arg(v); } },
    { "threads",
      [] { return py::object(py::int_(defaults.threads)); },
      [](plan_args& a, const py::handle& v) { a.o.threads = gp::threads_arg(v); } },
    { "trace",
      [] { return py::object(py::bool_(defaults.trace)); },
      [](plan_args& a, const py::handle& v) { a.o.trace = gp::flag(v, "trace"); } },
    { "devices",
      [] { return py::object(gp::int_list(defaults.devices)); },
      [](plan_args& a, const py::handle& v) {
          a.o.devices = gp::device_list(v, "devices");
      } },
};

} // namespace

void bind_large_fft_plan(py::module& m)
{
    static const std::string doc =
        gp::signature("large_fft_plan", plan_keywords) +
        "devices=[0, 1] deals the passes of each round out to those GPUs "
        "(memory_budget per device). trace=True writes each round's time (and on "
        "CUDA each pass's copy and compute times) to stderr after every execute.";
    py::class_<large_fft_plan> cls(
        m,
        "large_fft_plan",
        "Complex FFT of a 1-D, 2-D or 3-D host array that may be larger than the GPU "
        "memory: a pass schedule (in card, or four-step / axis decompositions) fitted to "
        "memory_budget bytes of device memory. Unnormalized both ways, as numpy.fft.fftn "
        "(forward) and n * numpy.fft.ifftn (backward).");
    // The arguments from one table (plan_keywords): each converted with a
    // ValueError naming it, any wrong call a TypeError naming what is at fault.
    cls.def(py::init([](const py::args& args, const py::kwargs& kwargs) {
                const auto a =
                    gp::parse_call("large_fft_plan", plan_keywords, args, kwargs);
                return std::make_unique<large_fft_plan>(
                    a.shape, a.forward ? direction::forward : direction::backward, a.o);
            }),
            doc.c_str());
    gp::def_method(
        cls,
        "execute",
        [](large_fft_plan& p, py::object x, py::object in_place) -> py::array {
            const bool ip = gpufft_python::flag(in_place, "in_place");
            if (p.precision() == precision::single)
                return run_large<float>(p, x, ip);
            return run_large<double>(p, x, ip);
        },
        py::arg("x"),
        py::arg("in_place") = false,
        "FFT of x (size() elements). Returns a new array of the plan's shape, or, "
        "with "
        "in_place=True, transforms x itself (a writeable C-contiguous array of the "
        "plan's dtype) and returns it. ValueError for NaN/inf samples.")
        .def_property_readonly("shape", &large_fft_plan::shape)
        .def_property_readonly("size", &large_fft_plan::size)
        .def_property_readonly(
            "forward",
            [](const large_fft_plan& p) { return p.direction() == direction::forward; })
        .def_property_readonly(
            "backend", [](const large_fft_plan& p) { return to_string(p.backend()); })
        .def_property_readonly(
            "precision", [](const large_fft_plan& p) { return to_string(p.precision()); })
        .def_property_readonly("device_id", &large_fft_plan::device_id)
        .def_property_readonly("devices", &large_fft_plan::devices)
        .def_property_readonly("memory_budget", &large_fft_plan::memory_budget)
        .def_property_readonly("passes", &large_fft_plan::passes)
        .def("describe", &large_fft_plan::describe, "The pass schedule in words.")
        .def("__repr__", [](const large_fft_plan& p) {
            std::string s = "<gpufft.large_fft_plan shape=[";
            const auto sh = p.shape();
            for (std::size_t i = 0; i < sh.size(); ++i)
                s += (i ? "," : "") + std::to_string(sh[i]);
            return s + "] " + to_string(p.backend()) + " " + std::to_string(p.passes()) +
                   " round(s)>";
        });
}
