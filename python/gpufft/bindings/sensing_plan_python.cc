/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Hand-written numpy binding of spectrum sensing (an engine plan and the stream layer's
// tracker, not blocks: no BINDTOOL hash). detect() returns a dict of arrays, one entry a
// signal; the tracker takes such a dict and returns transmissions as dicts.

#include "keyword_table.h"
#include "numpy_arrays.h"
#include "stream/transmission_tracker.h"
#include <pybind11/complex.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <gnuradio/gpufft/backend.h>
#include <gnuradio/gpufft/sensing_plan.h>
#include <limits>
#include <stdexcept>

namespace py = pybind11;
using namespace gr::gpufft;

namespace {

template <typename T, typename F>
py::array_t<T> column(const std::vector<sensed_signal>& s, F get)
{
    py::array_t<T> a(s.size());
    for (std::size_t i = 0; i < s.size(); ++i)
        a.mutable_data()[i] = get(s[i]);
    return a;
}

py::dict to_dict(const sensing_result& r)
{
    const auto& s = r.signals;
    py::dict d;
    d["center_bin"] =
        column<double>(s, [](const sensed_signal& v) { return v.center_bin; });
    d["lower_bin"] =
        column<double>(s, [](const sensed_signal& v) { return v.lower_bin; });
    d["upper_bin"] =
        column<double>(s, [](const sensed_signal& v) { return v.upper_bin; });
    d["bandwidth_bins"] =
        column<double>(s, [](const sensed_signal& v) { return v.bandwidth_bins; });
    d["peak_power_dbfs"] =
        column<double>(s, [](const sensed_signal& v) { return v.peak_power_dbfs; });
    d["total_power_dbfs"] =
        column<double>(s, [](const sensed_signal& v) { return v.total_power_dbfs; });
    d["snr_db"] = column<double>(s, [](const sensed_signal& v) { return v.snr_db; });
    d["floor_dbfs"] =
        column<double>(s, [](const sensed_signal& v) { return v.floor_dbfs; });
    d["first_bin"] =
        column<std::int64_t>(s, [](const sensed_signal& v) { return v.first_bin; });
    d["last_bin"] =
        column<std::int64_t>(s, [](const sensed_signal& v) { return v.last_bin; });
    d["dc"] = column<bool>(s, [](const sensed_signal& v) { return v.dc; });
    d["narrow"] = column<bool>(s, [](const sensed_signal& v) { return v.narrow; });
    d["tone_refined"] =
        column<bool>(s, [](const sensed_signal& v) { return v.tone_refined; });
    d["tone_bin"] = column<double>(s, [](const sensed_signal& v) { return v.tone_bin; });
    d["tone_amplitude"] = column<std::complex<double>>(
        s, [](const sensed_signal& v) { return v.tone_amplitude; });
    d["truncated"] = r.truncated;
    d["noise_floor_dbfs"] = r.noise_floor_dbfs;
    d["threshold_db"] = r.threshold_db;
    d["held"] = column<bool>(s, [](const sensed_signal& v) { return v.held; });
    d["held_threshold_db"] = r.held_threshold_db;
    d["bins_above"] = r.bins_above;
    d["bands_found"] = r.bands_found;
    return d;
}

py::dict run_detect(sensing_plan& plan, const py::object& x_any)
{
    auto x = gpufft_python::to_complex_array<float>(x_any, "x");
    gpufft_python::check_frame(x, plan.size(), "x");
    sensing_result r;
    {
        py::gil_scoped_release release;
        plan.detect(x.data(), r);
    }
    return to_dict(r);
}

// The signals of a detect() dict (the keys the tracker reads) in Hz.
std::vector<stream::frame_signal>
signals_in_hz(const py::dict& d, double bin_hz, double center_freq)
{
    const auto col = [&](const char* key) {
        if (!d.contains(key))
            throw std::invalid_argument(std::string("signals: the dict has no '") + key +
                                        "' (pass what sensing_plan.detect() returns)");
        return py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(
            d[key]);
    };
    const auto centre = col("center_bin"), lower = col("lower_bin"),
               upper = col("upper_bin"), peak = col("peak_power_dbfs"),
               total = col("total_power_dbfs"), snr = col("snr_db"), dc = col("dc");
    const auto m = std::size_t(centre.size());
    for (const auto* a : { &lower, &upper, &peak, &total, &snr, &dc })
        if (std::size_t(a->size()) != m)
            throw std::invalid_argument("signals: the dict's arrays differ in length");
    std::vector<stream::frame_signal> out(m);
    for (std::size_t i = 0; i < m; ++i) {
        auto& f = out[i];
        f.center_hz = center_freq + centre.data()[i] * bin_hz;
        f.lower_hz = center_freq + lower.data()[i] * bin_hz;
        f.upper_hz = center_freq + upper.data()[i] * bin_hz;
        f.peak_power_dbfs = peak.data()[i];
        f.total_power_dbfs = total.data()[i];
        f.snr_db = snr.data()[i];
        f.dc = dc.data()[i] != 0;
    }
    // held: optional (dicts made elsewhere, the reference's, have none)
    if (d.contains("held")) {
        const auto held = col("held");
        if (std::size_t(held.size()) != m)
            throw std::invalid_argument("signals: the dict's arrays differ in length");
        for (std::size_t i = 0; i < m; ++i)
            out[i].held = held.data()[i] != 0;
    }
    // first_bin / last_bin, the core: optional as held
    if (d.contains("first_bin") && d.contains("last_bin")) {
        const auto first = col("first_bin"), last = col("last_bin");
        if (std::size_t(first.size()) != m || std::size_t(last.size()) != m)
            throw std::invalid_argument("signals: the dict's arrays differ in length");
        for (std::size_t i = 0; i < m; ++i) {
            out[i].core_lower_hz = center_freq + (first.data()[i] - 0.5) * bin_hz;
            out[i].core_upper_hz = center_freq + (last.data()[i] + 0.5) * bin_hz;
        }
    }
    return out;
}

py::list to_list(const std::vector<stream::transmission>& ended)
{
    py::list l;
    for (const auto& t : ended) {
        py::dict d;
        d["id"] = t.id;
        d["start_sample"] = t.start_sample;
        d["sample_count"] = t.sample_count;
        d["start_s"] = t.start_s;
        d["duration_s"] = t.duration_s;
        d["center_hz"] = t.center_hz;
        d["lower_hz"] = t.lower_hz;
        d["upper_hz"] = t.upper_hz;
        d["bandwidth_hz"] = t.bandwidth_hz;
        d["peak_power_dbfs"] = t.peak_power_dbfs;
        d["mean_snr_db"] = t.mean_snr_db;
        d["frames"] = t.frames;
        d["dc"] = t.dc;
        l.append(d);
    }
    return l;
}

// The tracker with the frame geometry the Python caller would otherwise pass per frame.
struct py_tracker {
    stream::transmission_tracker tracker;
    double samp_rate, center_freq;
    std::int64_t fft_size;
};

namespace gp = gpufft_python;

// The conversions that the constructor and a property share, each written once.
int max_signals_arg(const py::handle& v)
{
    return gp::whole_int(
        v, "max_signals", 0, 1 << 30, "a whole number >= 0 (0: automatic)");
}
double false_alarm_arg(const py::handle& v)
{
    return gp::real_number(v, "false_alarm", "a probability in (0, 0.5]");
}

//! The plan's arguments; the options' own defaults are the Python defaults.
struct plan_args {
    std::int64_t n = 0;
    sensing_options o;
};

const sensing_options defaults{};

// sensing_plan(...)'s keywords, defaults and conversions, in order: the keyword list,
// the defaults and the refusals of a wrong call all come from here. Ranges are the
// engine's (sensing_options) to refuse.
const gp::keyword<plan_args> plan_keywords[] = {
    { "n",
      nullptr,
      [](plan_args& a, const py::handle& v) {
          a.n = gp::whole_number(
              v, "n", std::numeric_limits<long long>::min(), "a whole number");
      } },
    { "backend",
      [] { return py::object(py::str(to_string(defaults.backend))); },
      [](plan_args& a, const py::handle& v) {
          a.o.backend = parse_backend(gp::backend_arg(v));
      } },
    { "device_id",
      [] { return py::object(py::int_(defaults.device_id)); },
      [](plan_args& a, const py::handle& v) { a.o.device_id = gp::device_id_arg(v); } },
    { "max_signals",
      [] { return py::object(py::int_(defaults.max_signals)); },
      [](plan_args& a, const py::handle& v) { a.o.max_signals = max_signals_arg(v); } },
    { "false_alarm",
      [] { return py::object(py::float_(defaults.false_alarm)); },
      [](plan_args& a, const py::handle& v) { a.o.false_alarm = false_alarm_arg(v); } },
    { "window",
      [] { return py::object(py::str(defaults.window)); },
      [](plan_args& a, const py::handle& v) {
          a.o.window = gp::text(v, "window", "'blackman_harris' or 'hann'");
      } },
    { "bandwidth_rule",
      [] { return py::object(py::str(to_string(defaults.bandwidth_rule))); },
      [](plan_args& a, const py::handle& v) {
          a.o.bandwidth_rule =
              parse_bandwidth_rule(gp::text(v, "bandwidth_rule", "'obw99' or 'xdb'"));
      } },
    { "bandwidth_db",
      [] { return py::object(py::float_(defaults.bandwidth_db)); },
      [](plan_args& a, const py::handle& v) {
          a.o.bandwidth_db =
              gp::real_number(v, "bandwidth_db", "a number of dB in (0, 100]");
      } },
    { "dc_mask_bins",
      [] { return py::object(py::int_(defaults.dc_mask_bins)); },
      [](plan_args& a, const py::handle& v) {
          a.o.dc_mask_bins =
              gp::whole_int(v, "dc_mask_bins", 0, 1 << 30, "a whole number >= 0");
      } },
    { "gap_bins",
      [] { return py::object(py::int_(defaults.gap_bins)); },
      [](plan_args& a, const py::handle& v) {
          a.o.gap_bins = gp::whole_int(v, "gap_bins", 0, 1 << 30, "a whole number >= 0");
      } },
    { "floor_subbands",
      [] { return py::object(py::int_(defaults.floor_subbands)); },
      [](plan_args& a, const py::handle& v) {
          a.o.floor_subbands =
              gp::whole_int(v, "floor_subbands", 0, 1 << 30, "0 or a power of two");
      } },
    { "floor_frames",
      [] { return py::object(py::int_(defaults.floor_frames)); },
      [](plan_args& a, const py::handle& v) {
          a.o.floor_frames =
              gp::whole_int(v, "floor_frames", 0, 1 << 30, "a whole number in [1, 1024]");
      } },
    { "watch_frames",
      [] { return py::object(py::int_(defaults.watch_frames)); },
      [](plan_args& a, const py::handle& v) {
          a.o.watch_frames =
              gp::whole_int(v, "watch_frames", 0, 1 << 30, "a whole number in [0, 8]");
      } },
    { "narrow_bins",
      [] { return py::object(py::int_(defaults.narrow_bins)); },
      [](plan_args& a, const py::handle& v) {
          a.o.narrow_bins =
              gp::whole_int(v, "narrow_bins", 0, 1 << 30, "a whole number in [0, 64]");
      } },
    { "threads",
      [] { return py::object(py::int_(defaults.threads)); },
      [](plan_args& a, const py::handle& v) { a.o.threads = gp::threads_arg(v); } },
};

//! The tracker's arguments.
struct tracker_args {
    double samp_rate = 0, center_freq = 0;
    std::int64_t fft_size = 0;
    int hold_frames = 0;
    int line_memory = stream::transmission_tracker::default_line_memory;
};

// transmission_tracker(...)'s keywords, defaults and conversions, in order.
const gp::keyword<tracker_args> tracker_keywords[] = {
    { "samp_rate",
      nullptr,
      [](tracker_args& a, const py::handle& v) {
          a.samp_rate = gp::real_number(v, "samp_rate", "a rate > 0 in Hz");
          if (!(a.samp_rate > 0))
              throw std::invalid_argument("samp_rate: must be > 0 Hz");
      } },
    { "center_freq",
      [] { return py::object(py::float_(0.0)); },
      [](tracker_args& a, const py::handle& v) {
          a.center_freq = gp::real_number(v, "center_freq", "a frequency in Hz");
      } },
    { "fft_size",
      [] { return py::object(py::int_(1024)); },
      [](tracker_args& a, const py::handle& v) {
          a.fft_size = gp::whole_number(v, "fft_size", 1, "a whole number >= 1");
      } },
    { "hold_frames",
      [] { return py::object(py::int_(1)); },
      [](tracker_args& a, const py::handle& v) {
          a.hold_frames =
              gp::whole_int(v, "hold_frames", 0, 1000, "a whole number in [0, 1000]");
      } },
    { "line_memory",
      [] {
          return py::object(py::int_(stream::transmission_tracker::default_line_memory));
      },
      [](tracker_args& a, const py::handle& v) {
          a.line_memory =
              gp::whole_int(v, "line_memory", 0, 1000, "a whole number in [0, 1000]");
      } },
};

} // namespace

void bind_sensing_plan(py::module& m)
{
    static const std::string plan_doc = gp::signature("sensing_plan", plan_keywords);
    py::class_<sensing_plan> cls(
        m,
        "sensing_plan",
        "Spectrum sensing of n-sample frames: one FFT, then the bands that stand above a "
        "noise floor, each a signal with centre, edges, bandwidth, power and SNR; narrow "
        "ones also get a tone fit (docs/sensing.md).\n"
        "n: frame length >= 64. max_signals: the most signals a frame reports, "
        "[1, n/4] (strongest kept; the result says truncated), or 0: min(256, n/4). "
        "false_alarm: chance of a "
        "false signal in a frame of noise, (0, 0.5]. window: 'blackman_harris' or "
        "'hann'. bandwidth_rule: 'obw99' (99 % of the power) or 'xdb' (bandwidth_db "
        "under the peak). dc_mask_bins: bins either side of DC left out (0: none; a "
        "signal on DC is labelled dc). gap_bins: runs closer than this join (0: the "
        "window's main lobe). floor_subbands: 0 automatic, else a power of two. "
        "floor_frames: frames the floor is tracked over (1: each frame its own). "
        "watch_frames: frames a signal is held for at a lower threshold (0: none). "
        "narrow_bins: bands this narrow get a tone fit. threads: CPU FFT threads (0: "
        "automatic).");
    // The arguments from one table (plan_keywords): each converted with a
    // ValueError naming it, any wrong call a TypeError naming what is at fault.
    cls.def(py::init([](const py::args& args, const py::kwargs& kwargs) {
                const auto a =
                    gp::parse_call("sensing_plan", plan_keywords, args, kwargs);
                return std::make_unique<sensing_plan>(a.n, a.o);
            }),
            plan_doc.c_str());
    gp::def_method(
        cls,
        "detect",
        &run_detect,
        py::arg("x"),
        "x: n complex samples (complex64; other dtypes are converted). Returns a "
        "dict of arrays, one entry a signal, ascending in frequency: center_bin, "
        "lower_bin, upper_bin, bandwidth_bins (fractional bins about DC: Hz = "
        "center_freq + bin * rate / n), peak_power_dbfs, total_power_dbfs, "
        "snr_db, floor_dbfs, first_bin, last_bin, dc, narrow, tone_bin, "
        "tone_amplitude, tone_refined, "
        "held (found by the held test); and truncated, noise_floor_dbfs, threshold_db "
        "(this frame's: every snr_db is above it but a held signal's), "
        "held_threshold_db (a held signal's snr_db is above it), bins_above, "
        "bands_found.")
        .def_property(
            "max_signals",
            [](const sensing_plan& p) { return p.options().max_signals; },
            [](sensing_plan& p, py::object v) { p.set_max_signals(max_signals_arg(v)); })
        .def_property(
            "false_alarm",
            [](const sensing_plan& p) { return p.options().false_alarm; },
            [](sensing_plan& p, py::object v) { p.set_false_alarm(false_alarm_arg(v)); })
        .def_property_readonly("threshold_db", &sensing_plan::threshold_db)
        .def_property_readonly("n", &sensing_plan::size)
        .def_property_readonly(
            "backend", [](const sensing_plan& p) { return to_string(p.backend()); })
        .def("describe", &sensing_plan::describe)
        .def("reset_floor",
             &sensing_plan::reset_floor,
             "Forget the floor tracked over frames (a retune, a new stream).");

    static const std::string tracker_doc =
        gp::signature("transmission_tracker", tracker_keywords);
    py::class_<py_tracker>(
        m,
        "transmission_tracker",
        "Signals followed from frame to frame into transmissions (docs/sensing.md). "
        "samp_rate (Hz) and fft_size give the bin width; center_freq (Hz) the "
        "frequencies; hold_frames: frames a transmission may go unseen and go on; "
        "line_memory: a flickering line waits up to line_memory x hold_frames frames "
        "for a signal on its bins to continue it (0: none).")
        .def(py::init([](const py::args& args, const py::kwargs& kwargs) {
                 const auto a = gp::parse_call(
                     "transmission_tracker", tracker_keywords, args, kwargs);
                 return std::make_unique<py_tracker>(py_tracker{
                     stream::transmission_tracker(a.hold_frames, a.line_memory),
                     a.samp_rate,
                     a.center_freq,
                     a.fft_size });
             }),
             tracker_doc.c_str())
        .def(
            "update",
            [](py_tracker& t, py::object first_sample, const py::dict& signals) {
                const auto first = gp::whole_number(
                    first_sample, "first_sample", 0, "a sample index >= 0");
                const double bin_hz = t.samp_rate / double(t.fft_size);
                std::vector<stream::transmission> ended;
                t.tracker.update(first,
                                 t.fft_size,
                                 t.samp_rate,
                                 bin_hz,
                                 signals_in_hz(signals, bin_hz, t.center_freq),
                                 ended);
                return to_list(ended);
            },
            py::arg("first_sample"),
            py::arg("signals"),
            "The frame starting at first_sample and its detect() dict; returns the "
            "transmissions that ended (dicts: id, start_sample, sample_count, start_s, "
            "duration_s, center_hz, lower_hz, upper_hz, bandwidth_hz, peak_power_dbfs, "
            "mean_snr_db, frames, dc).")
        .def(
            "flush",
            [](py_tracker& t) {
                std::vector<stream::transmission> ended;
                t.tracker.flush(ended);
                return to_list(ended);
            },
            "Ends every open transmission (end of stream) and returns them.")
        .def_property_readonly("active",
                               [](const py_tracker& t) { return t.tracker.active(); });
}
