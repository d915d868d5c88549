/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Hand-written numpy binding of spectrum_integrator. The GIL is released while a frame
// is integrated; accumulate() works on a copy unless in_place=True (the host path
// windows and transforms the frame in its own memory).

#include "numpy_arrays.h"
#include <pybind11/complex.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <gnuradio/gpufft/spectrum_integrator.h>
#include <stdexcept>

namespace py = pybind11;
using namespace gr::gpufft;

namespace {

using C = std::complex<float>;

bool accumulate(spectrum_integrator& s, py::object x_any, py::object in_place_any)
{
    const bool in_place = gpufft_python::flag(in_place_any, "in_place");
    if (in_place) {
        auto x = gpufft_python::in_place_complex_array<float>(
            x_any, "x", "in-place accumulate");
        gpufft_python::check_size(x, s.fft_size(), "x", "fft_size is", "", "samples");
        C* p = x.mutable_data();
        py::gil_scoped_release release;
        return s.accumulate(p);
    }
    auto x = gpufft_python::to_complex_array<float>(x_any, "x");
    gpufft_python::check_size(x, s.fft_size(), "x", "fft_size is", "", "samples");
    py::array_t<C> copy(x.size());
    std::copy(x.data(), x.data() + x.size(), copy.mutable_data());
    C* p = copy.mutable_data();
    py::gil_scoped_release release;
    return s.accumulate(p);
}

} // namespace

void bind_spectrum_integrator(py::module& m)
{
    py::class_<spectrum_integrator>(
        m,
        "spectrum_integrator",
        "Integrated power spectrum of frames of fft_size samples: window, forward FFT, "
        "|X|^2 of the DC-centred bins [band_start, band_stop) averaged into output_bins "
        "channels and scaled by 1/sum(w)^2 (a tone A exp(i w t) on a bin centre reads "
        "A^2), accumulated as a mean or a max over frames. On the GPU when a frame fits "
        "memory_budget (only the channels come back), else the large FFT plus a host "
        "reduction. CPU: fftw_planner 'auto' (measured up to 2^20 points, kept as "
        "wisdom), 'measure' or 'estimate'; fftw_wisdom a file that keeps measured plans "
        "between runs ('': none).")
        .def(py::init([](py::object fft_size,
                         py::object band_start,
                         py::object band_stop,
                         py::object output_bins,
                         py::object window,
                         py::object mode,
                         py::object memory_budget,
                         py::object backend_name,
                         py::object device_id,
                         py::object threads,
                         py::object devices,
                         py::object fftw_planner,
                         py::object fftw_wisdom) {
                 namespace gp = gpufft_python;
                 spectrum_integrator_options o;
                 o.backend = parse_backend(gpufft_python::backend_arg(backend_name));
                 o.device_id = gpufft_python::device_id_arg(device_id);
                 o.threads = gpufft_python::threads_arg(threads);
                 o.devices = gpufft_python::device_list(devices, "devices");
                 o.window =
                     gp::text(window, "window", "a window name such as 'none' or 'hann'");
                 o.mode =
                     parse_integration_mode(gp::text(mode, "mode", "'mean' or 'max'"));
                 o.fftw_planner = gp::text(
                     fftw_planner, "fftw_planner", "'auto', 'measure' or 'estimate'");
                 o.fftw_wisdom =
                     gp::text(fftw_wisdom, "fftw_wisdom", "a file path, or '' for none");
                 const auto fft_size_ =
                     gp::whole_number(fft_size, "fft_size", 1, "a whole number >= 1");
                 const auto band_start_ = gp::whole_number(
                     band_start, "band_start", 0, "a whole number of bins >= 0");
                 const auto band_stop_ =
                     gp::whole_number(band_stop,
                                      "band_stop",
                                      0,
                                      "a whole number of bins >= 0 (0: fft_size)");
                 const auto output_bins_ =
                     gp::whole_number(output_bins,
                                      "output_bins",
                                      0,
                                      "a whole number >= 0 (0: the band's bins)");
                 if (!memory_budget.is_none())
                     o.memory_budget = std::size_t(gpufft_python::whole_number(
                         memory_budget,
                         "memory_budget",
                         1,
                         "a whole number of bytes > 0 (None: most of what is free)"));
                 return std::make_unique<spectrum_integrator>(
                     fft_size_, band_start_, band_stop_, output_bins_, o);
             }),
             py::arg("fft_size"),
             py::arg("band_start") = 0,
             py::arg("band_stop") = 0,
             py::arg("output_bins") = 0,
             py::arg("window") = "none",
             py::arg("mode") = "mean",
             py::arg("memory_budget") = py::none(),
             py::arg("backend") = "auto",
             py::arg("device_id") = 0,
             py::arg("threads") = 0,
             py::arg("devices") = py::list(),
             py::arg("fftw_planner") = "auto",
             py::arg("fftw_wisdom") = "")
        .def(gpufft_python::refuse_other_calls<spectrum_integrator>("spectrum_integrator",
                                                                    { "fft_size",
                                                                      "band_start",
                                                                      "band_stop",
                                                                      "output_bins",
                                                                      "window",
                                                                      "mode",
                                                                      "memory_budget",
                                                                      "backend",
                                                                      "device_id",
                                                                      "threads",
                                                                      "devices",
                                                                      "fftw_planner",
                                                                      "fftw_wisdom" },
                                                                    1),
             "Any other call: a TypeError naming the argument at fault.")
        .def("accumulate",
             &accumulate,
             py::arg("x"),
             py::arg("in_place") = false,
             "Adds one frame of fft_size samples; False (frame left out) when it holds "
             "a NaN or infinity. in_place=True uses x itself as scratch (a writeable "
             "C-contiguous complex64 array; its contents are undefined afterwards).")
        .def("accumulate",
             gpufft_python::refuse_other_method_calls<spectrum_integrator>(
                 "spectrum_integrator.accumulate", { "x", "in_place" }, 1),
             "Any other call: a TypeError naming the argument at fault.")
        .def(
            "read",
            [](spectrum_integrator& s) -> py::object {
                py::array_t<float> out(s.output_bins());
                float* p = out.mutable_data();
                std::int64_t frames;
                {
                    py::gil_scoped_release release;
                    frames = s.read(p);
                }
                if (frames == 0)
                    return py::none();
                return std::move(out);
            },
            "The mean (or max) channel powers over the frames since the last reset, as "
            "float32; None when no frame was accumulated.")
        .def(
            "reset",
            [](spectrum_integrator& s, py::object mode) {
                if (mode.is_none())
                    s.reset();
                else
                    s.reset(parse_integration_mode(
                        gpufft_python::text(mode, "mode", "'mean', 'max' or None")));
            },
            py::arg("mode") = py::none(),
            "Starts a new integration (optionally in another mode: 'mean' or 'max').")
        .def("reset",
             gpufft_python::refuse_other_method_calls<spectrum_integrator>(
                 "spectrum_integrator.reset", { "mode" }, 0),
             "Any other call: a TypeError naming the argument at fault.")
        .def_property_readonly("fft_size", &spectrum_integrator::fft_size)
        .def_property_readonly("band_start", &spectrum_integrator::band_start)
        .def_property_readonly("band_stop", &spectrum_integrator::band_stop)
        .def_property_readonly("output_bins", &spectrum_integrator::output_bins)
        .def_property_readonly("frames", &spectrum_integrator::frames)
        .def_property_readonly(
            "mode", [](const spectrum_integrator& s) { return to_string(s.mode()); })
        .def_property_readonly(
            "backend",
            [](const spectrum_integrator& s) { return to_string(s.backend()); })
        .def_property_readonly("device_id", &spectrum_integrator::device_id)
        .def_property_readonly("memory_budget", &spectrum_integrator::memory_budget)
        .def_property_readonly("on_device", &spectrum_integrator::on_device)
        .def("describe", &spectrum_integrator::describe, "The path in words.")
        .def("__repr__", [](const spectrum_integrator& s) {
            return "<gpufft.spectrum_integrator fft_size=" +
                   std::to_string(s.fft_size()) +
                   " output_bins=" + std::to_string(s.output_bins()) + " " +
                   to_string(s.backend()) + (s.on_device() ? " fused" : " host") + ">";
        });
}
