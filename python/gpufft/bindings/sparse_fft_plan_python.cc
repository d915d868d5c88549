/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Hand-written numpy binding of the sparse FFT engine (an engine plan, not a block: no
// BINDTOOL hash). The GIL is released while a transform runs; std::invalid_argument
// reaches Python as ValueError, std::runtime_error as RuntimeError.

#include "keyword_table.h"
#include "numpy_arrays.h"
#include "sparse_keywords.h"
#include <pybind11/complex.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <gnuradio/gpufft/backend.h>
#include <gnuradio/gpufft/sparse_fft_plan.h>
#include <limits>
#include <stdexcept>

namespace py = pybind11;
using namespace gr::gpufft;

namespace {

namespace gp = gpufft_python;

//! A plan's arguments; every keyword, its default and its check is one row of
//! plan_keywords (keyword_table.h): the keyword list, the defaults and the refusals of a
//! wrong call come from there. Defaults are sparse_fft_options' own, the names
//! sparse_names.cc's.
struct plan_args {
    std::int64_t n = 0, k = 0;
    sparse_fft_options o;
};

const sparse_fft_options defaults{};

const gp::keyword<plan_args> plan_keywords[] = {
    { "n",
      nullptr,
      [](plan_args& a, const py::handle& v) {
          a.n = gp::whole_number(v, "n", 1, "a whole number >= 1");
      } },
    { "k",
      nullptr,
      // k's range is the engine's one owner's (check_sparse_fft_k), in the block's words.
      [](plan_args& a, const py::handle& v) {
          a.k = gp::whole_number(
              v, "k", std::numeric_limits<long long>::min(), gp::sparse_k_valid);
      } },
    { "mode",
      [] { return py::object(py::str(to_string(defaults.mode))); },
      [](plan_args& a, const py::handle& v) {
          a.o.mode = parse_sparse_fft_mode(gp::sparse_mode_arg(v));
      } },
    { "backend",
      [] { return py::object(py::str(to_string(defaults.backend))); },
      [](plan_args& a, const py::handle& v) {
          a.o.backend =
              parse_backend(gp::backend_arg(py::reinterpret_borrow<py::object>(v)));
      } },
    { "device_id",
      [] { return py::object(py::int_(defaults.device_id)); },
      [](plan_args& a, const py::handle& v) {
          a.o.device_id = gp::device_id_arg(py::reinterpret_borrow<py::object>(v));
      } },
    { "seed",
      [] { return py::object(py::none()); },
      [](plan_args& a, const py::handle& v) {
          if (v.is_none())
              return;
          // Any seed describe() prints, up to 2^64 - 1, can be given back.
          if (!py::isinstance<py::int_>(v))
              throw std::invalid_argument(
                  "seed: must be None or an integer in [0, 2^64)");
          const unsigned long long s = PyLong_AsUnsignedLongLong(v.ptr());
          if (PyErr_Occurred()) {
              PyErr_Clear();
              throw std::invalid_argument(
                  "seed: must be None or an integer in [0, 2^64)");
          }
          a.o.seed = std::uint64_t(s);
      } },
    // Ranges (NaN included) are the engine's one owner's to refuse, in the block's words
    // too; here only what is not a number.
    { "min_snr_db",
      [] { return py::object(py::float_(defaults.min_snr_db)); },
      [](plan_args& a, const py::handle& v) {
          a.o.min_snr_db = gp::sparse_min_snr_db_arg(v);
      } },
    { "false_alarm",
      [] { return py::object(py::float_(defaults.false_alarm)); },
      [](plan_args& a, const py::handle& v) {
          a.o.false_alarm = gp::sparse_false_alarm_arg(v);
      } },
    { "window",
      [] { return py::object(py::str(to_string(defaults.window))); },
      [](plan_args& a, const py::handle& v) {
          a.o.window = parse_sparse_fft_window(
              gp::text(v, "window", sparse_fft_window_names().c_str()));
      } },
    { "resolve_close_tones",
      [] { return py::object(py::bool_(defaults.resolve_close_tones)); },
      [](plan_args& a, const py::handle& v) {
          a.o.resolve_close_tones = gp::flag(v, "resolve_close_tones");
      } },
    { "buckets",
      [] { return py::object(py::int_(defaults.buckets)); },
      [](plan_args& a, const py::handle& v) {
          a.o.buckets =
              gp::whole_number(v, "buckets", 0, "a whole number >= 0 (0: automatic)");
      } },
    { "loops",
      [] { return py::object(py::int_(defaults.loops)); },
      [](plan_args& a, const py::handle& v) {
          a.o.loops =
              gp::whole_int(v, "loops", 0, 1 << 20, "a whole number >= 0 (0: automatic)");
      } },
    { "filter_width",
      [] { return py::object(py::int_(defaults.filter_width)); },
      [](plan_args& a, const py::handle& v) {
          a.o.filter_width = gp::whole_number(
              v, "filter_width", 0, "a whole number >= 0 (0: automatic)");
      } },
    { "force_dense",
      [] { return py::object(py::bool_(defaults.force_dense)); },
      [](plan_args& a, const py::handle& v) {
          a.o.force_dense = gp::flag(v, "force_dense");
      } },
    { "transfer",
      [] { return py::object(py::str(to_string(defaults.transfer))); },
      [](plan_args& a, const py::handle& v) {
          a.o.transfer = parse_sparse_fft_transfer(
              gp::text(v, "transfer", sparse_fft_transfer_names().c_str()));
      } },
    { "location",
      [] { return py::object(py::str(to_string(defaults.location))); },
      [](plan_args& a, const py::handle& v) {
          a.o.location = parse_sparse_fft_location(
              gp::text(v, "location", sparse_fft_location_names().c_str()));
      } },
    { "value_iterations",
      [] { return py::object(py::int_(defaults.value_iterations)); },
      [](plan_args& a, const py::handle& v) {
          a.o.value_iterations = gp::whole_int(
              v, "value_iterations", 0, 1 << 20, "a whole number >= 0 (0: automatic)");
      } },
};

py::tuple run_detect(sparse_fft_plan& plan, const py::object& x_any)
{
    auto x = gpufft_python::to_complex_array<float>(x_any, "x");
    gpufft_python::check_frame(x, plan.size(), "x");
    std::vector<sparse_tone> tones;
    {
        py::gil_scoped_release release;
        plan.detect(x.data(), tones);
    }
    py::array_t<double> f(tones.size()), snr(tones.size());
    py::array_t<std::complex<double>> a(tones.size());
    for (std::size_t i = 0; i < tones.size(); ++i) {
        f.mutable_data()[i] = tones[i].frequency;
        a.mutable_data()[i] = tones[i].amplitude;
        snr.mutable_data()[i] = tones[i].snr_db;
    }
    return py::make_tuple(f, a, snr);
}

py::tuple run_sparse(sparse_fft_plan& plan, const py::object& x_any)
{
    auto x = gpufft_python::to_complex_array<float>(x_any, "x");
    gpufft_python::check_frame(x, plan.size(), "x");
    std::vector<std::int64_t> bins;
    std::vector<std::complex<float>> values;
    {
        py::gil_scoped_release release;
        plan.execute(x.data(), bins, values);
    }
    py::array_t<std::int64_t> b(bins.size());
    py::array_t<std::complex<float>> v(values.size());
    std::copy(bins.begin(), bins.end(), b.mutable_data());
    std::copy(values.begin(), values.end(), v.mutable_data());
    return py::make_tuple(b, v);
}

} // namespace

void bind_sparse_fft_plan(py::module& m)
{
    static const std::string plan_doc =
        gpufft_python::signature("sparse_fft_plan", plan_keywords);
    py::class_<sparse_fft_plan> cls(
        m,
        "sparse_fft_plan",
        "The k largest coefficients of the n-point DFT X[f] = "
        "sum_t x[t] exp(-2j pi f t / n)\n"
        "(numpy.fft.fft's convention), in time sublinear in n "
        "for (nearly) k-sparse signals.\n"
        "Falls back to a dense FFT + top-k where that is cheaper "
        "or n has no usable bucket\n"
        "count (e.g. a prime), and says so on stderr.\n\n"
        "mode: 'robust' (default: noise, tones between bins, k an "
        "upper bound; min_snr_db, false_alarm, window and resolve_close_tones apply) or "
        "'exact' (exactly k-sparse frames).\n"
        "seed: None or 0 draws fresh random permutations; plans "
        "with the same seed use the\n"
        "same permutations on the CPU and the GPU. buckets, "
        "loops, filter_width, value_iterations (CG refinement of the "
        "values): 0 = automatic.\n"
        "location: 'phase' (fast, default) or 'voting' (the "
        "papers' location by voting across loops).");
    cls.def(py::init([](const py::args& args, const py::kwargs& kwargs) {
                const auto a = gpufft_python::parse_call(
                    "sparse_fft_plan", plan_keywords, args, kwargs);
                return std::make_unique<sparse_fft_plan>(a.n, a.k, a.o);
            }),
            plan_doc.c_str());
    gp::def_method(
        cls,
        "execute",
        &run_sparse,
        py::arg("x"),
        "x: n complex samples (complex64; other dtypes are converted). Returns "
        "(bins, "
        "values): int64 bins ascending and complex64 X[bins]; at most k of them "
        "(robust "
        "mode: the bins of the detected tones that stand above the noise floor).");
    gp::def_method(
        cls,
        "detect",
        &run_detect,
        py::arg("x"),
        "x: n complex samples, converted to complex64 first as "
        "numpy.asarray(x, numpy.complex64) would (a copy unless x is already a "
        "C-contiguous complex64 array): a list, or a complex128, float64 or integer "
        "array is accepted, its values rounded to single precision and a real "
        "input given a zero imaginary part; what cannot be converted raises "
        "ValueError naming x. Returns (frequencies, amplitudes, snr_db), strongest "
        "first, at most k: float64 fractional bins in [0, n), complex128 n a for a "
        "tone a exp(2j pi f t / n) (an on-grid tone's amplitude is X[f]), and the "
        "tone's power over the noise floor of one bin of an n-point FFT in dB.")
        .def_property_readonly("not_sparse",
                               &sparse_fft_plan::not_sparse,
                               "Exact mode: the last frame was not exactly sparse; only "
                               "the coefficients its residual vouches for came back.")
        .def_property_readonly(
            "stats",
            [](const sparse_fft_plan& p) {
                const sparse_fft_stats st = p.stats();
                py::dict d;
                d["frames"] = st.frames;
                d["redone_dense"] = st.redone_dense;
                d["floor_failed"] = st.floor_failed;
                d["residual_failed"] = st.residual_failed;
                d["unverified"] = st.unverified;
                return d;
            },
            "Counts since the plan was made, a dict: frames run; redone_dense, the "
            "frames the sublinear path's self-check failed and the dense path redid "
            "(floor_failed + residual_failed: the buckets' noise over 3 dB above the "
            "band's median floor, or energy above the threshold the tones do not "
            "explain); unverified, those of them that kept the sparse answer because a "
            "dense path of n does not fit in memory. docs/sparse_fft_robust.md, "
            "'Self-check'.")
        .def_property_readonly("noise_floor",
                               &sparse_fft_plan::noise_floor,
                               "Robust mode: the last frame's noise power per bin of an "
                               "n-point FFT (|X|^2 units).")
        .def_property_readonly(
            "mode", [](const sparse_fft_plan& p) { return to_string(p.mode()); })
        .def("describe",
             &sparse_fft_plan::describe,
             "The parameters the cost model chose.")
        .def_property_readonly("n", &sparse_fft_plan::size)
        .def_property_readonly("k", &sparse_fft_plan::k)
        .def_property_readonly(
            "backend", [](const sparse_fft_plan& p) { return to_string(p.backend()); })
        .def_property_readonly("device_id", &sparse_fft_plan::device_id)
        .def_property_readonly("dense_fallback", &sparse_fft_plan::dense_fallback)
        .def_property_readonly("samples_read", &sparse_fft_plan::samples_read)
        .def("__repr__",
             [](const sparse_fft_plan& p) { return "<" + p.describe() + ">"; });
}
