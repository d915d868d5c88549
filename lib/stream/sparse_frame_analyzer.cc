/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "../sparse/sparse_block_params.h"
#include "sparse_frame_analyzer.h"
#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gr {
namespace gpufft {
namespace stream {

using namespace sparse_output;

void check_samp_rate(double samp_rate)
{
    if (!(samp_rate > 0.0) || !std::isfinite(samp_rate))
        throw std::invalid_argument("samp_rate: must be a finite value > 0 Hz, got " +
                                    std::to_string(samp_rate));
}

sparse_frame_analyzer::sparse_frame_analyzer(const sparse_frame_settings& s,
                                             log_handler log)
    : d_fft_size(s.fft_size),
      d_hop(checked_hop(s.hop, s.fft_size)),
      d_display_bins(s.display_bins),
      d_device_id(s.device_id),
      d_mode(checked_mode(s.mode)),
      d_min_snr_db(checked_min_snr_db(s.min_snr_db)),
      d_false_alarm(checked_false_alarm(s.false_alarm)),
      d_log(std::move(log)),
      d_k(s.k),
      d_samp_rate(s.samp_rate),
      d_fallback(checked_backend(s.backend), "sparse_fft", d_log),
      d_plan_k(s.k),
      d_not_sparse_warning(not_sparse_warn_every)
{
    if (s.fft_size < sparse_fft_min_size)
        throw std::invalid_argument(
            "fft_size: must be >= " + std::to_string(sparse_fft_min_size) + ", got " +
            std::to_string(s.fft_size));
    check_k(s.k, s.fft_size, d_mode);
    check_samp_rate(s.samp_rate);
    const int display_max = std::min(s.fft_size, max_display_bins);
    if (s.display_bins < 1 || s.display_bins > display_max)
        throw std::invalid_argument("display_bins: must be in [1, min(fft_size, " +
                                    std::to_string(max_display_bins) + ")] = [1, " +
                                    std::to_string(display_max) + "], got " +
                                    std::to_string(s.display_bins));
    if (s.device_id < 0)
        throw std::invalid_argument("device_id: must be >= 0, got " +
                                    std::to_string(s.device_id));

    use_plan(d_fallback.make([&](gpufft::backend b) { return make_plan(s.k, b); }), s.k);
    // Says whether the engine runs sparse or a dense FFT.
    log_message(d_log, log_level::info, d_description);
    d_tones.reserve(static_cast<std::size_t>(s.k));
    d_entries.reserve(static_cast<std::size_t>(s.k));
}

std::unique_ptr<sparse_fft_plan> sparse_frame_analyzer::make_plan(int k,
                                                                  gpufft::backend b) const
{
    sparse_fft_options opt;
    opt.backend = b;
    opt.device_id = d_device_id;
    opt.mode = d_mode;
    opt.min_snr_db = d_min_snr_db;
    opt.false_alarm = d_false_alarm;
    opt.log = d_log;
    return std::make_unique<sparse_fft_plan>(d_fft_size, k, opt);
}

void sparse_frame_analyzer::use_plan(std::unique_ptr<sparse_fft_plan> plan, int k)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    d_plan = std::move(plan);
    d_plan_k = k;
    d_backend_name = to_string(d_plan->backend());
    d_description = d_plan->describe();
}

std::string sparse_frame_analyzer::mode_name() const
{
    return d_mode == sparse_fft_mode::robust ? "robust" : "exact";
}

void sparse_frame_analyzer::set_k(int k)
{
    check_k(k, d_fft_size, d_mode);
    std::lock_guard<std::mutex> lock(d_mutex);
    d_k = k;
}

int sparse_frame_analyzer::k() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_k;
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

void sparse_frame_analyzer::update_plan()
{
    int wanted;
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        wanted = d_k;
    }
    if (wanted == d_plan_k)
        return;
    try {
        use_plan(d_fallback.make([&](gpufft::backend b) { return make_plan(wanted, b); }),
                 wanted);
    } catch (const std::exception& e) {
        log_message(d_log,
                    log_level::error,
                    "set_k(" + std::to_string(wanted) + ") failed, keeping k=" +
                        std::to_string(d_plan_k) + ": " + e.what());
        std::lock_guard<std::mutex> lock(d_mutex);
        d_k = d_plan_k;
        return;
    }
    log_message(
        d_log, log_level::debug, "k=" + std::to_string(wanted) + ": " + describe());
}

bool sparse_frame_analyzer::analyze(const std::complex<float>* frame,
                                    std::uint64_t index,
                                    double center_freq,
                                    double rate)
{
    update_plan();
    d_error.clear();
    d_noise_floor_db = 0.0;
    d_not_sparse = false;
    // The engine only checks the samples it reads; a NaN anywhere in the frame makes
    // the frame's spectrum meaningless, so check them all (a vectorized pass).
    if (!all_finite(frame, static_cast<std::size_t>(d_fft_size))) {
        d_error = "non-finite samples (NaN or infinity) in the frame";
        d_skipped++;
        return false;
    }
    const std::int64_t n = d_fft_size;
    const bool robust = d_mode == sparse_fft_mode::robust;
    double noise_floor = 0.0;
    const auto transform = [&] {
        if (robust) {
            d_plan->detect(frame, d_tones, memory::host);
            noise_floor = d_plan->noise_floor();
        } else {
            d_plan->execute(frame, d_entries.bins, d_entries.values, memory::host);
            d_not_sparse = d_plan->not_sparse();
        }
    };
    const auto to_cpu = [&] {
        use_plan(make_plan(d_plan_k, d_fallback.backend()), d_plan_k);
    };
    if (!d_fallback.run(transform, to_cpu, d_error)) {
        d_skipped++;
        return false;
    }
    d_processed++;
    if (robust) {
        entries_from_tones(n, center_freq, rate, d_tones, d_entries);
        d_noise_floor_db = sparse_output::noise_floor_db(noise_floor, n);
    } else {
        entries_from_coefficients(n, center_freq, rate, d_entries);
    }
    if (d_not_sparse) {
        const std::string warning = d_not_sparse_warning.note(index);
        if (!warning.empty())
            log_message(d_log, log_level::warning, warning);
    }
    return true;
}

} // namespace stream
} // namespace gpufft
} // namespace gr
