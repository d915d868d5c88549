/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Hand-written numpy binding of the sparse FFT engine (an engine plan, not a block: no
// BINDTOOL hash). The GIL is released while a transform runs; std::invalid_argument
// reaches Python as ValueError, std::runtime_error as RuntimeError.

#include "numpy_arrays.h"
#include <pybind11/complex.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <gnuradio/gpufft/backend.h>
#include <gnuradio/gpufft/sparse_fft_plan.h>
#include <stdexcept>

namespace py = pybind11;
using namespace gr::gpufft;

namespace {

sparse_fft_mode parse_mode(const std::string& name)
{
    if (name == "exact")
        return sparse_fft_mode::exact;
    if (name == "robust")
        return sparse_fft_mode::robust;
    throw std::invalid_argument("mode: '" + name +
                                "' is invalid; must be 'exact' or 'robust'");
}

sparse_fft_window parse_window(const std::string& name)
{
    if (name == "auto")
        return sparse_fft_window::automatic;
    if (name == "none")
        return sparse_fft_window::none;
    if (name == "hann")
        return sparse_fft_window::hann;
    if (name == "blackman-harris" || name == "blackman_harris")
        return sparse_fft_window::blackman_harris;
    throw std::invalid_argument("window: '" + name +
                                "' is invalid; must be 'auto', 'none', 'hann' or "
                                "'blackman-harris'");
}

sparse_fft_transfer parse_transfer(const std::string& name)
{
    if (name == "auto")
        return sparse_fft_transfer::automatic;
    if (name == "gather")
        return sparse_fft_transfer::gather;
    if (name == "copy")
        return sparse_fft_transfer::full_copy;
    throw std::invalid_argument("transfer: '" + name +
                                "' is invalid; must be 'auto', 'gather' or 'copy'");
}

sparse_fft_location parse_location(const std::string& name)
{
    if (name == "phase")
        return sparse_fft_location::phase;
    if (name == "voting")
        return sparse_fft_location::voting;
    throw std::invalid_argument("location: '" + name +
                                "' is invalid; must be 'phase' or 'voting'");
}

template <typename Array>
void check_frame(const sparse_fft_plan& plan, const Array& x)
{
    if (x.ndim() != 1 || x.size() != plan.size())
        throw std::invalid_argument(
            "x: must be a 1-D array of n = " + std::to_string(plan.size()) +
            " samples; got " + std::to_string(x.size()) + " in " +
            std::to_string(x.ndim()) + " dimension(s)");
}

py::tuple run_detect(sparse_fft_plan& plan, const py::object& x_any)
{
    auto x = gpufft_python::to_complex_array<float>(x_any, "x");
    check_frame(plan, x);
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
    check_frame(plan, x);
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
    py::class_<sparse_fft_plan>(
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
        "papers' location by voting across loops).")
        .def(py::init([](py::object n,
                         py::object k,
                         py::object mode,
                         py::object backend_name,
                         py::object device_id,
                         py::object seed,
                         py::object min_snr_db,
                         py::object false_alarm,
                         py::object window,
                         py::object resolve_close_tones,
                         py::object buckets,
                         py::object loops,
                         py::object filter_width,
                         py::object force_dense,
                         py::object transfer,
                         py::object location,
                         py::object value_iterations) {
                 namespace gp = gpufft_python;
                 sparse_fft_options o;
                 o.mode = parse_mode(gp::text(mode, "mode", "'exact' or 'robust'"));
                 o.backend = parse_backend(gpufft_python::backend_arg(backend_name));
                 o.device_id = gpufft_python::device_id_arg(device_id);
                 if (!seed.is_none()) {
                     // Any seed describe() prints, up to 2^64 - 1, can be given back.
                     if (!py::isinstance<py::int_>(seed))
                         throw std::invalid_argument(
                             "seed: must be None or an integer in [0, 2^64)");
                     const unsigned long long s = PyLong_AsUnsignedLongLong(seed.ptr());
                     if (PyErr_Occurred()) {
                         PyErr_Clear();
                         throw std::invalid_argument(
                             "seed: must be None or an integer in [0, 2^64)");
                     }
                     o.seed = std::uint64_t(s);
                 }
                 o.min_snr_db =
                     gp::real_number(min_snr_db, "min_snr_db", "a finite number of dB");
                 o.false_alarm = gp::real_number(
                     false_alarm, "false_alarm", "a probability in (0, 1)");
                 o.window = parse_window(gp::text(
                     window, "window", "'auto', 'none', 'hann' or 'blackman-harris'"));
                 o.resolve_close_tones =
                     gp::flag(resolve_close_tones, "resolve_close_tones");
                 o.buckets = gp::whole_number(
                     buckets, "buckets", 0, "a whole number >= 0 (0: automatic)");
                 o.loops = gp::whole_int(
                     loops, "loops", 0, 1 << 20, "a whole number >= 0 (0: automatic)");
                 o.filter_width = gp::whole_number(filter_width,
                                                   "filter_width",
                                                   0,
                                                   "a whole number >= 0 (0: automatic)");
                 o.force_dense = gp::flag(force_dense, "force_dense");
                 o.transfer = parse_transfer(
                     gp::text(transfer, "transfer", "'auto', 'gather' or 'copy'"));
                 o.location = parse_location(
                     gp::text(location, "location", "'phase' or 'voting'"));
                 o.value_iterations = gp::whole_int(value_iterations,
                                                    "value_iterations",
                                                    0,
                                                    1 << 20,
                                                    "a whole number >= 0 (0: automatic)");
                 const auto n_ = gp::whole_number(n, "n", 1, "a whole number >= 1");
                 const auto k_ = gp::whole_number(k, "k", 1, "a whole number >= 1");
                 return std::make_unique<sparse_fft_plan>(n_, k_, o);
             }),
             py::arg("n"),
             py::arg("k"),
             py::arg("mode") = "robust",
             py::arg("backend") = "auto",
             py::arg("device_id") = 0,
             py::arg("seed") = py::none(),
             py::arg("min_snr_db") = 20.0,
             py::arg("false_alarm") = 0.01,
             py::arg("window") = "auto",
             py::arg("resolve_close_tones") = true,
             py::arg("buckets") = 0,
             py::arg("loops") = 0,
             py::arg("filter_width") = 0,
             py::arg("force_dense") = false,
             py::arg("transfer") = "auto",
             py::arg("location") = "phase",
             py::arg("value_iterations") = 0)
        .def(gpufft_python::refuse_other_calls<sparse_fft_plan>("sparse_fft_plan",
                                                                { "n",
                                                                  "k",
                                                                  "mode",
                                                                  "backend",
                                                                  "device_id",
                                                                  "seed",
                                                                  "min_snr_db",
                                                                  "false_alarm",
                                                                  "window",
                                                                  "resolve_close_tones",
                                                                  "buckets",
                                                                  "loops",
                                                                  "filter_width",
                                                                  "force_dense",
                                                                  "transfer",
                                                                  "location",
                                                                  "value_iterations" },
                                                                2),
             "Any other call: a TypeError naming the argument at fault.")
        .def("execute",
             &run_sparse,
             py::arg("x"),
             "x: n complex samples (complex64; other dtypes are converted). Returns "
             "(bins, "
             "values): int64 bins ascending and complex64 X[bins]; at most k of them "
             "(robust "
             "mode: the bins of the detected tones that stand above the noise floor).")
        .def("execute",
             gpufft_python::refuse_other_method_calls<sparse_fft_plan>(
                 "sparse_fft_plan.execute", { "x" }, 1),
             "Any other call: a TypeError naming the argument at fault.")
        .def("detect",
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
        .def("detect",
             gpufft_python::refuse_other_method_calls<sparse_fft_plan>(
                 "sparse_fft_plan.detect", { "x" }, 1),
             "Any other call: a TypeError naming the argument at fault.")
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
        .def_property_readonly("mode",
                               [](const sparse_fft_plan& p) {
                                   return p.mode() == sparse_fft_mode::robust
                                              ? std::string("robust")
                                              : std::string("exact");
                               })
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
