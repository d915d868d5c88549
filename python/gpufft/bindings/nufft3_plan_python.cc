/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Hand-written numpy bindings of the type-3 NUFFT plan (an engine, not a block):
//   p = gpufft.nufft3_plan(dim, eps, precision="double", backend="auto", device_id=0,
//                          sign=-1, kernel="es", upsampling=0, memory_budget=0,
//                          trace=False, spread="auto", method="auto")
//   (the keywords, their defaults and the refusals: plan_keywords below)
//   p.set_points(x, s)  /  p.set_points(x, y, s, t)  /  p.set_points(x, y, z, s, t, u)
//   F = p.execute(c)     c (n_sources,) -> F (n_targets,), complex64 or complex128;
//                        c (ntransf, n_sources) -> F (ntransf, n_targets) in one call
// The GIL is released while the engine works.

#include "keyword_table.h"
#include "numpy_arrays.h"
#include <pybind11/complex.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <gnuradio/gpufft/nufft3_plan.h>
#include <stdexcept>
#include <string>
#include <vector>

namespace py = pybind11;
using namespace gr::gpufft;

namespace {

using f64_array = py::array_t<double, py::array::c_style | py::array::forcecast>;

f64_array coordinates(const py::handle& a, const char* name)
{
    auto v = f64_array::ensure(a);
    if (!v)
        throw std::invalid_argument(std::string(name) + ": must be a real numeric array");
    if (v.ndim() != 1)
        throw std::invalid_argument(std::string(name) +
                                    ": must be one-dimensional, got " +
                                    std::to_string(v.ndim()) + " dimensions");
    return v;
}

void same_length(const f64_array& a, const f64_array& b, const char* na, const char* nb)
{
    if (a.size() != b.size())
        throw std::invalid_argument(std::string(na) + " and " + nb +
                                    ": lengths differ (" + std::to_string(a.size()) +
                                    " and " + std::to_string(b.size()) + ")");
}

template <typename T>
py::array_t<std::complex<T>> run(nufft3_plan& p, const py::handle& c_any)
{
    auto c = gpufft_python::to_complex_array<T>(c_any, "c");
    if (p.n_sources() == 0)
        throw std::runtime_error("execute: call set_points first");
    // One vector (n_sources,) or a batch (ntransf, n_sources) sharing the points.
    if (c.ndim() != 1 && c.ndim() != 2)
        throw std::invalid_argument("c: must be one-dimensional (n_sources,) or "
                                    "two-dimensional (ntransf, n_sources), got " +
                                    std::to_string(c.ndim()) + " dimensions");
    const bool batch = c.ndim() == 2;
    const std::int64_t per = batch ? std::int64_t(c.shape(1)) : std::int64_t(c.size());
    if (per != p.n_sources())
        throw std::invalid_argument(std::string("c: has ") + std::to_string(per) +
                                    " strengths per vector" + "; set_points gave " +
                                    std::to_string(p.n_sources()) + " sources");
    const std::int64_t ntransf = batch ? std::int64_t(c.shape(0)) : 1;
    if (ntransf < 1 || ntransf > 0x7fffffff)
        throw std::invalid_argument("c: " + std::to_string(ntransf) +
                                    " strength vectors; use 1 to 2^31 - 1");
    py::array_t<std::complex<T>> F =
        batch ? py::array_t<std::complex<T>>(
                    { py::ssize_t(ntransf), py::ssize_t(p.n_targets()) })
              : py::array_t<std::complex<T>>(p.n_targets());
    const std::complex<T>* in = c.data();
    std::complex<T>* out = F.mutable_data();
    {
        py::gil_scoped_release release;
        p.execute(in, out, memory::host, int(ntransf));
    }
    return F;
}

// One entry point for the three dimensions, so a wrong count of arrays or a wrong
// keyword is a ValueError naming what this plan takes, not pybind's overload list.
void set_points(nufft3_plan& p, py::args args, py::kwargs kwargs)
{
    static const char* const names[3][6] = { { "x", "s" },
                                             { "x", "y", "s", "t" },
                                             { "x", "y", "z", "s", "t", "u" } };
    const int dim = p.dim();
    const std::size_t count = std::size_t(2 * dim);
    const char* const* want = names[dim - 1];
    std::string list;
    for (std::size_t i = 0; i < count; ++i)
        list += (i ? ", " : "") + std::string(want[i]);
    std::vector<py::object> given(count);
    if (args.size() > count)
        throw std::invalid_argument("set_points: a " + std::to_string(dim) +
                                    "D plan takes " + std::to_string(count) +
                                    " arrays (" + list + "), got " +
                                    std::to_string(args.size()));
    for (std::size_t i = 0; i < args.size(); ++i)
        given[i] = args[i];
    for (const auto& kv : kwargs) {
        const std::string key = py::str(kv.first).cast<std::string>();
        std::size_t i = 0;
        while (i < count && key != want[i])
            ++i;
        if (i == count)
            throw std::invalid_argument("set_points: '" + key +
                                        "' is not an argument of a " +
                                        std::to_string(dim) + "D plan; it takes " + list);
        if (given[i])
            throw std::invalid_argument("set_points: " + key + " given twice");
        given[i] = py::reinterpret_borrow<py::object>(kv.second);
    }
    for (std::size_t i = 0; i < count; ++i)
        if (!given[i])
            throw std::invalid_argument(std::string(want[i]) + ": missing; a " +
                                        std::to_string(dim) +
                                        "D plan's set_points takes " + list);
    std::vector<f64_array> a;
    for (std::size_t i = 0; i < count; ++i)
        a.push_back(coordinates(given[i], want[i]));
    for (int d = 1; d < dim; ++d) {
        same_length(a[0], a[std::size_t(d)], want[0], want[d]);
        same_length(
            a[std::size_t(dim)], a[std::size_t(dim + d)], want[dim], want[dim + d]);
    }
    const double* src[3] = { nullptr, nullptr, nullptr };
    const double* tgt[3] = { nullptr, nullptr, nullptr };
    for (int d = 0; d < dim; ++d) {
        src[d] = a[std::size_t(d)].data();
        tgt[d] = a[std::size_t(dim + d)].data();
    }
    const std::int64_t ns = a[0].size(), nt = a[std::size_t(dim)].size();
    py::gil_scoped_release release;
    if (dim == 1)
        p.set_points(ns, src[0], nt, tgt[0]);
    else if (dim == 2)
        p.set_points(ns, src[0], src[1], nt, tgt[0], tgt[1]);
    else
        p.set_points(ns, src[0], src[1], src[2], nt, tgt[0], tgt[1], tgt[2]);
}

//! What nufft3_plan(...) makes the plan from.
struct plan_args {
    int dim = 0;
    double eps = 0;
    nufft3_options options;
};

namespace gp = gpufft_python;

// The constructor's keywords, in order: name, default (none: required), and how the
// value sets the plan's arguments (a ValueError naming the parameter when it cannot).
// The bindings' keyword list, defaults and refusals (TypeError for a wrong call) all
// come from here.
const gp::keyword<plan_args> plan_keywords[] = {
    { "dim",
      nullptr,
      [](plan_args& a, const py::handle& v) {
          a.dim = gp::whole_int(v, "dim", 1, 3, "1, 2 or 3");
      } },
    { "eps",
      nullptr,
      [](plan_args& a, const py::handle& v) {
          a.eps = gp::real_number(v, "eps", "a tolerance such as 1e-6");
      } },
    { "precision",
      [] { return py::object(py::str("double")); },
      [](plan_args& a, const py::handle& v) {
          a.options.precision = parse_precision(gp::precision_arg(v));
      } },
    { "backend",
      [] { return py::object(py::str("auto")); },
      [](plan_args& a, const py::handle& v) {
          a.options.backend = parse_backend(gp::backend_arg(v));
      } },
    { "device_id",
      [] { return py::object(py::int_(0)); },
      [](plan_args& a, const py::handle& v) {
          a.options.device_id = gp::device_id_arg(v);
      } },
    { "sign",
      [] { return py::object(py::int_(-1)); },
      [](plan_args& a, const py::handle& v) {
          a.options.sign = gp::whole_int(v, "sign", -1, 1, "-1 or +1");
      } },
    { "kernel",
      [] { return py::object(py::str("es")); },
      [](plan_args& a, const py::handle& v) {
          a.options.kernel =
              parse_nufft_kernel(gp::text(v, "kernel", nufft_kernel_names().c_str()));
      } },
    { "upsampling",
      [] { return py::object(py::float_(0.0)); },
      [](plan_args& a, const py::handle& v) {
          a.options.upsampling =
              gp::real_number(v, "upsampling", "a number (0: automatic)");
      } },
    { "memory_budget",
      [] { return py::object(py::int_(0)); },
      [](plan_args& a, const py::handle& v) {
          a.options.memory_budget = std::size_t(gp::whole_number(
              v,
              "memory_budget",
              0,
              "a whole number of bytes >= 0 (0: a share of the free memory)"));
      } },
    { "trace",
      [] { return py::object(py::bool_(false)); },
      [](plan_args& a, const py::handle& v) { a.options.trace = gp::flag(v, "trace"); } },
    { "spread",
      [] { return py::object(py::str("auto")); },
      [](plan_args& a, const py::handle& v) {
          a.options.spread =
              parse_nufft_spread(gp::text(v, "spread", nufft_spread_names().c_str()));
      } },
    { "method",
      [] { return py::object(py::str("auto")); },
      [](plan_args& a, const py::handle& v) {
          a.options.method =
              parse_nufft_method(gp::text(v, "method", nufft_method_names().c_str()));
      } },
};

} // namespace

void bind_nufft3_plan(py::module& m)
{
    static const std::string plan_doc =
        gpufft_python::signature("nufft3_plan", plan_keywords);
    py::class_<nufft3_plan> cls(
        m,
        "nufft3_plan",
        "Type-3 non-uniform FFT in 1, 2 or 3 dimensions: "
        "F[k] = sum_j c[j] exp(sign * 1j * (s[k] x[j] + t[k] y[j] + u[k] z[j])), for "
        "arbitrary real sources (x, y, z) and targets (s, t, u), to a relative l2 error "
        "of at most eps. "
        "kernel='es' (exponential of semicircle, default) or 'gaussian' (the gridding of "
        "Capozzoli et al.). method='auto' (default) takes the direct sum where it is "
        "cheaper than the grid or no grid fits the memory budget, 'grid' or 'direct' "
        "force one; describe() says which set_points chose and why. A single-precision "
        "plan whose eps no float grid reaches (3-D at 1e-6) computes its grid in "
        "double. Re-use the plan: set_points once, execute for many c.");
    cls.def(py::init([](const py::args& args, const py::kwargs& kwargs) {
                const auto a =
                    gpufft_python::parse_call("nufft3_plan", plan_keywords, args, kwargs);
                return std::make_unique<nufft3_plan>(a.dim, a.eps, a.options);
            }),
            plan_doc.c_str())
        .def("set_points",
             &set_points,
             "set_points(x, s) in 1-D, set_points(x, y, s, t) in 2-D, "
             "set_points(x, y, z, s, t, u) in 3-D: sources (x, y, z) and targets (s, t, "
             "u) "
             "as real 1-D arrays (float64; others are converted); keywords by those "
             "names work too. ValueError for NaN/inf coordinates.");
    gp::def_method(
        cls,
        "execute",
        [](nufft3_plan& p, py::object c) -> py::array {
            if (p.precision() == precision::single)
                return run<float>(p, c);
            return run<double>(p, c);
        },
        py::arg("c"),
        "F (complex64 or complex128, one per target) from the source strengths c; "
        "c of shape (ntransf, n_sources) gives F of shape (ntransf, n_targets), "
        "every "
        "vector in one pass.")
        .def_property_readonly("dim", &nufft3_plan::dim)
        .def_property_readonly("eps", &nufft3_plan::eps)
        .def_property_readonly("sign", &nufft3_plan::sign)
        .def_property_readonly(
            "backend", [](const nufft3_plan& p) { return to_string(p.backend()); })
        .def_property_readonly(
            "precision", [](const nufft3_plan& p) { return to_string(p.precision()); })
        .def_property_readonly("kernel",
                               [](const nufft3_plan& p) { return to_string(p.kernel()); })
        .def_property_readonly("device_id", &nufft3_plan::device_id)
        .def_property_readonly("n_sources", &nufft3_plan::n_sources)
        .def_property_readonly("n_targets", &nufft3_plan::n_targets)
        .def_property_readonly(
            "grid_shape",
            [](const nufft3_plan& p) {
                py::tuple shape(p.dim());
                for (int a = 0; a < p.dim(); ++a)
                    shape[a] = p.grid_size(a);
                return shape;
            },
            "Fine grid chosen by the last set_points (zeros for the direct sum).")
        .def_property_readonly(
            "method",
            [](const nufft3_plan& p) { return to_string(p.method()); },
            "'grid' or 'direct': what the last set_points chose ('auto' before).")
        .def("describe",
             &nufft3_plan::describe,
             "One line: dimension, precision, eps, backend and, after set_points, the "
             "method chosen and why (grid cells, kernel, upsampling, the grid's "
             "precision; or the direct sum's terms).")
        .def_property_readonly("kernel_width", &nufft3_plan::kernel_width)
        .def_property_readonly("upsampling", &nufft3_plan::upsampling);
}
