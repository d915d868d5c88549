/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Hand-written bindings for the engine layer's common pieces: backend and device
// queries and the dense FFT plan. numpy in, numpy out; the GIL is released while a
// transform runs. std::invalid_argument reaches Python as ValueError, std::runtime_error
// as RuntimeError.

#include "keyword_table.h"
#include "numpy_arrays.h"
#include <pybind11/complex.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <gnuradio/gpufft/backend.h>
#include <gnuradio/gpufft/dense_fft_plan.h>
#include <gnuradio/gpufft/device.h>
#include <stdexcept>

namespace py = pybind11;
using namespace gr::gpufft;

namespace {

template <typename T>
py::array_t<std::complex<T>> run_dense(dense_fft_plan& plan, py::object x_any)
{
    auto x = gpufft_python::to_complex_array<T>(x_any, "x");
    gpufft_python::check_size(x, plan.extent(), "x", "this plan transforms");
    py::array_t<std::complex<T>> y(
        std::vector<py::ssize_t>(x.shape(), x.shape() + x.ndim()));
    const std::complex<T>* in = x.data();
    std::complex<T>* out = y.mutable_data();
    {
        py::gil_scoped_release release;
        plan.execute(in, out);
    }
    return y;
}

namespace gp = gpufft_python;

//! The dense plan's arguments; the options' own defaults are the Python defaults.
struct dense_args {
    std::int64_t n = 0, batch = 1;
    bool forward = true;
    dense_fft_options o;
};

const dense_fft_options dense_defaults{};

// The range of n and batch is the engine's to check, in its own words.
constexpr long long any_size = -(1LL << 62);

// dense_fft_plan(...)'s keywords, defaults and conversions, in order: the keyword list,
// the defaults and the refusals of a wrong call all come from here.
const gp::keyword<dense_args> dense_keywords[] = {
    { "n",
      nullptr,
      [](dense_args& a, const py::handle& v) {
          a.n = gp::whole_number(v, "n", any_size, "a whole number >= 1");
      } },
    { "batch",
      [] { return py::object(py::int_(1)); },
      [](dense_args& a, const py::handle& v) {
          a.batch = gp::whole_number(v, "batch", any_size, "a whole number >= 1");
      } },
    { "forward",
      [] { return py::object(py::bool_(true)); },
      [](dense_args& a, const py::handle& v) { a.forward = gp::flag(v, "forward"); } },
    { "precision",
      [] { return py::object(py::str(to_string(dense_defaults.precision))); },
      [](dense_args& a, const py::handle& v) {
          a.o.precision = parse_precision(gp::precision_arg(v));
      } },
    { "backend",
      [] { return py::object(py::str(to_string(dense_defaults.backend))); },
      [](dense_args& a, const py::handle& v) {
          a.o.backend = parse_backend(gp::backend_arg(v));
      } },
    { "device_id",
      [] { return py::object(py::int_(dense_defaults.device_id)); },
      [](dense_args& a, const py::handle& v) { a.o.device_id = gp::device_id_arg(v); } },
    { "threads",
      [] { return py::object(py::int_(dense_defaults.threads)); },
      [](dense_args& a, const py::handle& v) { a.o.threads = gp::threads_arg(v); } },
};

} // namespace

void bind_core(py::module& m)
{
    m.def("cuda_compiled", &cuda_compiled, "True when gr-gpufft was built with CUDA.");
    m.def("cuda_device_count", &cuda_device_count, "Number of usable CUDA devices.");
    m.def(
        "cuda_available",
        [](py::object device_id) {
            return cuda_available(gpufft_python::device_id_arg(device_id));
        },
        py::arg("device_id") = 0,
        "True when device_id (after the GPUFFT_DEVICE override) is a usable GPU.");
    m.def(
        "describe_backend",
        [](py::object device_id) {
            return describe_backend(gpufft_python::device_id_arg(device_id));
        },
        py::arg("device_id") = 0,
        "One line: the backend 'auto' picks, with the device name and memory.");
    m.def(
        "resolve_backend",
        [](py::object backend_name, py::object device_id) {
            return to_string(
                resolve_backend(parse_backend(gpufft_python::backend_arg(backend_name)),
                                gpufft_python::device_id_arg(device_id)));
        },
        py::arg("backend") = "auto",
        py::arg("device_id") = 0,
        "The backend ('cpu' or 'cuda') a plan asking for `backend` would use.");
    m.def(
        "device_info",
        [](py::object device_id) {
            const device_info d =
                get_device_info(gpufft_python::device_id_arg(device_id));
            py::dict r;
            r["id"] = d.id;
            r["name"] = d.name;
            r["total_memory"] = d.total_memory;
            r["free_memory"] = d.free_memory;
            r["compute_capability"] = py::make_tuple(d.compute_major, d.compute_minor);
            r["multiprocessors"] = d.multiprocessors;
            r["l2_cache_bytes"] = d.l2_cache_bytes;
            return r;
        },
        py::arg("device_id") = 0,
        "Properties of a CUDA device as a dict; ValueError for an unknown id.");

    static const std::string dense_doc = gp::signature("dense_fft_plan", dense_keywords);
    py::class_<dense_fft_plan> cls(
        m,
        "dense_fft_plan",
        "Batched 1-D complex FFT (FFTW on the CPU, cuFFT on the GPU), "
        "unnormalized in both directions.");
    // The arguments from one table (dense_keywords): each converted with a
    // ValueError naming it, any wrong call a TypeError naming what is at fault.
    cls.def(
        py::init([](const py::args& args, const py::kwargs& kwargs) {
            const auto a = gp::parse_call("dense_fft_plan", dense_keywords, args, kwargs);
            return std::make_unique<dense_fft_plan>(
                a.n, a.batch, a.forward ? direction::forward : direction::backward, a.o);
        }),
        dense_doc.c_str());
    gp::def_method(
        cls,
        "execute",
        [](dense_fft_plan& p, py::object x) -> py::array {
            if (p.precision() == precision::single)
                return run_dense<float>(p, x);
            return run_dense<double>(p, x);
        },
        py::arg("x"),
        "Transform of x (n*batch elements, any shape; batch transforms back to "
        "back). "
        "Returns a new array of the same shape.")
        .def_property_readonly("n", &dense_fft_plan::size)
        .def_property_readonly("batch", &dense_fft_plan::batch)
        .def_property_readonly(
            "backend", [](const dense_fft_plan& p) { return to_string(p.backend()); })
        .def_property_readonly(
            "precision", [](const dense_fft_plan& p) { return to_string(p.precision()); })
        .def_property_readonly("device_id", &dense_fft_plan::device_id);
}
