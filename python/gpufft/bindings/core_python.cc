/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Hand-written bindings for the engine layer's common pieces: backend and device
// queries and the dense FFT plan. numpy in, numpy out; the GIL is released while a
// transform runs. std::invalid_argument reaches Python as ValueError, std::runtime_error
// as RuntimeError.

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

    py::class_<dense_fft_plan>(
        m,
        "dense_fft_plan",
        "Batched 1-D complex FFT (FFTW on the CPU, cuFFT on the GPU), "
        "unnormalized in both directions.")
        .def(py::init([](py::object n,
                         py::object batch,
                         py::object forward,
                         py::object precision_name,
                         py::object backend_name,
                         py::object device_id,
                         py::object threads) {
                 // The range is the engine's to check, in its own words.
                 constexpr long long any = -(1LL << 62);
                 dense_fft_options opt;
                 opt.backend = parse_backend(gpufft_python::backend_arg(backend_name));
                 opt.precision =
                     parse_precision(gpufft_python::precision_arg(precision_name));
                 opt.device_id = gpufft_python::device_id_arg(device_id);
                 opt.threads = gpufft_python::threads_arg(threads);
                 const auto n_ =
                     gpufft_python::whole_number(n, "n", any, "a whole number >= 1");
                 const auto batch_ = gpufft_python::whole_number(
                     batch, "batch", any, "a whole number >= 1");
                 return std::make_unique<dense_fft_plan>(
                     n_,
                     batch_,
                     gpufft_python::flag(forward, "forward") ? direction::forward
                                                             : direction::backward,
                     opt);
             }),
             py::arg("n"),
             py::arg("batch") = 1,
             py::arg("forward") = true,
             py::arg("precision") = "single",
             py::arg("backend") = "auto",
             py::arg("device_id") = 0,
             py::arg("threads") = 0)
        .def(gpufft_python::refuse_other_calls<dense_fft_plan>("dense_fft_plan",
                                                               { "n",
                                                                 "batch",
                                                                 "forward",
                                                                 "precision",
                                                                 "backend",
                                                                 "device_id",
                                                                 "threads" },
                                                               1),
             "Any other call: a TypeError naming the argument at fault.")
        .def(
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
        .def("execute",
             gpufft_python::refuse_other_method_calls<dense_fft_plan>(
                 "dense_fft_plan.execute", { "x" }, 1),
             "Any other call: a TypeError naming the argument at fault.")
        .def_property_readonly("n", &dense_fft_plan::size)
        .def_property_readonly("batch", &dense_fft_plan::batch)
        .def_property_readonly(
            "backend", [](const dense_fft_plan& p) { return to_string(p.backend()); })
        .def_property_readonly(
            "precision", [](const dense_fft_plan& p) { return to_string(p.precision()); })
        .def_property_readonly("device_id", &dense_fft_plan::device_id);
}
