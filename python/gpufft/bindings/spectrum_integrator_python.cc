/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Hand-written numpy binding of spectrum_integrator. The GIL is released while a frame
// is integrated; accumulate() works on a copy unless in_place=True (the host path
// windows and transforms the frame in its own memory).

#include "keyword_table.h"
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

namespace gp = gpufft_python;

//! The constructor's arguments; the options' own defaults are the Python defaults.
struct integrator_args {
    std::int64_t fft_size = 0, band_start = 0, band_stop = 0, output_bins = 0;
    spectrum_integrator_options o;
};

const spectrum_integrator_options defaults{};

// spectrum_integrator(...)'s keywords, defaults and conversions, in order: the keyword
// list, the defaults and the refusals of a wrong call all come from here. Ranges are
// the engine's to refuse.
const gp::keyword<integrator_args> integrator_keywords[] = {
    { "fft_size",
      nullptr,
      [](integrator_args& a, const py::handle& v) {
          a.fft_size = gp::whole_number(v, "fft_size", 1, "a whole number >= 1");
      } },
    { "band_start",
      [] { return py::object(py::int_(0)); },
      [](integrator_args& a, const py::handle& v) {
          a.band_start =
              gp::whole_number(v, "band_start", 0, "a whole number of bins >= 0");
      } },
    { "band_stop",
      [] { return py::object(py::int_(0)); },
      [](integrator_args& a, const py::handle& v) {
          a.band_stop = gp::whole_number(
              v, "band_stop", 0, "a whole number of bins >= 0 (0: fft_size)");
      } },
    { "output_bins",
      [] { return py::object(py::int_(0)); },
      [](integrator_args& a, const py::handle& v) {
          a.output_bins = gp::whole_number(
              v, "output_bins", 0, "a whole number >= 0 (0: the band's bins)");
      } },
    { "window",
      [] { return py::object(py::str(defaults.window)); },
      [](integrator_args& a, const py::handle& v) {
          a.o.window = gp::integration_window_arg(v);
      } },
    { "mode",
      [] { return py::object(py::str(to_string(defaults.mode))); },
      [](integrator_args& a, const py::handle& v) {
          a.o.mode = parse_integration_mode(
              gp::text(v, "mode", gp::integration_mode_names().c_str()));
      } },
    // None: the options' default (most of what is free).
    { "memory_budget",
      [] { return py::object(py::none()); },
      [](integrator_args& a, const py::handle& v) {
          if (!v.is_none())
              a.o.memory_budget = std::size_t(gp::whole_number(
                  v,
                  "memory_budget",
                  1,
                  "a whole number of bytes > 0 (None: most of what is free)"));
      } },
    { "backend",
      [] { return py::object(py::str(to_string(defaults.backend))); },
      [](integrator_args& a, const py::handle& v) {
          a.o.backend = parse_backend(gp::backend_arg(v));
      } },
    { "device_id",
      [] { return py::object(py::int_(defaults.device_id)); },
      [](integrator_args& a, const py::handle& v) {
          a.o.device_id = gp::device_id_arg(v);
      } },
    { "threads",
      [] { return py::object(py::int_(defaults.threads)); },
      [](integrator_args& a, const py::handle& v) { a.o.threads = gp::threads_arg(v); } },
    { "devices",
      [] { return py::object(gp::int_list(defaults.devices)); },
      [](integrator_args& a, const py::handle& v) {
          a.o.devices = gp::device_list(v, "devices");
      } },
    { "fftw_planner",
      [] { return py::object(py::str(defaults.fftw_planner)); },
      [](integrator_args& a, const py::handle& v) {
          a.o.fftw_planner =
              gp::text(v, "fftw_planner", "'auto', 'measure' or 'estimate'");
      } },
    { "fftw_wisdom",
      [] { return py::object(py::str(defaults.fftw_wisdom)); },
      [](integrator_args& a, const py::handle& v) {
          a.o.fftw_wisdom = gp::text(v, "fftw_wisdom", "a file path, or '' for none");
      } },
};

} // namespace

void bind_spectrum_integrator(py::module& m)
{
    static const std::string signature =
        gp::signature("spectrum_integrator", integrator_keywords);
    py::class_<spectrum_integrator> cls(
        m,
        "spectrum_integrator",
        "Integrated power spectrum of frames of fft_size samples: window, forward FFT, "
        "|X|^2 of the DC-centred bins [band_start, band_stop) averaged into output_bins "
        "channels and scaled by 1/sum(w)^2 (a tone A exp(i w t) on a bin centre reads "
        "A^2), accumulated as a mean or a max over frames. On the GPU when a frame fits "
        "memory_budget (only the channels come back), else the large FFT plus a host "
        "reduction. CPU: fftw_planner 'auto' (measured up to 2^20 points, kept as "
        "wisdom), 'measure' or 'estimate'; fftw_wisdom a file that keeps measured plans "
        "between runs ('': none).");
    // The arguments from one table (integrator_keywords): each converted with a
    // ValueError naming it, any wrong call a TypeError naming what is at fault.
    cls.def(py::init([](const py::args& args, const py::kwargs& kwargs) {
                const auto a = gp::parse_call(
                    "spectrum_integrator", integrator_keywords, args, kwargs);
                return std::make_unique<spectrum_integrator>(
                    a.fft_size, a.band_start, a.band_stop, a.output_bins, a.o);
            }),
            signature.c_str());
    gp::def_method(
        cls,
        "accumulate",
        &accumulate,
        py::arg("x"),
        py::arg("in_place") = false,
        "Adds one frame of fft_size samples; False (frame left out) when it holds "
        "a NaN or infinity. in_place=True uses x itself as scratch (a writeable "
        "C-contiguous complex64 array; its contents are undefined afterwards).")
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
            "float32; None when no frame was accumulated.");
    gp::def_method(
        cls,
        "reset",
        [](spectrum_integrator& s, py::object mode) {
            if (mode.is_none())
                s.reset();
            else
                s.reset(parse_integration_mode(
                    gp::text(mode, "mode", gp::integration_mode_names("None").c_str())));
        },
        py::arg("mode") = py::none(),
        "Starts a new integration (optionally in another mode: 'mean' or 'max').")
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
