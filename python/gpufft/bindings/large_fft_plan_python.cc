/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Hand-written numpy binding of the large (out-of-card) FFT plan. The GIL is released
// while a transform runs; execute(x, in_place=True) transforms a numpy array in its own
// memory, so a 32 GiB transform does not need a second 32 GiB array.

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

} // namespace

void bind_large_fft_plan(py::module& m)
{
    py::class_<large_fft_plan>(
        m,
        "large_fft_plan",
        "Complex FFT of a 1-D, 2-D or 3-D host array that may be larger than the GPU "
        "memory: a pass schedule (in card, or four-step / axis decompositions) fitted to "
        "memory_budget bytes of device memory. Unnormalized both ways, as numpy.fft.fftn "
        "(forward) and n * numpy.fft.ifftn (backward).")
        .def(
            py::init([](py::object shape,
                        py::object forward,
                        py::object memory_budget,
                        py::object precision_name,
                        py::object backend_name,
                        py::object device_id,
                        py::object threads,
                        py::object trace,
                        py::object devices) {
                large_fft_options opt;
                opt.backend = parse_backend(gpufft_python::backend_arg(backend_name));
                opt.precision =
                    parse_precision(gpufft_python::precision_arg(precision_name));
                opt.device_id = gpufft_python::device_id_arg(device_id);
                opt.threads = gpufft_python::threads_arg(threads);
                opt.trace = gpufft_python::flag(trace, "trace");
                const bool fwd = gpufft_python::flag(forward, "forward");
                opt.devices = gpufft_python::device_list(devices, "devices");
                if (!memory_budget.is_none())
                    opt.memory_budget = std::size_t(gpufft_python::whole_number(
                        memory_budget,
                        "memory_budget",
                        1,
                        "a whole number of bytes > 0 (None: most of what is free)"));
                return std::make_unique<large_fft_plan>(
                    to_shape(shape), fwd ? direction::forward : direction::backward, opt);
            }),
            py::arg("shape"),
            py::arg("forward") = true,
            py::arg("memory_budget") = py::none(),
            py::arg("precision") = "single",
            py::arg("backend") = "auto",
            py::arg("device_id") = 0,
            py::arg("threads") = 0,
            py::arg("trace") = false,
            py::arg("devices") = py::list(),
            "devices=[0, 1] deals the passes of each round out to those GPUs "
            "(memory_budget per device). trace=True writes each round's time (and on "
            "CUDA each pass's copy and "
            "compute times) to stderr after every execute.")
        .def(gpufft_python::refuse_other_calls<large_fft_plan>("large_fft_plan",
                                                               { "shape",
                                                                 "forward",
                                                                 "memory_budget",
                                                                 "precision",
                                                                 "backend",
                                                                 "device_id",
                                                                 "threads",
                                                                 "trace",
                                                                 "devices" },
                                                               1),
             "Any other call: a TypeError naming the argument at fault.")
        .def(
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
        .def("execute",
             gpufft_python::refuse_other_method_calls<large_fft_plan>(
                 "large_fft_plan.execute", { "x", "in_place" }, 1),
             "Any other call: a TypeError naming the argument at fault.")
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
