/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "core/host_memory.h"
#include "core/memory_error.h"
#include "sparse/common/sparse_params.h"
#include "stream/sparse_block_params.h"
#include "stream/sparse_frame_analyzer.h"
#include <sys/resource.h>
#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace gr {
namespace gpufft {
namespace stream {

using namespace sparse_output;

namespace {

// Equivalent noise bandwidth, in bins, of sensing_plan's default window (4-term
// Blackman-Harris): n sum(w^2) / (sum w)^2 = (a0^2 + (a1^2 + a2^2 + a3^2) / 2) / a0^2.
// Its floor is per bin as a tone's power, so white noise reads this much above the
// rectangular window's floor per bin, which the coefficients message has always used.
double blackman_harris_enbw()
{
    const double a0 = 0.35875, a1 = 0.48829, a2 = 0.14128, a3 = 0.01168;
    return (a0 * a0 + 0.5 * (a1 * a1 + a2 * a2 + a3 * a3)) / (a0 * a0);
}

// Floors at or below this are a frame of zeros (no noise to measure).
constexpr double zero_floor_db = -300.0;

std::string power_of_two_or_number(long long n) { return detail::size_string(n); }

// What this process may still map, bytes: the address-space limit (ulimit -v) less
// what it maps now; 0 without a limit.
std::uint64_t address_space_left()
{
    rlimit rl{};
    if (getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return 0;
    std::uint64_t mapped = 0;
    if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
        unsigned long long pages = 0;
        if (std::fscanf(f, "%llu", &pages) == 1)
            mapped = std::uint64_t(pages) * std::uint64_t(sysconf(_SC_PAGE_SIZE));
        std::fclose(f);
    }
    const auto limit = std::uint64_t(rl.rlim_cur);
    return limit > mapped ? limit - mapped : 1;
}

sparse_fft_options plan_options(const sparse_frame_settings& s, gpufft::backend b)
{
    sparse_fft_options opt;
    opt.backend = b;
    opt.device_id = s.device_id;
    opt.mode = checked_mode(s.mode);
    opt.min_snr_db = s.min_snr_db;
    opt.false_alarm = s.false_alarm;
    return opt;
}

} // namespace

void check_samp_rate(double samp_rate)
{
    if (!(samp_rate > 0.0) || !std::isfinite(samp_rate))
        throw std::invalid_argument("samp_rate: must be a finite value > 0 Hz, got " +
                                    std::to_string(samp_rate));
}

std::uint64_t sparse_block_memory(const sparse_frame_settings& s,
                                  gpufft::backend used,
                                  std::string* what)
{
    const auto n = std::uint64_t(s.fft_size);
    const auto p =
        detail::choose_sparse_params(s.fft_size,
                                     s.k,
                                     plan_options(s, used),
                                     used == backend::cuda ? used : backend::cpu);
    const bool sensing = p.robust && p.dense && std::int64_t(n) >= sensing_min_size;
    std::uint64_t engine;
    std::string how;
    if (used == backend::cuda) {
        engine = 0; // spectra and hashes live on the device
        how = "on the device";
    } else if (sensing) {
        // sensing_plan (CPU): the spectrum, FFTW's copy and the power, 20 bytes a bin.
        engine = 20 * n;
        how = "a dense FFT + spectrum sensing, 20 bytes a sample";
    } else if (p.dense) {
        engine = 16 * n; // the spectrum and the windowed spectrum
        how = "a dense FFT, 16 bytes a sample";
    } else {
        // The hashes and their spectra, complex, with room for the values' passes.
        engine = 32 * std::uint64_t(std::max<std::int64_t>(p.samples_read(), 1));
        how = "the sparse path's hashes";
    }
    // The block's frame buffer, and the converted frame of an integer input type.
    const sample_format input = parse_sample_format(s.input_type);
    const std::uint64_t per =
        sample_bytes(input) + (input == sample_format::fc32 ? 0 : 8);
    const std::uint64_t frame = per * n;
    if (what)
        *what = "engine " + detail::bytes_string(engine) + " (" + how +
                ") + frame buffer " + detail::bytes_string(frame) + " (" +
                std::to_string(per) + " bytes a sample)";
    return engine + frame;
}

sparse_frame_analyzer::sparse_frame_analyzer(const sparse_frame_settings& s,
                                             log_handler log)
    : d_fft_size(s.fft_size),
      d_hop(checked_hop(s.hop, s.fft_size)),
      d_display_bins(s.display_bins),
      d_device_id(s.device_id),
      d_dc_mask(s.dc_mask_bins),
      d_rule(parse_bandwidth_rule(s.bandwidth_rule)),
      d_log(std::move(log)),
      d_samp_rate(s.samp_rate),
      d_fallback(checked_backend(s.backend), "sparse_fft", d_log),
      d_resolved(backend::cpu),
      d_tracker(s.hold_frames),
      d_not_sparse_warning(not_sparse_warn_every)
{
    d_wanted.k = s.k;
    d_wanted.mode = checked_mode(s.mode);
    d_wanted.min_snr_db = checked_min_snr_db(s.min_snr_db);
    d_wanted.false_alarm = checked_false_alarm(s.false_alarm);
    d_wanted.floor_frames = checked_floor_frames(s.floor_frames);
    d_wanted.watch_frames = checked_watch_frames(s.watch_frames);
    if (s.fft_size < sparse_fft_min_size)
        throw std::invalid_argument(
            "fft_size: must be >= " + std::to_string(sparse_fft_min_size) + ", got " +
            std::to_string(s.fft_size));
    check_k(s.k, s.fft_size, d_wanted.mode);
    check_samp_rate(s.samp_rate);
    parse_sample_format(s.input_type);
    const int display_max = std::min(s.fft_size, max_display_bins);
    if (s.display_bins < 1 || s.display_bins > display_max)
        throw std::invalid_argument("display_bins: must be in [1, min(fft_size, " +
                                    std::to_string(max_display_bins) + ")] = [1, " +
                                    std::to_string(display_max) + "], got " +
                                    std::to_string(s.display_bins));
    if (s.device_id < 0)
        throw std::invalid_argument("device_id: must be >= 0, got " +
                                    std::to_string(s.device_id));
    if (s.dc_mask_bins < 0 || s.dc_mask_bins >= std::max(1, s.fft_size / 4))
        throw std::invalid_argument(
            "dc_mask_bins: must be in [0, fft_size / 4) = [0, " +
            std::to_string(std::max(1, s.fft_size / 4)) +
            ") (wider would mask more than the band's middle half), got " +
            std::to_string(s.dc_mask_bins));

    // Everything the block holds, counted before any of it is allocated: past the
    // host's memory (or a ulimit -v) the kernel kills the process, or it swaps for
    // minutes, instead of an error (issue #32, item 2).
    d_resolved = resolve_backend(d_fallback.backend(), s.device_id, d_log);
    std::string parts;
    const std::uint64_t need = sparse_block_memory(s, d_resolved, &parts);
    std::uint64_t have = detail::host_physical_memory();
    std::string where = "this host has " + detail::bytes_string(have);
    if (const std::uint64_t left = address_space_left(); left > 0 && left < have) {
        have = left;
        where = "this process may map " + detail::bytes_string(have) +
                " more (its address-space limit, ulimit -v)";
    }
    if (have > 0 && need > have)
        throw std::invalid_argument(
            "fft_size: " + power_of_two_or_number(s.fft_size) + " needs " +
            detail::bytes_string(need) + " of host memory (" + parts + "); " + where +
            " (a smaller fft_size; in robust mode a higher min_snr_db lets the sparse "
            "path run)");

    try {
        use_engine(
            d_fallback.make([&](gpufft::backend b) { return make_engine(d_wanted, b); }),
            d_wanted);
    } catch (const std::bad_alloc&) {
        throw detail::memory_error(
            "sparse_fft: fft_size = " + power_of_two_or_number(s.fft_size) +
            " needs about " + detail::bytes_string(need) + " (" + parts +
            "): out of host memory");
    } catch (const detail::memory_error& e) {
        throw detail::memory_error(
            "sparse_fft: fft_size = " + power_of_two_or_number(s.fft_size) +
            " needs about " + detail::bytes_string(need) + " (" + parts +
            "): " + e.what());
    }
    // Says which path runs: sparse, dense FFT + top-k, or dense FFT + sensing. Logged
    // here only: the engine's own line is held back (see make_engine).
    log_message(d_log, log_level::info, d_description);
    d_tones.reserve(static_cast<std::size_t>(s.k));
    d_entries.reserve(static_cast<std::size_t>(s.k));
}

sparse_frame_analyzer::engine sparse_frame_analyzer::make_engine(const engine_key& key,
                                                                 gpufft::backend b) const
{
    const gpufft::backend used = b == backend::automatic ? d_resolved : b;
    // The sparse plan logs its parameters when it runs dense; the analyzer logs the
    // engine's describe() line itself, so that line is held back (it was logged twice
    // per block, issue #32 item 13). Everything else the plan says passes.
    const log_handler log = d_log;
    const log_handler plan_log = [log](log_level level, const std::string& m) {
        if (level == log_level::info && m.rfind("sparse FFT n=", 0) == 0)
            return;
        log_message(log, level, m);
    };
    sparse_fft_options opt;
    opt.backend = used;
    opt.device_id = d_device_id;
    opt.mode = key.mode;
    opt.min_snr_db = key.min_snr_db;
    opt.false_alarm = key.false_alarm;
    opt.log = plan_log;
    engine e;
    if (key.mode == sparse_fft_mode::robust) {
        const auto p = detail::choose_sparse_params(d_fft_size, key.k, opt, used);
        if (p.dense && d_fft_size >= sensing_min_size) {
            sensing_options so;
            so.backend = used;
            so.device_id = d_device_id;
            so.max_signals = key.k;
            so.false_alarm = key.false_alarm;
            so.bandwidth_rule = d_rule;
            so.dc_mask_bins = d_dc_mask;
            // Frames overlapping by half or more share their noise: each keeps its floor.
            so.floor_frames = floor_frames_in_force(key.floor_frames, d_hop, d_fft_size);
            so.watch_frames = key.watch_frames;
            so.log = d_log;
            e.sensing = std::make_unique<sensing_plan>(d_fft_size, so);
            e.path = frame_path::sensing;
            e.backend = to_string(e.sensing->backend());
            e.description = detail::describe_params(p) + "; the frame goes to " +
                            "spectrum sensing: " + e.sensing->describe();
            return e;
        }
    }
    e.sparse = std::make_unique<sparse_fft_plan>(d_fft_size, key.k, opt);
    e.path = key.mode == sparse_fft_mode::robust ? frame_path::sparse : frame_path::exact;
    e.backend = to_string(e.sparse->backend());
    e.description = e.sparse->describe();
    return e;
}

void sparse_frame_analyzer::use_engine(engine e, const engine_key& key)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    d_engine = std::move(e);
    d_current = key;
    d_path = d_engine.path;
    d_backend_name = d_engine.backend;
    d_description = d_engine.description;
}

std::string sparse_frame_analyzer::mode_name() const { return to_string(mode()); }

sparse_fft_mode sparse_frame_analyzer::mode() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_wanted.mode;
}

double sparse_frame_analyzer::min_snr_db() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_wanted.min_snr_db;
}

double sparse_frame_analyzer::false_alarm() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_wanted.false_alarm;
}

void sparse_frame_analyzer::set_k(int k)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    check_k(k, d_fft_size, d_wanted.mode);
    d_wanted.k = k;
}

int sparse_frame_analyzer::k() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_wanted.k;
}

void sparse_frame_analyzer::set_mode(const std::string& mode)
{
    const sparse_fft_mode m = checked_mode(mode);
    std::lock_guard<std::mutex> lock(d_mutex);
    // k's range depends on the mode: robust takes at most fft_size / 4.
    check_k(d_wanted.k, d_fft_size, m);
    d_wanted.mode = m;
}

void sparse_frame_analyzer::set_min_snr_db(double min_snr_db)
{
    checked_min_snr_db(min_snr_db);
    std::lock_guard<std::mutex> lock(d_mutex);
    d_wanted.min_snr_db = min_snr_db;
}

void sparse_frame_analyzer::set_false_alarm(double false_alarm)
{
    checked_false_alarm(false_alarm);
    std::lock_guard<std::mutex> lock(d_mutex);
    d_wanted.false_alarm = false_alarm;
}

int sparse_frame_analyzer::floor_frames() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_wanted.floor_frames;
}

int sparse_frame_analyzer::watch_frames() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_wanted.watch_frames;
}

void sparse_frame_analyzer::set_floor_frames(int floor_frames)
{
    checked_floor_frames(floor_frames);
    std::lock_guard<std::mutex> lock(d_mutex);
    d_wanted.floor_frames = floor_frames;
}

void sparse_frame_analyzer::set_watch_frames(int watch_frames)
{
    checked_watch_frames(watch_frames);
    std::lock_guard<std::mutex> lock(d_mutex);
    d_wanted.watch_frames = watch_frames;
}

void sparse_frame_analyzer::set_samp_rate(double samp_rate)
{
    check_samp_rate(samp_rate);
    std::lock_guard<std::mutex> lock(d_mutex);
    d_samp_rate = samp_rate;
}

double sparse_frame_analyzer::samp_rate() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_samp_rate;
}

std::string sparse_frame_analyzer::backend() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_backend_name;
}

std::string sparse_frame_analyzer::describe() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_description;
}

void sparse_frame_analyzer::update_engine()
{
    engine_key wanted;
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        wanted = d_wanted;
    }
    if (wanted == d_current)
        return;
    try {
        use_engine(
            d_fallback.make([&](gpufft::backend b) { return make_engine(wanted, b); }),
            wanted);
    } catch (const std::exception& e) {
        log_message(d_log,
                    log_level::error,
                    "new settings (k=" + std::to_string(wanted.k) +
                        ", mode=" + to_string(wanted.mode) +
                        ", min_snr_db=" + num(wanted.min_snr_db) +
                        ", false_alarm=" + num(wanted.false_alarm) +
                        ", floor_frames=" + std::to_string(wanted.floor_frames) +
                        ", watch_frames=" + std::to_string(wanted.watch_frames) +
                        ") failed, keeping k=" + std::to_string(d_current.k) + ": " +
                        e.what());
        std::lock_guard<std::mutex> lock(d_mutex);
        d_wanted = d_current;
        return;
    }
    log_message(
        d_log, log_level::debug, "k=" + std::to_string(wanted.k) + ": " + describe());
}

void sparse_frame_analyzer::signals_from_tones(std::int64_t n)
{
    // Each tone of the sparse plan a signal one bin wide: its centre the tone, its
    // power the tone's, its SNR the tone's (over one bin's noise, rectangular window).
    auto& r = d_result;
    const double floor_db = d_noise_floor_db;
    for (const auto& t : d_tones) {
        const double f = signed_frequency(t.frequency, n);
        const std::int64_t bin = std::int64_t(std::llround(f));
        if (d_dc_mask > 0 && std::llabs(bin) <= d_dc_mask)
            continue;
        sensed_signal s;
        s.center_bin = s.tone_bin = f;
        s.lower_bin = f - 0.5;
        s.upper_bin = f + 0.5;
        s.bandwidth_bins = 1.0;
        s.peak_power_dbfs = s.total_power_dbfs = power_db(t.amplitude, n);
        s.snr_db = t.snr_db;
        s.floor_dbfs = floor_db;
        s.first_bin = s.last_bin = bin;
        s.dc = std::llabs(bin) <= 1;
        s.narrow = s.tone_refined = true;
        s.tone_amplitude = t.amplitude;
        r.signals.push_back(s);
    }
    r.bins_above = r.bands_found = std::int64_t(d_tones.size());
    // The plan returns at most k tones: k of them means the cap may have cut some.
    r.truncated = std::int64_t(d_tones.size()) >= std::int64_t(d_current.k);
    r.noise_floor_dbfs = floor_db;
}

void sparse_frame_analyzer::signals_from_coefficients(std::int64_t n)
{
    auto& r = d_result;
    const auto& e = d_entries;
    for (std::size_t i = 0; i < e.bins.size(); ++i) {
        const std::int64_t bin = signed_bin(e.bins[i], n);
        if (d_dc_mask > 0 && std::llabs(bin) <= d_dc_mask)
            continue;
        sensed_signal s;
        s.center_bin = s.tone_bin = double(bin);
        s.lower_bin = double(bin) - 0.5;
        s.upper_bin = double(bin) + 0.5;
        s.bandwidth_bins = 1.0;
        s.peak_power_dbfs = s.total_power_dbfs = e.power_db[i];
        // Exact mode has no noise estimate.
        s.snr_db = s.floor_dbfs = std::nan("");
        s.first_bin = s.last_bin = bin;
        s.dc = std::llabs(bin) <= 1;
        s.narrow = s.tone_refined = true;
        s.tone_amplitude = std::complex<double>(e.values[i]);
        r.signals.push_back(s);
    }
    std::sort(r.signals.begin(), r.signals.end(), [](const auto& a, const auto& b) {
        return a.center_bin < b.center_bin;
    });
    r.bins_above = r.bands_found = std::int64_t(e.bins.size());
    // Energy left that k coefficients do not explain: more than k stood out.
    r.truncated = d_not_sparse;
    r.noise_floor_dbfs = std::nan("");
}

void sparse_frame_analyzer::entries_from_signals(std::int64_t n,
                                                 double center_freq,
                                                 double rate)
{
    // The deprecated coefficients message in robust mode's sensing path: one entry a
    // signal, its tone fit (a wide signal: its peak bin at its peak power).
    d_tones.clear();
    for (const auto& s : d_result.signals) {
        sparse_tone t;
        const double f = s.tone_bin < 0 ? s.tone_bin + double(n) : s.tone_bin;
        t.frequency = std::min(std::max(f, 0.0), std::nextafter(double(n), 0.0));
        const bool fitted = s.narrow && std::abs(s.tone_amplitude) > 0;
        t.amplitude = fitted ? s.tone_amplitude
                             : std::complex<double>(
                                   double(n) * std::pow(10.0, s.peak_power_dbfs / 20.0));
        t.snr_db = double(power_db(t.amplitude, n)) - d_noise_floor_db;
        d_tones.push_back(t);
    }
    entries_from_tones(n, center_freq, rate, d_tones, d_entries);
}

void sparse_frame_analyzer::note_truncated(std::uint64_t index)
{
    d_truncated++;
    if (!d_truncated_log.allow())
        return;
    const std::uint64_t held = d_truncated_log.held();
    log_message(d_log,
                log_level::warning,
                "frame " + std::to_string(index) + ": k = " +
                    std::to_string(d_current.k) + " signals reported, the strongest of " +
                    std::to_string(d_result.bands_found) +
                    " found; weaker ones are left out (raise k to see them)" +
                    (held > 0 ? " (" + std::to_string(held) +
                                    " more truncated frame(s) since the last such line)"
                              : std::string()) +
                    " (logged at most once per 10 s; every frame's detections say "
                    "truncated)");
}

namespace {
const char* const non_finite_error = "non-finite samples (NaN or infinity) in the frame";
} // namespace

bool sparse_frame_analyzer::analyze(
    const std::complex<float>* frame,
    std::uint64_t index,
    double center_freq,
    double rate,
    std::int64_t first_sample,
    memory where,
    const std::function<const std::complex<float>*()>& on_host)
{
    update_engine();
    // A retune (rx_freq) or a new rate: the tracked floor and held signals are stale.
    if (d_engine.sensing && d_tuned &&
        (center_freq != d_tuned_freq || rate != d_tuned_rate))
        d_engine.sensing->reset_floor();
    d_tuned = true;
    d_tuned_freq = center_freq;
    d_tuned_rate = rate;
    d_error.clear();
    d_noise_floor_db = 0.0;
    d_not_sparse = false;
    d_result = sensing_result();
    d_signals_hz.clear();
    d_ended.clear();
    // The sparse engine only checks the samples it reads; a NaN anywhere in the frame
    // makes the frame's spectrum meaningless, so check them all (a vectorized pass).
    // The sensing path needs no pass of its own (5 % of the FFT at 2^16): a NaN or an
    // infinity anywhere spreads over the whole spectrum, whose floor reads it and
    // refuses the frame; the samples are checked only then, for the message.
    const bool check_first =
        where == memory::host && d_engine.path != frame_path::sensing;
    const auto finite = [&] {
        return all_finite(frame, static_cast<std::size_t>(d_fft_size));
    };
    if (check_first && !finite()) {
        d_error = non_finite_error;
        d_skipped++;
        return false;
    }
    const std::int64_t n = d_fft_size;
    double noise_floor = 0.0;
    const auto transform = [&] {
        // A device frame for an engine on the CPU (moved there under backend "auto"):
        // the same frame on the host.
        const bool host = where == memory::host || d_engine.backend != "cuda";
        const std::complex<float>* x = where == memory::host || !host ? frame : on_host();
        const memory w = host ? memory::host : memory::device;
        switch (d_engine.path) {
        case frame_path::sensing:
            d_engine.sensing->detect(x, d_result, w);
            break;
        case frame_path::sparse:
            d_engine.sparse->detect(x, d_tones, w);
            noise_floor = d_engine.sparse->noise_floor();
            break;
        case frame_path::exact:
            d_engine.sparse->execute(x, d_entries.bins, d_entries.values, w);
            d_not_sparse = d_engine.sparse->not_sparse();
            break;
        }
    };
    const auto to_cpu = [&] {
        use_engine(make_engine(d_current, d_fallback.backend()), d_current);
    };
    if (!d_fallback.run(transform, to_cpu, d_error)) {
        if (where == memory::host && !check_first && !finite())
            d_error = non_finite_error;
        d_skipped++;
        return false;
    }
    d_processed++;
    switch (d_engine.path) {
    case frame_path::sensing: {
        const double floor = d_result.noise_floor_dbfs;
        d_noise_floor_db = std::isfinite(floor) && floor > zero_floor_db
                               ? floor - 10.0 * std::log10(blackman_harris_enbw())
                               : zero_floor_db;
        entries_from_signals(n, center_freq, rate);
        break;
    }
    case frame_path::sparse:
        d_noise_floor_db = sparse_output::noise_floor_db(noise_floor, n);
        signals_from_tones(n);
        entries_from_tones(n, center_freq, rate, d_tones, d_entries);
        break;
    case frame_path::exact:
        entries_from_coefficients(n, center_freq, rate, d_entries);
        signals_from_coefficients(n);
        break;
    }
    std::sort(d_result.signals.begin(),
              d_result.signals.end(),
              [](const sensed_signal& a, const sensed_signal& b) {
                  return a.center_bin < b.center_bin;
              });
    d_signals_hz = to_hz(d_result.signals, n, rate, center_freq);
    const std::int64_t first =
        first_sample >= 0 ? first_sample : std::int64_t(index) * std::int64_t(d_hop);
    d_tracker.update(first, n, rate, rate / double(n), d_signals_hz, d_ended);
    // Exact mode's not-sparse warning (below) says it for that mode.
    if (d_result.truncated && d_engine.path != frame_path::exact)
        note_truncated(index);
    if (d_not_sparse) {
        const std::string warning = d_not_sparse_warning.note(index);
        if (!warning.empty())
            log_message(d_log, log_level::warning, warning);
    }
    return true;
}

std::vector<transmission> sparse_frame_analyzer::flush()
{
    std::vector<transmission> out;
    d_tracker.flush(out);
    return out;
}

} // namespace stream
} // namespace gpufft
} // namespace gr
