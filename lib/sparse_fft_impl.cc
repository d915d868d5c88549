/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "block_logger.h"
#include "sparse/sparse_spectrum.h"
#include "sparse_fft_impl.h"
#include <gnuradio/io_signature.h>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>
#include <stdexcept>

namespace gr {
namespace gpufft {

namespace {

const pmt::pmt_t port_coefficients = pmt::mp("coefficients");
const pmt::pmt_t key_rx_time = pmt::mp("rx_time");
const pmt::pmt_t key_rx_freq = pmt::mp("rx_freq");
const pmt::pmt_t key_rx_rate = pmt::mp("rx_rate");
const pmt::pmt_t sym_robust = pmt::mp("robust");
const pmt::pmt_t sym_exact = pmt::mp("exact");

// Largest vector item the display output uses: GNU Radio buffers hold several items,
// and items of 2^20 floats fail to allocate.
constexpr int max_display_bins = 65536;

// Exact mode warns about frames that are not exactly sparse at most once per this many
// frames (the first one at once).
constexpr std::uint64_t not_sparse_warn_every = 100;

// A double as printf's %g writes it (to_string would turn 1e-9 into 0.000000).
std::string num(double v)
{
    std::ostringstream os;
    os << v;
    return os.str();
}

sparse_fft_mode checked_mode(const std::string& name)
{
    if (name == "robust")
        return sparse_fft_mode::robust;
    if (name == "exact")
        return sparse_fft_mode::exact;
    throw std::invalid_argument("mode: must be \"robust\" or \"exact\", got \"" + name +
                                "\"");
}

double checked_min_snr_db(double v)
{
    if (!(v >= 0.0 && v <= 200.0))
        throw std::invalid_argument("min_snr_db: must be in [0, 200] dB, got " + num(v));
    return v;
}

double checked_false_alarm(double v)
{
    if (!(v > 0.0 && v <= 0.5))
        throw std::invalid_argument("false_alarm: must be in (0, 0.5], got " + num(v));
    return v;
}

int checked_hop(int hop, int fft_size)
{
    if (hop < 0)
        throw std::invalid_argument("hop: must be >= 0 (0 means fft_size), got " +
                                    std::to_string(hop));
    return hop == 0 ? fft_size : hop;
}

gpufft::backend checked_backend(const std::string& name)
{
    // parse_backend's message already names the parameter ("backend: ...").
    return parse_backend(name);
}

void check_k(int k, int fft_size, sparse_fft_mode mode)
{
    if (mode == sparse_fft_mode::robust) {
        // A frame with more tones than a quarter of its bins is not sparse.
        if (k < 1 || k > fft_size / 4)
            throw std::invalid_argument("k: must be in [1, fft_size / 4] = [1, " +
                                        std::to_string(fft_size / 4) +
                                        "] in mode \"robust\" (at most a quarter of the "
                                        "bins can be tones), got " +
                                        std::to_string(k));
        return;
    }
    if (k < 1 || k >= fft_size)
        throw std::invalid_argument("k: must be in [1, fft_size) = [1, " +
                                    std::to_string(fft_size) + "), got " +
                                    std::to_string(k));
}

void check_sample_rate(double sample_rate)
{
    if (!(sample_rate > 0.0) || !std::isfinite(sample_rate))
        throw std::invalid_argument("sample_rate: must be a finite value > 0 Hz, got " +
                                    std::to_string(sample_rate));
}

} // namespace

sparse_fft::sptr sparse_fft::make(int fft_size,
                                  int k,
                                  double sample_rate,
                                  int display_bins,
                                  int hop,
                                  const std::string& backend,
                                  int device_id,
                                  const std::string& mode,
                                  double min_snr_db,
                                  double false_alarm)
{
    return gnuradio::make_block_sptr<sparse_fft_impl>(fft_size,
                                                      k,
                                                      sample_rate,
                                                      display_bins,
                                                      hop,
                                                      backend,
                                                      device_id,
                                                      mode,
                                                      min_snr_db,
                                                      false_alarm);
}

sparse_fft_impl::sparse_fft_impl(int fft_size,
                                 int k,
                                 double sample_rate,
                                 int display_bins,
                                 int hop,
                                 const std::string& backend,
                                 int device_id,
                                 const std::string& mode,
                                 double min_snr_db,
                                 double false_alarm)
    : gr::block(
          "sparse_fft",
          gr::io_signature::make(1, 1, sizeof(gr_complex)),
          // The display output is optional: a flowgraph may use the messages only.
          gr::io_signature::make(
              0, 1, sizeof(float) * static_cast<size_t>(std::max(display_bins, 1)))),
      d_fft_size(fft_size),
      d_hop(checked_hop(hop, fft_size)),
      d_display_bins(display_bins),
      d_requested_backend(checked_backend(backend)),
      d_device_id(device_id),
      d_mode(checked_mode(mode)),
      d_min_snr_db(checked_min_snr_db(min_snr_db)),
      d_false_alarm(checked_false_alarm(false_alarm)),
      d_k(k),
      d_sample_rate(sample_rate),
      d_plan_k(k)
{
    if (fft_size < sparse_fft_min_size)
        throw std::invalid_argument(
            "fft_size: must be >= " + std::to_string(sparse_fft_min_size) + ", got " +
            std::to_string(fft_size));
    check_k(k, fft_size, d_mode);
    check_sample_rate(sample_rate);
    if (display_bins < 1 || display_bins > std::min(fft_size, max_display_bins))
        throw std::invalid_argument("display_bins: must be in [1, min(fft_size, " +
                                    std::to_string(max_display_bins) + ")] = [1, " +
                                    std::to_string(std::min(fft_size, max_display_bins)) +
                                    "], got " + std::to_string(display_bins));
    if (device_id < 0)
        throw std::invalid_argument("device_id: must be >= 0, got " +
                                    std::to_string(device_id));

    d_plan = make_plan(k); // throws for what the engine rejects (ValueError in Python)
    d_backend_name = to_string(d_plan->backend());
    d_description = d_plan->describe();
    d_logger->info("{}", d_description); // says when the engine runs a dense FFT

    d_frame.resize(static_cast<size_t>(fft_size));
    d_tones.reserve(static_cast<size_t>(k));
    d_entries.reserve(static_cast<size_t>(k));

    // One output item per hop input samples. GNU Radio sizes the upstream buffer from
    // this (at least 2 * hop samples), which the forecast below relies on.
    set_relative_rate(1, static_cast<uint64_t>(d_hop));
    // Tags are re-timed per frame, not passed through by offset.
    set_tag_propagation_policy(TPP_DONT);
    message_port_register_out(port_coefficients);
}

sparse_fft_impl::~sparse_fft_impl() = default;

std::unique_ptr<sparse_fft_plan> sparse_fft_impl::make_plan(int k) const
{
    sparse_fft_options opt;
    opt.backend = d_requested_backend;
    opt.device_id = d_device_id;
    opt.mode = d_mode;
    opt.min_snr_db = d_min_snr_db;
    opt.false_alarm = d_false_alarm;
    opt.log = block_log_handler(d_logger);
    return std::make_unique<sparse_fft_plan>(d_fft_size, k, opt);
}

void sparse_fft_impl::set_k(int k)
{
    check_k(k, d_fft_size, d_mode);
    std::lock_guard<std::mutex> lock(d_mutex);
    d_k = k;
}

int sparse_fft_impl::k() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_k;
}

void sparse_fft_impl::set_sample_rate(double sample_rate)
{
    check_sample_rate(sample_rate);
    std::lock_guard<std::mutex> lock(d_mutex);
    d_sample_rate = sample_rate;
}

double sparse_fft_impl::sample_rate() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_sample_rate;
}

std::string sparse_fft_impl::backend() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_backend_name;
}

std::string sparse_fft_impl::mode() const
{
    return d_mode == sparse_fft_mode::robust ? "robust" : "exact";
}

std::string sparse_fft_impl::describe() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_description;
}

void sparse_fft_impl::update_plan()
{
    int wanted;
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        wanted = d_k;
    }
    if (wanted == d_plan_k)
        return;
    // Built here, in the scheduler thread, so a plan is never swapped under a running
    // execute(); a setter only records the wish.
    try {
        auto plan = make_plan(wanted);
        std::lock_guard<std::mutex> lock(d_mutex);
        d_plan = std::move(plan);
        d_plan_k = wanted;
        d_backend_name = to_string(d_plan->backend());
        d_description = d_plan->describe();
    } catch (const std::exception& e) {
        d_logger->error("set_k({}) failed, keeping k={}: {}", wanted, d_plan_k, e.what());
        std::lock_guard<std::mutex> lock(d_mutex);
        d_k = d_plan_k;
        return;
    }
    d_logger->debug("k={}: {}", wanted, describe());
}

bool sparse_fft_impl::check_topology(int /*ninputs*/, int noutputs)
{
    // Without the display output the block is a sink, and GNU Radio hands a sink
    // available * relative_rate output items: with 1/hop that is 0 for the last
    // hop - 1 samples of a stream, and the flowgraph would never finish. A sink
    // copies whatever arrives into its frame buffer, so rate 1 is right for it.
    d_is_sink = noutputs == 0;
    set_relative_rate(1, d_is_sink ? 1 : static_cast<uint64_t>(d_hop));
    return true;
}

void sparse_fft_impl::forecast(int /*noutput_items*/,
                               gr_vector_int& ninput_items_required)
{
    // Frames are assembled inside the block, so any amount of input makes progress.
    // Asking for what completes the next frame lets a whole frame be read in place,
    // without a copy; the cap at hop keeps the request within the upstream buffer,
    // which GNU Radio sizes from the relative rate (1/hop; 1 for a sink, whose
    // buffer may be shorter than a frame).
    const std::int64_t next = d_skip + (d_fft_size - d_fill);
    const std::int64_t cap = d_is_sink ? 1 : d_hop;
    ninput_items_required[0] = static_cast<int>(std::clamp<std::int64_t>(next, 1, cap));
}

void sparse_fft_impl::collect_tags(std::uint64_t end_offset)
{
    if (end_offset <= d_tags_read_until)
        return;
    std::vector<gr::tag_t> tags;
    get_tags_in_range(tags, 0, d_tags_read_until, end_offset);
    std::stable_sort(tags.begin(), tags.end(), gr::tag_t::offset_compare);
    for (auto& t : tags) {
        if (pmt::eqv(t.key, key_rx_time) || pmt::eqv(t.key, key_rx_freq) ||
            pmt::eqv(t.key, key_rx_rate))
            d_pending_tags.push_back(std::move(t));
    }
    d_tags_read_until = end_offset;
}

void sparse_fft_impl::apply_tags_up_to(std::uint64_t offset)
{
    while (!d_pending_tags.empty() && d_pending_tags.front().offset <= offset) {
        const gr::tag_t& t = d_pending_tags.front();
        try {
            if (pmt::eqv(t.key, key_rx_time)) {
                // UHD's form: (uint64 full seconds, double fractional seconds).
                if (pmt::is_tuple(t.value) && pmt::length(t.value) == 2) {
                    d_state.time_secs = pmt::to_uint64(pmt::tuple_ref(t.value, 0));
                    d_state.time_frac = pmt::to_double(pmt::tuple_ref(t.value, 1));
                    d_state.time_offset = t.offset;
                    d_state.have_time = true;
                } else {
                    d_logger->warn(
                        "ignoring rx_time tag at {}: not a (uint64, double) tuple",
                        t.offset);
                }
            } else if (pmt::eqv(t.key, key_rx_freq)) {
                d_state.center_freq = pmt::to_double(t.value);
                d_state.freq_changed = true;
            } else if (pmt::eqv(t.key, key_rx_rate)) {
                const double rate = pmt::to_double(t.value);
                if (rate > 0.0 && std::isfinite(rate)) {
                    d_state.rate = rate;
                    d_state.have_rate = true;
                    d_state.rate_changed = true;
                } else {
                    d_logger->warn("ignoring rx_rate tag at {}: {}", t.offset, rate);
                }
            }
        } catch (const std::exception& e) {
            d_logger->warn("ignoring malformed {} tag at {}: {}",
                           pmt::symbol_to_string(t.key),
                           t.offset,
                           e.what());
        }
        d_pending_tags.pop_front();
    }
}

pmt::pmt_t sparse_fft_impl::rx_time_at(std::uint64_t offset, double rate) const
{
    // Samples since the tag, split into whole seconds and a remainder, so hours of
    // samples at 100 MS/s keep their sub-nanosecond fraction.
    const std::uint64_t delta = offset - d_state.time_offset;
    double frac = d_state.time_frac + static_cast<double>(delta) / rate;
    const double whole = std::floor(frac);
    frac -= whole;
    const std::uint64_t secs = d_state.time_secs + static_cast<std::uint64_t>(whole);
    return pmt::make_tuple(pmt::from_uint64(secs), pmt::from_double(frac));
}

void sparse_fft_impl::tag_output(std::uint64_t out_offset,
                                 std::uint64_t frame_offset,
                                 double rate)
{
    if (d_state.have_time)
        add_item_tag(
            0, out_offset, key_rx_time, rx_time_at(frame_offset, rate), alias_pmt());
    if (d_state.freq_changed)
        add_item_tag(0,
                     out_offset,
                     key_rx_freq,
                     pmt::from_double(d_state.center_freq),
                     alias_pmt());
    if (d_state.rate_changed)
        add_item_tag(
            0, out_offset, key_rx_rate, pmt::from_double(d_state.rate), alias_pmt());
    d_state.freq_changed = false;
    d_state.rate_changed = false;
}

void sparse_fft_impl::report_skip(std::uint64_t index,
                                  std::uint64_t offset,
                                  const std::string& why)
{
    d_skipped++;
    d_logger->error("frame {} (samples {}..{}) skipped: {}",
                    index,
                    offset,
                    offset + static_cast<std::uint64_t>(d_fft_size) - 1,
                    why);
    pmt::pmt_t msg = pmt::make_dict();
    msg = pmt::dict_add(msg, pmt::mp("frame"), pmt::from_uint64(index));
    msg = pmt::dict_add(msg, pmt::mp("offset"), pmt::from_uint64(offset));
    msg = pmt::dict_add(msg, pmt::mp("error"), pmt::mp(why));
    msg = pmt::dict_add(msg, pmt::mp("bins"), pmt::make_s32vector(0, 0));
    msg = pmt::dict_add(msg, pmt::mp("freqs"), pmt::make_f64vector(0, 0.0));
    msg = pmt::dict_add(msg, pmt::mp("values"), pmt::make_c32vector(0, gr_complex()));
    message_port_pub(port_coefficients, msg);
}

bool sparse_fft_impl::process_frame(const gr_complex* frame,
                                    float* display,
                                    std::uint64_t out_offset)
{
    const std::uint64_t offset = d_next_frame_offset;
    const std::uint64_t index = d_frame_index;
    d_next_frame_offset += static_cast<std::uint64_t>(d_hop);
    d_frame_index++;

    apply_tags_up_to(offset);
    update_plan();
    double rate;
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        rate = d_state.have_rate ? d_state.rate : d_sample_rate;
    }

    // The engine only checks the samples it reads; a NaN anywhere in the frame makes
    // the frame's spectrum meaningless, so check them all (a vectorized pass).
    if (!sparse_output::all_finite(frame, static_cast<size_t>(d_fft_size))) {
        report_skip(index, offset, "non-finite samples (NaN or infinity) in the frame");
        return false;
    }
    const std::int64_t n = d_fft_size;
    const bool robust = d_mode == sparse_fft_mode::robust;
    double noise_floor = 0.0;
    bool not_sparse = false;
    try {
        if (robust) {
            d_plan->detect(frame, d_tones, memory::host);
            noise_floor = d_plan->noise_floor();
        } else {
            d_plan->execute(frame, d_entries.bins, d_entries.values, memory::host);
            not_sparse = d_plan->not_sparse();
        }
    } catch (const std::exception& e) {
        report_skip(index, offset, e.what());
        return false;
    }
    d_processed++;
    if (robust)
        sparse_output::entries_from_tones(
            n, d_state.center_freq, rate, d_tones, d_entries);
    else
        sparse_output::entries_from_coefficients(n, d_state.center_freq, rate, d_entries);
    if (not_sparse)
        note_not_sparse(index);

    const size_t count = d_entries.bins.size();
    const auto& e = d_entries;
    pmt::pmt_t msg = pmt::make_dict();
    msg = pmt::dict_add(msg, pmt::mp("frame"), pmt::from_uint64(index));
    msg = pmt::dict_add(msg, pmt::mp("offset"), pmt::from_uint64(offset));
    msg = pmt::dict_add(
        msg, pmt::mp("fft_size"), pmt::from_uint64(static_cast<uint64_t>(n)));
    msg = pmt::dict_add(msg, pmt::mp("sample_rate"), pmt::from_double(rate));
    msg =
        pmt::dict_add(msg, pmt::mp("center_freq"), pmt::from_double(d_state.center_freq));
    msg = pmt::dict_add(msg, pmt::mp("mode"), robust ? sym_robust : sym_exact);
    msg =
        pmt::dict_add(msg, pmt::mp("bins"), pmt::init_s32vector(count, e.bins32.data()));
    msg =
        pmt::dict_add(msg, pmt::mp("freqs"), pmt::init_f64vector(count, e.freqs.data()));
    msg = pmt::dict_add(
        msg, pmt::mp("values"), pmt::init_c32vector(count, e.values.data()));
    msg = pmt::dict_add(
        msg, pmt::mp("power_db"), pmt::init_f32vector(count, e.power_db.data()));
    msg = pmt::dict_add(
        msg, pmt::mp("snr_db"), pmt::init_f32vector(count, e.snr_db.data()));
    if (robust)
        msg = pmt::dict_add(
            msg,
            pmt::mp("noise_floor_db"),
            pmt::from_double(sparse_output::noise_floor_db(noise_floor, n)));
    else
        msg = pmt::dict_add(msg, pmt::mp("not_sparse"), pmt::from_bool(not_sparse));
    if (d_state.have_time)
        msg = pmt::dict_add(msg, key_rx_time, rx_time_at(offset, rate));
    message_port_pub(port_coefficients, msg);

    if (display == nullptr)
        return false;
    sparse_output::display_spectrum(
        n, e.bins.data(), e.values.data(), count, display, d_display_bins, floor_db);
    tag_output(out_offset, offset, rate);
    return true;
}

void sparse_fft_impl::note_not_sparse(std::uint64_t index)
{
    d_not_sparse_frames++;
    d_not_sparse_unreported++;
    if (d_not_sparse_warned && index - d_not_sparse_warned_at < not_sparse_warn_every)
        return;
    d_logger->warn(
        "frame {}: not exactly sparse ({} such frame(s) since the last warning, "
        "{} in all): energy is left that the coefficients found do not "
        "explain, so only the coefficients the residual vouches for were "
        "reported. Noise or tones between bins break exact mode; use mode "
        "\"robust\" for such signals. (Warned at most once per {} frames.)",
        index,
        d_not_sparse_unreported,
        d_not_sparse_frames,
        not_sparse_warn_every);
    d_not_sparse_warned = true;
    d_not_sparse_warned_at = index;
    d_not_sparse_unreported = 0;
}

int sparse_fft_impl::general_work(int noutput_items,
                                  gr_vector_int& ninput_items,
                                  gr_vector_const_void_star& input_items,
                                  gr_vector_void_star& output_items)
{
    const auto* in = static_cast<const gr_complex*>(input_items[0]);
    float* out = output_items.empty() ? nullptr : static_cast<float*>(output_items[0]);
    const std::int64_t available = ninput_items[0];
    const std::uint64_t read_base = nitems_read(0);
    const std::uint64_t written_base = out ? nitems_written(0) : 0;
    collect_tags(read_base + static_cast<std::uint64_t>(available));

    std::int64_t pos = 0; // input samples consumed so far in this call
    int produced = 0;
    auto display_slot = [&]() -> float* {
        return out ? out + static_cast<size_t>(produced) * d_display_bins : nullptr;
    };

    while (pos < available) {
        if (d_skip > 0) { // hop > fft_size: samples between frames are dropped
            const std::int64_t take = std::min(d_skip, available - pos);
            pos += take;
            d_skip -= take;
            continue;
        }
        const bool in_place = d_fill == 0 && available - pos >= d_fft_size;
        const bool completes = in_place || available - pos >= d_fft_size - d_fill;
        if (completes && out && produced >= noutput_items)
            break; // no room for the next frame's output item

        if (in_place) {
            // The whole frame is contiguous in GNU Radio's buffer: no copy.
            if (process_frame(in + pos, display_slot(), written_base + produced))
                produced++;
            if (d_hop <= d_fft_size) {
                pos += d_hop; // the overlap stays in the buffer for the next frame
            } else {
                pos += d_fft_size;
                d_skip = d_hop - d_fft_size;
            }
            continue;
        }

        const std::int64_t take = std::min(d_fft_size - d_fill, available - pos);
        std::memcpy(d_frame.data() + d_fill,
                    in + pos,
                    static_cast<size_t>(take) * sizeof(gr_complex));
        d_fill += take;
        pos += take;
        if (d_fill < d_fft_size)
            continue;
        if (process_frame(d_frame.data(), display_slot(), written_base + produced))
            produced++;
        if (d_hop < d_fft_size) {
            std::memmove(d_frame.data(),
                         d_frame.data() + d_hop,
                         static_cast<size_t>(d_fft_size - d_hop) * sizeof(gr_complex));
            d_fill = d_fft_size - d_hop;
        } else {
            d_fill = 0;
            d_skip = d_hop - d_fft_size;
        }
    }

    consume(0, static_cast<int>(pos));
    return produced;
}

} // namespace gpufft
} // namespace gr
